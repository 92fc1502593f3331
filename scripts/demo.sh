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
trap cleanup EXIT INT TERM

go build -o "$work/fakemodel" "$root/tests/cmd/fakemodel"
mkdir -p "$work/project" "$work/home" "$work/xdg"
"$work/fakemodel" -addr 127.0.0.1:0 -demo -script "$root/scripts/demo/script.json" -quiet \
  >"$work/model.out" 2>"$work/model.log" &
model_pid=$!
for _ in $(seq 100); do grep -q '^listening ' "$work/model.out" && break; sleep 0.05; done
url=$(sed -n 's/^listening //p' "$work/model.out")
[ -n "$url" ] || { echo "demo: the model server did not start:" >&2; cat "$work/model.log" >&2; exit 1; }

cd "$work/project"
cat > greet.py <<'PY'
def greet(name):
    return "hello " + name


if __name__ == "__main__":
    print(greet("world"))
PY
cat > README.demo.md <<'MD'
# claude-nova demo

A real `claude` CLI talks to a scripted model server on 127.0.0.1. Session 1 asks, in turn:

1. **Edit greet.py**: a proposal opens beside the original in diff mode. Change anything you
   like, then `:w` to apply *your* version (or `:q` to reject).
2. **Write notes/todo.md**: a new file in a new folder; `:w` creates it.
3. **Bash** `ls -la > listing.txt`: the action panel. `a` allow, `s` allow for session, `r` review, `d` deny.
4. **Two questions**: pick answers in the picker (the second one is multi-select).

The sidebar on the right lists every pending request (`<CR>` re-opens one).
Then run `:DemoPlan` for a session in plan mode: approve the plan with `,a` (accept edits),
`,y` (approve) or `,n` (keep planning). `:ClaudeNova transcript` shows the conversation.
Afterwards `:ClaudeNova changes` reviews what a prompt changed (undo a hunk with `,u`), and
`:ClaudeNova rewind` restores the files to before a prompt. Quit with `:qa`.
MD

export CLAUDENOVA_DEMO_ROOT="$root" CLAUDENOVA_DEMO_MODEL="$url" CLAUDENOVA_DEMO_HOME="$work/home"
export XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data" XDG_STATE_HOME="$work/xdg/state" XDG_CACHE_HOME="$work/xdg/cache"
"$NVIM_012" -u "$root/scripts/demo/init.lua" -i NONE
