#!/usr/bin/env bash
# Builds bench/h100/stq.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: its loops' clock, then Nsight Compute's warp states of each
# configuration (how many stores an SM holds before a warp's store waits at issue).
#   bench/h100/run-stq.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-stq.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-stq.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/stq" stq.cu 2> "$out/stq.resource-usage.txt"
cuobjdump -sass "$tmp/stq" | gzip -9 > "$out/stq.sass.gz"
"$tmp/stq" time > "$out/h100-stq.csv"
"$tmp/stq" ncu > "$tmp/ncu-stq-configs.csv"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  -k 'regex:^stq' -o "$tmp/stq" "$tmp/stq" ncu > "$tmp/ncu-run.log" 2>&1 || tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/stq.ncu-rep" --page raw --csv > "$tmp/ncu-stq.csv"
python3 ncu2csv.py "$tmp/ncu-stq-configs.csv" "$tmp/ncu-stq.csv" > "$out/h100-stq-states.csv"
gzip -9 -c "$tmp/ncu-stq.csv" > "$out/ncu-stq.csv.gz"
cat "$out/h100-stq.csv" "$out/h100-stq-states.csv"
