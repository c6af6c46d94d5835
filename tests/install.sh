#!/usr/bin/env bash
# smsim installed like any Unix tool: 'meson install --destdir' into a temporary folder, then the
# installed program run from another folder, with names instead of paths (the presets and
# kernels it installed, a user's own GPU files through $SMSIM_PATH), its man pages rendered and
# its bash completion offering the presets.
#   tests/install.sh BUILD_DIR
set -euo pipefail

build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "meson install"; }
bin=$(find "$tmp/root" -path '*/bin/smsim' -type f)
[ -x "$bin" ] || fail "no bin/smsim installed"
prefix=$(dirname "$(dirname "$bin")")
for f in share/smsim/gpus/h100.yaml share/smsim/kernels/mix.yaml \
  share/smsim/kernels/textbook/saxpy.yaml share/smsim/kernels/textbook/textbook.sass \
  share/smsim/kernels/h100/mempipe.sass.gz share/man/man1/smsim.1 share/man/man5/smsim-config.5 \
  share/bash-completion/completions/smsim share/doc/smsim/README.md \
  share/doc/smsim/latency-hiding.md; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ ! -e "$prefix/share/doc/smsim/meson.build" ] || fail "docs/meson.build installed"

# from another folder, nothing of the source tree in reach: names find the installed files
mkdir "$tmp/work"
cd "$tmp/work"
unset SMSIM_PATH
"$bin" --version | grep -q '^smsim [0-9]' || fail "--version"
"$bin" list >"$tmp/list.txt"
grep -q "^GPUs in $prefix/share/smsim/gpus (installed):" "$tmp/list.txt" || fail "list: $(cat "$tmp/list.txt")"
grep -q '^  h100 .*H100' "$tmp/list.txt" || fail "list: no h100"
grep -q '^  textbook/saxpy ' "$tmp/list.txt" || fail "list: no textbook/saxpy"
"$bin" run h100 mix --set warps_per_sm=32 >"$tmp/run.txt" || fail "run h100 mix"
grep -q '^cycles  *[0-9]' "$tmp/run.txt" || fail "run h100 mix: $(cat "$tmp/run.txt")"
"$bin" run h100 h100/mempipe-empty >/dev/null || fail "run h100 h100/mempipe-empty (its SASS)"
"$bin" describe mix | grep -q '^params:' || fail "describe mix"
# an unknown name: one line with the nearest known one, status 2
status=0
"$bin" run h10 mix 2>"$tmp/err.txt" || status=$?
[ "$status" -eq 2 ] && grep -q "did you mean 'h100'" "$tmp/err.txt" || fail "run h10: $status $(cat "$tmp/err.txt")"

# a user's own GPU files through $SMSIM_PATH, found before the installed ones
mkdir -p "$tmp/mine/kernels"
sed 's/^name: .*/name: "my GPU"/' "$prefix/share/smsim/gpus/maxwell.yaml" >"$tmp/mine/mygpu.yaml"
sed 's/^name: .*/name: "my H100"/' "$prefix/share/smsim/gpus/h100.yaml" >"$tmp/mine/h100.yaml"
cp "$prefix/share/smsim/kernels/mix.yaml" "$tmp/mine/kernels/mymix.yaml"
export SMSIM_PATH="$tmp/mine"
"$bin" run mygpu mymix | grep -q '^gpu  *my GPU' || fail "SMSIM_PATH: run mygpu mymix"
"$bin" run h100 mix | grep -q '^gpu  *my H100' || fail "SMSIM_PATH: its h100 first"
"$bin" list gpus | head -1 | grep -q "^GPUs in $tmp/mine (SMSIM_PATH):" || fail "list: SMSIM_PATH first"
unset SMSIM_PATH

# the man pages render and name every command; the completion offers the presets
export MANWIDTH=80
man -l "$prefix/share/man/man1/smsim.1" >"$tmp/man1.txt" 2>"$tmp/man.err" || fail "man smsim"
for c in run sweep merge validate fit occupancy describe list explain serve; do
  grep -q "^   $c\$" "$tmp/man1.txt" || fail "man smsim: no section for $c"
  grep -Eq "smsim +$c( |$)" "$tmp/man1.txt" || fail "man smsim: no synopsis for $c"
done
grep -q -- '--trace-window' "$tmp/man1.txt" || fail "man smsim: no --trace-window"
man -l "$prefix/share/man/man5/smsim-config.5" >"$tmp/man5.txt" 2>>"$tmp/man.err" || fail "man 5"
grep -q 'max_store_outstanding' "$tmp/man5.txt" || fail "man smsim-config: no memory keys"
grep -q 'warps_per_sm' "$tmp/man5.txt" || fail "man smsim-config: no kernel keys"
[ ! -s "$tmp/man.err" ] || fail "man: $(cat "$tmp/man.err")"

PATH="$(dirname "$bin"):$PATH" bash -c '
  source "$1"
  COMP_WORDS=(smsim run h); COMP_CWORD=2; _smsim; echo "${COMPREPLY[*]}"
  COMP_WORDS=(smsim run h100 mix --set alp); COMP_CWORD=5; _smsim; echo "${COMPREPLY[*]}"
  COMP_WORDS=(smsim sw); COMP_CWORD=1; _smsim; echo "${COMPREPLY[*]}"
' _ "$prefix/share/bash-completion/completions/smsim" >"$tmp/complete.txt"
sed -n 1p "$tmp/complete.txt" | grep -qw h100 || fail "completion: run h -> $(sed -n 1p "$tmp/complete.txt")"
sed -n 2p "$tmp/complete.txt" | grep -q 'alpha=' || fail "completion: --set alp -> $(sed -n 2p "$tmp/complete.txt")"
sed -n 3p "$tmp/complete.txt" | grep -qx sweep || fail "completion: sw -> $(sed -n 3p "$tmp/complete.txt")"
# the lab server: the page built into the program, the installed kernels in its catalogue
(cd "$tmp" && exec "$bin" serve --port 0 --port-file "$tmp/port" >"$tmp/serve.txt") &
serve=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || fail "serve: no port"
python3 - "$(cat "$tmp/port")" >"$tmp/page.txt" 2>&1 <<'PY' || fail "serve: $(cat "$tmp/page.txt")"
import json, sys, urllib.request
base = "http://127.0.0.1:%s" % sys.argv[1]
page = urllib.request.urlopen(base + "/").read().decode()
assert "<script src=\"lab.js\"" in page, page[:200]
kernels = json.load(urllib.request.urlopen(base + "/api/kernels"))["kernels"]
assert "mix" in [k["name"] for k in kernels], kernels
PY
kill -TERM $serve
wait $serve || fail "serve: exit status $?"
grep -q "^smsim serve: open http://127.0.0.1:" "$tmp/serve.txt" || fail "serve: $(cat "$tmp/serve.txt")"
grep -q "^smsim serve: stopped after 2 answers" "$tmp/serve.txt" || fail "serve: $(cat "$tmp/serve.txt")"

echo "installed under $prefix: runs by name, man pages, completion, the lab server"
