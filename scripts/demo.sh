#!/usr/bin/env bash
# make demo: Neovim with the plugin, a real claude CLI and our scripted local
# model server, in a throw-away project. No account, nothing leaves 127.0.0.1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CLAUDENOVA_TESTBED:-${XDG_CACHE_HOME:-$HOME/.cache}/claudenova-testbed}
# shellcheck disable=SC1091
. "$cache/env"

work=$(mktemp -d "${TMPDIR:-/tmp}/claudenova-demo.XXXXXX")
model_pid=
cleanup() {
  if [ -n "$model_pid" ]; then kill "$model_pid" 2>/dev/null || true; wait "$model_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP

go build -o "$work/fakemodel" "$root/tests/cmd/fakemodel"
mkdir -p "$work/project" "$work/home" "$work/xdg"
"$work/fakemodel" -addr 127.0.0.1:0 -script "$root/scripts/demo/script.json" \
  -scripts "$root/scripts/demo/branches.json" -reply "$root/scripts/demo/reply.md" -quiet \
  >"$work/model.out" 2>"$work/model.log" &
model_pid=$!
for _ in $(seq 100); do grep -q '^listening ' "$work/model.out" && break; sleep 0.05; done
url=$(sed -n 's/^listening //p' "$work/model.out")
[ -n "$url" ] || { echo "demo: the model server did not start:" >&2; cat "$work/model.log" >&2; exit 1; }

cd "$work/project"
# The project: greet.py, and the tour's steps (scripts/demo/script.json) in
# README.demo.md (a test checks that it names every step).
cp "$root/scripts/demo/greet.py" "$root/scripts/demo/README.demo.md" .
# A git repository with a first commit: worktree sessions (new --worktree,
# best of N, merge) and authorship notes need one.
git init -q
git add .
git -c user.name=demo -c user.email=demo@localhost commit -qm "the demo project"

export CLAUDENOVA_DEMO_ROOT="$root" CLAUDENOVA_DEMO_MODEL="$url" CLAUDENOVA_DEMO_HOME="$work/home"
# claude's own temporary files (a background command's output) go here too.
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"
export XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data" XDG_STATE_HOME="$work/xdg/state" XDG_CACHE_HOME="$work/xdg/cache"
"$NVIM_012" -u "$root/scripts/demo/init.lua" -i NONE
