#!/usr/bin/env bash
# Builds bench/h100/ldc.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every configuration, and samples a subset (the loop alone, hits, misses,
# 32 addresses a read; 1 and 32 warps) under Nsight Compute
# (warp states, and the Source page: each instruction's samples by stall reason).
#   bench/h100/run-ldc.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-ldc.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/ldc
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-ldc.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" ldc.cu 2> "$out/ldc.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/ldc.sass.gz"
"$bin" > "$out/h100-ldc.csv"
"$bin" ncu > "$tmp/ncu-ldc-configs.csv"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  --warp-sampling-interval 0 -k 'regex:ldc' -o "$tmp/ldc" "$bin" ncu > "$tmp/ncu-run.log" 2>&1 ||
  tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/ldc.ncu-rep" --page raw --csv > "$tmp/ncu-ldc.csv"
python3 ncu2csv.py "$tmp/ncu-ldc-configs.csv" "$tmp/ncu-ldc.csv" > "$out/h100-ldc-states.csv"
ncu --import "$tmp/ldc.ncu-rep" --page source --print-source sass --csv 2> /dev/null |
  gzip -9 > "$out/ncu-ldc-source.csv.gz" || true
gzip -9 -c "$tmp/ncu-ldc.csv" > "$out/ncu-ldc.csv.gz"
cat "$out/h100-ldc.csv" "$out/h100-ldc-states.csv"
