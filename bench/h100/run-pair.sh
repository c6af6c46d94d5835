#!/usr/bin/env bash
# Builds bench/h100/pair.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage) and runs it: whether two lines' DRAM latencies go together, by their distance
# and by the time between them.  Then Nsight Compute's warp states and Source page of
# mempipe.cu's 8- and 16-byte shared stores between FFMAs (`mempipe smem ncu2`).
#   bench/h100/run-pair.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-pair.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-pair.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$tmp/pair" pair.cu 2> "$out/pair.resource-usage.txt"
cuobjdump -sass "$tmp/pair" | gzip -9 > "$out/pair.sass.gz"
HIST="$out/h100-pair-hist.csv" "$tmp/pair" > "$out/h100-pair.csv"
nvcc -O3 -arch=sm_90 -lineinfo -o "$tmp/mempipe" mempipe.cu
"$tmp/mempipe" smem ncu2 > "$tmp/ncu-sts-configs.csv"
ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats \
  --metrics sm__cycles_elapsed.max,sm__cycles_elapsed.avg,gpu__time_duration.sum,smsp__inst_executed.sum \
  --warp-sampling-interval 0 -k 'regex:^smem' -o "$tmp/sts" "$tmp/mempipe" smem ncu2 \
  > "$tmp/ncu-run.log" 2>&1 || tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/sts.ncu-rep" --page raw --csv > "$tmp/ncu-sts.csv"
python3 ncu2csv.py "$tmp/ncu-sts-configs.csv" "$tmp/ncu-sts.csv" > "$out/h100-mempipe-sts-states.csv"
ncu --import "$tmp/sts.ncu-rep" --page source --print-source sass --csv 2> /dev/null |
  gzip -9 > "$out/ncu-sts-source.csv.gz" || true
gzip -9 -c "$tmp/ncu-sts.csv" > "$out/ncu-sts.csv.gz"
cat "$out/h100-pair.csv" "$out/h100-mempipe-sts-states.csv"
