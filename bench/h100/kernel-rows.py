#!/usr/bin/env python3
"""Writes an experiment's timings as kernel-format measurements for `smsim validate`: the cycles
of a warp's loop (cycles per iteration x iters), which smsim reads as the cycles between the
warp's first and last clock read.

    kernel-rows.py lines tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-lines-clock.csv
    kernel-rows.py smem tests/data/h100-mempipe-smem.csv > tests/data/h100-mempipe-smem-clock.csv
    kernel-rows.py lines132 tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-lines132-clock.csv
    kernel-rows.py stores132 tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-stores132-clock.csv
    kernel-rows.py dram132 tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-dram132-clock.csv
    kernel-rows.py fence tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-fence-clock.csv
    kernel-rows.py fence132 tests/data/h100-mempipe-lines.csv > tests/data/h100-mempipe-fence132-clock.csv
    kernel-rows.py mioq tests/data/h100-mioq.csv > tests/data/h100-mioq-clock.csv
    kernel-rows.py loop tests/data/h100-loop.csv > tests/data/h100-loop-clock.csv
    kernel-rows.py raw tests/data/h100-mempipe-raw.csv > tests/data/h100-mempipe-raw-clock.csv
    kernel-rows.py stq tests/data/h100-stq.csv > tests/data/h100-stq-clock.csv
    kernel-rows.py order tests/data/h100-order.csv > tests/data/h100-order-clock.csv
    kernel-rows.py pairloop tests/data/h100-pairloop.csv > tests/data/h100-pairloop-clock.csv
    kernel-rows.py notaken tests/data/h100-notaken.csv > tests/data/h100-notaken-clock.csv
    kernel-rows.py pipes tests/data/h100-pipes.csv > tests/data/h100-pipes-clock.csv
    kernel-rows.py front tests/data/h100-front.csv > tests/data/h100-front-clock.csv

loop: the launches whose blocks ran together on each SM.
lines: isa/kernels/h100/mempipe-lines.yaml, one SM alone: the loop, from the first clock read to
the second (clock.steps.0; for stores the third comes after the __threadfence(), the next
experiment's).  ld_l2 rows are left out (their launch found the L2 warm).
stores132: the same kernel's stores to the L2 on all 132 SMs at 64 warps an SM: the median
warp's loop, as lines.
dram132: the same kernel's loads from and stores to DRAM on all 132 SMs (1 to 64 warps an SM, 1
to 32 lines an access): the loop, as lines.
fence, fence132: the same kernel's stores on 1 SM alone and on all 132: what the __threadfence()
after the loop waited (MEMBAR.SC.GPU: fence_cycles_med), from the second clock read to the third
(clock.steps.1).
smem: isa/kernels/h100/mempipe-smem.yaml, one SM (shared memory is each SM's own).
raw: isa/kernels/h100/mempipe-raw.yaml, one block on one SM of the whole GPU.
stq: isa/kernels/h100/stq.yaml, one block an SM on 1 SM or all 132 of the whole GPU.
order: isa/kernels/h100/order.yaml, one block on one SM: each warp's span (end - start) in the
second of the three launches, their shortest, median and longest (clock.per_warp_min, _median,
_max; the median of an even count the upper of the middle two, as the other programs take it
and smsim reports it).
pairloop: isa/kernels/h100/pairloop.yaml, one block on one SM: warp 0's span (end - start) in the
second of the two launches, at delays 0, 8 and 32 (and 60 for two loops of 8).  smsim's span of
warp 4 also counts its wait on the clock (its first clock read comes before it), so warp 0's is
the launch's shortest (clock.per_warp_min) where warp 4's loop is as long or longer, its longest
(clock.per_warp_max) where warp 4's loop of 128 FFMAs ends first.
pipes: isa/kernels/h100/pipes.yaml, one block on one SM: the block's span, from the earliest
clock read before a loop to the latest after one (clock.span; warps that take their turns, as
FFMA's do, each time a loop shorter than the block's), the second of the two launches.
front: isa/kernels/h100/front.yaml, one block on one SM (every SM ran the same): the median
warp's span (cycles_per_step_med x steps).
"""
import csv
import sys

KEEP_OPS = ("ld_l1", "ld_dram", "st_l2", "st_dram")  # ld_l2 needs the L2 warm at launch

