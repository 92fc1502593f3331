package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Attacks on bringing a worktree's branch into the checkout (issue 60):
// each one lost or hid work before; nothing the user or an agent wrote may
// be removed or overwritten without the user seeing it first.

// gitRepo makes the project a git repository with files committed.
func (e *Env) gitRepo(files map[string]string) {
	e.t.Helper()
	for rel, content := range files {
		e.WriteFile(rel, content)
	}
	e.gitIn(e.Project, "init", "-q")
	e.gitIn(e.Project, "add", ".")
	e.gitIn(e.Project, "commit", "-qm", "init")
}

// worktreeSession starts a session in worktree name that makes script's
// changes without asking (acceptEdits), waits until it is idle and
// returns its id and its worktree's folder.
func (e *Env) worktreeSession(name, script string) (int, string) {
	e.t.Helper()
	var id int
	e.Lua(&id, "return require('claudenova').new({ prompt = ..., mode = 'acceptEdits', worktree = select(2, ...) }).id", script, name)
	e.WaitIdle(id)
	return id, filepath.Join(e.Project, ".claude", "worktrees", name)
}

// fileText is a file (relative to a folder) and the text it should hold.
type fileText struct{ file, text string }

// saveEach saves the next proposal for each of wants in turn (:w, as it
// opens) and waits until its file in dir holds the text.
func (e *Env) saveEach(dir string, wants ...fileText) {
	e.t.Helper()
	for _, want := range wants {
		p, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "the worktree's "+want.file, func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, want.file))
			return string(b) == want.text
		})
		e.WaitGone(p.ID)
	}
}

// removeWorktree asks the host to remove a worktree (args: merge_remove's,
// as the front end sends them) and says "ok: …" or "error: …".
func (e *Env) removeWorktree(args map[string]any) string {
	e.t.Helper()
	var res string
	e.Lua(&res, `local ok, r = pcall(require('claudenova.channel.host').request, 'merge_remove', ...)
		return (ok and 'ok: ' or 'error: ') .. tostring(r)`, args)
	return res
}

