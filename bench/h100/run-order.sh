#!/usr/bin/env bash
# Builds bench/h100/order.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: each warp's clock reads around its loop of FMUL chains (which
# warp a scheduler issues when several can).
#   bench/h100/run-order.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-order.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; } > "$out/gpu-order.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/order" order.cu 2> "$out/order.resource-usage.txt"
cuobjdump -sass "$tmp/order" | gzip -9 > "$out/order.sass.gz"
"$tmp/order" time > "$out/h100-order.csv"
head -5 "$out/h100-order.csv"
