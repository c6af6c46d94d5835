#!/bin/sh
# Data flows one way: isa -> config -> sim (the machine) -> sim/study -> sim/cli, and traces
# below sim.  Fails when a file includes a header of a layer above its own.
root=${1:-.}
status=0
check() { # folder (files directly in it) and the patterns its includes must not match
  dir=$1
  shift
  for f in "$root/$dir"/*.[ch]; do
    [ -e "$f" ] || continue
    for pat in "$@"; do
      if grep -Hn "^#include \"[^\"]*$pat" "$f"; then
        echo "$f: includes a header of a layer above it ($pat)"
        status=1
      fi
    done
  done
}
check isa config/ sim/ traces/ study/ cli/
check config sim/ traces/ study/ cli/
check traces sim/ config/ isa/ study/ cli/
check sim study/ cli/
check sim/exec sim/ study/ cli/ config/ traces/
check sim/study cli/
if [ $status -eq 0 ]; then
  echo "1..1"
  echo "ok 1 - no file includes a layer above its own"
fi
exit $status
