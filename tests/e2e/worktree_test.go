package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitIn runs git in dir for the test (its own HOME, no system config).
func (e *Env) gitIn(dir string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+e.Home, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// saveInWorktree saves the next proposals, one per {file, text} of want in
// order: each must be of worktree wt's file, and wt's file holds the text
// once it is saved.
func (e *Env) saveInWorktree(wt string, want ...[2]string) {
	e.t.Helper()
	for _, w := range want {
		p, buf := e.WaitProposal()
		var path string
		e.Lua(&path, "return require('claudenova.store.state').requests[...].path", p.ID)
		if path != filepath.Join(wt, w[0]) {
			e.t.Fatalf("a proposal of %s, want the worktree's %s", path, w[0])
		}
		focusBuf(e, buf)
		e.WaitGraceOver()
		e.Cmd("write")
		e.Eventually(10*time.Second, "the worktree's "+w[0], func() bool {
			b, _ := os.ReadFile(filepath.Join(wt, w[0]))
			return string(b) == w[1]
		})
		e.WaitGone(p.ID)
	}
}

// :ClaudeNova new --worktree=NAME: the real claude makes the worktree and
// works there from the start; its proposals are of the worktree's files,
// :w writes there and never in the checkout, and the sidebar names the
// branch and what it changed. Outside a git repository: a clear message
// and no session.
func TestNewSessionInItsOwnWorktree(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "committed\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", "a.txt")
		e.gitIn(e.Project, "commit", "-qm", "init")
		base := e.gitIn(e.Project, "rev-parse", "HEAD")
		e.Cmd("ClaudeNova sidebar")
		e.Cmd("wincmd p")
		id := e.newSession("--worktree=fix-login " + Seq(
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "committed", "new_string": "fixed"}),
			Step("Write", map[string]any{"file_path": "new.txt", "content": "one\ntwo\n"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "fix-login")
		e.saveInWorktree(wt, [2]string{"a.txt", "fixed\n"}, [2]string{"new.txt", "one\ntwo\n"})
		e.WaitIdle(id)
		if e.ReadFile("a.txt") != "committed\n" {
			t.Fatalf("the checkout's a.txt changed: %q", e.ReadFile("a.txt"))
		}
		if _, err := os.Stat(filepath.Join(e.Project, "new.txt")); err == nil {
			t.Fatal("new.txt was written in the checkout")
		}
		if b := e.gitIn(wt, "rev-parse", "--abbrev-ref", "HEAD"); b != "worktree-fix-login" {
			t.Fatalf("the worktree is on %s", b)
		}
		e.Eventually(15*time.Second, "the branch and its changes on the session line", func() bool {
			return strings.Contains(strings.Join(e.sidebarLines(), "\n"), "⎇ worktree-fix-login · 2 files +3 −1")
		})
		var wtInfo struct {
			Path   string `msgpack:"path"`
			Branch string `msgpack:"branch"`
			Base   string `msgpack:"base"`
		}
		e.Lua(&wtInfo, `for _, s in ipairs(require('claudenova').sessions()) do
			if s.id == ... then return s.worktree end end`, id)
		if wtInfo.Path != wt || wtInfo.Branch != "worktree-fix-login" || wtInfo.Base != base {
			t.Fatalf("sessions()[i].worktree = %+v", wtInfo)
		}
		// The branch as a pull request: its files, then one in a diff
		// against the base; ]f goes on; undo is not for a branch.
		e.Cmd("ClaudeNova changes branch")
		list := e.filesList()
		if len(list) != 4 || list[0] != "⎇ worktree-fix-login · since "+base[:7]+" · 2 files · 0 viewed" ||
			list[2] != "· a.txt  +1 −1" || list[3] != "· new.txt  +2 −0  new" {
			t.Fatalf("the files view:\n%s", strings.Join(list, "\n"))
		}
		e.Input("<CR>")
		e.Eventually(10*time.Second, "a.txt's diff", func() bool { return strings.Contains(e.winbar(), "Now · a.txt · 1 hunk") })
		var sides []string
		e.Lua(&sides, `local out = {}
			for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				table.insert(out, table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "|"))
			end
			return out`)
		if strings.Join(sides, " ↔ ") != "committed ↔ fixed" {
			t.Fatalf("the diff's sides %q", sides)
		}
		e.Input(`\u`)
		e.Eventually(5*time.Second, "undo refused", func() bool { return e.NoteContaining(":ClaudeNova merge brings it over") })
		e.Input("]f")
		e.Eventually(10*time.Second, "new.txt's diff", func() bool { return strings.Contains(e.winbar(), "Now · new.txt") })
		e.Cmd("tabclose")
		e.Cmd("tabclose")

		// Stopped, the worktree stays, with Claude's work in it.
		e.Cmd("ClaudeNova stop")
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
		if b, err := os.ReadFile(filepath.Join(wt, "a.txt")); err != nil || string(b) != "fixed\n" {
			t.Fatalf("after stop: %q %v", b, err)
		}

		// The resume picker lists it (claude keeps it under the worktree's
		// folder), and resumed from the checkout it works in its worktree
		// again, its branch known.
		var claudeID string
		e.Lua(&claudeID, "return require('claudenova.store.state').sessions[...].claude_id", id)
		var listed string
		e.Lua(&listed, `for _, s in ipairs(require('claudenova.channel.host').request('resumable', { cwd = ... }).sessions) do
			if s.id == select(2, ...) then return s.worktree or '' end end return 'missing'`, e.Project, claudeID)
		if listed != "fix-login" {
			t.Fatalf("the resume list names the worktree as %q", listed)
		}
		var resumed int
		e.Lua(&resumed, "return require('claudenova').resume(...).id", claudeID)
		e.Eventually(30*time.Second, "the resumed session back in its worktree", func() bool {
			var cwd string
			e.Lua(&cwd, "return require('claudenova.store.state').sessions[...].cwd", resumed)
			return cwd == wt && strings.Contains(strings.Join(e.sidebarLines(), "\n"), "⎇ worktree-fix-login")
		})
		e.Cmd("ClaudeNova stop")

		// Without a name, the worktree is named after the prompt.
		second := e.newSession("--worktree Fix the login page")
		e.Eventually(20*time.Second, "the second worktree", func() bool {
			var cwd string
			e.Lua(&cwd, "return require('claudenova.store.state').sessions[...].cwd", second)
			return cwd == filepath.Join(e.Project, ".claude", "worktrees", "fix-the-login-page")
		})

		// Outside a git repository: no session, and why.
		out := t.TempDir()
		var before, after int
		e.Lua(&before, "return #require('claudenova').sessions()")
		var msg string
		e.Lua(&msg, `local ok, err = pcall(require('claudenova').new, { cwd = ..., worktree = true, prompt = 'x' })
			return ok and 'started' or err`, out)
		e.Lua(&after, "return #require('claudenova').sessions()")
		if !strings.Contains(msg, "not in a git repository") || after != before {
			t.Fatalf("outside git: %q, sessions %d → %d", msg, before, after)
		}
	})
}

