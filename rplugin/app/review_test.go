package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rewind"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rounds"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// wrote is claude writing path with content after an Edit it reported
// with original: the disk first, then the tool result.
func wrote(t *testing.T, c *claudetest.Conn, path, original, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c.PushJSON(editResult(path, original))
}

func (m *mem) turnEnds(c *claudetest.Conn, id int) {
	m.t.Helper()
	c.PushJSON(map[string]any{"type": "result", "subtype": "success", "session_id": "s", "is_error": false})
	m.rec.wait(m.t, "idle", func([]ui.Event) bool { s, _ := m.app.sessions.Get(id); return s.State() == session.StateIdle })
}

// reviewEvents counts the review events so far.
func (m *mem) reviewed(n int) {
	m.t.Helper()
	m.rec.wait(m.t, fmt.Sprintf("%d review events", n), func(evs []ui.Event) bool {
		k := 0
		for _, e := range evs {
			if e.Name == ui.EvReview {
				k++
			}
		}
		return k >= n
	})
}

func kindsOf(v rounds.BlameView) string {
	var b strings.Builder
	for _, i := range v.Lines {
		b.WriteByte(string(v.Authors[i].Kind)[0])
	}
	return b.String()
}

// The loop: an amended proposal (turn 1) and an acceptEdits write (turn 2)
// make the round; comments on both, and on a line Claude did not change,
// and on an unsaved buffer, go in one message with the code they are
// about; the next round holds only what changed after.
func TestReviewRoundCommentsSendNextRound(t *testing.T) {
	m := newMem(t)
	p, c, a := m.editProposal("a.txt", "one\ntwo\nthree\nfour\n", "two\nthree", "TWO\nTHREE")
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "claude-1", "permissionMode": "default"})
	sid := p.Session
	save(t, p.Staged, "one\nTWO\nTHREE, amended\nfour\n")
	if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
		t.Fatal(err)
	}
	answer(t, c, "e1")
	wrote(t, c, a, "one\ntwo\nthree\nfour\n", "one\nTWO\nTHREE, amended\nfour\n")
	m.reviewed(1)
	m.turnEnds(c, sid)

	b := m.write("b.txt", "beta one\nbeta two\n")
	if _, err := m.app.Send(SendParams{Session: sid, Prompt: "now b"}); err != nil {
		t.Fatal(err)
	}
	wrote(t, c, b, "beta one\nbeta two\n", "beta one\nBETA TWO\nbeta three\n")
	m.reviewed(2)
	m.turnEnds(c, sid)

	rv, err := m.app.Rooms().Rounds.Round(rounds.Arg{Session: sid})
	if err != nil || rv.Round != 1 || len(rv.Files) != 2 || rv.Files[0].Rel != "a.txt" || rv.Files[1].Rel != "b.txt" {
		t.Fatalf("round %+v, %v", rv, err)
	}
	if f := rv.Files[0]; f.Before != "one\ntwo\nthree\nfour\n" || len(f.Hunks) != 1 || f.Hunks[0].B != 2 || f.Hunks[0].Ins != 2 {
		t.Fatalf("a.txt in the round: %+v", f)
	}

	// Who wrote a.txt: yours, Claude's, amended, yours.
	bv, err := m.app.Rooms().Rounds.Blame(rounds.BlameParams{Arg: rounds.Arg{Session: sid}, Path: a})
	if err != nil || !bv.Known || kindsOf(bv) != "ycay" || bv.Claude != 1 || bv.Amended != 1 || bv.Yours != 2 {
		t.Fatalf("blame %+v (%s), %v", bv, kindsOf(bv), err)
	}
	if l := bv.Authors[bv.Lines[1]].Label; !strings.HasPrefix(l, "Claude · session 1 · prompt 1 · ") {
		t.Fatalf("label %q", l)
	}
	// A hand edit in the buffer of a Claude line reads as yours.
	edited := "one\nmine now\nTHREE, amended\nfour\n"
	if bv, _ := m.app.Rooms().Rounds.Blame(rounds.BlameParams{Path: a, Text: &edited}); kindsOf(bv) != "yyay" {
		t.Fatalf("hand edit: %s", kindsOf(bv))
	}

	add := func(path string, from, to int, text string, buffer *string) rounds.CommentAdded {
		t.Helper()
		r, err := m.app.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: sid}, Path: path, From: from, To: to, Text: text, Buffer: buffer})
		if err != nil {
			t.Fatalf("comment %q: %v", text, err)
		}
		return r
	}
	r1 := add(a, 2, 3, "use a constant for these", nil)
	if r1.Message != "comment 1 kept on a.txt:2-3" || r1.Hint == "" {
		t.Fatalf("message %q", r1.Message)
	}
	r2 := add(a, 4, 4, "and this old line?", nil)
	if r2.Message != "comment 2 kept on a.txt:4: a line Claude did not change in this round (sent all the same, and said so)" {
		t.Fatalf("message %q", r2.Message)
	}
	unsaved := "beta one\nBETA TWO, edited in the buffer\nbeta three\n"
	r3 := add(b, 2, 2, "rename this", &unsaved)
	if !strings.HasSuffix(r3.Message, ": quoted from the unsaved buffer") {
		t.Fatalf("message %q", r3.Message)
	}
	if cv, _ := m.app.Rooms().Rounds.Comments(rounds.Arg{Session: sid}); len(cv.Comments) != 3 || cv.Round != 1 {
		t.Fatalf("comments %+v", cv)
	}

	out, err := m.app.Rooms().Rounds.Send(rounds.SendParams{Session: sid, Buffers: map[string]string{b: unsaved}})
	if err != nil || !strings.Contains(out.Message, "review sent to session 1: 3 comments in 2 files; round 2 begins") {
		t.Fatalf("send = %+v, %v", out, err)
	}
	texts := c.UserTexts()
	msg := texts[len(texts)-1]
	for _, w := range []string{
		"Review of your changes since ", ": 3 comments in 2 files.",
		"### 1. a.txt, lines 2-3\n```\n  1 | one\n> 2 | TWO\n> 3 | THREE, amended\n  4 | four\n```\nuse a constant for these\n",
		"### 2. a.txt, line 4 (not a line you changed in this round)",
		"### 3. b.txt, line 2 (quoted from the editor: the user has not saved these edits yet)\n```\n  1 | beta one\n> 2 | BETA TWO, edited in the buffer\n  3 | beta three\n```\nrename this\n",
	} {
		if !strings.Contains(msg, w) {
			t.Fatalf("the review lacks %q:\n%s", w, msg)
		}
	}
	if tr := m.rec.transcriptText(sid); !strings.Contains(tr, "## You") || !strings.Contains(tr, "Review of your changes since") {
		t.Fatalf("transcript:\n%s", tr)
	}
	if cv, _ := m.app.Rooms().Rounds.Comments(rounds.Arg{Session: sid}); len(cv.Comments) != 0 || cv.Round != 2 {
		t.Fatalf("after the send: %+v", cv)
	}
	if _, err := m.app.Rooms().Rounds.Round(rounds.Arg{Session: sid}); err == nil || !strings.Contains(err.Error(), "Claude has changed no file since") {
		t.Fatalf("round 2 before any change: %v", err)
	}
	if _, err := m.app.Rooms().Rounds.Send(rounds.SendParams{Session: sid}); err == nil || !strings.Contains(err.Error(), "no comments to send") {
		t.Fatalf("empty send: %v", err)
	}

	// Round 2: Claude changes a third file; a command changes a.txt.
	cf := m.write("c.txt", "gamma\n")
	wrote(t, c, cf, "gamma\n", "GAMMA\n")
	m.reviewed(7)
	rv, err = m.app.Rooms().Rounds.Round(rounds.Arg{Session: sid})
	if err != nil || rv.Round != 2 || len(rv.Files) != 1 || rv.Files[0].Rel != "c.txt" {
		t.Fatalf("round 2: %+v, %v", rv, err)
	}
	if err := os.WriteFile(a, []byte("one\nTWO\nTHREE, amended\nfour\nfive by bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rv, _ = m.app.Rooms().Rounds.Round(rounds.Arg{Session: sid})
	if len(rv.Files) != 2 || rv.Files[1].Rel != "a.txt" || rv.Files[1].Before != "one\nTWO\nTHREE, amended\nfour\n" {
		t.Fatalf("a command's change of a tracked file: %+v", rv.Files)
	}

	// An undo of the round's hunk puts the baseline's lines back.
	fc := rv.Files[0]
	got, err := m.app.Rooms().Rewind.UndoHunk(rewind.UndoParams{Session: sid, Path: cf, Hunk: 1, Sum: fc.Sum, Round: true})
	if err != nil || got.Now != "gamma\n" {
		t.Fatalf("undo in the round: %+v, %v", got, err)
	}
}

// What is kept outlives the editor: a new app on the same storage knows
// who wrote each line, and the unsent comments, with no session running.
func TestReviewKeptAcrossRestart(t *testing.T) {
	m := newMem(t)
	f := m.write("f.txt", "a\nb\n")
	info, c := m.session("go")
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "claude-9", "permissionMode": "acceptEdits"})
	wrote(t, c, f, "a\nb\n", "a\nB\nc\n")
	m.reviewed(1)
	m.turnEnds(c, info.ID)
	if _, err := m.app.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: info.ID}, Path: f, From: 3, To: 3, Text: "why c?"}); err != nil {
		t.Fatal(err)
	}
	m.app.Shutdown()

	again := New(newRecorder(), nil)
	if err := again.Configure(Options{Storage: filepath.Join(m.dir, "storage")}); err != nil {
		t.Fatal(err)
	}
	bv, err := again.Rooms().Rounds.Blame(rounds.BlameParams{Arg: rounds.Arg{Cwd: "/elsewhere"}, Path: f})
	if err != nil || kindsOf(bv) != "ycc" {
		t.Fatalf("blame after a restart: %s, %v", kindsOf(bv), err)
	}
	cv, err := again.Rooms().Rounds.Comments(rounds.Arg{Cwd: m.dir})
	if err != nil || len(cv.Comments) != 1 || cv.Comments[0].Text != "why c?" || cv.Comments[0].From != 3 || cv.Session != 0 {
		t.Fatalf("comments after a restart: %+v, %v", cv, err)
	}
	// A session resumed from claude's id goes on with its round.
	again.UseStarter(m.app.start)
	s2, err := again.NewSession(NewParams{Cwd: m.dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(again.Shutdown)
	m.mu.Lock()
	c2 := m.conns[len(m.conns)-1]
	m.mu.Unlock()
	c2.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "claude-9", "permissionMode": "default"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, _ := again.sessions.Get(s2.ID)
		if s.ClaudeID() == "claude-9" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no claude id")
		}
		time.Sleep(10 * time.Millisecond)
	}
	rv, err := again.Rooms().Rounds.Round(rounds.Arg{Session: s2.ID})
	if err != nil || len(rv.Files) != 1 || rv.Files[0].Before != "a\nb\n" {
		t.Fatalf("the resumed session's round: %+v, %v", rv, err)
	}
}

