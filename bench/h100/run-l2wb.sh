#!/usr/bin/env bash
# Builds bench/h100/l2wb.cu on a machine with an H100-class GPU and CUDA, keeps what ran (SASS,
# resource usage), times it and takes Nsight Compute's DRAM and L2 counters of each store kernel
# and read-back (the whole program replayed for each pass, so every pass sees the L2 as the
# preparation left it) (what the L2 does with stores to lines it lacks, by how much of a line they write).
#   bench/h100/run-l2wb.sh OUTDIR
set -euo pipefail
out=${1:?usage: run-l2wb.sh OUTDIR}
cd "$(dirname "$0")"
mkdir -p "$out"
tmp=$(mktemp -d)
bin=$tmp/l2wb
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
    2>&1 || true; nvcc --version | tail -2; ncu --version | tail -1; } > "$out/gpu-l2wb.txt"
nvcc -O3 -arch=sm_90 -lineinfo --resource-usage -o "$bin" l2wb.cu 2> "$out/l2wb.resource-usage.txt"
cuobjdump -sass "$bin" | gzip -9 > "$out/l2wb.sass.gz"
"$bin" time > "$out/h100-l2wb.csv" 2>> "$out/gpu-l2wb.txt"
"$bin" ncu > "$out/ncu-l2wb-configs.csv"
ncu --clock-control none --cache-control none --replay-mode application \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_miss.sum,lts__t_sectors_op_write_lookup_miss.sum,gpu__time_duration.sum,sm__cycles_elapsed.max \
  -k 'regex:stores|readback' -o "$tmp/l2wb" "$bin" ncu > "$tmp/ncu-run.log" 2>&1 || tail -20 "$tmp/ncu-run.log"
ncu --import "$tmp/l2wb.ncu-rep" --page raw --csv > "$out/ncu-l2wb.csv"
grep -i "pass\|==PROF==" "$tmp/ncu-run.log" | head -5 >> "$out/gpu-l2wb.txt" || true
wc -l "$out/h100-l2wb.csv" "$out/ncu-l2wb.csv"
cat "$out/h100-l2wb.csv"
