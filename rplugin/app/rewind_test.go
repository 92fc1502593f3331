package app

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rewind"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rounds"
)

// claudeWrites writes content to path as claude would and reports it (the
// tool result with originalFile), then waits until the host recorded it.
func (m *mem) claudeWrites(t *testing.T, c *claudetest.Conn, sid int, path, content string) {
	t.Helper()
	before, err := os.ReadFile(path)
	var orig any
	if err == nil {
		orig = string(before)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c.PushJSON(map[string]any{
		"type": "user", "session_id": "s", "parent_tool_use_id": nil,
		"message":         map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_w", "content": "ok"}}},
		"tool_use_result": map[string]any{"filePath": path, "content": content, "originalFile": orig},
	})
	s, _ := m.app.sessions.Get(sid)
	eventually(t, "the change recorded", func() bool {
		lf, ok := s.Turns.LeftOf(path)
		return ok && lf.Content == content
	})
}

func (m *mem) checkpointsOf(t *testing.T, sid int) []rewind.CheckpointView {
	t.Helper()
	tok := "list-" + randomToken()
	if err := m.app.Rooms().Rewind.Checkpoints(Later{Session: sid, ReplyTo: desk.ReplyTo{Token: tok}}); err != nil {
		t.Fatal(err)
	}
	r := m.waitReply(t, tok)
	list, _ := r["result"].([]rewind.CheckpointView)
	return list
}

func (m *mem) rewind(t *testing.T, p rewind.RewindParams) map[string]any {
	t.Helper()
	p.Token = "rw-" + randomToken()
	if err := m.app.Rooms().Rewind.Rewind(p); err != nil {
		t.Fatal(err)
	}
	r := m.waitReply(t, p.Token)
	if r["ok"] != true {
		t.Fatalf("rewind: %v", r)
	}
	return r["result"].(map[string]any)
}

var tokens int

func randomToken() string { tokens++; return strings.Repeat("x", tokens) }

func read(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}

// A rewind restores what its session changed, and Claude is told; claude's
// own rewind_files is not used (it restores what anyone changed since).
func TestRewindRestoresTheSessionsOwnChange(t *testing.T) {
	m := newMem(t)
	info, c := m.session("edit a")
	a := m.write("a.txt", "one\ntwo\n")
	m.claudeWrites(t, c, info.ID, a, "one\nTWO\n")
	cps := m.checkpointsOf(t, info.ID)
	if len(cps) != 1 || len(cps[0].Files) != 1 || cps[0].Files[0] != a || cps[0].Insertions != 1 || cps[0].Deletions != 1 || len(cps[0].Others) != 0 {
		t.Fatalf("checkpoints %+v", cps)
	}
	res := m.rewind(t, rewind.RewindParams{Later: Later{ID: cps[0].ID}})
	if got := read(t, a); got != "one\ntwo\n" {
		t.Fatalf("a.txt %q", got)
	}
	if files, _ := res["files"].([]string); len(files) != 1 {
		t.Fatalf("result %v", res)
	}
	for _, w := range c.Written() {
		if w.Subtype == "rewind_files" {
			t.Fatal("claude's rewind_files was used")
		}
	}
	tr := m.rec.transcriptText(info.ID)
	if !strings.Contains(tr, `Rewound to before prompt 1 ("edit a"): a.txt restored.`) {
		t.Fatalf("transcript:\n%s", tr)
	}
	texts := c.UserTexts()
	if last := texts[len(texts)-1]; !strings.Contains(last, "rewound files to their state before") || !strings.Contains(last, "- a.txt") {
		t.Fatalf("Claude was not told: %q", texts)
	}
}

// Three sessions on one file (issue 42): a rewind in session 1 never
// undoes session 2's later change unasked. A prompt of session 1 that
// changed nothing restores nothing; rewinding the prompt that changed the
// file keeps session 2's change and names it where it sits on session 1's
// lines; undoing it too is the user's explicit choice, and session 2 is
// told.
func TestRewindKeepsAnotherSessionsChange(t *testing.T) {
	m := newMem(t)
	s1, c1 := m.session("tour")
	greet := m.write("greet.py", "def greet(n):\n    return 'hi ' + n\n\n\nprint(greet('x'))\n")
	m.claudeWrites(t, c1, s1.ID, greet, "def greet(n):\n    return 'hello ' + n\n\n\nprint(greet('x'))\n")
	if _, err := m.app.Send(SendParams{Session: s1.ID, Prompt: "a question that changes nothing"}); err != nil {
		t.Fatal(err)
	}
	s2, c2 := m.session("print nova")
	m.claudeWrites(t, c2, s2.ID, greet, "def greet(n):\n    return 'hello ' + n\n\n\nprint(greet('nova'))\n")

	cps := m.checkpointsOf(t, s1.ID)
	if len(cps) != 2 {
		t.Fatalf("checkpoints %+v", cps)
	}
	if len(cps[1].Files) != 0 {
		t.Fatalf("the prompt that changed nothing would restore %v", cps[1].Files)
	}
	if len(cps[0].Files) != 1 || len(cps[0].Others) != 1 || cps[0].Others[0].Rel != "greet.py" || cps[0].Others[0].Kept != "" {
		t.Fatalf("prompt 1: %+v", cps[0])
	}
	m.rewind(t, rewind.RewindParams{Later: Later{Session: s1.ID, ID: cps[1].ID}})
	if got := read(t, greet); !strings.Contains(got, "greet('nova')") || !strings.Contains(got, "'hello '") {
		t.Fatalf("rewinding a prompt that changed nothing changed greet.py: %q", got)
	}
	// To before prompt 1: session 1's line goes back, session 2's stays.
	m.rewind(t, rewind.RewindParams{Later: Later{Session: s1.ID, ID: cps[0].ID}})
	if got, want := read(t, greet), "def greet(n):\n    return 'hi ' + n\n\n\nprint(greet('nova'))\n"; got != want {
		t.Fatalf("greet.py %q, want %q", got, want)
	}
	for _, txt := range c2.UserTexts() {
		if strings.Contains(txt, "undid") {
			t.Fatalf("session 2 was told of a loss: %q", txt)
		}
	}
}

// Session 2 changed the very line session 1 wrote: kept by default and
// named (who, where); undone only when the user asks, and then session 2
// is told.
func TestRewindOnTheSameLines(t *testing.T) {
	for _, undo := range []bool{false, true} {
		m := newMem(t)
		s1, c1 := m.session("shout")
		f := m.write("f.txt", "a\nb\nc\n")
		m.claudeWrites(t, c1, s1.ID, f, "a\nB\nc\n")
		s2, c2 := m.session("louder")
		m.claudeWrites(t, c2, s2.ID, f, "a\nB!!\nc\n")
		cps := m.checkpointsOf(t, s1.ID)
		o := cps[0].Others
		if len(o) != 1 || o[0].Kept != "line 2" || !strings.HasPrefix(o[0].Who, "session 2 at ") || !strings.HasSuffix(o[0].Who, " (“louder”)") || o[0].Lost != "line 2" {
			t.Fatalf("others %+v", o)
		}
		if len(cps[0].Files) != 0 {
			t.Fatalf("by default nothing is left to restore: %+v", cps[0])
		}
		m.rewind(t, rewind.RewindParams{Later: Later{Session: s1.ID, ID: cps[0].ID}, UndoOthers: undo})
		want := map[bool]string{false: "a\nB!!\nc\n", true: "a\nb\nc\n"}[undo]
		if got := read(t, f); got != want {
			t.Fatalf("undo %v: f.txt %q, want %q", undo, got, want)
		}
		told := false
		for _, txt := range c2.UserTexts() {
			told = told || strings.Contains(txt, "The user undid, from session 1")
		}
		if told != undo {
			t.Fatalf("undo %v: session 2 told %v: %q", undo, told, c2.UserTexts())
		}
	}
}

// A turn whose contents the host dropped falls back to claude's own
// rewind, and the view says so.
func TestRewindOfAForgottenTurnIsClaudes(t *testing.T) {
	m := newMem(t)
	info, c := m.session("big")
	s, _ := m.app.sessions.Get(info.ID)
	s.Turns = checkpoint.NewLog(4)
	s.Turns.Begin("t1", "big", s.Started)
	first := m.write("a.txt", "aaaaaaaa\n")
	m.claudeWrites(t, c, info.ID, first, "A\n")
	s.Turns.Begin("t2", "more", s.Started)
	second := m.write("b.txt", "bbbbbbbb\n")
	m.claudeWrites(t, c, info.ID, second, "B\n")
	c.OnControl = func(subtype string, f map[string]any) (json.RawMessage, error) {
		if subtype == "rewind_files" {
			return json.RawMessage(`{"canRewind":true,"filesChanged":["` + first + `"],"insertions":1,"deletions":1}`), nil
		}
		return json.RawMessage(`{}`), nil
	}
	cps := m.checkpointsOf(t, info.ID)
	if !cps[0].ByClaude || cps[1].ByClaude || len(cps[0].Files) != 1 {
		t.Fatalf("checkpoints %+v", cps)
	}
	res := m.rewind(t, rewind.RewindParams{Later: Later{Session: info.ID, ID: cps[0].ID}})
	if files, _ := res["files"].([]string); len(files) != 1 {
		t.Fatalf("result %v", res)
	}
	real := 0
	for _, w := range c.Written() {
		if req, _ := w.Value["request"].(map[string]any); w.Subtype == "rewind_files" && req["dry_run"] == false {
			real++
		}
	}
	if real != 1 {
		t.Fatalf("claude's rewind ran %d times", real)
	}
	if tr := m.rec.transcriptText(info.ID); !strings.Contains(tr, "a.txt restored by claude") {
		t.Fatalf("transcript:\n%s", tr)
	}
}

// The changes view names whose each hunk is; undoing another session's
// hunk needs the user's explicit choice, and that session is told.
func TestChangesMarkAndGuardOthersHunks(t *testing.T) {
	m := newMem(t)
	s1, c1 := m.session("shout")
	f := m.write("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	m.claudeWrites(t, c1, s1.ID, f, "1\nTWO\n3\n4\n5\n6\n7\n8\n")
	s2, c2 := m.session("louder")
	m.claudeWrites(t, c2, s2.ID, f, "1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n")
	v, err := m.app.Rooms().Rewind.Changes(rewind.ChangesParams{Session: s1.ID})
	if err != nil {
		t.Fatal(err)
	}
	fc := v.Files[0]
	if len(fc.Hunks) != 2 || fc.Authors[0] != "" || !strings.HasPrefix(fc.Authors[1], "session 2 at ") || !strings.HasSuffix(fc.Authors[1], " (“louder”)") {
		t.Fatalf("hunks %+v authors %q", fc.Hunks, fc.Authors)
	}
	_, err = m.app.Rooms().Rewind.UndoHunk(rewind.UndoParams{Session: s1.ID, Turn: v.Turn, Path: f, Hunk: 2, Sum: fc.Sum})
	if err == nil || !strings.Contains(err.Error(), "hunk 2 of f.txt was changed by session 2 at ") || read(t, f) != "1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n" {
		t.Fatalf("undo of session 2's hunk: %v, %q", err, read(t, f))
	}
	if _, err := m.app.Rooms().Rewind.UndoHunk(rewind.UndoParams{Session: s1.ID, Turn: v.Turn, Path: f, Hunk: 2, Sum: fc.Sum, Others: true}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, f); got != "1\nTWO\n3\n4\n5\n6\n7\n8\n" {
		t.Fatalf("f.txt %q", got)
	}
	told := false
	for _, txt := range c2.UserTexts() {
		told = told || strings.Contains(txt, "The user undid, from session 1 (shout), your later changes to these files")
	}
	if !told {
		t.Fatalf("session 2 not told: %q", c2.UserTexts())
	}
}

// A round of session 1 marks session 2's hunk in a file both changed, and
// a comment on session 2's line says whose it is in the review.
func TestRoundSaysWhoseChangeItIs(t *testing.T) {
	m := newMem(t)
	s1, c1 := m.session("shout")
	f := m.write("f.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	m.claudeWrites(t, c1, s1.ID, f, "1\nTWO\n3\n4\n5\n6\n7\n8\n")
	s2, c2 := m.session("louder")
	m.claudeWrites(t, c2, s2.ID, f, "1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n")
	rv, err := m.app.Rooms().Rounds.Round(rounds.Arg{Session: s1.ID})
	if err != nil || len(rv.Files) != 1 {
		t.Fatalf("round %+v %v", rv, err)
	}
	if a := rv.Files[0].Authors; len(a) != 2 || a[0] != "" || !strings.HasPrefix(a[1], "session 2 at ") || !strings.HasSuffix(a[1], " (“louder”)") {
		t.Fatalf("authors %q", a)
	}
	for _, line := range []int{2, 8} {
		if _, err := m.app.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: s1.ID}, Path: f, From: line, To: line, Text: "why?"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.app.Rooms().Rounds.Send(rounds.SendParams{Session: s1.ID}); err != nil {
		t.Fatal(err)
	}
	texts := c1.UserTexts()
	msg := texts[len(texts)-1]
	if !strings.Contains(msg, "### 1. f.txt, line 2\n") || !strings.Contains(msg, "### 2. f.txt, line 8 (written by session 2 at ") || !strings.Contains(msg, " (“louder”), not by you)") {
		t.Fatalf("review:\n%s", msg)
	}
}
