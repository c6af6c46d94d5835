#!/usr/bin/env python3
"""Writes the lines experiment's timings (tests/data/h100-mempipe-lines.csv) as kernel-format
measurements of isa/kernels/h100/mempipe-lines.yaml for `smsim validate`: the cycles of a warp's
loop (cycles_per_insn_med x iters), which smsim reads as the cycles between the warp's first
and last clock read.  For stores the last read comes after the __threadfence() (MEMBAR.SC.GPU),
whose wait for the stores smsim does not model yet: the rows compare the loops.

    kernel-rows.py tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-lines-clock.csv
    kernel-rows.py smem tests/data/h100-mempipe-smem.csv > tests/data/h100-mempipe-smem-clock.csv
"""
import csv
import sys

KEEP_OPS = ("ld_l1", "ld_dram", "st_l2", "st_dram")  # ld_l2 needs the L2 warm at launch


def main(path):
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    out.write("# bench/h100/mempipe.cu's lines experiment, one SM alone on the whole GPU "
              "(sm_count=132, one block):\n")
    out.write("# cycles_per_insn_med x iters: the loop (for stores smsim's MEMBAR.SC.GPU waits "
              "for nothing yet)\n")
    out.write("# ld_l2 rows are left out: their launch found a 4 MiB window warm in the L2, which "
              "a kernel file cannot say (a store to it is taken by the L2 alike, warm or not)\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["op"] not in KEEP_OPS or r["sms"] != "1":
                continue
            iters = int(r["iters"])
            cyc = float(r["cycles_per_insn_med"]) * iters
            keys = (f"op={r['op']};layout={r['layout']};lines={r['lines']};"
                    f"warps_per_sm={r['warps_per_sm']};sms=1;sm_count=132;iters={iters}")
            curve = f"{r['op']} {r['layout']} x{r['lines']} 1 SM"
            out.write(f"isa/kernels/h100/mempipe-lines.yaml,{keys},clock.per_warp_median,"
                      f"{cyc:.0f},{curve}\n")


def smem(path):
    """The smem experiment's timings as rows of isa/kernels/h100/mempipe-smem.yaml."""
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    out.write("# bench/h100/mempipe.cu's smem experiment on every SM (shared memory is each SM's "
              "own: one SM replays it):\n")
    out.write("# cycles_per_iter_med x iters\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            iters = int(r["iters"])
            cyc = float(r["cycles_per_iter_med"]) * iters
            keys = (f"op={r['op']};width={r['width']};ways={r['ways']};alpha={r['alpha']};"
                    f"warps_per_sm={r['warps_per_sm']};iters={iters}")
            curve = f"{r['op']} {r['width']}B {r['ways']}-way alpha={r['alpha']}"
            out.write(f"isa/kernels/h100/mempipe-smem.yaml,{keys},clock.per_warp_median,"
                      f"{cyc:.0f},{curve}\n")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "smem":
        smem(sys.argv[2])
    else:
        main(sys.argv[1])
