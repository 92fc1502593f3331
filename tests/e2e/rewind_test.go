package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type checkpointRow struct {
	ID         string   `msgpack:"id"`
	N          int      `msgpack:"n"`
	Prompt     string   `msgpack:"prompt"`
	Time       int64    `msgpack:"time"`
	Files      []string `msgpack:"files"`
	Unkept     []string `msgpack:"unkept"`
	Insertions int      `msgpack:"insertions"`
	Deletions  int      `msgpack:"deletions"`
	Error      string   `msgpack:"error"`
}

func (e *Env) checkpoints() []checkpointRow {
	e.t.Helper()
	var cps []checkpointRow
	e.Lua(&cps, "return require('claudenova').checkpoints()")
	return cps
}

func (e *Env) fileBufLines(path string) string {
	e.t.Helper()
	var lines []string
	e.Lua(&lines, "local b = vim.fn.bufnr(...); if b < 0 then return {} end; return vim.api.nvim_buf_get_lines(b, 0, -1, false)", path)
	return strings.Join(lines, "\n")
}

// An acceptEdits session edits a.txt, then b.txt: rewinding to before the
// second prompt restores only b.txt, to before the first both; open
// buffers show the restored text, unsaved edits are kept, Claude is told.
func TestRewindTwoTurns(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a := e.WriteFile("a.txt", "alpha one\nalpha two\n")
		b := e.WriteFile("b.txt", "beta one\nbeta two\n")
		e.Cmd("edit " + b)
		e.Cmd("edit " + a)
		var id int
		e.Lua(&id, `return require('claudenova').new({ prompt = ..., mode = 'acceptEdits' }).id`,
			Seq(Step("Read", map[string]any{"file_path": a}), Step("Edit", map[string]any{"file_path": a, "old_string": "alpha two", "new_string": "ALPHA TWO"})))
		e.Eventually(60*time.Second, "turn 1 edited a.txt", func() bool { return e.ReadFile("a.txt") == "alpha one\nALPHA TWO\n" })
		e.WaitIdle(id)
		e.Lua(nil, `require('claudenova').send(...)`,
			Seq(Step("Read", map[string]any{"file_path": b}), Step("Edit", map[string]any{"file_path": b, "old_string": "beta one", "new_string": "BETA ONE"})))
		e.Eventually(60*time.Second, "turn 2 edited b.txt", func() bool { return e.ReadFile("b.txt") == "BETA ONE\nbeta two\n" })
		e.WaitIdle(id)
		if tr := e.Transcript(id); !strings.Contains(tr, "## You · checkpoint 1 · ") || !strings.Contains(tr, "## You · checkpoint 2 · ") {
			t.Fatalf("prompts are not marked with their checkpoints:\n%s", tr)
		}

		cps := e.checkpoints()
		if len(cps) != 2 || cps[0].N != 1 || cps[1].N != 2 || cps[0].Time == 0 || !strings.HasPrefix(cps[1].Prompt, "SEQ ") {
			t.Fatalf("checkpoints = %+v", cps)
		}
		if len(cps[1].Files) != 1 || cps[1].Files[0] != b || len(cps[0].Files) != 2 || cps[1].Insertions != 1 || cps[1].Deletions != 1 {
			t.Fatalf("dry runs: %+v", cps)
		}

		// An unsaved edit in b.txt's buffer (showing Claude's change), which
		// the rewind restores.
		e.Cmd("buffer " + b)
		e.Cmd("checktime")
		if got := e.fileBufLines(b); got != "BETA ONE\nbeta two" {
			t.Fatalf("b.txt's buffer before the rewind: %q", got)
		}
		e.Lua(nil, `local b = vim.fn.bufnr(...); vim.api.nvim_buf_set_lines(b, 0, 0, false, {"my unsaved line"})`, b)
		e.Cmd("buffer " + a)
		var res []any
		e.Lua(&res, "return { require('claudenova').rewind(...) }", cps[1].ID)
		if len(res) != 2 || res[0] != true || !strings.Contains(res[1].(string), "b.txt") {
			t.Fatalf("rewind = %v", res)
		}
		if got := e.ReadFile("b.txt"); got != "beta one\nbeta two\n" {
			t.Fatalf("b.txt = %q", got)
		}
		if got := e.ReadFile("a.txt"); got != "alpha one\nALPHA TWO\n" {
			t.Fatalf("a.txt = %q: turn 1's change must stay", got)
		}
		if got := e.fileBufLines(b); got != "beta one\nbeta two" {
			t.Fatalf("b.txt's buffer shows %q", got)
		}
		rescued, _ := filepath.Glob(filepath.Join(e.Storage, "rescued", "*b.txt"))
		if len(rescued) != 1 {
			t.Fatalf("unsaved edits not rescued: %v (notes %q)", rescued, e.Notes())
		}
		if data, _ := os.ReadFile(rescued[0]); !strings.HasPrefix(string(data), "my unsaved line\nBETA ONE\n") {
			t.Fatalf("rescued %q", data)
		}
		if !e.NoteContaining("your unsaved edits of b.txt are in") {
			t.Fatalf("the user was not told: %q", e.Notes())
		}
		if tr := e.Transcript(id); !strings.Contains(tr, "Rewound to before prompt 2") || !strings.Contains(tr, "b.txt restored") {
			t.Fatalf("transcript:\n%s", tr)
		}

		// To before prompt 1, through the command and its picker.
		e.ScriptUI([]string{"· 1 file ", "Restore a.txt"}, nil)
		e.Cmd("ClaudeNova rewind")
		e.Eventually(20*time.Second, "a.txt restored", func() bool { return e.ReadFile("a.txt") == "alpha one\nalpha two\n" })
		e.Eventually(5*time.Second, "a.txt's buffer reloaded", func() bool { return e.fileBufLines(a) == "alpha one\nalpha two" })
		if got := e.ReadFile("b.txt"); got != "beta one\nbeta two\n" {
			t.Fatalf("b.txt = %q", got)
		}
		// Claude reads what happened with the next prompt.
		e.Lua(nil, `require('claudenova').send("what now?")`)
		req := e.waitRequest("what now?", "rewound files to their state before")
		if !strings.Contains(req, "- b.txt") || !strings.Contains(req, "- a.txt") || strings.Contains(req, "were not restored") {
			t.Fatalf("model request:\n%s", req)
		}
	})
}

