package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A command's edits are Claude's edits: an allowed Bash that runs sed -i on
// a committed file and creates another has both listed under its prompt in
// checkpoints(), named under the command in the transcript, and rewind
// restores the first and removes the second. Committed, the authorship
// note gives their lines to the session.
func TestACommandsChangesAreSeen(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\n", "keep.txt": "keep\n", ".gitignore": "*.log\n"})
		a, n := filepath.Join(e.Project, "a.txt"), filepath.Join(e.Project, "n.txt")
		id := e.allowedCommand("sed -i 's/two/TWO/' a.txt && echo new > n.txt && echo log > x.log", func() bool { return e.ReadFile("n.txt") == "new\n" })
		if got := e.ReadFile("a.txt"); got != "one\nTWO\n" {
			t.Fatalf("a.txt = %q", got)
		}
		if tr := e.Transcript(id); !strings.Contains(tr, "changed 3 files +2 −1: a.txt, n.txt (new), x.log (new) (ignored). Not restorable by rewind (its content before is not kept): x.log") {
			t.Fatalf("the transcript does not name what the command changed:\n%s", tr)
		} else if cut := tr[strings.Index(tr, "changed 3 files"):]; !strings.Contains(cut, "-two") || !strings.Contains(cut, "+TWO") || !strings.Contains(cut, "+++ n.txt") {
			// The line opens (<CR>) onto the command's diff.
			t.Fatalf("no diff folded under the command's line:\n%s", cut)
		}
		// <CR> on the command's line opens its diff.
		e.Cmd("ClaudeNova transcript")
		var line int
		e.Lua(&line, `for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
			if l:find("changed 3 files", 1, true) then return i end end return 0`)
		folded := func() bool {
			var c int
			e.Lua(&c, "return vim.fn.foldclosed(...)", line+1)
			return c != -1
		}
		if line == 0 || !folded() {
			t.Fatalf("the command's diff is not folded under its line (line %d)", line)
		}
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, { ..., 0 })", line)
		e.Input("<CR>")
		e.Eventually(5*time.Second, "the command's diff opens", func() bool { return !folded() })
		cps := e.checkpoints()
		if len(cps) != 1 || strings.Join(cps[0].Files, ",") != a+","+n || strings.Join(cps[0].Unkept, ",") != filepath.Join(e.Project, "x.log") {
			t.Fatalf("checkpoints = %+v, want a.txt and n.txt under the prompt, x.log named as not kept", cps)
		}
		// The changes view shows the prompt's files (two: it asks which).
		e.ScriptUI([]string{"a.txt"}, nil)
		e.Cmd("set columns=200") // the winbar has room for the command
		e.Cmd("ClaudeNova changes")
		e.Eventually(20*time.Second, "the changes view on a.txt", func() bool { return strings.Contains(e.winbar(), "a.txt") })
		var choices [][]string
		e.Lua(&choices, "return _G.claudenova_test.choices")
		if len(choices) != 1 || len(choices[0]) != 2 || !strings.Contains(choices[0][0], "a.txt") {
			t.Errorf("the changes view's files %q, want a.txt and n.txt", choices)
		} else if !strings.Contains(choices[0][0], "by `sed -i") {
			t.Errorf("the changes view does not name the command that changed a.txt: %q", choices[0][0])
		}
		if wb := e.winbar(); !strings.Contains(wb, "by `sed -i") {
			t.Errorf("the changes view's winbar does not name the command: %q", wb)
		}
		e.Cmd("tabclose")
		// The review round lists them too, each with its command.
		e.Cmd("ClaudeNova changes round")
		e.Eventually(20*time.Second, "the round's files view names the command", func() bool {
			var lines []string
			e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
			text := strings.Join(lines, "\n")
			return strings.Contains(text, "a.txt") && strings.Contains(text, "by `sed -i")
		})
		// Committed, the authorship note gives both files' lines to the
		// session (before, they were the user's: no note at all).
		e.gitIn(e.Project, "add", "-A")
		e.gitIn(e.Project, "commit", "-qm", "by a command")
		var note string
		e.Eventually(30*time.Second, "the commit's authorship note", func() bool {
			note = e.noteOf(e.Project, "HEAD")
			return note != ""
		})
		if !strings.Contains(note, "a.txt\n  ") || !strings.Contains(note, "n.txt\n  ") {
			t.Fatalf("the note does not give a.txt and n.txt to the session:\n%s", note)
		}
		var res []any
		e.Lua(&res, "return { require('claudenova').rewind(...) }", cps[0].ID)
		if len(res) != 2 || res[0] != true {
			t.Fatalf("rewind = %v", res)
		}
		if got := e.ReadFile("a.txt"); got != "one\ntwo\n" {
			t.Errorf("a.txt after the rewind = %q", got)
		}
		if _, err := os.Stat(n); !os.IsNotExist(err) {
			t.Errorf("n.txt is still there after the rewind (%v)", err)
		}
		if got := e.ReadFile("x.log"); got != "log\n" {
			t.Errorf("x.log (not kept, so not restored) = %q", got)
		}
		if got := e.ReadFile("keep.txt"); got != "keep\n" {
			t.Errorf("keep.txt = %q", got)
		}
	})
}

