#!/usr/bin/env bash
# Builds bench/h100/blocks.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and times every configuration.
#   bench/h100/run-blocks.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-blocks.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/blocks" blocks.cu \
  2> "$out/blocks.resource-usage.txt"
cuobjdump -sass "$out/blocks" > "$out/blocks.sass.txt"
"$out/blocks" > "$out/h100-blocks.csv"
cat "$out/h100-blocks.csv"
