#!/usr/bin/env bash
# Builds bench/h100/dramrate.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times it and takes Nsight Compute's DRAM counters of each kernel (the whole
# program replayed for each pass, so every pass sees the L2 as the preparation left it): DRAM's
# rate for the write-backs of the dirty lines stores replace, beside its rate for loads.
#   bench/h100/run-dramrate.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-dramrate.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/dramrate
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-dramrate.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" dramrate.cu 2> "$out/dramrate.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/dramrate.sass.gz"
"$bin" time > "$out/h100-dramrate.csv" 2>> "$out/gpu-dramrate.txt"
"$bin" ncu > "$out/ncu-dramrate-configs.csv"
ncu --clock-control none --cache-control none --replay-mode application \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_miss.sum,lts__t_sectors_op_write_lookup_miss.sum,gpu__time_duration.sum,sm__cycles_elapsed.max \
  -k 'regex:st_line|ld_line' -o "$tmp/dramrate" "$bin" ncu > "$tmp/ncu-run.log" 2>&1 || tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/dramrate.ncu-rep" --page raw --csv > "$out/ncu-dramrate.csv"
grep -i "pass\|==PROF==" "$tmp/ncu-run.log" | head -5 >> "$out/gpu-dramrate.txt" || true
wc -l "$out/h100-dramrate.csv" "$out/ncu-dramrate.csv"
cat "$out/h100-dramrate.csv"
