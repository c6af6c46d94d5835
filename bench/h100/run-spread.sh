#!/usr/bin/env bash
# Builds bench/h100/spread.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every grid and profiles one launch of each under Nsight Compute.
#   bench/h100/run-spread.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-spread.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
tmp=$(mktemp -d)
bin=$tmp/spread
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" spread.cu \
  2> "$out/spread.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/spread.sass.gz"
"$bin" > "$out/h100-spread.csv" 2> "$out/spread-blocks.csv"
gzip -9 -f "$out/spread-blocks.csv"
"$bin" marks > "$out/h100-spread-marks.csv"
"$bin" ncu > "$tmp/ncu-spread-configs.csv"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  --csv --page raw "$bin" ncu > "$out/ncu-spread.csv" 2> "$tmp/ncu-spread.log" ||
  tail "$tmp/ncu-spread.log"
grep -E '^(blocks,|[0-9])' "$tmp/ncu-spread.log" > "$out/h100-spread-ncu.csv"
python3 ncu2csv.py "$tmp/ncu-spread-configs.csv" "$out/ncu-spread.csv" > "$out/h100-spread-states.csv"
gzip -9 -f "$out/ncu-spread.csv"
cat "$out/h100-spread.csv" "$out/h100-spread-marks.csv" "$out/h100-spread-ncu.csv" \
  "$out/h100-spread-states.csv"
# kernels of one block against kernels of 132, for what a launch costs
"$bin" small > "$tmp/ncu-small-configs.csv"
ncu --clock-control none --cache-control none \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  --csv --page raw "$bin" small > "$tmp/ncu-small.csv" 2> "$tmp/ncu-small.log" || tail "$tmp/ncu-small.log"
python3 ncu2csv.py "$tmp/ncu-small-configs.csv" "$tmp/ncu-small.csv" > "$out/h100-spread-small.csv"
cat "$out/h100-spread-small.csv"
# the Source page (each instruction's samples by stall reason) of the 256-an-SM grid, and of
# mempipe.cu's first drain launch (one line, no stores: the same blocks with a loop not taken)
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --warp-sampling-interval 0 -k regex:spread --launch-skip 5 --launch-count 1 \
  -o "$tmp/spread-src" "$bin" ncu > "$tmp/src.log" 2>&1 || tail "$tmp/src.log"
ncu --import "$tmp/spread-src.ncu-rep" --page source --print-source sass --csv 2> /dev/null |
  gzip -9 > "$out/ncu-spread-source.csv.gz"
nvcc -O3 -arch=sm_90 -lineinfo -o "$tmp/mempipe" mempipe.cu
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --warp-sampling-interval 0 -k regex:drain --launch-count 1 -o "$tmp/drain-src" \
  "$tmp/mempipe" drain ncu > "$tmp/src.log" 2>&1 || tail "$tmp/src.log"
ncu --import "$tmp/drain-src.ncu-rep" --page source --print-source sass --csv 2> /dev/null |
  gzip -9 > "$out/ncu-drain-source.csv.gz"