// stopSession stops session id and waits until it exited.
func (e *Env) stopSession(id int) {
	e.t.Helper()
	e.Lua(nil, "require('claudenova').stop(...)", id)
	e.Eventually(20*time.Second, "session exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
}

// mergeLua starts the merge of a session's branch (its id), or of a
// worktree by its branch's name.
func (e *Env) mergeLua(id any) string {
	e.t.Helper()
	var msg string
	e.Lua(&msg, `local ok, res = pcall(require('claudenova').merge, ...)
		if not ok then return 'error: ' .. tostring(res) end
		return res.message`, id)
	return msg
}

// A merge's :w reaches the buffers open on its files: an unmodified one
// shows the merged text at once (a later edit and :w keep the merged
// lines), and one with unsaved edits is merged as the user sees it (its
// edits are the checkout's side of the merge, the user is told) and then
// holds both.
func TestMergeReachesOpenBuffers(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "red\ngreen\nblue\n"})
		id, _ := e.worktreeSession("bufs", Seq(
			Step("Read", map[string]any{"file_path": "a.txt"}),
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}),
			Step("Read", map[string]any{"file_path": "b.txt"}),
			Step("Edit", map[string]any{"file_path": "b.txt", "old_string": "red", "new_string": "RED"})))
		e.stopSession(id)
		a, b := filepath.Join(e.Project, "a.txt"), filepath.Join(e.Project, "b.txt")
		e.Cmd("edit " + a)
		e.Cmd("split " + b)
		// b.txt has an unsaved edit on a line the branch did not touch.
		e.Lua(nil, `vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 2, 3, false, { "blue (mine, unsaved)" })`, b)

		e.ScriptUI([]string{"Keep "}, nil) // the removal offer at the end
		mustContain(t, "merge", e.mergeLua(id), "worktree-bufs: 2 to review")
		_, abuf := e.mergeProposal("a.txt")
		focusBuf(e, abuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "a.txt applied", func() bool { return e.ReadFile("a.txt") == "ONE\ntwo\nthree\n" })
		e.Eventually(10*time.Second, "a.txt's buffer follows the disk", func() bool {
			return e.fileBufLines(a) == "ONE\ntwo\nthree"
		})
		var modified bool
		e.Lua(&modified, "return vim.bo[vim.fn.bufnr(...)].modified", a)
		if modified {
			t.Fatal("a.txt's buffer is modified after the merge wrote it")
		}
		// The merged file joins the session's round, as any change of its.
		var inRound bool
		e.Lua(&inRound, `local v = require('claudenova.channel.host').request('review_round', { session = ... })
			for _, f in ipairs(v.files or {}) do if f.path == select(2, ...) then return true end end
			return false`, id, a)
		if !inRound {
			t.Fatal("the merged a.txt is not in the session's round")
		}

		// b.txt: the proposal is made from what the user sees.
		bid, bbuf := e.mergeProposal("b.txt")
		if got := e.bufLines(bbuf); got != "RED\ngreen\nblue (mine, unsaved)" {
			t.Fatalf("b.txt's merge proposal %q: the unsaved edit is not the checkout's side", got)
		}
		var orig string
		e.Lua(&orig, `local p = require('claudenova.surfaces.proposal').open_[...]
			return p and table.concat(vim.api.nvim_buf_get_lines(p.orig, 0, -1, false), "\n") or 'no proposal'`, bid)
		if orig != "red\ngreen\nblue (mine, unsaved)" {
			t.Fatalf("b.txt's original side %q, want what the user sees", orig)
		}
		e.Eventually(5*time.Second, "told about the unsaved edits", func() bool {
			return e.NoteContaining("b.txt: the merge takes your unsaved edits")
		})
		focusBuf(e, bbuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "b.txt applied", func() bool {
			return e.ReadFile("b.txt") == "RED\ngreen\nblue (mine, unsaved)\n"
		})
		e.Eventually(10*time.Second, "b.txt's buffer holds both, saved", func() bool {
			var mod bool
			e.Lua(&mod, "return vim.bo[vim.fn.bufnr(...)].modified", b)
			return !mod && e.fileBufLines(b) == "RED\ngreen\nblue (mine, unsaved)"
		})

		// A later edit and :w in a.txt's buffer keep the merged lines (no
		// "changed since reading" prompt, nothing written back).
		e.Lua(nil, `local buf = vim.fn.bufnr(...)
			for _, w in ipairs(vim.api.nvim_list_wins()) do
				if vim.api.nvim_win_get_buf(w) == buf then vim.api.nvim_set_current_win(w) end
			end
			vim.api.nvim_buf_set_lines(buf, 3, 3, false, { "four" })`, a)
		e.Cmd("write")
		if got := e.ReadFile("a.txt"); got != "ONE\ntwo\nthree\nfour\n" {
			t.Fatalf("a.txt after the user's own :w: %q", got)
		}
	})
}