# experiment: kernel file, the column of cycles an iteration, comment lines, which rows, the
# `set` column and the curve of a row
EXPERIMENTS = {
    "lines": ("isa/kernels/h100/mempipe-lines.yaml", "cycles_per_insn_med",
              ["bench/h100/mempipe.cu's lines experiment, one SM alone on the whole GPU "
               "(sm_count=132, one block):",
               "cycles_per_insn_med x iters: the loop, from the first clock read to the second "
               "(for stores the third comes after the fence: h100-mempipe-fence-clock.csv)",
               "ld_l2 rows are left out: their launch found a 4 MiB window warm in the L2, which "
               "a kernel file cannot say (a store to it is taken by the L2 alike, warm or not)"],
              lambda r: r["op"] in KEEP_OPS and r["sms"] == "1",
              lambda r: (f"op={r['op']};layout={r['layout']};lines={r['lines']};"
                         f"warps_per_sm={r['warps_per_sm']};sms=1;sm_count=132;"
                         f"iters={r['iters']}"),
              lambda r: f"{r['op']} {r['layout']} x{r['lines']} 1 SM"),
    "lines132": ("isa/kernels/h100/mempipe-lines.yaml", "cycles_per_insn_med",
                 ["bench/h100/mempipe.cu's lines experiment on all 132 SMs, stores to the L2 at 8 "
                  "warps an SM (sm_count=132):",
                  "cycles_per_insn_med x iters: the loop (the L2's write path all SMs share "
                  "holds it; docs/memory-pipeline.md)"],
                 lambda r: r["op"] == "st_l2" and r["sms"] == "132" and r["warps_per_sm"] == "8",
                 lambda r: (f"op={r['op']};layout={r['layout']};lines={r['lines']};"
                            f"warps_per_sm={r['warps_per_sm']};sms=132;sm_count=132;"
                            f"iters={r['iters']}"),
                 lambda r: f"{r['op']} {r['layout']} x{r['lines']} 132 SMs"),
    "stores132": ("isa/kernels/h100/mempipe-lines.yaml", "cycles_per_insn_med",
                  ["bench/h100/mempipe.cu's lines experiment on all 132 SMs, stores to the L2 at "
                   "64 warps an SM, two blocks of 32 (sm_count=132):",
                   "cycles_per_insn_med x iters: the median warp's loop, from the first clock "
                   "read to the second; its SM's span is 1.2-1.4 times as long (the 44 oldest "
                   "warps end first: memory.throttle_order)"],
                  lambda r: r["op"] == "st_l2" and r["sms"] == "132" and r["warps_per_sm"] == "64",
                  lambda r: (f"op={r['op']};layout={r['layout']};lines={r['lines']};"
                             f"warps_per_sm={r['warps_per_sm']};sms=132;sm_count=132;"
                             f"iters={r['iters']}"),
                  lambda r: f"{r['op']} {r['layout']} x{r['lines']} 132 SMs 64 warps"),
    "dram132": ("isa/kernels/h100/mempipe-lines.yaml", "cycles_per_insn_med",
                ["bench/h100/mempipe.cu's lines experiment on all 132 SMs, loads from and "
                 "stores to DRAM (sm_count=132): fresh lines of a 4 GiB buffer, the L2 dirty "
                 "from mempipe's flush at launch",
                 "cycles_per_insn_med x iters: the loop, from the first clock read to the "
                 "second (the DRAM all SMs share holds it; docs/memory-pipeline.md)"],
                lambda r: r["op"] in ("ld_dram", "st_dram") and r["sms"] == "132",
                lambda r: (f"op={r['op']};layout={r['layout']};lines={r['lines']};"
                           f"warps_per_sm={r['warps_per_sm']};sms=132;sm_count=132;"
                           f"iters={r['iters']}"),
                lambda r: f"{r['op']} {r['layout']} x{r['lines']} 132 SMs"),
    "smem": ("isa/kernels/h100/mempipe-smem.yaml", "cycles_per_iter_med",
             ["bench/h100/mempipe.cu's smem experiment on every SM (shared memory is each SM's "
              "own: one SM replays it):",
              "cycles_per_iter_med x iters"],
             lambda r: True,
             lambda r: (f"op={r['op']};width={r['width']};ways={r['ways']};alpha={r['alpha']};"
                        f"warps_per_sm={r['warps_per_sm']};iters={r['iters']}"),
             lambda r: f"{r['op']} {r['width']}B {r['ways']}-way alpha={r['alpha']}"),
    "mioq": ("isa/kernels/h100/mioq-sass.yaml", "cycles_per_iter_med",
             ["bench/h100/mioq.cu on every SM (shared memory is each SM's own: one SM replays "
              "it):",
              "cycles_per_iter_med x iters"],
             lambda r: True,
             lambda r: (f"k={r['k']};width={r['width']};pattern={r['pattern']};"
                        f"warps_per_sm={r['warps_per_sm']};iters={r['iters']}"),
             lambda r: f"{r['k']} x {r['width']}B {r['pattern']}"),
    "loop": ("isa/kernels/h100/loop-sass.yaml", "cycles_per_iter_med",
             ["bench/h100/loop.cu on every SM (nothing leaves the SM: one SM replays it):",
              "cycles_per_iter_med x iters",
              "left out: a launch whose two blocks an SM ran one after the other (its last warp "
              "started more than 2 000 cycles after the first: U = 8 at 64 warps, 11 522)"],
             lambda r: float(r["start_spread_med"]) < 2000,
             lambda r: (f"unroll={r['unroll']};warps_per_sm={r['warps']};iters={r['iters']}"),
             lambda r: f"loop of {r['unroll']} FFMA"),
    "raw": ("isa/kernels/h100/mempipe-raw.yaml", "cycles_per_iter_med",
            ["bench/h100/mempipe.cu's raw experiment, one block on one SM alone on the whole GPU "
             "(sm_count=132): a store and then a load of the same address every iteration",
             "cycles_per_iter_med x iters"],
            lambda r: True,
            lambda r: (f"space={r['space']};who={r['who']};warps_per_sm={r['warps_per_sm']};"
                       f"sm_count=132;iters={r['iters']}"),
            lambda r: f"{r['space']} {r['who']}"),
    "notaken": ("isa/kernels/h100/notaken.yaml", "cycles_per_iter_med",
                ["bench/h100/notaken.cu: one block on one SM, a loop of 4 dependent FFMAs and a "
                 "branch around a block no lane runs (its predicate a parameter's, the warp's or "
                 "the lane's)",
                 "cycles_per_iter_med x iters"],
                lambda r: True,
                lambda r: f"variant={r['variant']};warps_per_sm={r['warps']};iters={r['iters']}",
                lambda r: r["variant"]),
    "stq": ("isa/kernels/h100/stq.yaml", "cycles_per_iter_med",
            ["bench/h100/stq.cu: K independent 32-line stores a warp after its loop, one block an "
             "SM on 1 SM or all 132 (sm_count=132)",
             "cycles_per_iter_med x iters"],
            lambda r: True,
            lambda r: (f"k={r['k']};warps_per_sm={r['warps']};sms={r['sms']};sm_count=132;"
                       f"iters={r['iters']}"),
            lambda r: f"{r['k']} stores {r['sms']} SMs"),
}


