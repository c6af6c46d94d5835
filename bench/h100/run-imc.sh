#!/usr/bin/env bash
# Builds bench/h100/imc.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every configuration and takes Nsight Compute's warp states of each on
# all 132 SMs (what an instruction's constant operand costs).
#   bench/h100/run-imc.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-imc.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-imc.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/imc" imc.cu 2> "$out/imc.resource-usage.txt"
cuobjdump -sass "$tmp/imc" | gzip -9 > "$out/imc.sass.gz"
"$tmp/imc" time > "$out/h100-imc.csv"
"$tmp/imc" ncu > "$tmp/ncu-imc-configs.csv"
ncu --clock-control none --cache-control none --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  -k 'regex:imc' -o "$tmp/imc" "$tmp/imc" ncu > "$tmp/ncu-run.log" 2>&1 || tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/imc.ncu-rep" --page raw --csv > "$tmp/ncu-imc.csv"
python3 ncu2csv.py "$tmp/ncu-imc-configs.csv" "$tmp/ncu-imc.csv" > "$out/h100-imc-states.csv"
gzip -9 -c "$tmp/ncu-imc.csv" > "$out/ncu-imc.csv.gz"
wc -l "$out/h100-imc.csv" "$out/h100-imc-states.csv"