// allowedCommand starts a session whose Claude runs command, allows it
// when it asks, and returns once ran says it ran and the session is idle.
func (e *Env) allowedCommand(command string, ran func() bool) (id int) {
	e.t.Helper()
	id = e.newSession(Seq(bash(command, "run it")))
	p := e.WaitPending(1)[0]
	var ok bool
	e.Lua(&ok, "return require('claudenova').decide(..., 'allow')", p.ID)
	e.Eventually(60*time.Second, "the command ran", ran)
	e.WaitIdle(id)
	return id
}

// heldCommand starts a session in a repository of a.txt and b.txt whose
// allowed command waits, then writes a.txt; done lets it go on and returns
// once the session is idle.
func (e *Env) heldCommand() (id int, done func()) {
	e.t.Helper()
	e.gitRepo(map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	signal := filepath.Join(e.t.TempDir(), "go")
	id = e.newSession(Seq(bash("while [ ! -e "+signal+" ]; do sleep 0.1; done; echo A > a.txt", "wait, then write a.txt")))
	p := e.WaitPending(1)[0]
	var ok bool
	e.Lua(&ok, "return require('claudenova').decide(..., 'allow')", p.ID)
	e.WaitPending(0)
	return id, func() {
		e.t.Helper()
		if err := os.WriteFile(signal, nil, 0o644); err != nil {
			e.t.Fatal(err)
		}
		e.Eventually(60*time.Second, "the command wrote a.txt", func() bool { return e.ReadFile("a.txt") == "A\n" })
		e.WaitIdle(id)
	}
}

// Two sessions in one folder: while one's command runs, the other's
// proposal is applied. Each change is its own session's: the command's
// snapshot sees b.txt change, and leaves it to the session that wrote it.
func TestACommandDoesNotTakeAnotherSessionsChange(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a, b := filepath.Join(e.Project, "a.txt"), filepath.Join(e.Project, "b.txt")
		first, done := e.heldCommand()
		second := e.newSession(Seq(Step("Write", map[string]any{"file_path": b, "content": "B\n"})))
		_, buf := e.WaitProposal()
		e.WaitGraceOver()
		e.Lua(nil, "vim.api.nvim_buf_call(..., function() vim.cmd('write') end)", buf)
		e.Eventually(30*time.Second, "b.txt written by the second session", func() bool { return e.ReadFile("b.txt") == "B\n" })
		e.WaitIdle(second)
		done()
		tr := e.Transcript(first)
		if !strings.Contains(tr, "changed 1 file +1 −1: a.txt") || !strings.Contains(tr, "Not its changes (written meanwhile): b.txt (session 2)") {
			t.Fatalf("the command's line does not keep b.txt apart:\n%s", tr)
		}
		var cps []checkpointRow
		e.Lua(&cps, "return require('claudenova').checkpoints(...)", first)
		if len(cps) != 1 || strings.Join(cps[0].Files, ",") != a {
			t.Errorf("the first session's checkpoints = %+v, want a.txt only", cps)
		}
		e.Lua(&cps, "return require('claudenova').checkpoints(...)", second)
		if len(cps) != 1 || strings.Join(cps[0].Files, ",") != b {
			t.Errorf("the second session's checkpoints = %+v, want b.txt only", cps)
		}
	})
}

// Commands that run without asking (an allow rule in the user's settings) are seen too: our
// PreToolUse hook snapshots the folder before claude runs them. One in the
// background is compared when its task ends, not when its call returns.
func TestUnaskedAndBackgroundCommandsAreSeen(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{HomeFiles: map[string]string{".claude/settings.json": `{"permissions":{"allow":["Bash"]}}`}})
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\n"})
		id := e.newSession(Seq(
			bash("sed -i 's/one/ONE/' a.txt", "edit a.txt"),
			Step("Bash", map[string]any{"command": "sleep 1; echo bg > bg.txt", "description": "later", "run_in_background": true}),
		))
		e.Eventually(60*time.Second, "the unasked command's line", func() bool {
			return strings.Contains(e.Transcript(id), "`sed -i 's/one/ONE/' a.txt` changed 1 file +1 −1: a.txt")
		})
		e.Eventually(60*time.Second, "the background command's line, once its task ended", func() bool {
			return strings.Contains(e.Transcript(id), "`sleep 1; echo bg > bg.txt` changed 1 file +1 −0: bg.txt (new)")
		})
		if len(e.Pending()) != 0 {
			t.Fatalf("a command asked: %+v", e.Pending())
		}
		cps := e.checkpoints()
		if len(cps) != 1 || strings.Join(cps[0].Files, ",") != filepath.Join(e.Project, "a.txt")+","+filepath.Join(e.Project, "bg.txt") {
			t.Fatalf("checkpoints = %+v", cps)
		}
	})
}