// Removal never deletes what the user did not see: work the session wrote
// after the merge started, and ignored files, are named and kept; modes
// travel with the merge (a new executable, a mode-only change).
func TestRemovalKeepsWorkNotBroughtOver(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\n", "tool.sh": "#!/bin/sh\necho tool\n", ".gitignore": "*.local\n"})
		// The session edits a.txt (applied at once), then asks to write
		// b.txt: that request waits while the merge starts.
		var id int
		e.Lua(&id, "return require('claudenova').new({ prompt = ..., worktree = 'late' }).id", Seq(
			Step("Read", map[string]any{"file_path": "a.txt"}),
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}),
			Step("Write", map[string]any{"file_path": "b.txt", "content": "late work\n"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "late")
		p, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.WaitGraceOver()
		e.Cmd("write")
		e.Eventually(10*time.Second, "a.txt in the worktree", func() bool {
			b, _ := os.ReadFile(filepath.Join(wt, "a.txt"))
			return string(b) == "ONE\n"
		})
		// What a command of the session made: an ignored file, a new
		// executable, the executable bit on a committed file.
		writeMode(t, filepath.Join(wt, "settings.local"), "secret=1\n", 0o644)
		writeMode(t, filepath.Join(wt, "run.sh"), "#!/bin/sh\necho run\n", 0o755)
		if err := os.Chmod(filepath.Join(wt, "tool.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		bp, bbuf := e.WaitProposal()
		if bp.ID == p.ID {
			t.Fatal("the same proposal twice")
		}

		e.ScriptUI([]string{"Keep "}, nil) // the offer once the four are settled: kept
		mustContain(t, "merge", e.mergeLua(id), "worktree-late: 4 to review")
		for _, rel := range []string{"a.txt", "run.sh", "settings.local", "tool.sh"} {
			_, mbuf := e.presentMerge(rel) // b.txt's proposal waits meanwhile
			focusBuf(e, mbuf)
			e.Cmd("write")
			e.Eventually(10*time.Second, rel+" applied", func() bool { return e.fileExists(rel) })
		}
		e.Eventually(10*time.Second, "tool.sh's mode", func() bool { return modeOf(filepath.Join(e.Project, "tool.sh")) == 0o755 })
		if m := modeOf(filepath.Join(e.Project, "run.sh")); m != 0o755 {
			t.Fatalf("run.sh arrived %o", m)
		}
		if got := e.ReadFile("settings.local"); got != "secret=1\n" {
			t.Fatalf("settings.local %q", got)
		}

		// Late work: the session writes b.txt now that the merge is done.
		focusBuf(e, bbuf)
		e.WaitGraceOver()
		e.Cmd("write")
		e.Eventually(10*time.Second, "b.txt in the worktree", func() bool {
			b, _ := os.ReadFile(filepath.Join(wt, "b.txt"))
			return string(b) == "late work\n"
		})
		e.WaitIdle(id)
		// Removal as the offer takes it (stopping the session first): b.txt
		// exists only in the worktree, so nothing is removed and it is named.
		res := e.removeWorktree(map[string]any{"session": id, "stop": true})
		mustContain(t, "removal", res, "error: ", "b.txt")
		if _, err := os.Stat(filepath.Join(wt, "b.txt")); err != nil {
			t.Fatalf("b.txt was deleted: %v (removal said %q)", err, res)
		}
		if st, _ := e.SessionState(id); st != "exited" {
			t.Fatalf("the session is %s after a removal that stops it", st)
		}
		// Merged again, b.txt is brought over; then the worktree goes.
		mustContain(t, "merge again", e.mergeLua(id), "worktree-late: 1 to review")
		_, mbuf := e.presentMerge("b.txt")
		focusBuf(e, mbuf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "b.txt applied", func() bool { return e.fileExists("b.txt") })
		e.WaitPending(0) // written, then settled: the removal comes after
		mustContain(t, "removal", e.removeWorktree(map[string]any{"session": id}), "ok: ")
		e.Eventually(20*time.Second, "the worktree removed", func() bool {
			_, err := os.Stat(wt)
			return os.IsNotExist(err)
		})
	})
}

// A worktree folder deleted by hand while its session runs: the session
// is stopped before it writes into a plain folder there, and merge never
// runs git in a folder that is not the worktree git knows.
func TestWorktreeRemovedByHand(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\n"})
		var id int
		e.Lua(&id, "return require('claudenova').new({ prompt = ..., worktree = 'gone' }).id",
			Seq(Step("Write", map[string]any{"file_path": "n.txt", "content": "x\n"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "gone")
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.WaitGraceOver()
		e.Cmd("write")
		e.WaitIdle(id)
		if err := os.RemoveAll(wt); err != nil {
			t.Fatal(err)
		}
		// The user's own uncommitted edit in the checkout.
		e.WriteFile("a.txt", "one, mine\n")
		e.sendLua(id, Seq(Step("Write", map[string]any{"file_path": "m.txt", "content": "y\n"})))
		e.Eventually(20*time.Second, "told and stopped", func() bool {
			st, _ := e.SessionState(id)
			return st == "exited" && e.NoteContaining("worktree-gone: its folder")
		})
		if _, err := os.Stat(filepath.Join(wt, "m.txt")); err == nil {
			t.Fatal("the session wrote into a plain folder where its worktree was")
		}
		// Made again by hand as a plain folder: merge refuses.
		writeMode(t, filepath.Join(wt, "a.txt"), "not the branch\n", 0o644)
		msg := e.mergeLua(id)
		mustContain(t, "merge", msg, "error: ", "not the worktree git knows")
		if len(e.Pending()) != 0 {
			t.Fatalf("a merge proposal came: %+v", e.Pending())
		}
	})
}

// presentMerge opens the merge proposal of rel as a person picks it in the
// sidebar while another proposal is open, and returns its id and buffer.
func (e *Env) presentMerge(rel string) (string, int) {
	e.t.Helper()
	var id string
	e.Eventually(20*time.Second, "the merge proposal of "+rel, func() bool {
		e.Lua(&id, `for id, r in pairs(require('claudenova.store.state').requests) do
			if r.surface == 'proposal' and r.target == ... and r.tool:find('^Merge') then return id end end return ''`, rel)
		return id != ""
	})
	e.Lua(nil, "require('claudenova.frontend.gestures').present(...)", id)
	var buf int
	e.Eventually(20*time.Second, "the merge proposal of "+rel+" open", func() bool { buf = e.ProposalBuf(id); return buf != 0 })
	e.WaitGraceOver()
	return id, buf
}

func writeMode(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func modeOf(path string) os.FileMode {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Mode().Perm()
}

// Leftover is a worktree as worktrees() lists it.
type Leftover struct {
	Path    string `msgpack:"path"`
	Branch  string `msgpack:"branch"`
	Session int    `msgpack:"session"`
	Merged  bool   `msgpack:"merged"`
	Files   int    `msgpack:"files"`
}

func (e *Env) worktrees() map[string]Leftover {
	e.t.Helper()
	var list []Leftover
	e.Lua(&list, "return require('claudenova').worktrees()")
	out := map[string]Leftover{}
	for _, l := range list {
		out[l.Branch] = l
	}
	return out
}

// Worktrees outlive a restart of the editor: worktrees() lists them with
// whether they were merged (kept on disk), a merged one is removed without
// its session, and one never merged is merged by its branch's name without
// resuming its session.
func TestWorktreesOutliveARestart(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
		done, _ := e.worktreeSession("done", Seq(
			Step("Read", map[string]any{"file_path": "a.txt"}),
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"})))
		e.stopSession(done)
		_, later := e.worktreeSession("later", Seq(
			Step("Read", map[string]any{"file_path": "b.txt"}),
			Step("Edit", map[string]any{"file_path": "b.txt", "old_string": "two", "new_string": "TWO"})))
		e.ScriptUI([]string{"Keep "}, nil)
		mustContain(t, "merge", e.mergeLua(done), "worktree-done: 1 to review")
		_, buf := e.presentMerge("a.txt")
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "a.txt merged", func() bool { return e.ReadFile("a.txt") == "ONE\n" })
		e.Eventually(10*time.Second, "listed merged", func() bool { return e.worktrees()["worktree-done"].Merged })
		e.Quit()

		e2 := NewEnv(t, v, Options{Again: e})
		wts := e2.worktrees()
		if d, l := wts["worktree-done"], wts["worktree-later"]; !d.Merged || d.Session != 0 || l.Merged || l.Files != 1 || l.Path != later {
			t.Fatalf("after a restart: %+v", wts)
		}
		// The merged one goes without its session.
		res := e2.removeWorktree(map[string]any{"branch": "worktree-done", "cwd": e2.Project})
		mustContain(t, "removal after a restart", res, "ok: removed worktree-done")
		// The other is merged by its name, no session resumed.
		e2.ScriptUI([]string{"Keep "}, nil)
		mustContain(t, "merge by branch", e2.mergeLua("later"), "worktree-later: 1 to review")
		_, buf2 := e2.presentMerge("b.txt")
		focusBuf(e2, buf2)
		e2.Cmd("write")
		e2.Eventually(10*time.Second, "b.txt merged", func() bool { return e2.ReadFile("b.txt") == "TWO\n" })
		if n := len(e2.ClaudePids()); n != 0 {
			t.Fatalf("%d claude processes: a session was resumed", n)
		}
		if _, ok := e2.worktrees()["worktree-done"]; ok {
			t.Fatal("the removed worktree is still listed")
		}
		e2.Eventually(10*time.Second, "listed merged", func() bool { return e2.worktrees()["worktree-later"].Merged })
		// A worktree whose session runs, removed by its branch's name as
		// :ClaudeNova worktrees does: the session is stopped first, and
		// its file, only there, is named and kept.
		runs, runWt := e2.worktreeSession("runs", Seq(Step("Write", map[string]any{"file_path": "r.txt", "content": "r\n"})))
		res = e2.removeWorktree(map[string]any{"branch": "worktree-runs", "cwd": e2.Project, "stop": true})
		mustContain(t, "removal of a running session's worktree", res, "error: ", "nothing removed", "r.txt")
		if st, _ := e2.SessionState(runs); st != "exited" {
			t.Fatalf("the session is %s after a removal that stops it", st)
		}
		if _, err := os.Stat(filepath.Join(runWt, "r.txt")); err != nil {
			t.Fatalf("r.txt: %v", err)
		}
	})
}