// Best of two told apart: each attempt has a label of its own (the
// prompt's first words and its number) in sessions(), the sidebar at 60
// columns, the session picker and compare. Discarding one says its session
// stops; the open comparison follows: its column goes, the count is right,
// and no row is left that would open the removed branch.
func TestBestOfTwoToldApartAfterDiscard(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "committed\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", "a.txt")
		e.gitIn(e.Project, "commit", "-qm", "init")
		e.Cmd("ClaudeNova new --worktree --count=2 " + Seq(
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "committed", "new_string": "fixed"})))
		e.Eventually(5*time.Second, "told", func() bool { return e.NoteContaining("2 sessions on one prompt, each in its own worktree: 1, 2") })
		for range 2 {
			p, buf := e.WaitProposal()
			var path string
			e.Lua(&path, "return require('claudenova.store.state').requests[...].path", p.ID)
			focusBuf(e, buf)
			e.Cmd("write")
			e.Eventually(10*time.Second, "applied", func() bool {
				b, _ := os.ReadFile(path)
				return string(b) == "fixed\n"
			})
			e.WaitGone(p.ID)
		}
		e.WaitIdle(1)
		e.WaitIdle(2)

		var labels []string
		e.Lua(&labels, `local out = {}
			for _, s in ipairs(require('claudenova').sessions()) do out[s.id] = s.label or '' end
			return out`)
		if len(labels) != 2 || !strings.HasSuffix(labels[0], " #1") || !strings.HasSuffix(labels[1], " #2") ||
			strings.TrimSuffix(labels[0], " #1") != strings.TrimSuffix(labels[1], " #2") || len(labels[0]) > 20 {
			t.Fatalf("sessions()' labels %q", labels)
		}
		// The sidebar at 60 columns: each row by its label, whole.
		e.Cmd("set columns=60")
		e.Cmd("ClaudeNova sidebar")
		e.Eventually(5*time.Second, "the labels in the sidebar", func() bool {
			text := strings.Join(e.sidebarLines(), "\n")
			return strings.Contains(text, "1 · "+labels[0]) && strings.Contains(text, "2 · "+labels[1])
		})
		e.Cmd("wincmd p")
		// :ClaudeNova sessions: the label before the state.
		e.ScriptUI([]string{"CANCEL"}, nil)
		e.Cmd("ClaudeNova sessions")
		var choices []string
		e.Lua(&choices, "local c = _G.claudenova_test.choices; return c[#c]")
		if len(choices) != 2 || !strings.HasPrefix(choices[0], "1 · "+labels[0]+" · idle") || !strings.HasPrefix(choices[1], "2 · "+labels[1]+" · idle") {
			t.Fatalf("the session picker: %q", choices)
		}

		e.Cmd("set columns=100")
		e.Cmd("ClaudeNova compare")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if len(lines) != 7 || !strings.HasPrefix(lines[0], "Compare 2 branches of project") ||
			!strings.HasPrefix(lines[2], labels[0]+" · session 1 idle") || !strings.HasPrefix(lines[3], labels[1]+" · session 2 idle") ||
			!strings.Contains(lines[5], "#1") || !strings.Contains(lines[5], "#2") {
			t.Fatalf("the comparison:\n%s", strings.Join(lines, "\n"))
		}
		// x on the second: the question says its session stops.
		var wt2 string
		e.Lua(&wt2, "return require('claudenova.store.state').sessions[2].worktree.path")
		e.cursorTo(4)
		e.ScriptUI([]string{"Remove "}, nil)
		e.Input("x")
		var prompt string
		e.Lua(&prompt, "local p = _G.claudenova_test.prompts; return p[#p]")
		if !strings.Contains(prompt, labels[1]) || !strings.Contains(prompt, "session 2 stops") {
			t.Fatalf("the discard question: %q", prompt)
		}
		e.Eventually(20*time.Second, "the worktree removed", func() bool {
			_, err := os.Stat(wt2)
			return os.IsNotExist(err)
		})
		e.Eventually(10*time.Second, "the comparison without it", func() bool {
			e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
			return len(lines) == 6 && strings.HasPrefix(lines[0], "Compare 1 branch of project") &&
				!strings.Contains(strings.Join(lines, "\n"), labels[1])
		})
		var left []int
		e.Lua(&left, `local o = require('claudenova.surfaces.compare').open_views[vim.api.nvim_get_current_buf()]
			local out = {}
			for _, r in pairs(o.rows) do if r.branch then table.insert(out, o.view.branches[r.branch].session) end end
			return out`)
		if len(left) != 1 || left[0] != 1 {
			t.Fatalf("the comparison's branch rows are of sessions %v", left)
		}
	})
}

