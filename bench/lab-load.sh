#!/usr/bin/env bash
# The lab server (smsim serve) under a class's load: tests/serve/load.c's 8 clients and 400
# requests against a release build, its latency percentiles kept in bench/lab-load.txt.
#
#   bench/lab-load.sh [BUILD_DIR]   (default: the release build with LTO in build-bench/)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-}
if [ -z "$dir" ]; then
  if [ -f build-bench/build.ninja ]; then
    meson setup --reconfigure build-bench -Dbuildtype=release -Db_lto=true >/dev/null
  else
    meson setup build-bench -Dbuildtype=release -Db_lto=true >/dev/null
  fi
  dir=build-bench
fi
ninja -C "$dir" tests/test-serve-load >/dev/null
{
  echo "# $(date -u +%Y-%m-%d), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  "$dir/tests/test-serve-load" --jobs 2
} | tee bench/lab-load.txt
