#!/usr/bin/env bash
# Builds bench/h100/l2fill.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: where the L2 starts to hold stores to DRAM and what the lines it replaces cost them.
#   bench/h100/run-l2fill.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-l2fill.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/l2fill
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-l2fill.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" l2fill.cu \
  2> "$out/l2fill.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/l2fill.sass.gz"
"$bin" > "$out/h100-l2fill.csv" 2>> "$out/gpu-l2fill.txt"
cat "$out/h100-l2fill.csv"