def order(path):
    """bench/h100/order.cu's warps: min, median and max span of each launch (its second run)."""
    spans = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["run"] == "1":
                key = (int(r["warps"]), int(r["k"]), int(r["iters"]))
                spans.setdefault(key, []).append(int(r["end"]) - int(r["start"]))
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    out.write("# bench/h100/order.cu: one block of W warps on one SM, each running k independent "
              "FMUL chains; each warp's span between its clock reads (the second of 3 launches)\n")
    for (warps, k, iters), s in sorted(spans.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        s.sort()
        n = len(s)
        med = s[n // 2]
        for metric, v in (("min", s[0]), ("median", med), ("max", s[-1])):
            out.write(f"isa/kernels/h100/order.yaml,k={k};warps_per_sm={warps};iters={iters},"
                      f"clock.per_warp_{metric},{v},k={k} {metric}\n")


def pairloop(path):
    """bench/h100/pairloop.cu: warp 0's span at a few delays of warp 4 (the second launch)."""
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    out.write("# bench/h100/pairloop.cu: warps 0 and 4 of one block on one SM (one scheduler), "
              "each a loop of ua / ub dependent FFMAs (ub 0: warp 0 alone), warp 4 starting "
              "`delay` cycles later; warp 0's span between its clock reads (the second of 2 "
              "launches)\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            ua, ub, d = int(r["ua"]), int(r["ub"]), int(r["delay"])
            if r["run"] != "1" or d not in ((0, 8, 32, 60) if ua == ub == 8 else (0, 8, 32)):
                continue
            a = int(r["a_end"]) - int(r["a_start"])
            b = int(r["b_end"]) - int(r["b_start"])
            metric = "max" if ub and a > b + 1000 else "min"
            pair = f"{ua} with {ub}" if ub else f"{ua} alone"
            out.write(f"isa/kernels/h100/pairloop.yaml,ua={ua};ub={ub};delay={d},"
                      f"clock.per_warp_{metric},{a},loop of {pair}\n")


def pipes(path):
    """bench/h100/pipes.cu: the block's span (first warp's start to last warp's end), second
    launch."""
    names = ["ffma", "fadd", "imad", "iadd3", "lop3", "shf", "prmt", "lea", "i2fp", "isetp_sel",
             "fsetp_fsel", "ffma_iadd3", "ffma_lop3", "ffma_imad", "imad_iadd3", "imnmx", "fmnmx",
             "iabs", "popc", "flo", "brev", "f2i", "imad_wide", "fmul", "hfma2", "shfl", "ex2",
             "sin", "rcp", "i2f_ru", "udiv"]
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    out.write("# bench/h100/pipes.cu: one block of W warps on one SM, each a loop of independent "
              "arithmetic steps (op: the step); the cycles from the first warp's first clock read "
              "to the last warp's last (the second of 2 launches)\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            # hfma2 not replayed: its loop takes 1.32 cycles an instruction at 32 warps where
            # Nsight's fp16 and tensor pipes, one for each half of its HFMA2s, are at 66 % of
            # their peaks (bench/h100/README.md)
            if r["run"] != "1" or r["op"] == "hfma2":
                continue
            op = names.index(r["op"])
            out.write(f"isa/kernels/h100/pipes.yaml,op={op};warps_per_sm={r['warps']};"
                      f"iters={r['iters']},clock.span,{r['span']},{r['op']}\n")


def front(path):
    """bench/h100/front.cu: the median warp's span over its steps, each variant and scheduler
    set at 1 to 8 warps a scheduler."""
    variants = {"same": (0, 0), "copies": (0, 1), "flat": (1, 0), "pad": (2, 0)}
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    out.write("# bench/h100/front.cu on every SM (nothing leaves the SM: one SM replays it): "
              "cycles_per_step_med x steps\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["variant"] == "mixed":
                continue  # its median warp is a chaser's: test-h100-data reads the loop's own
            variant, spread = variants[r["variant"]]
            one = int(r["sched"] == "one")
            cyc = float(r["cycles_per_step_med"]) * int(r["steps"])
            out.write(f"isa/kernels/h100/front.yaml,variant={variant};spread={spread};"
                      f"one_sched={one};warps_per_sched={r['warps_per_sched']};"
                      f"steps={r['steps']},clock.per_warp_median,{cyc:.0f},"
                      f"{r['variant']} {'scheduler 0' if one else 'all schedulers'}\n")


def fence(path, sms):
    """bench/h100/mempipe.cu's lines stores on @sms SMs: the __threadfence() after the loop."""
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    where = "one SM alone on the whole GPU" if sms == "1" else "all 132 SMs"
    out.write(f"# bench/h100/mempipe.cu's lines experiment, stores on {where} (sm_count=132): "
              "fence_cycles_med, what the __threadfence() (MEMBAR.SC.GPU) after the loop of "
              "stores waited, from the second clock read to the third\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            if not r["op"].startswith("st_") or r["sms"] != sms:
                continue
            out.write(f"isa/kernels/h100/mempipe-lines.yaml,op={r['op']};layout={r['layout']};"
                      f"lines={r['lines']};warps_per_sm={r['warps_per_sm']};sms={r['sms']};"
                      f"sm_count=132;iters={r['iters']},clock.steps.1,"
                      f"{float(r['fence_cycles_med']):.0f},"
                      f"{r['op']} {r['layout']} x{r['lines']} {r['sms']} SM"
                      f"{'s' if r['sms'] != '1' else ''}\n")


def main(exp, path):
    if exp in ("fence", "fence132"):
        fence(path, "1" if exp == "fence" else "132")
        return
    if exp == "front":
        front(path)
        return
    if exp == "pipes":
        pipes(path)
        return
    if exp == "order":
        order(path)
        return
    if exp == "pairloop":
        pairloop(path)
        return
    kernel, column, comments, keep, keys, curve = EXPERIMENTS[exp]
    out = sys.stdout
    out.write("kernel,set,metric,measured,curve\n")
    for c in comments:
        out.write(f"# {c}\n")
    with open(path) as f:
        for r in csv.DictReader(f):
            if not keep(r):
                continue
            cyc = float(r[column]) * int(r["iters"])
            metric = ("clock.steps.0" if exp in ("lines", "lines132", "stores132", "dram132")
                      else "clock.per_warp_median")
            out.write(f"{kernel},{keys(r)},{metric},{cyc:.0f},{curve(r)}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
