package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The branch in one review (issue 65): :ClaudeNova merge opens the files
// view of the merge, every file with its +/− and conflicts marked; "apply
// all clean files" applies each file without a conflict as :w of its
// proposal does (the open buffers follow, the session's round has them),
// the conflicted one stays a proposal that <CR> opens, and what was applied
// and left is listed. The Lua API does the same in one call.
func TestMergeAppliesAllCleanFiles(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "vim.g.maplocalleader = ','")
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\n", "b.txt": "red\ngreen\n", "c.txt": "keep\n"})
		id, _ := e.worktreeSession("three", Seq(
			Step("Read", map[string]any{"file_path": "a.txt"}),
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}),
			Step("Read", map[string]any{"file_path": "b.txt"}),
			Step("Edit", map[string]any{"file_path": "b.txt", "old_string": "red", "new_string": "RED"}),
			Step("Read", map[string]any{"file_path": "c.txt"}),
			Step("Edit", map[string]any{"file_path": "c.txt", "old_string": "keep", "new_string": "claude's keep"})))
		e.stopSession(id)
		e.WriteFile("c.txt", "my keep\n") // the line the branch changed: a conflict
		a, b := filepath.Join(e.Project, "a.txt"), filepath.Join(e.Project, "b.txt")
		e.Cmd("edit " + a)
		e.Cmd("split " + b)

		e.Cmd("ClaudeNova merge")
		list := e.filesList()
		if len(list) != 5 || !strings.HasPrefix(list[0], "⎇ worktree-three → your checkout · 3 files · 1 with conflicts") ||
			list[2] != "· a.txt  +1 −1" || list[3] != "· b.txt  +1 −1" || !strings.HasPrefix(list[4], "· c.txt  +") ||
			!strings.HasSuffix(list[4], "  conflicts") {
			t.Fatalf("the merge's files view:\n%s", strings.Join(list, "\n"))
		}
		e.Input(",a")
		e.Eventually(20*time.Second, "a.txt and b.txt applied", func() bool {
			return e.ReadFile("a.txt") == "ONE\ntwo\n" && e.ReadFile("b.txt") == "RED\ngreen\n"
		})
		e.Eventually(10*time.Second, "their buffers follow the disk", func() bool {
			return e.fileBufLines(a) == "ONE\ntwo" && e.fileBufLines(b) == "RED\ngreen"
		})
		e.Eventually(10*time.Second, "what was applied and left, listed", func() bool {
			return e.NoteContaining("worktree-three: applied a.txt, b.txt; still a proposal: c.txt (conflicts)")
		})
		if got := e.ReadFile("c.txt"); got != "my keep\n" {
			t.Fatalf("the conflicted c.txt was written: %q", got)
		}
		var cid string
		e.Lua(&cid, `for id, r in pairs(require('claudenova.store.state').requests) do
			if r.surface == 'proposal' and r.target == 'c.txt' then return id end end return ''`)
		if cid == "" {
			t.Fatal("c.txt is no longer a proposal")
		}
		e.Eventually(10*time.Second, "the view says so", func() bool {
			list = e.filesList()
			return len(list) == 5 && list[2] == "· a.txt  +1 −1  applied" && list[3] == "· b.txt  +1 −1  applied" &&
				strings.HasSuffix(list[4], "  conflicts")
		})
		// As any applied proposal's: the files join the session's round.
		var inRound int
		e.Lua(&inRound, `local v = require('claudenova.channel.host').request('review_round', { session = ... })
			local n = 0
			for _, f in ipairs(v.files or {}) do if f.rel == 'a.txt' or f.rel == 'b.txt' then n = n + 1 end end
			return n`, id)
		if inRound != 2 {
			t.Fatalf("%d of the applied files are in the session's round", inRound)
		}
		// <CR> on the conflicted file opens its proposal.
		e.cursorTo(5)
		e.Input("<CR>")
		e.Eventually(20*time.Second, "c.txt's proposal open", func() bool { return e.ProposalBuf(cid) != 0 })

		// The Lua API: one call merges and applies what is clean.
		id2, _ := e.worktreeSession("two", Seq(
			Step("Write", map[string]any{"file_path": "d.txt", "content": "new\n"}),
			Step("Read", map[string]any{"file_path": "c.txt"}),
			Step("Edit", map[string]any{"file_path": "c.txt", "old_string": "keep", "new_string": "KEEP"})))
		var res string
		e.Lua(&res, `local r = require('claudenova').merge(..., { apply = 'clean' })
			return table.concat(r.applied, ",") .. "|" .. table.concat(r.proposals, ",") .. "|" .. table.concat(r.skipped, ",")`, id2)
		if res != "d.txt|c.txt|" {
			t.Fatalf("merge(id, { apply = 'clean' }): applied|proposals|skipped = %q", res)
		}
		if got := e.ReadFile("d.txt"); got != "new\n" {
			t.Fatalf("d.txt: %q", got)
		}
	})
}

// mergeThenProposals runs :ClaudeNova merge, sees its files view and closes
// it: the proposals then open one after another, as a person leaving the
// view has them.
func (e *Env) mergeThenProposals() {
	e.t.Helper()
	e.Cmd("ClaudeNova merge")
	if l := e.filesList(); !strings.HasPrefix(l[0], "⎇ ") {
		e.t.Fatalf("the merge's files view:\n%s", strings.Join(l, "\n"))
	}
	e.Input("q")
	e.Eventually(10*time.Second, "the files view closed", func() bool {
		var surface string
		e.Lua(&surface, "return vim.b.claudenova_surface or ''")
		return surface != "files"
	})
}