// A file the user saves while a command runs is the user's: the command's
// line names it as someone else's and it is not in the session's
// checkpoint.
func TestACommandDoesNotTakeTheUsersSave(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a, b := filepath.Join(e.Project, "a.txt"), filepath.Join(e.Project, "b.txt")
		id, done := e.heldCommand()
		e.Cmd("edit " + b)
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'mine' })")
		e.Cmd("write")
		done()
		if tr := e.Transcript(id); !strings.Contains(tr, "changed 1 file +1 −1: a.txt") || !strings.Contains(tr, "(written meanwhile): b.txt (you)") {
			t.Fatalf("the command's line does not leave b.txt to the user:\n%s", tr)
		}
		if cps := e.checkpoints(); len(cps) != 1 || strings.Join(cps[0].Files, ",") != a {
			t.Errorf("checkpoints = %+v, want a.txt only", cps)
		}
	})
}

// A command the user denies never ran: what changed on disk while it
// waited (here a file written behind the editor's back) is not its.
func TestADeniedCommandChangedNothing(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "a\n"})
		id := e.newSession(Seq(bash("echo A > a.txt", "write a.txt")))
		p := e.WaitPending(1)[0]
		e.WriteFile("elsewhere.txt", "written meanwhile\n")
		var ok bool
		e.Lua(&ok, "return require('claudenova').decide(..., 'deny')", p.ID)
		e.WaitIdle(id)
		if tr := e.Transcript(id); strings.Contains(tr, "changed 1 file") || strings.Contains(tr, "elsewhere.txt") {
			t.Fatalf("a denied command is said to have changed a file:\n%s", tr)
		}
		if cps := e.checkpoints(); len(cps) != 1 || len(cps[0].Files) != 0 {
			t.Errorf("checkpoints = %+v, want none changed", cps)
		}
	})
}

// Undoing a hunk a command made, after the fact in the changes view, puts
// its lines back and tells the session with its next message, as for a
// Write's hunk.
func TestUndoingACommandsHunkTellsClaude(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\nthree\n"})
		e.allowedCommand("sed -i 's/two/TWO/' a.txt", func() bool { return e.ReadFile("a.txt") == "one\nTWO\nthree\n" })
		e.Cmd("ClaudeNova changes")
		e.Eventually(20*time.Second, "the changes view on a.txt", func() bool { return strings.Contains(e.winbar(), "a.txt · by `sed -i") })
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {2, 0})")
		e.Input(`\u`)
		e.Eventually(10*time.Second, "the hunk undone on disk", func() bool { return e.ReadFile("a.txt") == "one\ntwo\nthree\n" })
		e.Cmd("ClaudeNova transcript")
		e.Lua(nil, `require('claudenova').send("continue")`)
		req := e.waitRequest("continue", "undid part of your change to a.txt")
		if !strings.Contains(req, "-TWO\n+two") {
			t.Fatalf("the model was not told what was undone:\n%s", req)
		}
	})
}

// A command that deletes the whole folder's contents (rm -rf *): rewind
// brings back every file, committed or untracked, in folders too, with
// its mode; an open buffer follows.
func TestRewindBringsBackWhatACommandDeleted(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "a\n", "src/b.go": "package b\n", "run.sh": "echo run\n"})
		if err := os.Chmod(filepath.Join(e.Project, "run.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		e.WriteFile("notes.md", "mine, never committed\n") // untracked
		e.Cmd("edit " + filepath.Join(e.Project, "src", "b.go"))
		id := e.allowedCommand("rm -rf *", func() bool {
			_, err := os.Stat(filepath.Join(e.Project, "src"))
			return os.IsNotExist(err)
		})
		if tr := e.Transcript(id); !strings.Contains(tr, "changed 4 files +0 −4") {
			t.Fatalf("the transcript does not name the four deleted files:\n%s", tr)
		}
		cps := e.checkpoints()
		if len(cps) != 1 || len(cps[0].Files) != 4 {
			t.Fatalf("checkpoints = %+v, want the four files under the prompt", cps)
		}
		var res []any
		e.Lua(&res, "return { require('claudenova').rewind(...) }", cps[0].ID)
		if len(res) != 2 || res[0] != true {
			t.Fatalf("rewind = %v", res)
		}
		for rel, want := range map[string]string{"a.txt": "a\n", "src/b.go": "package b\n", "run.sh": "echo run\n", "notes.md": "mine, never committed\n"} {
			if got := e.ReadFile(rel); got != want {
				t.Errorf("%s after the rewind = %q, want %q", rel, got, want)
			}
		}
		if fi, err := os.Stat(filepath.Join(e.Project, "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("run.sh lost its execute bit: %v %v", fi.Mode(), err)
		}
		e.Eventually(10*time.Second, "b.go's buffer follows", func() bool {
			return e.fileBufLines(filepath.Join(e.Project, "src", "b.go")) == "package b"
		})
	})
}
