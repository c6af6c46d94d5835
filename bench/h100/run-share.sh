#!/usr/bin/env bash
# Builds bench/h100/share.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and times every configuration.
#   bench/h100/run-share.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-share.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/share" share.cu \
  2> "$out/share.resource-usage.txt"
cuobjdump -sass "$out/share" > "$out/share.sass.txt"
"$out/share" > "$out/h100-share.csv"
cat "$out/h100-share.csv"
