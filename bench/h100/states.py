#!/usr/bin/env python3
"""Warp states, smsim against Nsight Compute, for the launches bench/h100/mempipe.cu profiled:
`lines` (tests/data/h100-mempipe-lines-states.csv, 132 SMs: replayed on the whole GPU with fewer
iterations, a state's warp-cycles per issued instruction not depending on how many), `lines1`
(tests/data/h100-mempipe-lines1-states.csv: the same on one SM alone) and `smem`
(tests/data/h100-mempipe-smem-states.csv, every SM alike: replayed on one).  Both sides' states
are normalised to shares of a resident warp's cycles.  Prints, per launch, the main state of
each and the total-variation distance between the two distributions, and the counts over all.

    states.py BUILD/smsim lines|lines1|smem [ITERS]   (from the source tree; lines: about a minute a
                                               launch on 2 cores, smem: a second)
    states.py BUILD/smsim sts                  mempipe.cu's 8- and 16-byte stores (tests/data/h100-mempipe-sts-states.csv)
    states.py BUILD/smsim mioq                 bench/h100/mioq.cu's launches (tests/data/h100-mioq-states.csv)
    states.py BUILD/smsim loop                 bench/h100/loop.cu's launches (tests/data/h100-loop-states.csv)
    states.py BUILD/smsim raw                  mempipe.cu's raw launches (tests/data/h100-mempipe-raw-states.csv)
    states.py BUILD/smsim drain                mempipe.cu's drain launches (three minutes on 2 cores)
    states.py BUILD/smsim spread               bench/h100/spread.cu's grids (tests/data/h100-spread-states.csv)
    states.py BUILD/smsim sreg                 bench/h100/sreg.cu's launches (tests/data/h100-sreg-states.csv)
    states.py BUILD/smsim ldc                  bench/h100/ldc.cu's launches (tests/data/h100-ldc-states.csv)
    states.py BUILD/smsim stq                  bench/h100/stq.cu's launches (tests/data/h100-stq-states.csv)
    states.py BUILD/smsim pipes                bench/h100/pipes.cu's loops at 32 warps (tests/data/h100-pipes-states.csv)
    states.py BUILD/smsim front                bench/h100/front.cu's loops (tests/data/h100-front-states.csv)
    states.py BUILD/smsim turns                bench/h100/turns.cu's hogs and yielders (tests/data/h100-turns-states.csv)
    states.py BUILD/smsim EXP --set KEY=VALUE   a GPU key changed for every launch (repeatable)
    states.py BUILD/smsim EXP --where KEY=VALUE  only the launches whose column KEY is VALUE
                                               (repeatable: all of them)
    states.py BUILD/smsim EXP --check SAME TV   exits 1 unless the main state is Nsight's in at
                                               least SAME launches and the median TV is at most TV
"""
import csv
import json
import subprocess
import sys

NSIGHT = ["selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait",
          "lg_throttle", "mio_throttle", "tex_throttle", "math_pipe_throttle", "drain",
          "barrier", "membar", "branch_resolving", "no_instruction", "dispatch_stall",
          "imc_miss", "misc", "sleeping"]
EXPERIMENTS = {
    "lines": ("isa/kernels/h100/mempipe-lines.yaml",
              ["op", "layout", "lines", "warps_per_sm", "sms"], ["sm_count=132"]),
    # the lines subset on one SM alone (mempipe lines ncu1): replayed whole in seconds
    "lines1": ("isa/kernels/h100/mempipe-lines.yaml",
               ["op", "layout", "lines", "warps_per_sm", "sms"], ["sm_count=132"]),
    "smem": ("isa/kernels/h100/mempipe-smem.yaml",
             ["op", "width", "ways", "alpha", "warps_per_sm"], []),
    # mempipe smem ncu2: its 8- and 16-byte stores between 4 or 16 FFMAs, 1 to 64 warps
    "sts": ("isa/kernels/h100/mempipe-smem.yaml",
            ["op", "width", "ways", "alpha", "warps_per_sm"], []),
    # bench/h100/mioq.cu: independent shared-memory loads in flight (every SM alike: one)
    "mioq": ("isa/kernels/h100/mioq-sass.yaml",
             ["k", "width", "pattern", "warps_per_sm"], []),
    # bench/h100/loop.cu: warps sharing a scheduler (nothing leaves the SM: one)
    "loop": ("isa/kernels/h100/loop-sass.yaml", ["unroll", "warps_per_sm"], []),
    # mempipe raw: a store and a load of the same address (one block on one SM of the GPU)
    "raw": ("isa/kernels/h100/mempipe-raw.yaml", ["space", "who", "warps_per_sm"],
            ["sm_count=132"]),
    # mempipe drain: 33 792 one-warp blocks storing and exiting, the whole GPU (minutes)
    "drain": ("isa/kernels/h100/mempipe-drain.yaml", ["lines", "stores"], ["sm_count=132"]),
    # bench/h100/stq.cu: 1 to 16 independent 32-line stores a warp after a loop, on 1 SM and 132
    "stq": ("isa/kernels/h100/stq.yaml", ["k", "warps", "sms"], ["sm_count=132"]),
    # bench/h100/spread.cu: grids of one-warp blocks of no work, the whole GPU
    "spread": ("isa/kernels/h100/spread.yaml", ["blocks"], ["sm_count=132", "launch_cycles=2964"]),
    # bench/h100/sreg.cu: a special register's read and an untaken branch in a loop (one SM)
    "sreg": ("isa/kernels/h100/sreg.yaml", ["mode", "warps"], []),
    # bench/h100/ldc.cu: chains of constant reads (LDC) in a loop (one SM)
    "ldc": ("isa/kernels/h100/ldc.yaml", ["mode", "lines", "stride", "apart", "warps"], []),
    # bench/h100/pipes.cu: loops of independent integer and float steps, 32 warps (one SM)
    "pipes": ("isa/kernels/h100/pipes.yaml", ["op", "warps_per_sm", "iters"], []),
    # bench/h100/front.cu: a short loop and its variants, 1, 4 and 8 warps a scheduler (one SM)
    "front": ("isa/kernels/h100/front.yaml", ["variant", "sched", "warps_per_sched"], []),
    # bench/h100/turns.cu: warps that do not yield beside warps that do, 1-8 a scheduler (one SM)
    "turns": ("isa/kernels/h100/turns.yaml", ["n", "mask", "loop"], []),
}
STATES_FILES = {"sts": "tests/data/h100-mempipe-sts-states.csv", "stq": "tests/data/h100-stq-states.csv",
                "mioq": "tests/data/h100-mioq-states.csv", "loop": "tests/data/h100-loop-states.csv",
                "spread": "tests/data/h100-spread-states.csv",
                "sreg": "tests/data/h100-sreg-states.csv", "ldc": "tests/data/h100-ldc-states.csv",
                "pipes": "tests/data/h100-pipes-states.csv", "front": "tests/data/h100-front-states.csv",
                "turns": "tests/data/h100-turns-states.csv"}
