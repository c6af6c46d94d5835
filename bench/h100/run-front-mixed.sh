#!/usr/bin/env bash
# bench/h100/front.cu's mixed variant alone (half of each scheduler's warps chasing lines through
# memory, the others running the loop of one FFMA): timed, and under Nsight Compute (warp
# states at 4 and 8 warps a scheduler, the Source page at 8).
#   bench/h100/run-front-mixed.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-front-mixed.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/front" front.cu \
  2> "$out/front.resource-usage.txt"
cuobjdump -sass "$out/front" > "$out/front.sass.txt"
echo "== time"
"$out/front" time mixed > "$out/h100-front-mixed.csv"
cat "$out/h100-front-mixed.csv"
echo "== ncu"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  -k 'regex:front' --csv --page raw "$out/front" ncu mixed > "$out/ncu-front-mixed.csv" \
  2> "$out/ncu.log" || tail "$out/ncu.log"
wc -l "$out/ncu-front-mixed.csv"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --warp-sampling-interval 0 -k 'regex:front' -o "$out/src" "$out/front" src mixed \
  > "$out/src-run.log" 2>&1 || tail -20 "$out/src-run.log"
ncu --import "$out/src.ncu-rep" --page source --print-source sass --csv \
  > "$out/front-mixed-source.csv" 2> "$out/src.log" || tail "$out/src.log"
rm -f "$out/front" "$out/src.ncu-rep" "$out"/*.log
gzip -f "$out/front-mixed-source.csv" "$out/front.sass.txt"
ls -la "$out"
