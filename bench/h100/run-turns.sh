#!/usr/bin/env bash
# Builds bench/h100/turns.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: each warp's clock reads after each step of its loop.
#   bench/h100/run-turns.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-turns.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-turns.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/turns" turns.cu \
  2> "$out/turns.resource-usage.txt"
cuobjdump -sass "$tmp/turns" | gzip -9 > "$out/turns.sass.gz"
"$tmp/turns" > "$out/h100-turns.csv"
wc -l "$out/h100-turns.csv"
