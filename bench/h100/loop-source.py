#!/usr/bin/env python3
"""Nsight Compute's Source page of `loop ncu` (bench/h100/run-loop-source.sh: every SASS
instruction's warp-state samples, U = 1 and 4 at 1-64 warps an SM) as one table of the loop's
instructions: per launch and instruction, its stall count and yield hint (from the SASS the
launch ran, isa/kernels/h100/loop.sass.gz) and the samples of each state, the state being the
one a warp was in while this instruction was its next.

    loop-source.py bench/h100/raw/ncu-loop-source.csv.gz isa/kernels/h100/loop.sass.gz \
        > tests/data/h100-loop-source.csv
"""
import csv
import gzip
import io
import re
import sys

WARPS = [1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32, 48, 64]  # loop.cu's order, U = 1 then 4
STATES = ["selected", "not_selected", "wait", "branch_resolving", "no_inst", "math",
          "short_sb", "dispatch", "misc"]


def control_bits(sass_path):
    """{unroll: [(stall, no_yield)] of the loop body, from the first UIADD3 to its BRA}"""
    text = gzip.open(sass_path, "rt").read().split("\n")
    out, unroll, body = {}, None, None
    for i, line in enumerate(text):
        m = re.search(r"Function : _Z4loopILi(\d+)E", line)
        if m:
            unroll, body = int(m.group(1)), None
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4})\*/\s+(.*?);\s*/\* 0x[0-9a-f]+ \*/", line)
        if not m or unroll is None:
            continue
        ctl = int(re.search(r"0x([0-9a-f]{16})", text[i + 1]).group(1), 16)
        op = m.group(2).strip()
        if body is None and op.startswith("UIADD3"):
            body = []
        if body is not None and unroll not in out:
            body.append(((ctl >> 41) & 0xF, (ctl >> 45) & 1))
            if "BRA" in op:
                out[unroll] = body
    return out


def main(argv):
    bits = control_bits(argv[1])
    launches = gzip.open(argv[0], "rt").read().split('"Kernel Name"')[1:]
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["unroll", "warps_per_sm", "index", "stall", "no_yield", "samples"] + STATES +
               ["sass"])
    for n, launch in enumerate(launches):
        unroll, warps = (1 if n < len(WARPS) else 4), WARPS[n % len(WARPS)]
        rows = list(csv.DictReader(io.StringIO(launch.split("\n", 1)[1])))
        body = []
        for r in rows:
            op = r["Source"].strip()
            if not body and not op.startswith("UIADD3"):
                continue
            body.append(r)
            if "BRA" in op:
                break
        assert len(body) == len(bits[unroll]), (unroll, warps)
        for i, (r, (stall, no_yield)) in enumerate(zip(body, bits[unroll])):
            op = re.sub(r"0x[0-9a-f]{8,}", "TOP", " ".join(r["Source"].split()))
            w.writerow([unroll, warps, i, stall, no_yield, r["# Samples"]] +
                       [r["stall_" + s] for s in STATES] + [op])


if __name__ == "__main__":
    main(sys.argv[1:])
