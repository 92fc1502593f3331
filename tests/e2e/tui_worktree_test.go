package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// :ClaudeNova tui --worktree=NAME, as new --worktree: claude's TUI works in
// a worktree of its own from the start; its proposal is of the worktree's
// file, :w writes there and never in the checkout; sessions() names the
// branch.
func TestTUIInItsOwnWorktree(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "committed\n"})
		e.Cmd("ClaudeNova tui --worktree=tui-fix")
		var id int
		e.Lua(&id, "return vim.b.claudenova_tui or 0")
		if id == 0 {
			t.Fatalf("no TUI; notes: %v", e.Notes())
		}
		var job int
		e.Lua(&job, "return vim.b.terminal_job_id")
		e.Cmd("stopinsert")
		wt := filepath.Join(e.Project, ".claude", "worktrees", "tui-fix")
		e.Eventually(60*time.Second, "the TUI in its worktree", func() bool { return strings.Contains(e.tuiScreen(id), ".claude/worktrees/tui-fix") })
		e.typeIntoTUI(id, job, Seq(Step("Write", map[string]any{"file_path": "{{cwd}}/new.txt", "content": "in the worktree\n"})), "SEQ")
		p, buf := e.WaitProposal()
		var path string
		e.Lua(&path, "return require('claudenova.store.state').requests[...].path", p.ID)
		if path != filepath.Join(wt, "new.txt") {
			t.Fatalf("a proposal of %s, want the worktree's new.txt", path)
		}
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(20*time.Second, "the worktree's new.txt", func() bool {
			b, _ := os.ReadFile(filepath.Join(wt, "new.txt"))
			return string(b) == "in the worktree\n"
		})
		if e.fileExists("new.txt") {
			t.Fatal("new.txt was written in the checkout")
		}
		if b := e.gitIn(wt, "rev-parse", "--abbrev-ref", "HEAD"); b != "worktree-tui-fix" {
			t.Fatalf("the worktree is on %s", b)
		}
		var wtInfo struct {
			Path   string `msgpack:"path"`
			Branch string `msgpack:"branch"`
		}
		e.Eventually(20*time.Second, "sessions() names the worktree", func() bool {
			e.Lua(&wtInfo, `for _, s in ipairs(require('claudenova').sessions()) do
				if s.id == ... then return s.worktree end end`, id)
			return wtInfo.Path == wt && wtInfo.Branch == "worktree-tui-fix"
		})
	})
}
