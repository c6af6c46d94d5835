#!/usr/bin/env bash
# Builds bench/h100/l2part.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: whether the L2 reads sectors written in part before their lines leave it, and what a dirty L2 costs such stores.
#   bench/h100/run-l2part.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-l2part.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/l2part
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-l2part.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" l2part.cu \
  2> "$out/l2part.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/l2part.sass.gz"
"$bin" > "$out/h100-l2part.csv" 2>> "$out/gpu-l2part.txt"
cat "$out/h100-l2part.csv"
