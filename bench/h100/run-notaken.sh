#!/usr/bin/env bash
# Builds bench/h100/notaken.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: a loop of 4 dependent FFMAs with a branch no lane takes, its
# predicate a parameter's, the warp's or the lane's.
#   bench/h100/run-notaken.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-notaken.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-notaken.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/notaken" notaken.cu \
  2> "$out/notaken.resource-usage.txt"
cuobjdump -sass "$tmp/notaken" | gzip -9 > "$out/notaken.sass.gz"
"$tmp/notaken" time > "$out/h100-notaken.csv"
cat "$out/h100-notaken.csv"
