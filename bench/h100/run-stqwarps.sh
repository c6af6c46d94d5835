#!/usr/bin/env bash
# Builds bench/h100/stqwarps.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: each warp's clock reads, block 0's warps of every configuration.
#   bench/h100/run-stqwarps.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-stqwarps.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-stqwarps.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/stqwarps" stqwarps.cu \
  2> "$out/stqwarps.resource-usage.txt"
cuobjdump -sass "$tmp/stqwarps" | gzip -9 > "$out/stqwarps.sass.gz"
"$tmp/stqwarps" > "$out/h100-stqwarps.csv"
wc -l "$out/h100-stqwarps.csv"
