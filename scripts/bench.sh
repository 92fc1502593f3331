#!/usr/bin/env bash
# make bench: performance figures, each next to its target.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CLAUDENOVA_TESTBED:-${XDG_CACHE_HOME:-$HOME/.cache}/claudenova-testbed}
# shellcheck disable=SC1091
. "$cache/env"
work=$(mktemp -d "${TMPDIR:-/tmp}/claudenova-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== diff: claudenova diff vs GNU diff -u vs gotextdiff"
go run "$root/tests/bench/diffbench" -bin "$root/bin/claudenova" || echo "(diff target missed, see above)"

echo
echo "== Go micro-benchmarks (diff, reconstruction)"
go test -run '^$' -bench . -benchtime 20x ./rplugin/diff ./rplugin/proposal 2>/dev/null | grep -E '^(Benchmark|ok)' || true

echo
go build -o "$work/fakeclaude" "$root/tests/cmd/fakeclaude"
for v in NVIM_012 NVIM_010; do
  echo
  echo "== UI on $v: approval latency, a gesture while a 10 MB answer waits, back-pressure, live text, no stall, host RSS"
  echo "   (fake claude, real headless Neovim)"
  go run "$root/tests/bench/uibench" -root "$root" -nvim "${!v}" -fakeclaude "$work/fakeclaude" || echo "(a UI target was missed, see above)"
done

if command -v tmux >/dev/null; then
  for v in NVIM_012 NVIM_010; do
    echo
    echo "== terminal on $v: the streaming transcript drawn by a real TUI (tmux, nvim --remote-ui)"
    go run "$root/tests/bench/termbench" -root "$root" -nvim "${!v}" -fakeclaude "$work/fakeclaude" || echo "(a terminal target was missed, see above)"
  done
else
  echo "== terminal: skipped (tmux is not installed: it gives the real terminal a TUI draws in)"
fi

echo
echo "== startup: cost of loading the plugin (nvim --startuptime, 20 runs each)"
for v in NVIM_010 NVIM_012; do
  bin=${!v}
  total=0
  for i in $(seq 20); do
    rm -f "$work/st.log"
    XDG_CONFIG_HOME="$work/cfg" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
      "$bin" --headless -u NORC -i NONE --cmd "set rtp^=$root" --startuptime "$work/st.log" +qa
    t=$(awk '/claudenova/ && /sourcing/ { print $2 }' "$work/st.log" | head -n1)
    total=$(awk -v a="$total" -v b="${t:-0}" 'BEGIN { print a + b }')
  done
  awk -v t="$total" -v v="$v" 'BEGIN { avg = t / 20; printf "  %s: plugin/claudenova.lua %.3f ms (target ≤ 1 ms: %s)\n", v, avg, (avg <= 1 ? "met" : "MISSED") }'
done
