#!/usr/bin/env bash
# Builds bench/h100/fencewait.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: what one SM's __threadfence() waits while the other SMs store.
#   bench/h100/run-fencewait.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-fencewait.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/fencewait
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-fencewait.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" fencewait.cu \
  2> "$out/fencewait.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/fencewait.sass.gz"
"$bin" > "$out/h100-fencewait.csv"
cat "$out/h100-fencewait.csv"
