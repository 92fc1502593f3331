#!/usr/bin/env bash
# make bench: performance figures, each next to its target. Every section
# runs; a section that misses a target (or fails) is named at the end and
# the exit status is 1. Each figure also goes to a summary (JSON lines,
# tests/bench/benchstat) from which the README's performance table is
# written (tests/bench/benchtable); BENCH_README=0 leaves README.md alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CLAUDENOVA_TESTBED:-${XDG_CACHE_HOME:-$HOME/.cache}/claudenova-testbed}
# shellcheck disable=SC1091
. "$cache/env"
work=$(mktemp -d "${TMPDIR:-/tmp}/claudenova-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CLAUDENOVA_BENCH_SUMMARY="$work/summary.jsonl"
: >"$CLAUDENOVA_BENCH_SUMMARY"

failed=()
# run NAME CMD...: a section; its failure is remembered, not fatal.
run() {
  local name=$1
  shift
  if ! "$@"; then
    failed+=("$name")
  fi
}
label() { case $1 in NVIM_012) echo 0.12 ;; NVIM_010) echo 0.10 ;; *) echo "$1" ;; esac }
# The machine's load as each section begins: on a shared machine a figure
# is read beside it.
load() { echo "   (load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"; }

echo "== diff: claudenova diff vs GNU diff -u vs gotextdiff"
load
run "diff" go run "$root/tests/bench/diffbench" -bin "$root/bin/claudenova"

echo
echo "== Go micro-benchmarks (diff; proposal reconstruction: the file after an Edit/MultiEdit, rebuilt from the tool input; the authorship note of a 10,000-line commit beside git's own notes add; a command that changes nothing, with and without the snapshots around it)"
load
run "micro-benchmarks" bash -c "cd '$root' && go test -run '^\$' -bench . -benchtime 20x ./rplugin/diff ./rplugin/proposal ./rplugin/rooms/provenance ./rplugin/snapshot 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)'"

echo
go build -o "$work/fakeclaude" "$root/tests/cmd/fakeclaude"
for v in NVIM_012 NVIM_010; do
  echo
  echo "== UI on $v: approval latency, a gesture while a 10 MB answer waits, back-pressure, live text, start-up to first text, host RSS"
  load
  echo "   (fake claude, real headless Neovim)"
  CLAUDENOVA_BENCH_VARIANT=$(label $v) run "UI on $v" go run "$root/tests/bench/uibench" -root "$root" -nvim "${!v}" -fakeclaude "$work/fakeclaude" -skip stall
done

for v in NVIM_012 NVIM_010; do
  echo
  echo "== stall on $v: the longest gap of a 2 ms timer inside Neovim (fake claude, real headless Neovim, a UI attached)"
  load
  CLAUDENOVA_BENCH_VARIANT=$(label $v) run "stall on $v" go run "$root/tests/bench/uibench" -root "$root" -nvim "${!v}" -fakeclaude "$work/fakeclaude" -only stall
done

if command -v tmux >/dev/null; then
  for v in NVIM_012 NVIM_010; do
    echo
    echo "== terminal on $v: the streaming transcript drawn by a real TUI (tmux, nvim --remote-ui)"
    load
    CLAUDENOVA_BENCH_VARIANT=$(label $v) run "terminal on $v" go run "$root/tests/bench/termbench" -root "$root" -nvim "${!v}" -fakeclaude "$work/fakeclaude"
  done
else
  echo "== terminal: skipped (tmux is not installed: it gives the real terminal a TUI draws in)"
  failed+=("terminal (not run)")
fi

echo
echo "== startup: cost of loading the plugin (nvim --startuptime, 20 runs each)"
load
startup() {
  local v=$1 bin=${!1} total=0 t avg
  for _ in $(seq 20); do
    rm -f "$work/st.log"
    XDG_CONFIG_HOME="$work/cfg" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
      "$bin" --headless -u NORC -i NONE --cmd "set rtp^=$root" --startuptime "$work/st.log" +qa
    t=$(awk '/claudenova/ && /sourcing/ { print $2 }' "$work/st.log" | head -n1)
    total=$(awk -v a="$total" -v b="${t:-0}" 'BEGIN { print a + b }')
  done
  avg=$(awk -v t="$total" 'BEGIN { printf "%.3f", t / 20 }')
  local met=false
  awk -v a="$avg" 'BEGIN { exit !(a <= 1) }' && met=true
  printf '  %s: plugin/claudenova.lua %s ms (target ≤ 1 ms: %s)\n' "$v" "$avg" "$($met && echo met || echo MISSED)"
  printf '{"row":"startup cost (nvim --startuptime, plugin/claudenova.lua)","variant":"%s","figure":"%.2f ms","target":"≤ 1 ms","met":%s}\n' \
    "$(label "$v")" "$avg" "$met" >>"$CLAUDENOVA_BENCH_SUMMARY"
  $met
}
for v in NVIM_012 NVIM_010; do
  run "startup on $v" startup "$v"
done

echo
if [ "${BENCH_README:-1}" != 0 ]; then
  # A missed figure is in the table too, marked MISSED.
  run "README table" go run "$root/tests/bench/benchtable" -summary "$CLAUDENOVA_BENCH_SUMMARY" -readme "$root/README.md"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "make bench: targets missed or sections failed in: $(IFS=';'; echo "${failed[*]}" | sed 's/;/; /g')"
  exit 1
fi
echo "make bench: every target met"
