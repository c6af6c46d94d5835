#!/usr/bin/env bash
# Builds bench/h100/mioq.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every configuration and profiles a subset with Nsight Compute.
#   bench/h100/run-mioq.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-mioq.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/mioq" mioq.cu \
  2> "$out/mioq.resource-usage.txt"
cuobjdump -sass "$out/mioq" > "$out/mioq.sass.txt"
cuobjdump -res-usage "$out/mioq" > "$out/mioq.res-usage.txt"
echo "== time"
"$out/mioq" mioq > "$out/h100-mioq.csv"
tail -3 "$out/h100-mioq.csv"
echo "== ncu"
"$out/mioq" mioq ncu > "$out/ncu-mioq-configs.csv"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  -k 'regex:^mioq' --csv --page raw "$out/mioq" mioq ncu > "$out/ncu-mioq.csv" 2> "$out/ncu-mioq.log" ||
  tail "$out/ncu-mioq.log"
wc -l "$out/ncu-mioq.csv"
