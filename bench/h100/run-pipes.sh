#!/usr/bin/env bash
# Builds bench/h100/pipes.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: loops of independent arithmetic steps (one op, or two in turn) at
# 1 to 32 warps on one SM; then each loop once under Nsight Compute (its raw page: instructions
# by pipe, warp states).
#   bench/h100/run-pipes.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-pipes.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-pipes.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo --resource-usage -o "$tmp/pipes" pipes.cu \
  2> "$out/pipes.resource-usage.txt"
cuobjdump -sass "$tmp/pipes" | gzip -9 > "$out/pipes.sass.gz"
"$tmp/pipes" time > "$out/h100-pipes.csv"
ncu --clock-control none --section ComputeWorkloadAnalysis --section WarpStateStats \
  --section InstructionStats -k 'regex:pipes' --csv --page raw "$tmp/pipes" ncu \
  2> "$tmp/ncu.log" | gzip -9 > "$out/ncu-pipes.csv.gz" || tail -20 "$tmp/ncu.log"
head -5 "$out/h100-pipes.csv"