func TestReviewBadComments(t *testing.T) {
	m := newMem(t)
	f := m.write("f.txt", "a\nb\n")
	info, _ := m.session("go")
	outside := filepath.Join(t.TempDir(), "x.txt")
	_ = os.WriteFile(outside, []byte("x\n"), 0o644)
	link := filepath.Join(m.dir, "link.txt")
	_ = os.Symlink(outside, link)
	tests := []struct {
		name     string
		path     string
		from, to int
		text     string
		err      string
	}{
		{"empty", f, 1, 1, "", "an empty comment is not added"},
		{"blank", f, 1, 1, "  \n ", "an empty comment is not added"},
		{"outside the folder", outside, 1, 1, "hm", "outside the session's folder"},
		{"a link out of the folder", link, 1, 1, "hm", "outside the session's folder"},
		{"not a file", "term://bash", 1, 1, "hm", "not a file"},
		{"past the end", f, 5, 5, "hm", "f.txt has 2 lines: no line 5"},
		{"no line", f, 0, 0, "hm", "no line 0-0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.app.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: info.ID}, Path: tc.path, From: tc.from, To: tc.to, Text: tc.text})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
	if cv, _ := m.app.Rooms().Rounds.Comments(rounds.Arg{Session: info.ID}); len(cv.Comments) != 0 {
		t.Fatalf("a refused comment was kept: %+v", cv.Comments)
	}
	// A comment on a file Claude never changed is kept, and says so.
	r, err := m.app.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: info.ID}, Path: f, From: 1, To: 2, Text: "ok"})
	if err != nil || !strings.Contains(r.Message, "a line Claude did not change") {
		t.Fatalf("%+v, %v", r, err)
	}
	if _, err := m.app.Rooms().Rounds.EditComment(rounds.CommentEdit{Arg: rounds.Arg{Session: info.ID}, ID: r.Comment.ID, Text: " "}); err == nil {
		t.Fatal("an edit to nothing was kept")
	}
	cv, err := m.app.Rooms().Rounds.EditComment(rounds.CommentEdit{Arg: rounds.Arg{Session: info.ID}, ID: r.Comment.ID, Delete: true})
	if err != nil || len(cv.Comments) != 0 {
		t.Fatalf("delete: %+v, %v", cv, err)
	}
}

