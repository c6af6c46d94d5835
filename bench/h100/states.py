#!/usr/bin/env python3
"""Warp states, smsim against Nsight Compute, for the lines experiment's profiled launches
(tests/data/h100-mempipe-lines-states.csv: 132 SMs).  Each launch is replayed from its SASS
(isa/kernels/h100/mempipe-lines.yaml on the whole GPU, fewer iterations: a state's warp-cycles
per issued instruction do not depend on how many); both sides' states are normalised to shares
of a resident warp's cycles.  Prints, per launch, the main state of each and the total-variation
distance between the two distributions, and the counts over all.

    states.py BUILD/smsim [ITERS]     (from the source tree; about a minute a launch on 2 cores)
"""
import csv
import json
import subprocess
import sys

NSIGHT = ["selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait",
          "lg_throttle", "mio_throttle", "tex_throttle", "math_pipe_throttle", "drain",
          "barrier", "membar", "branch_resolving", "no_instruction", "dispatch_stall",
          "imc_miss", "misc", "sleeping"]


def shares(d):
    total = sum(d.values())
    return {k: v / total for k, v in d.items()} if total else d


def main(smsim, iters="16"):
    rows = list(csv.DictReader(open("tests/data/h100-mempipe-lines-states.csv")))
    same = 0
    tvs = []
    print("launch                          nsight main        smsim main           TV")
    for r in rows:
        sets = [f"op={r['op']}", f"layout={r['layout']}", f"lines={r['lines']}",
                f"warps_per_sm={r['warps_per_sm']}", f"sms={r['sms']}", "sm_count=132",
                f"iters={iters}"]
        cmd = [smsim, "run", "config/gpus/h100.yaml", "isa/kernels/h100/mempipe-lines.yaml",
               "--json"]
        for s in sets:
            cmd += ["--set", s]
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        sim = {k: v["per_issued"] for k, v in out["warp_states"].items() if k != "inactive"}
        nsight = {k: float(r[k] or 0) for k in NSIGHT}
        p, q = shares(sim), shares(nsight)
        keys = set(p) | set(q)
        tv = 0.5 * sum(abs(p.get(k, 0) - q.get(k, 0)) for k in keys)
        mp, mq = max(p, key=p.get), max(q, key=q.get)
        same += mp == mq
        tvs.append(tv)
        name = f"{r['op']} x{r['lines']} {r['warps_per_sm']}w"
        print(f"{name:30s}  {mq:18s} {mp:18s} {tv:6.3f}", flush=True)
    tvs.sort()
    print(f"main state the same in {same} of {len(rows)}; TV median {tvs[len(tvs) // 2]:.3f}, "
          f"worst {tvs[-1]:.3f}, under 0.10 in {sum(t < 0.10 for t in tvs)}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
