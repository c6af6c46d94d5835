#!/usr/bin/env bash
# Builds bench/h100/sreg.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times every mode, and samples each mode at 1 and 32 warps under Nsight Compute
# (warp states, and the Source page: each instruction's samples by stall reason).
#   bench/h100/run-sreg.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-sreg.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/sreg
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-sreg.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" sreg.cu 2> "$out/sreg.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/sreg.sass.gz"
"$bin" > "$out/h100-sreg.csv"
"$bin" ncu > "$tmp/ncu-sreg-configs.csv"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  --warp-sampling-interval 0 -k 'regex:sreg' -o "$tmp/sreg" "$bin" ncu > "$tmp/ncu-run.log" 2>&1 ||
  tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/sreg.ncu-rep" --page raw --csv > "$tmp/ncu-sreg.csv"
python3 ncu2csv.py "$tmp/ncu-sreg-configs.csv" "$tmp/ncu-sreg.csv" > "$out/h100-sreg-states.csv"
ncu --import "$tmp/sreg.ncu-rep" --page source --print-source sass --csv 2> /dev/null |
  gzip -9 > "$out/ncu-sreg-source.csv.gz" || true
gzip -9 -c "$tmp/ncu-sreg.csv" > "$out/ncu-sreg.csv.gz"
cat "$out/h100-sreg.csv" "$out/h100-sreg-states.csv"