// changes after a three-hunk Edit: undoing hunk 2 leaves hunks 1 and 3 on
// disk, the file's buffer is reloaded, Claude's next request carries the
// note.
func TestChangesUndoHunk(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		f := e.WriteFile("f.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n")
		e.Cmd("edit " + f)
		var id int
		e.Lua(&id, `return require('claudenova').new({ prompt = ..., mode = 'acceptEdits' }).id`,
			Seq(Step("Read", map[string]any{"file_path": f}), Step("Edit", map[string]any{"file_path": f,
				"old_string": "l2\nl3\nl4\nl5\nl6\nl7\nl8\nl9", "new_string": "L2\nl3\nl4\nl5\nL6\nl7\nl8\nL9"})))
		e.Eventually(60*time.Second, "the edit", func() bool { return e.ReadFile("f.txt") == "l1\nL2\nl3\nl4\nl5\nL6\nl7\nl8\nL9\n" })
		e.WaitIdle(id)
		e.Cmd("checktime")
		e.Cmd("ClaudeNova changes")
		winbar := e.winbar
		if w := winbar(); !strings.Contains(w, "Now · f.txt · 3 hunks") {
			t.Fatalf("winbar %q", w)
		}
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {6, 0})")
		e.Input(`\u`)
		e.Eventually(5*time.Second, "hunk 2 undone", func() bool { return e.ReadFile("f.txt") == "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nL9\n" })
		e.Eventually(5*time.Second, "the winbar counts it", func() bool { return strings.Contains(winbar(), "2 hunks · 1 undone") })
		if got := e.fileBufLines(f); got != "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nL9" {
			t.Fatalf("f.txt's buffer shows %q", got)
		}
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {2, 0})")
		e.Input(`\k`)
		e.Eventually(5*time.Second, "the winbar counts it", func() bool { return strings.Contains(winbar(), "2 hunks · 1 undone · 1 kept") })
		// Keeping says what it did (and that nothing changes on disk).
		e.Eventually(5*time.Second, "told", func() bool { return e.NoteContaining("kept hunk 1 of f.txt (1 of 2 kept); nothing changes on disk") })
		if e.ReadFile("f.txt") != "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nL9\n" {
			t.Fatal("keep changed the file")
		}
		e.Cmd("ClaudeNova transcript")
		e.Lua(nil, `require('claudenova').send("continue")`)
		req := e.waitRequest("continue", "undid part of your change to f.txt")
		if !strings.Contains(req, "-L6\n+l6") {
			t.Fatalf("model request:\n%s", req)
		}
	})
}

// A session started with checkpoints = false cannot rewind, and says so.
func TestRewindWithoutCheckpoints(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"checkpoints": false}})
		id := e.newSession("hello")
		e.WaitIdle(id)
		e.Cmd("ClaudeNova rewind")
		e.Eventually(5*time.Second, "an error", func() bool { return e.NoteContaining("checkpoints = false") })
		if err := e.CmdErr("lua require('claudenova').checkpoints()"); err == nil || !strings.Contains(err.Error(), "checkpoints = false") {
			t.Fatalf("checkpoints() = %v", err)
		}
		if tr := e.Transcript(id); strings.Contains(tr, "checkpoint 1") {
			t.Fatalf("a prompt is marked with a checkpoint:\n%s", tr)
		}
	})
}

