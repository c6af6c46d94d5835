#!/usr/bin/env bash
# Builds bench/h100/turns.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), runs it (each warp's clock reads after each step of its loop) and samples nine
# of its launches under Nsight Compute (warp states, and the Source page: each instruction's
# samples by stall reason).
#   bench/h100/run-turns.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-turns.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/turns
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-turns.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" turns.cu \
  2> "$out/turns.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/turns.sass.gz"
"$bin" > "$out/h100-turns.csv"
wc -l "$out/h100-turns.csv"
"$bin" ncu > "$tmp/ncu-turns-configs.csv"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  --warp-sampling-interval 0 -k 'regex:turns' -o "$tmp/turns" "$bin" ncu > "$tmp/ncu-run.log" 2>&1 ||
  tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/turns.ncu-rep" --page raw --csv > "$tmp/ncu-turns.csv"
python3 ncu2csv.py "$tmp/ncu-turns-configs.csv" "$tmp/ncu-turns.csv" > "$out/h100-turns-states.csv"
ncu --import "$tmp/turns.ncu-rep" --page source --print-source sass --csv 2> /dev/null |
  gzip -9 > "$out/ncu-turns-source.csv.gz" || true
gzip -9 -c "$tmp/ncu-turns.csv" > "$out/ncu-turns.csv.gz"
cat "$out/h100-turns-states.csv"
