package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowGit puts a git first on Neovim's PATH that takes delay before each
// call the host makes (claude's own git calls and the test's go on at
// once) and returns the folder it is in.
func slowGit(t *testing.T, delay string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\n" +
		"if [ \"$(cat /proc/$PPID/comm 2>/dev/null)\" = claudenova ]; then sleep " + delay + "; fi\n" +
		"exec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The editor never waits for git: while merge, compare, provenance, blame,
// a new worktree session and a notes push run against a git that takes 1 s a
// call, a 2 ms timer in Neovim keeps firing. Its longest gap is held to
// less than one git call (a bound that tells waiting from not waiting, not
// a measure of speed: the figures are make bench's).
func TestEditorNeverWaitsForGit(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		slow := slowGit(t, "1")
		e := NewEnv(t, v, Options{NvimEnv: []string{"PATH=" + slow + ":" + os.Getenv("PATH")}})
		e.gitRepo(map[string]string{"a.txt": "one\n"})
		remote := filepath.Join(t.TempDir(), "remote.git")
		e.gitIn(filepath.Dir(remote), "init", "-q", "--bare", remote)
		e.gitIn(e.Project, "remote", "add", "origin", remote)
		e.gitIn(e.Project, "notes", "--ref=ai", "add", "-m", "a note", "HEAD")
		e.Lua(nil, `_G.gaps = { max = 0, last = vim.uv.hrtime() }
			_G.gaps.timer = vim.uv.new_timer()
			-- Measured on the editor's main loop (a libuv callback runs
			-- even while Neovim waits inside a synchronous call).
			_G.gaps.timer:start(2, 2, function()
				vim.schedule(function()
					local now = vim.uv.hrtime()
					_G.gaps.max = math.max(_G.gaps.max, (now - _G.gaps.last) / 1e6)
					_G.gaps.step = math.max(_G.gaps.step or 0, (now - _G.gaps.last) / 1e6)
					_G.gaps.last = now
				end)
			end)`)
		var per []string // each step's longest gap, for the failure's message
		mark := func(what string) {
			var g float64
			e.Lua(&g, "local g = _G.gaps.step or 0; _G.gaps.step = 0; return g")
			per = append(per, fmt.Sprintf("%s: %.0f ms", what, g))
		}
		step := func(cmd, done string) {
			t.Helper()
			e.Cmd(cmd)
			e.Eventually(60*time.Second, cmd+": "+done, func() bool { return e.NoteContaining(done) })
			mark(strings.Fields(cmd)[1])
		}
		step("ClaudeNova new --worktree=slow "+Seq(Step("Write", map[string]any{"file_path": "n.txt", "content": "n\n"})),
			"Write n.txt")
		step("ClaudeNova compare", "compare needs two worktree sessions")
		e.Cmd("ClaudeNova provenance")
		e.Eventually(60*time.Second, "the note shown", func() bool {
			var first string
			e.Lua(&first, "return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] or ''")
			return strings.HasPrefix(first, "Commit")
		})
		mark("provenance")
		e.Cmd("close")
		step("ClaudeNova provenance push", "pushed the authorship notes")
		// Blame reads the commit's authorship note (git) for the file.
		e.Cmd("edit " + filepath.Join(e.Project, "a.txt"))
		step("ClaudeNova blame", "has not changed a.txt")
		e.Cmd("ClaudeNova blame")
		e.Cmd("ClaudeNova stop")
		e.ScriptUI([]string{"Keep "}, nil)
		step("ClaudeNova merge", "nothing to bring over")
		var longest float64
		e.Lua(&longest, "_G.gaps.timer:stop(); return _G.gaps.max")
		if longest >= 900 {
			t.Fatalf("Neovim's loop stood still for %.0f ms: it waited for git (each call takes 1 s); by step: %s\nnotes:\n%s",
				longest, strings.Join(per, ", "), strings.Join(e.Notes(), "\n"))
		}
		t.Logf("longest gap of a 2 ms timer: %.1f ms", longest)
	})
}
