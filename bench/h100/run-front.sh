#!/usr/bin/env bash
# Builds bench/h100/front.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every configuration, takes Nsight Compute's warp states of 1, 4 and 8
# warps a scheduler and the Source page (each instruction's states) of each variant at 8.
#   bench/h100/run-front.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-front.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
ncu --version | tail -1 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/front" front.cu \
  2> "$out/front.resource-usage.txt"
cuobjdump -sass "$out/front" > "$out/front.sass.txt"
echo "== time"
"$out/front" > "$out/h100-front.csv"
cat "$out/h100-front.csv"
echo "== ncu"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  -k 'regex:front' --csv --page raw "$out/front" ncu > "$out/ncu-front.csv" 2> "$out/ncu-front.log" ||
  tail "$out/ncu-front.log"
wc -l "$out/ncu-front.csv"
echo "== source"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --warp-sampling-interval 0 -k 'regex:front' -o "$out/front-source" "$out/front" src \
  > "$out/ncu-src-run.log" 2>&1 || tail -20 "$out/ncu-src-run.log"
ncu --import "$out/front-source.ncu-rep" --page source --print-source sass --csv \
  > "$out/front-source.csv" 2> "$out/ncu-source.log" || tail "$out/ncu-source.log"
wc -l "$out/front-source.csv"
rm -f "$out/front" "$out/front-source.ncu-rep" "$out"/*.log
gzip -f "$out/front-source.csv" "$out/front.sass.txt"
ls -la "$out"
