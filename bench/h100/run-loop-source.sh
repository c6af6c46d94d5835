#!/usr/bin/env bash
# Builds bench/h100/loop.cu on a machine with an H100-class GPU and CUDA and samples, with Nsight
# Compute, each SASS instruction's warp states (the Source page: where in the loop the warps
# wait, and for what) for U = 1 and 4 at every occupancy of `loop ncu`.
#   bench/h100/run-loop-source.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-loop-source.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
ncu --version | tail -1 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$out/loop" loop.cu
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --warp-sampling-interval 0 -k 'regex:loop' -o "$out/loop-source" "$out/loop" ncu \
  > "$out/ncu-run.log" 2>&1 || tail -20 "$out/ncu-run.log"
ncu --import "$out/loop-source.ncu-rep" --page source --print-source sass --csv \
  > "$out/loop-source.csv" 2> "$out/ncu-source.log" || tail "$out/ncu-source.log"
ncu --import "$out/loop-source.ncu-rep" --page raw --csv \
  > "$out/loop-source-raw.csv" 2>> "$out/ncu-source.log" || true
wc -l "$out"/*.csv
head -c 3000 "$out/loop-source.csv"