// A review sent while a turn runs is queued like any prompt.
func TestReviewSentWhileATurnRunsIsQueued(t *testing.T) {
	m := newMem(t)
	f := m.write("f.txt", "a\n")
	info, c := m.session("go")
	if _, err := m.app.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: info.ID}, Path: f, From: 1, To: 1, Text: "later"}); err != nil {
		t.Fatal(err)
	}
	out, err := m.app.Rooms().Rounds.Send(rounds.SendParams{Session: info.ID})
	if err != nil || !strings.Contains(out.Message, "review queued for session 1") {
		t.Fatalf("%+v, %v", out, err)
	}
	s, _ := m.app.sessions.Get(info.ID)
	if q := s.QueuedPrompts(); len(q) != 1 || !strings.HasPrefix(q[0].Text, "Review of your changes since") {
		t.Fatalf("queued %+v", q)
	}
	if n := len(c.UserTexts()); n != 2 {
		t.Fatalf("%d user messages", n)
	}
}

// 200 comments over 20 files of 500 lines, sent in one message: reading the
// files, composing, writing to claude, closing the round.
func BenchmarkSendReview200(b *testing.B) {
	dir := b.TempDir()
	a := New(newRecorder(), nil)
	a.start = func(claude.Config, *slog.Logger) (claude.Conn, error) { return claudetest.New(), nil }
	if err := a.Configure(Options{Storage: filepath.Join(dir, "storage")}); err != nil {
		b.Fatal(err)
	}
	defer a.Shutdown()
	info, err := a.NewSession(NewParams{Cwd: dir})
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for i := 0; i < 20; i++ {
		var sb strings.Builder
		for l := 1; l <= 500; l++ {
			fmt.Fprintf(&sb, "func f%d_%d() error { return nil }\n", i, l)
		}
		p := filepath.Join(dir, fmt.Sprintf("file%02d.go", i))
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for k := 0; k < 200; k++ {
			l := 1 + (k*37)%495
			if _, err := a.Rooms().Rounds.AddComment(rounds.CommentParams{Arg: rounds.Arg{Session: info.ID}, Path: paths[k%20], From: l, To: l + 2, Text: "handle the error here"}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		out, err := a.Rooms().Rounds.Send(rounds.SendParams{Session: info.ID})
		if err != nil || !strings.Contains(out.Message, "200 comments in 20 files") {
			b.Fatalf("%+v, %v", out, err)
		}
	}
}
