#!/usr/bin/env bash
# Builds bench/h100/dispatch.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and times every configuration.
#   bench/h100/run-dispatch.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-dispatch.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/dispatch" dispatch.cu \
  2> "$out/dispatch.resource-usage.txt"
cuobjdump -sass "$out/dispatch" > "$out/dispatch.sass.txt"
"$out/dispatch" > "$out/h100-dispatch.csv" 2> "$out/h100-dispatch-sm0-3.csv"
cat "$out/h100-dispatch.csv"
