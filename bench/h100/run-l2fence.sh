#!/usr/bin/env bash
# Builds bench/h100/l2fence.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: what a fence after stores waits for, by their lines and what the L2 held.
#   bench/h100/run-l2fence.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-l2fence.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/l2fence
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-l2fence.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" l2fence.cu \
  2> "$out/l2fence.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/l2fence.sass.gz"
"$bin" > "$out/h100-l2fence.csv" 2>> "$out/gpu-l2fence.txt"
cat "$out/h100-l2fence.csv"