// Checkpoints outlive the process: after a resume, the earlier prompt is
// listed (from claude's session store) and rewinding to it restores.
func TestRewindAfterResume(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a := e.WriteFile("a.txt", "alpha\n")
		var id int
		e.Lua(&id, `return require('claudenova').new({ prompt = ..., mode = 'acceptEdits' }).id`,
			Seq(Step("Read", map[string]any{"file_path": a}), Step("Edit", map[string]any{"file_path": a, "old_string": "alpha", "new_string": "ALPHA"})))
		e.Eventually(60*time.Second, "the edit", func() bool { return e.ReadFile("a.txt") == "ALPHA\n" })
		e.WaitIdle(id)
		var claudeID string
		e.Lua(&claudeID, "for _, s in ipairs(require('claudenova').sessions()) do if s.id == ... then return s.claude_id end end", id)
		e.Cmd("ClaudeNova stop")
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
		var id2 int
		e.Lua(&id2, "local info = require('claudenova').resume(...); require('claudenova.store.state').current = info.id; return info.id", claudeID)
		e.Eventually(30*time.Second, "history", func() bool { return strings.Contains(e.Transcript(id2), "## You · earlier · checkpoint 1 · ") })
		var cps []checkpointRow
		e.Eventually(30*time.Second, "the earlier prompt's checkpoint", func() bool {
			e.Lua(&cps, "local ok, r = pcall(require('claudenova').checkpoints, ...); return ok and r or {}", id2)
			return len(cps) == 1 && len(cps[0].Files) == 1
		})
		var res []any
		e.Lua(&res, "return { require('claudenova').rewind(...) }", cps[0].ID)
		if len(res) == 0 || res[0] != true || e.ReadFile("a.txt") != "alpha\n" {
			t.Fatalf("rewind = %v, a.txt = %q", res, e.ReadFile("a.txt"))
		}
	})
}

// Two sessions on one file (issue 42): session 1 edits greet.py, then
// sends a prompt that changes nothing; session 2 edits another line of it
// and the user applies it. Rewinding session 1 to before either prompt
// leaves session 2's change in place (the prompt that changed nothing
// restores nothing), and the confirmation names session 2's change.
func TestRewindLeavesAnotherSessionsEdit(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		greet := e.WriteFile("greet.py", "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n")
		var s1 int
		e.Lua(&s1, `return require('claudenova').new({ prompt = ..., mode = 'acceptEdits' }).id`,
			Seq(Step("Read", map[string]any{"file_path": greet}), Step("Edit", map[string]any{"file_path": greet, "old_string": "'hi '", "new_string": "'hello '"})))
		e.Eventually(60*time.Second, "session 1's edit", func() bool { return strings.Contains(e.ReadFile("greet.py"), "'hello '") })
		e.WaitIdle(s1)
		e.Lua(nil, `require('claudenova').send(..., { session = select(2, ...) })`, "hello", s1)
		e.WaitIdle(s1)
		s2 := e.newSession(Seq(Step("Read", map[string]any{"file_path": greet}), Step("Edit", map[string]any{"file_path": greet, "old_string": "greet('x')", "new_string": "greet('nova')"})))
		_, buf := e.WaitProposal()
		e.Lua(nil, "vim.api.nvim_buf_call(..., function() vim.cmd('write') end)", buf)
		e.Eventually(30*time.Second, "session 2's edit applied", func() bool { return strings.Contains(e.ReadFile("greet.py"), "greet('nova')") })
		e.WaitIdle(s2)
		var cps []checkpointRow
		e.Lua(&cps, "return require('claudenova').checkpoints(...)", s1)
		if len(cps) != 2 || len(cps[1].Files) != 0 || len(cps[0].Files) != 1 {
			t.Fatalf("session 1's checkpoints: %+v", cps)
		}
		// The prompt that changed nothing: nothing to restore.
		// Session 1's transcript in view: the session the command acts on.
		e.Lua(nil, "require('claudenova.surfaces.transcript').open(...)", s1)
		e.ScriptUI([]string{"2 · "}, nil)
		e.Cmd("ClaudeNova rewind")
		e.Eventually(10*time.Second, "told", func() bool { return e.NoteContaining("prompt 2: nothing to restore") })
		// The prompt that changed greet.py: session 1's line goes back,
		// session 2's stays, and the choice said so.
		e.ScriptUI([]string{"1 · ", "Restore greet.py"}, nil)
		e.Cmd("ClaudeNova rewind")
		e.Eventually(20*time.Second, "rewound", func() bool { return strings.Contains(e.ReadFile("greet.py"), "'hi '") })
		var choices []string
		e.Lua(&choices, "local c = _G.claudenova_test.choices; return c[#c]")
		if len(choices) != 3 || !strings.Contains(choices[0], "Restore greet.py (+1 −1); kept: greet.py, changed by session 2 at ") ||
			!strings.Contains(choices[1], "also undo the change to greet.py line 5, changed by session 2 at ") {
			t.Fatalf("choices %q", choices)
		}
		if got, want := e.ReadFile("greet.py"), "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('nova'))\n"; got != want {
			t.Fatalf("greet.py %q, want %q", got, want)
		}
	})
}
