#!/bin/sh
# The test programs leave nothing in the temporary folder: each makes one folder there as it
# starts, puts every scratch file of its tests inside, and removes it as it exits, also when a
# test fails (Check runs each test in a child that exits without running what atexit
# registered).  Runs test-caches, whose tests write their GPU and kernel files to scratch
# files, once with smsim (all pass) and once without (its tests that run smsim fail), each with
# TMPDIR an empty folder of its own, and checks that the program used that folder and left it
# empty.
#
#   tests/tempdirs.sh BUILD_DIR SMSIM
#
# Prints "ok" / "not ok" lines in TAP.
build=$1
smsim=$2
prog=$build/tests/test-caches
[ -x "$prog" ] || { echo "Bail out! no $prog"; exit 1; }
top=$(mktemp -d "${TMPDIR:-/tmp}/smsim-tempdirs-XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
echo "1..2"
n=0
failed=0
check() { # NAME EXPECT (pass or fail) ENV...
  name=$1 expect=$2
  shift 2
  n=$((n + 1))
  dir=$top/$n
  mkdir "$dir"
  env "$@" TMPDIR="$dir" SMSIM_TEST_TEMP_REPORT=1 CK_VERBOSITY=silent CK_FORK=yes "$prog" \
    >"$top/out$n" 2>&1
  rc=$?
  why=
  if [ "$expect" = pass ] && [ $rc -ne 0 ]; then
    why="exit status $rc, expected 0"
  elif [ "$expect" = fail ] && [ $rc -eq 0 ]; then
    why="exit status 0, expected a failure"
  elif [ -n "$(ls -A "$dir")" ]; then
    why="it left $(ls -A "$dir" | head -3 | tr '\n' ' ')"
  elif ! grep -q "^removed $dir/smsim-tests-[^:]*: [0-9]* entries" "$top/out$n"; then
    why="it did not say it removed a folder in $dir"
  elif [ "$(grep "^removed $dir/" "$top/out$n" | sed 's/.*: \([0-9]*\) entries/\1/')" -lt 2 ]; then
    why="its folder held nothing: the check would pass without the tests using it"
  fi
  if [ -n "$why" ]; then
    echo "not ok $n - $name: $why"
    sed 's/^/# /' "$top/out$n" | tail -5
    failed=1
  else
    echo "ok $n - $name"
  fi
}
check "all tests pass" pass SMSIM="$smsim"
check "tests that run smsim fail" fail SMSIM=/nonexistent/smsim
exit $failed
