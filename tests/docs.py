#!/usr/bin/env python3
"""Every command the lessons show runs, and prints what they show.

In docs/*.md, a line of a code block that starts with "$ " is a command (a trailing "\\"
continues it on the next line); the lines after it, up to the next command or the end of the
block, are what it prints.  Each command runs with sh in a scratch copy of the source tree
(symbolic links to its folders, so that the files commands write land in the scratch folder,
never in the tree), build/smsim being the smsim under test and ../shared the measurements
beside the tree.  A command must exit with status 0, and the lines its doc shows must appear
in what it prints, consecutively; a line "..." stands for any number of lines.  A command
`cat FILE` whose FILE no earlier command wrote shows a file the reader is to create: the
shown lines become that file.

Usage: docs.py SOURCE_DIR SMSIM [DOC.md...]   (default: every docs/*.md)
Environment: SMSIM_QUICK=1 (tools/dev test quick) checks only the docs that differ from the last
commit (none: nothing to check); SMSIM_DOCS_REPORT=1 prints every mismatch's whole output;
SMSIM_DOCS_UPDATE=1 also rewrites a doc's shown lines where they are all of the output, or its
first lines followed by "..." (read the diff: the prose around them may need changing too).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Commands that cannot run here, with the reason (matched against the start of the command).
SKIP = {
    "gtkwave ": "opens a viewer",
    "OMPI_COMM_WORLD_SIZE=3 build/smsim": "what it prints depends on whether the build has MPI "
    "(tests/sim/study/test-mpi.c runs both cases)",
    "build/smsim validate config/gpus/h100.yaml data/h100-calibration.csv | tail -1":
    "the same 320 runs as tests/sim/study/test-sweep.c's calibration check, which holds their "
    "MAPE",
    "build/smsim validate config/gpus/h100.yaml tests/data/h100-footprint-clock.csv":
    "the same 116 runs as tests/sim/cli/test-h100-data.c's footprint check, which holds their "
    "MAPE",
}


def commands(path):
    """(line number, command, shown output lines) of every command in @path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    in_block = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_block = not in_block
            i += 1
            continue
        if in_block and line.startswith("$ "):
            start = i + 1
            cmd = line[2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd + "\n" + lines[i]
            shown = []
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```") and not lines[j].startswith("$ "):
                shown.append(lines[j])
                j += 1
            out.append((start, cmd, shown))
            i = j
            continue
        i += 1
    return out


def segments(shown):
    """The shown lines split at "..." into runs that must each appear consecutively."""
    runs, cur = [], []
    for line in shown:
        if line.strip() == "...":
            if cur:
                runs.append(cur)
            cur = []
        else:
            cur.append(line.rstrip())
    if cur:
        runs.append(cur)
    return runs


def find_runs(actual, runs):
    """None if every run appears in order in @actual, else the first run that does not."""
    at = 0
    for run in runs:
        found = -1
        for k in range(at, len(actual) - len(run) + 1):
            if actual[k:k + len(run)] == run:
                found = k
                break
        if found < 0:
            return run
        at = found + len(run)
    return None


def update(doc, line, cmd, shown, actual):
    """Rewrites the lines @doc shows after the command at @line with what it printed."""
    while actual and actual[-1] == "":
        actual = actual[:-1]
    runs = segments(shown)
    head_only = len(runs) == 1 and shown and shown[-1].strip() == "..." and \
        shown[0].strip() != "..."
    if head_only:
        new = actual[:len(runs[0])] + ["..."]
    elif all(s.strip() != "..." for s in shown):
        new = actual
    else:
        return
    lines = open(doc, encoding="utf-8").read().split("\n")
    start = line - 1 + cmd.count("\n") + 1
    lines[start:start + len(shown)] = new
    open(doc, "w", encoding="utf-8").write("\n".join(lines))


def scratch_tree(source, smsim):
    """A scratch folder laid out like the source tree (with ../shared beside it)."""
    top = tempfile.mkdtemp(prefix="smsim-docs-")
    work = os.path.join(top, "tree")
    os.mkdir(work)
    shared = os.path.join(source, "..", "shared")
    if os.path.isdir(shared):
        os.symlink(os.path.realpath(shared), os.path.join(top, "shared"))
    for name in os.listdir(source):
        if name in ("build", "docs") or name.startswith("."):
            continue
        os.symlink(os.path.join(source, name), os.path.join(work, name))
    os.mkdir(os.path.join(work, "build"))
    os.symlink(os.path.realpath(smsim), os.path.join(work, "build", "smsim"))
    # docs/ itself is a folder of links: a command writing docs/x.png replaces a link, not the
    # tree's file
    os.mkdir(os.path.join(work, "docs"))
    for name in os.listdir(os.path.join(source, "docs")):
        os.symlink(os.path.join(source, "docs", name), os.path.join(work, "docs", name))
    return top, work


def changed(source, doc):
    """Whether @doc differs from the last commit (or is not in it), by git; True without git."""
    rel = os.path.relpath(doc, source)
    try:
        r = subprocess.run(["git", "-C", source, "status", "--porcelain", "--", rel],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return True
    return r.returncode != 0 or r.stdout.strip() != ""


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    source, smsim = os.path.realpath(sys.argv[1]), sys.argv[2]
    docs = sys.argv[3:] or sorted(
        os.path.join(source, "docs", f) for f in os.listdir(os.path.join(source, "docs"))
        if f.endswith(".md"))
    report = os.environ.get("SMSIM_DOCS_REPORT") == "1"
    if os.environ.get("SMSIM_QUICK", "0") not in ("", "0") and not sys.argv[3:]:
        docs = [d for d in docs if changed(source, d)]
        print(f"quick: {len(docs)} doc(s) changed since the last commit", flush=True)
    top, work = scratch_tree(source, smsim)
    failures = 0
    ran = 0
    try:
        for doc in docs:
            rel = os.path.relpath(doc, source)
            updates = []
            for line, cmd, shown in commands(doc):
                skip = next((why for p, why in SKIP.items() if cmd.startswith(p)), None)
                if skip:
                    print(f"{rel}:{line}: skipped ({skip})")
                    continue
                m = re.fullmatch(r"cat (\S+)", cmd.strip())
                if m and not os.path.exists(os.path.join(work, m.group(1))):
                    with open(os.path.join(work, m.group(1)), "w", encoding="utf-8") as f:
                        f.write("\n".join(s for s in shown if s.strip() != "...") + "\n")
                    continue
                t0 = time.monotonic()
                r = subprocess.run(["sh", "-c", cmd], cwd=work, capture_output=True, text=True)
                ran += 1
                took = time.monotonic() - t0
                actual = [a.rstrip() for a in r.stdout.split("\n")]
                first = cmd.split("\n")[0]
                if r.returncode != 0:
                    print(f"{rel}:{line}: exit status {r.returncode}: {first}\n{r.stderr}")
                    failures += 1
                    continue
                missing = find_runs(actual, segments(shown))
                if missing is not None and os.environ.get("SMSIM_DOCS_UPDATE") == "1":
                    updates.append((line, cmd, shown, actual))
                if missing is not None:
                    failures += 1
                    print(f"{rel}:{line}: the doc shows lines this command does not print: {first}")
                    print("  shown:   " + "\n           ".join(missing[:6]))
                    if report:
                        print("  printed: " + "\n           ".join(actual))
                    continue
                print(f"{rel}:{line}: ok ({took:.1f} s)")
            for line, cmd, shown, actual in reversed(updates):  # the last first: lines stay put
                update(doc, line, cmd, shown, actual)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print(f"{ran} commands, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