// A worktree session's worktree is kept out of `git status` (and of
// `git add -A`, which would add it as an embedded repository): the
// repository's own info/exclude gets /.claude/worktrees/, the user's
// .gitignore is left as it was.
func TestWorktreeKeptOutOfGitStatus(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "committed\n")
		e.WriteFile(".gitignore", "*.log") // no newline at its end
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", "a.txt", ".gitignore")
		e.gitIn(e.Project, "commit", "-qm", "init")
		id := e.newSession("--worktree=keep-out " + Seq(
			Step("Write", map[string]any{"file_path": "new.txt", "content": "one\n"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "keep-out")
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.WaitGraceOver()
		e.Cmd("write")
		e.Eventually(10*time.Second, "the worktree's new.txt", func() bool {
			b, _ := os.ReadFile(filepath.Join(wt, "new.txt"))
			return string(b) == "one\n"
		})
		e.WaitIdle(id)
		var status string
		e.Eventually(10*time.Second, "git status without .claude/", func() bool {
			status = e.gitIn(e.Project, "status", "--porcelain")
			return status == ""
		})
		if added := e.gitIn(e.Project, "add", "-A", "--dry-run"); added != "" {
			t.Fatalf("git add -A would add:\n%s", added)
		}
		if got := e.ReadFile(".gitignore"); got != "*.log" {
			t.Fatalf("the user's .gitignore changed: %q", got)
		}
		b, err := os.ReadFile(filepath.Join(e.Project, ".git", "info", "exclude"))
		if err != nil || strings.Count(string(b), "/.claude/worktrees/\n") != 1 {
			t.Fatalf("info/exclude %q %v", b, err)
		}
	})
}

