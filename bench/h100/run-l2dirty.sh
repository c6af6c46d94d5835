#!/usr/bin/env bash
# Builds bench/h100/l2dirty.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: what the L2's state at launch costs DRAM loads and stores on the whole GPU.
#   bench/h100/run-l2dirty.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-l2dirty.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/l2dirty
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-l2dirty.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" l2dirty.cu \
  2> "$out/l2dirty.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/l2dirty.sass.gz"
"$bin" > "$out/h100-l2dirty.csv"
cat "$out/h100-l2dirty.csv"
