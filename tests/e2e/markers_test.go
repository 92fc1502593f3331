package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A merge proposal's :w is refused while any marker line the merge wrote
// is left, naming the line: resolving for the branch by deleting
// "<<<<<<< your checkout" through "=======" but leaving ">>>>>>>
// worktree-mk" applied the file with the marker in it. The file's own
// "=======" (a markdown heading's underline) is text: once the marker is
// gone, the save applies.
func TestMergeLeftoverMarkerRefused(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("c.md", "Title\n=======\n\nkeep\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", ".")
		e.gitIn(e.Project, "commit", "-qm", "init")
		id := e.newSession("--worktree=mk " + Seq(
			Step("Edit", map[string]any{"file_path": "c.md", "old_string": "keep", "new_string": "claude's keep"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "mk")
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "the worktree's c.md", func() bool {
			b, _ := os.ReadFile(filepath.Join(wt, "c.md"))
			return string(b) == "Title\n=======\n\nclaude's keep\n"
		})
		e.WaitIdle(id)
		e.Cmd("ClaudeNova stop")
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
		mine := "Title\n=======\n\nmy keep\n"
		e.WriteFile("c.md", mine)

		e.ScriptUI(nil, nil) // the removal offer once it is settled waits for an answer, never blocks Neovim
		e.mergeThenProposals()
		cid, cbuf := e.mergeProposal("c.md")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", cbuf)
		want := []string{"Title", "=======", "", "<<<<<<< your checkout", "my keep", "||||||| where worktree-mk started", "keep",
			"=======", "claude's keep", ">>>>>>> worktree-mk"}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Fatalf("c.md merged as %q", lines)
		}
		// For the branch: "<<<<<<< your checkout" through "=======" deleted,
		// ">>>>>>> worktree-mk" left (line 5 now).
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 3, 8, false, {})", cbuf)
		focusBuf(e, cbuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "the refusal naming the line", func() bool {
			return e.NoteContaining(`conflict markers remain in c.md (line 5: ">>>>>>> worktree-mk")`)
		})
		if got := e.ReadFile("c.md"); got != mine || e.ProposalBuf(cid) == 0 {
			t.Fatalf("a save with a marker left applied: c.md %q, proposal open: %v", got, e.ProposalBuf(cid) != 0)
		}
		// Each other marker line left alone is refused too, by its line.
		for _, left := range []struct {
			lines []string
			note  string
		}{
			{[]string{"Title", "=======", "", "<<<<<<< your checkout", "claude's keep"}, `(line 4: "<<<<<<< your checkout")`},
			{[]string{"Title", "=======", "", "my keep", "||||||| where worktree-mk started", "claude's keep"}, `(line 5: "||||||| where worktree-mk started")`},
			{[]string{"Title", "=======", "", "my keep", "=======", "claude's keep"}, `(line 5: "=======")`},
		} {
			e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 0, -1, false, select(2, ...))", cbuf, left.lines)
			e.Cmd("write")
			e.Eventually(10*time.Second, "the refusal "+left.note, func() bool { return e.NoteContaining("conflict markers remain in c.md " + left.note) })
			if got := e.ReadFile("c.md"); got != mine || e.ProposalBuf(cid) == 0 {
				t.Fatalf("a save with %q applied: c.md %q", left.lines, got)
			}
		}
		// The markers gone, the heading's own ======= kept: applied.
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 0, -1, false, select(2, ...))", cbuf, []string{"Title", "=======", "", "claude's keep"})
		e.Cmd("write")
		e.Eventually(10*time.Second, "c.md resolved", func() bool { return e.ReadFile("c.md") == "Title\n=======\n\nclaude's keep\n" })
		e.WaitPending(0)
	})
}
