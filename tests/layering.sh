#!/bin/sh
# The tree's layers, lowest first.  A folder may use (include a header of, or call a function
# or read a variable defined in) folders of lower rank only: no folder uses one of its own rank
# or above, so no two folders use each other in a loop.  Checked twice: from every #include
# line of the sources, and from the symbols the built libraries define and use (nm), which
# catches a call through a declaration written by hand.
#
#   tests/layering.sh SOURCE_ROOT [BUILD_DIR]     (no BUILD_DIR: includes only)
#
# Prints each use against the order with its file, and "ok" lines in TAP.
root=${1:-.}
build=${2:-}

rank() { # folder -> rank; empty for a folder outside the layers
  case $1 in
  isa | isa/sass | traces) echo 0 ;;
  config | sim/exec) echo 1 ;;
  sim/core) echo 2 ;;
  sim/mem) echo 3 ;;
  sim/sm) echo 4 ;;
  sim) echo 5 ;; # sm.h, the machine's interface to what is above it
  sim/gpu) echo 6 ;;
  sim/fast) echo 7 ;;
  sim/study) echo 8 ;;
  sim/serve) echo 9 ;;
  sim/cli) echo 10 ;;
  esac
}
same_layer() { # two folders that are one layer (isa and its SASS reader)
  [ "$1" = "$2" ] && return 0
  case "$1:$2" in isa:isa/sass | isa/sass:isa) return 0 ;; esac
  return 1
}
folders="isa isa/sass traces config sim/exec sim/core sim/mem sim/sm sim sim/gpu sim/fast sim/study sim/serve sim/cli"

status=0
n=0

# 1. includes: a quoted include is found beside the file, else in the folders whose libraries
# the file's library uses (their include paths: sim/exec's exec.h, sim/study's headers, ...)
bad_includes=0
for dir in $folders; do
  for f in "$root/$dir"/*.[ch]; do
    [ -e "$f" ] || continue
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
      target=""
      if [ -e "$root/$dir/$inc" ]; then
        target=$(realpath -m --relative-to="$root" "$root/$dir/$inc")
      else
        for d in $folders; do
          if [ -e "$root/$d/$inc" ]; then
            target=$(realpath -m --relative-to="$root" "$root/$d/$inc")
            break
          fi
        done
      fi
      [ -n "$target" ] || continue # a system or generated header
      to=$(dirname "$target")
      same_layer "$dir" "$to" && continue
      rt=$(rank "$to")
      [ -n "$rt" ] || continue
      if [ "$rt" -ge "$(rank "$dir")" ]; then
        echo "$dir/$(basename "$f"): includes $target, of layer $to (not below $dir)"
        bad_includes=1
      fi
    done
  done
done
n=$((n + 1))
if [ $bad_includes -eq 0 ]; then
  echo "ok $n - every file includes headers of its own folder or of layers below it"
else
  echo "not ok $n - includes against the layers' order"
  status=1
fi

# 2. symbols: which library defines each global symbol, and which libraries use it
if [ -n "$build" ]; then
  libs="isa:isa/libsmsim-isa.a traces:traces/libsmsim-traces.a config:config/libsmsim-config.a
sim/exec:sim/exec/libsmsim-exec.a sim/core:sim/libsmsim-core.a sim/mem:sim/libsmsim-mem.a
sim/sm:sim/libsmsim-sm.a sim/gpu:sim/libsmsim-gpu.a sim/fast:sim/libsmsim-fast.a
sim/study:sim/study/libsmsim-study.a sim/serve:sim/serve/libsmsim-serve.a
sim/cli:sim/cli/libsmsim-cli.a"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for pair in $libs; do
    dir=${pair%%:*}
    lib=$build/${pair#*:}
    if [ ! -e "$lib" ]; then
      echo "$lib: not built"
      status=1
      continue
    fi
    # defined: "folder symbol"; used: "folder object symbol"
    nm -A --defined-only --extern-only "$lib" 2>/dev/null |
      awk -v d="$dir" 'NF >= 3 && $(NF-1) ~ /^[TDBRVWCG]$/ {print d, $NF}' >>"$tmp/defs"
    nm -A --undefined-only "$lib" 2>/dev/null |
      awk -v d="$dir" '{o=$1; sub(/:$/, "", o); n=split(o, p, ":"); print d, p[n], $NF}' >>"$tmp/uses"
  done
  ranks=""
  for d in $folders; do ranks="$ranks $d=$(rank "$d")"; done
  awk -v ranks="$ranks" '
    BEGIN { n = split(ranks, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, "="); rk[kv[1]] = kv[2] } }
    NR == FNR { def[$2] = $1; next }
    ($3 in def) && def[$3] != $1 && rk[def[$3]] >= rk[$1] {
      printf "%s (%s): uses %s, defined in layer %s (not below %s)\n", $1, $2, $3, def[$3], $1
      bad = 1
    }
    END { exit bad }' "$tmp/defs" "$tmp/uses"
  bad_symbols=$?
  n=$((n + 1))
  if [ $bad_symbols -eq 0 ]; then
    echo "ok $n - every library calls and reads only its own layer and those below it"
  else
    echo "not ok $n - calls against the layers' order"
    status=1
  fi
fi
echo "1..$n"
exit $status