SREG_MODES = ["base", "tid", "ctaid", "smid", "clock", "untaken"]


def launch_sets(exp, r, keys):
    """The kernel's parameters for a profiled launch: its columns, or what they stand for."""
    if exp == "spread":
        return [f"per_sm={int(r['blocks']) // 132}"]
    if exp == "front":
        variant, spread = {"same": (0, 0), "copies": (0, 1), "flat": (1, 0), "pad": (2, 0)}[r["variant"]]
        return [f"variant={variant}", f"spread={spread}", f"one_sched={int(r['sched'] == 'one')}",
                f"warps_per_sched={r['warps_per_sched']}", f"steps={r['steps']}"]
    if exp == "stq":
        return [f"k={r['k']}", f"warps_per_sm={r['warps']}", f"sms={r['sms']}"]
    if exp == "turns":
        return [f"n={r['n']}", f"mask={int(r['mask'], 16)}", f"chains={r['chains']}",
                f"unrolled={int(r['loop'] == 'unrolled')}"]
    if exp == "sreg":
        return [f"mode={SREG_MODES.index(r['mode'])}", f"warps_per_sm={r['warps']}"]
    if exp == "ldc":
        chase = r["mode"] == "chase"
        return [f"mode={int(chase)}", f"warps_per_sm={r['warps']}"] + (
            [f"lines={r['lines']}", f"stride={r['stride']}", f"apart={r['apart']}"] if chase else [])
    return [f"{k}={r[k]}" for k in keys]


def shares(d):
    total = sum(d.values())
    return {k: v / total for k, v in d.items()} if total else d


def main(argv):
    smsim, exp = argv[0], argv[1]
    check = "--check" in argv
    iters = argv[2] if len(argv) > 2 and not argv[2].startswith("--") else None
    kernel, keys, extra = EXPERIMENTS[exp]
    extra = extra + [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    path = STATES_FILES.get(exp, f"tests/data/h100-mempipe-{exp}-states.csv")
    rows = list(csv.DictReader(open(path)))
    for w in [argv[i + 1] for i, a in enumerate(argv) if a == "--where"]:
        key, value = w.split("=", 1)
        rows = [r for r in rows if r.get(key) == value]
    same = 0
    tvs = []
    print("launch                          nsight main        smsim main           TV")
    for r in rows:
        sets = launch_sets(exp, r, keys) + extra
        if "iters" in r:
            sets.append(f"iters={iters}" if exp == "lines" and iters else f"iters={r['iters']}")
        cmd = [smsim, "run", "config/gpus/h100.yaml", kernel, "--json"]
        for s in sets:
            cmd += ["--set", s]
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        sim = {k: v["per_issued"] for k, v in out["warp_states"].items() if k != "inactive"}
        nsight = {k: float(r[k] or 0) for k in NSIGHT}
        p, q = shares(sim), shares(nsight)
        tv = 0.5 * sum(abs(p.get(k, 0) - q.get(k, 0)) for k in set(p) | set(q))
        mp, mq = max(p, key=p.get), max(q, key=q.get)
        same += mp == mq
        tvs.append(tv)
        name = " ".join(f"{k}={r[k]}" for k in keys if k != "sms")
        print(f"{name:30s}  {mq:18s} {mp:18s} {tv:6.3f}", flush=True)
    tvs.sort()
    median = tvs[len(tvs) // 2]
    print(f"main state the same in {same} of {len(rows)}; TV median {median:.3f}, "
          f"worst {tvs[-1]:.3f}, under 0.10 in {sum(t < 0.10 for t in tvs)}")
    if check:
        i = argv.index("--check")
        want_same, want_tv = int(argv[i + 1]), float(argv[i + 2])
        if same < want_same or median > want_tv:
            print(f"FAIL: want the main state in at least {want_same}, a median TV at most "
                  f"{want_tv}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
