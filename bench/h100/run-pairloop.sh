#!/usr/bin/env bash
# Builds bench/h100/pairloop.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: two warps on one scheduler, each timing its own loop of FFMAs, at
# offsets of 0 to 63 cycles; then Nsight's Source page of three pairs (each instruction's samples
# by warp state).
#   bench/h100/run-pairloop.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-pairloop.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-pairloop.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/pairloop" pairloop.cu \
  2> "$out/pairloop.resource-usage.txt"
cuobjdump -sass "$tmp/pairloop" | gzip -9 > "$out/pairloop.sass.gz"
"$tmp/pairloop" time > "$out/h100-pairloop.csv"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --warp-sampling-interval 0 -k 'regex:pairloop' -o "$tmp/pairloop-source" "$tmp/pairloop" ncu \
  > "$tmp/ncu-run.log" 2>&1 || tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/pairloop-source.ncu-rep" --page source --print-source sass --csv \
  2> "$tmp/ncu-source.log" | gzip -9 > "$out/ncu-pairloop-source.csv.gz" || tail "$tmp/ncu-source.log"
head -5 "$out/h100-pairloop.csv"
