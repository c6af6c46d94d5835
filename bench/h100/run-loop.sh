#!/usr/bin/env bash
# Builds bench/h100/loop.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every configuration and profiles U = 1 and 4 with Nsight Compute.
#   bench/h100/run-loop.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-loop.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/loop" loop.cu \
  2> "$out/loop.resource-usage.txt"
cuobjdump -sass "$out/loop" > "$out/loop.sass.txt"
echo "== time"
"$out/loop" > "$out/h100-loop.csv"
cat "$out/h100-loop.csv"
echo "== ncu"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  -k 'regex:loop' --csv --page raw "$out/loop" ncu > "$out/ncu-loop.csv" 2> "$out/ncu-loop.log" ||
  tail "$out/ncu-loop.log"
wc -l "$out/ncu-loop.csv"