// mergeProposal waits for the merge proposal of file rel and returns its
// request id and its buffer.
func (e *Env) mergeProposal(rel string) (string, int) {
	e.t.Helper()
	var id string
	var dump string
	defer func() {
		if e.t.Failed() {
			e.t.Logf("requests: %s", dump)
		}
	}()
	e.Eventually(20*time.Second, "the merge proposal of "+rel, func() bool {
		e.Lua(&dump, "return vim.inspect(vim.tbl_map(function(r) return { r.surface, r.target, r.tool } end, require('claudenova.store.state').requests))")
		e.Lua(&id, `for id, r in pairs(require('claudenova.store.state').requests) do
			if r.surface == 'proposal' and r.target == ... then return id end end return ''`, rel)
		return id != ""
	})
	var buf int
	// It opens on its own once the one before is settled and the user
	// pauses.
	e.Eventually(20*time.Second, "proposal open", func() bool { buf = e.ProposalBuf(id); return buf != 0 })
	e.WaitGraceOver()
	return id, buf
}

// :ClaudeNova merge brings a stopped worktree session's branch into the
// checkout as proposals: a file the user changed elsewhere meanwhile is
// merged three ways without a conflict, a new file is a proposal too, a
// conflict is written with markers and :w is refused until they are gone;
// then merge remove deletes the worktree and its branch.
func TestMergeWorktreeAsProposals(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "one\ntwo\nthree\nfour\nfive\n")
		e.WriteFile("c.txt", "keep\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", ".")
		e.gitIn(e.Project, "commit", "-qm", "init")
		id := e.newSession("--worktree=feat " + Seq(
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}),
			Step("Write", map[string]any{"file_path": "b.txt", "content": "new file\n"}),
			Step("Edit", map[string]any{"file_path": "c.txt", "old_string": "keep", "new_string": "claude's keep"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "feat")
		e.saveEach(wt, fileText{"a.txt", "ONE\ntwo\nthree\nfour\nfive\n"}, fileText{"b.txt", "new file\n"}, fileText{"c.txt", "claude's keep\n"})
		e.WaitIdle(id)
		e.Cmd("ClaudeNova stop")
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
		// Meanwhile, in the checkout: a line Claude did not touch, and the
		// one it did.
		e.WriteFile("a.txt", "one\ntwo\nthree\nfour\nFIVE (mine)\n")
		e.WriteFile("c.txt", "my keep\n")

		e.mergeThenProposals()
		_, abuf := e.mergeProposal("a.txt")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", abuf)
		if strings.Join(lines, "\n") != "ONE\ntwo\nthree\nfour\nFIVE (mine)" {
			t.Fatalf("a.txt merged as %q", lines)
		}
		focusBuf(e, abuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "a.txt applied", func() bool { return e.ReadFile("a.txt") == "ONE\ntwo\nthree\nfour\nFIVE (mine)\n" })

		_, bbuf := e.mergeProposal("b.txt")
		focusBuf(e, bbuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "b.txt created", func() bool { return e.ReadFile("b.txt") == "new file\n" })

		cid, cbuf := e.mergeProposal("c.txt")
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", cbuf)
		text := strings.Join(lines, "\n")
		if !strings.Contains(text, "<<<<<<< your checkout") || !strings.Contains(text, "my keep") || !strings.Contains(text, "claude's keep") {
			t.Fatalf("c.txt: %q", text)
		}
		focusBuf(e, cbuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "the refusal", func() bool {
			return strings.Contains(strings.Join(e.Notes(), "\n"), "conflict markers remain in c.txt")
		})
		if e.ReadFile("c.txt") != "my keep\n" || e.ProposalBuf(cid) == 0 {
			t.Fatalf("a save with markers applied: %q", e.ReadFile("c.txt"))
		}
		e.Lua(nil, `vim.api.nvim_buf_set_lines(..., 0, -1, false, { "my keep, and claude's" })`, cbuf)
		e.ScriptUI(nil, nil) // the offer that follows waits for an answer
		e.Cmd("write")
		e.Eventually(10*time.Second, "c.txt resolved", func() bool { return e.ReadFile("c.txt") == "my keep, and claude's\n" })
		e.WaitPending(0)
		e.Eventually(10*time.Second, "the offer to remove the worktree", func() bool {
			return strings.Contains(strings.Join(e.Notes(), "\n"), "worktree-feat merged, every file settled")
		})
		mustContain(t, "transcript", e.Transcript(id), "worktree-feat: 3 file(s) applied, 0 skipped.")
		if notes := strings.Join(e.Notes(), "\n"); strings.Contains(notes, "changed on disk after this proposal opened") {
			t.Fatalf("a merge's own write was taken for a change on disk:\n%s", notes)
		}
		// Who wrote the merged lines: Claude's stay Claude's in the
		// checkout (a.txt's first line; b.txt whole), the rest yours.
		e.Cmd("tabnew " + filepath.Join(e.Project, "a.txt"))
		e.Cmd("ClaudeNova blame")
		e.waitBlame(0, "cyyyy")
		e.Cmd("edit " + filepath.Join(e.Project, "b.txt"))
		e.Cmd("ClaudeNova blame")
		e.waitBlame(0, "c")
		e.Cmd("tabclose")
		// The offer, once every file is settled: remove the worktree and
		// its branch, or keep them. Taken, it removes both.
		var offer []string
		e.Eventually(10*time.Second, "the offer", func() bool {
			e.Lua(&offer, `local w = _G.claudenova_test.waiting_select
				if not w then return {} end
				local out = { w.opts.prompt }
				for _, it in ipairs(w.items) do table.insert(out, w.opts.format_item(it)) end
				return out`)
			return len(offer) > 0
		})
		if len(offer) != 3 || offer[0] != "worktree-feat is merged. Remove its worktree and branch?" ||
			offer[1] != "Remove the worktree and its branch" || !strings.HasPrefix(offer[2], "Keep them") {
			t.Fatalf("the offer %q", offer)
		}
		e.Lua(nil, `local w = _G.claudenova_test.waiting_select
			_G.claudenova_test.waiting_select = nil
			w.cb(w.items[1], 1)`)
		e.Eventually(20*time.Second, "the worktree and its branch removed", func() bool {
			_, err := os.Stat(wt)
			return os.IsNotExist(err) && e.gitIn(e.Project, "branch", "--list", "worktree-feat") == ""
		})
		if _, err := os.Stat(wt); err == nil {
			t.Fatal("the worktree is still there")
		}
		if out := e.gitIn(e.Project, "branch", "--list", "worktree-feat"); out != "" {
			t.Fatalf("the branch is still there: %q", out)
		}
	})
}

