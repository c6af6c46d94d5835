#!/usr/bin/env python3
"""Joins `mempipe EXPERIMENT ncu`'s configurations (printed in launch order) with Nsight
Compute's raw CSV page of the same launches, and keeps the counters smsim is held to: cycles
elapsed, instructions issued, and each warp state as warp-cycles per issued instruction.

    ncu2csv.py CONFIGS.csv NCU.csv > h100-mempipe-EXPERIMENT-states.csv
"""
import csv
import io
import sys

STATES = ["selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait",
          "lg_throttle", "mio_throttle", "tex_throttle", "math_pipe_throttle", "drain",
          "barrier", "membar", "branch_resolving", "no_instruction", "dispatch_stall",
          "imc_miss", "misc", "sleeping"]
COUNTERS = [("sm__cycles_elapsed.max", "sm_cycles_max"),
            ("sm__cycles_elapsed.avg", "sm_cycles_avg"),
            ("gpu__time_duration.sum", "time_ns"),
            ("smsp__inst_executed.sum", "insts")]


def number(s):
    return float(s.replace(",", "")) if s.strip() else 0.0


def main(configs, ncu):
    with open(configs) as f:
        cfg = list(csv.reader(f))
    head, cfg = cfg[0], cfg[1:]
    keep = [i for i, h in enumerate(head) if any(row[i] for row in cfg)]
    with open(ncu) as f:
        lines = [l for l in f if l.startswith('"')]  # the program's own output is unquoted
    rows = list(csv.reader(io.StringIO("".join(lines))))
    hdr, rows = rows[0], rows[2:]  # the second line holds the units
    if len(rows) != len(cfg):
        sys.exit(f"{ncu}: {len(rows)} profiled launches, {configs}: {len(cfg)} configurations")
    col = {h: i for i, h in enumerate(hdr)}
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow([head[i] for i in keep] + ["kernel"] + [n for _, n in COUNTERS] + STATES)
    for c, r in zip(cfg, rows):
        # (a counter of a section the run did not collect stays empty)
        vals = [f"{number(r[col[m]]):.0f}" if m in col else "" for m, _ in COUNTERS]
        st = []
        for s in STATES:
            m = f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"
            st.append(f"{number(r[col[m]]):.2f}" if m in col else "")
        name = r[col["Kernel Name"]].split("(")[0].split("<")[0].strip()
        out.writerow([c[i] for i in keep] + [name] + vals + st)


if __name__ == "__main__":
    main(*sys.argv[1:3])
