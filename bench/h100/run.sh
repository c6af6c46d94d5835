#!/usr/bin/env bash
# Builds bench/h100/mempipe.cu on a machine with an H100 and CUDA, keeps what ran (SASS,
# resource usage), times every experiment and profiles a subset with Nsight Compute (the lines
# subset on one SM alone, tests/data/h100-mempipe-lines1-states.csv, is `mempipe lines ncu1`
# under the same ncu command).
#   bench/h100/run.sh OUTDIR [time|ncu|all] [EXPERIMENT...]
set -euo pipefail
out=${1:?usage: run.sh OUTDIR [time|ncu|all] [EXPERIMENT...]}
what=${2:-all}
shift 2 || shift $#
exps=("$@")
[ ${#exps[@]} -gt 0 ] || exps=(lines smem raw drain launch)
cd "$(dirname "$0")"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  > "$out/gpu.txt" 2>&1 || true
nvcc --version | tail -2 >> "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$out/mempipe" mempipe.cu \
  2> "$out/mempipe.resource-usage.txt"
cuobjdump -sass "$out/mempipe" > "$out/mempipe.sass.txt"
if [ "$what" = time ] || [ "$what" = all ]; then
  for e in "${exps[@]}"; do
    echo "== time $e"
    "$out/mempipe" "$e" > "$out/h100-mempipe-$e.csv" || echo "FAILED: $e"
    tail -3 "$out/h100-mempipe-$e.csv"
  done
fi
if [ "$what" = ncu ] || [ "$what" = all ]; then
  for e in "${exps[@]}"; do
    echo "== ncu $e"
    "$out/mempipe" "$e" ncu > "$out/ncu-$e-configs.csv" || echo "FAILED: $e ncu"
    ncu --clock-control none --cache-control none --section WarpStateStats \
      --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
      -k 'regex:^(lines|smem|raw|drain|empty|work)' --csv --page raw \
      "$out/mempipe" "$e" ncu > "$out/ncu-$e.csv" 2> "$out/ncu-$e.log" || { tail "$out/ncu-$e.log"; }
    wc -l "$out/ncu-$e.csv"
  done
fi