// Best of two: one prompt, two sessions each in its own worktree; the
// comparison lays both branches and their file side by side; one is
// merged into the checkout.
func TestBestOfTwoComparedOneMerged(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "committed\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", "a.txt")
		e.gitIn(e.Project, "commit", "-qm", "init")
		e.Cmd("ClaudeNova new --worktree --count=2 " + Seq(
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "committed", "new_string": "fixed"})))
		e.Eventually(5*time.Second, "told", func() bool { return e.NoteContaining("2 sessions on one prompt, each in its own worktree: 1, 2") })
		var paths []string
		for range 2 {
			p, buf := e.WaitProposal()
			var path string
			e.Lua(&path, "return require('claudenova.store.state').requests[...].path", p.ID)
			paths = append(paths, path)
			focusBuf(e, buf)
			e.Cmd("write")
			e.Eventually(10*time.Second, "applied", func() bool {
				b, _ := os.ReadFile(path)
				return string(b) == "fixed\n"
			})
			e.WaitGone(p.ID)
		}
		if paths[0] == paths[1] || !strings.Contains(paths[0], filepath.Join(".claude", "worktrees")) {
			t.Fatalf("the two sessions wrote %q", paths)
		}
		e.WaitIdle(1)
		e.WaitIdle(2)
		if e.ReadFile("a.txt") != "committed\n" {
			t.Fatalf("the checkout changed: %q", e.ReadFile("a.txt"))
		}

		e.Cmd("ClaudeNova compare")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if len(lines) != 7 || !strings.HasPrefix(lines[0], "Compare 2 branches of project") ||
			!strings.Contains(lines[2], " · session 1 idle · 1 file +1 −1 · ") || !strings.Contains(lines[3], " · session 2 idle · 1 file +1 −1 · ") ||
			!strings.HasPrefix(lines[6], "a.txt  +1 −1") {
			t.Fatalf("the comparison:\n%s", strings.Join(lines, "\n"))
		}
		// The file's versions side by side, in diff mode.
		e.cursorTo(7)
		e.Input("<CR>")
		var sides []string
		e.Eventually(5*time.Second, "two windows in diff mode", func() bool {
			e.Lua(&sides, `local out = {}
				for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
					if vim.wo[w].diff then
						table.insert(out, table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "|"))
					end
				end
				return out`)
			return len(sides) == 2
		})
		if sides[0] != "fixed" || sides[1] != "fixed" {
			t.Fatalf("sides %q", sides)
		}
		e.Input("q")
		// m on the first branch merges it: the same files view as
		// :ClaudeNova merge first, then (q) a proposal into the checkout.
		e.cursorTo(3)
		e.Input("m")
		e.Eventually(20*time.Second, "the merge's files view", func() bool {
			var surface string
			e.Lua(&surface, "return vim.b.claudenova_surface or ''")
			return surface == "files"
		})
		if l := e.filesList(); !strings.HasPrefix(l[0], "⎇ worktree-seq-edit") || !strings.Contains(l[0], "→ your checkout · 1 file") {
			t.Fatalf("compare's m did not open the merge's files view:\n%s", strings.Join(l, "\n"))
		}
		e.Input("q")
		id, buf := e.mergeProposal("a.txt")
		var path string
		e.Lua(&path, "return require('claudenova.store.state').requests[...].path", id)
		if path != filepath.Join(e.Project, "a.txt") {
			t.Fatalf("the merge proposes %s", path)
		}
		focusBuf(e, buf)
		e.ScriptUI([]string{"Keep "}, nil) // the offer to remove the merged branch: kept
		e.Cmd("write")
		e.Eventually(10*time.Second, "merged into the checkout", func() bool { return e.ReadFile("a.txt") == "fixed\n" })
		e.Eventually(10*time.Second, "the offer answered", func() bool {
			var n int
			e.Lua(&n, `local n = 0
				for _, p in ipairs(_G.claudenova_test.prompts) do
					if p:find("is merged.", 1, true) and p:find("Remove its worktree and branch?", 1, true) then n = n + 1 end
				end
				return n`)
			return n == 1
		})

		// x discards the other: asked first, its session stops, its
		// worktree and branch go; the merged one stays.
		var wts []string
		e.Lua(&wts, `local st = require('claudenova.store.state')
			return { st.sessions[1].worktree.path, st.sessions[2].worktree.path }`)
		e.Cmd("ClaudeNova compare")
		e.cursorTo(4)
		e.ScriptUI([]string{"Remove "}, nil)
		e.Input("x")
		e.Eventually(20*time.Second, "the other worktree removed", func() bool {
			_, err := os.Stat(wts[1])
			return os.IsNotExist(err)
		})
		if st, _ := e.SessionState(2); st != "exited" {
			t.Fatalf("the discarded session is %s", st)
		}
		if _, err := os.Stat(wts[0]); err != nil {
			t.Fatalf("the merged worktree went too: %v", err)
		}
	})
}
