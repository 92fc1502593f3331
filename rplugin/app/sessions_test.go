package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/history"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/store"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// A prompt typed into claude's own terminal UI (prompt_typed) names a
// session no one named, and leaves a name given before it.
func TestATypedPromptNamesOnlyAnUnnamedSession(t *testing.T) {
	m := newMem(t)
	typed := func(c *claudetest.Conn, id int, prompt string) *session.Session {
		t.Helper()
		c.PushJSON(map[string]any{"type": "system", "subtype": "prompt_typed", "prompt": prompt})
		c.PushJSON(map[string]any{"type": "system", "subtype": "session_state_changed", "state": "running"})
		var s *session.Session
		m.rec.wait(t, "the turn", func([]ui.Event) bool {
			s, _ = m.app.sessions.Get(id)
			return s.State() == session.StateRunning
		})
		return s
	}
	unnamed, c := m.session("")
	if s := typed(c, unnamed.ID, "typed in the terminal\nmore"); s.Name() != "typed in the terminal" {
		t.Errorf("an unnamed session: %q", s.Name())
	}
	named, c2 := m.session("")
	if _, err := m.app.Rooms().History.Rename(named.ID, "the TUI tour"); err != nil {
		t.Fatal(err)
	}
	if s := typed(c2, named.ID, "SEQ [[\"Write\"]]"); s.Name() != "the TUI tour" {
		t.Errorf("a named session: %q", s.Name())
	}
}

// A session is named by its first prompt's first line, then by claude's
// title; rename asks claude (rename_session) and shows at once.
func TestSessionNames(t *testing.T) {
	m := newMem(t)
	info, c := m.session("\n  fix the flaky login test  \nmore detail")
	if info.Name != "fix the flaky login test" {
		t.Fatalf("name %q", info.Name)
	}
	long, _ := m.session(strings.Repeat("word ", 40))
	if n := []rune(long.Name); len(n) > 60 || !strings.HasSuffix(long.Name, "…") {
		t.Fatalf("long name %q", long.Name)
	}
	c.PushJSON(map[string]any{"type": "system", "subtype": "session_title_changed", "title": "Login tests"})
	m.rec.wait(t, "the title", func([]ui.Event) bool {
		s, _ := m.app.sessions.Get(info.ID)
		return s.Name() == "Login tests"
	})
	out, err := m.app.Rooms().History.Rename(info.ID, "  my name\nsecond line ")
	if err != nil || !out.Done {
		t.Fatalf("%+v %v", out, err)
	}
	s, _ := m.app.sessions.Get(info.ID)
	if s.Name() != "my name second line" && s.Name() != "my name" {
		t.Fatalf("renamed to %q", s.Name())
	}
	if !c.Wait(5*time.Second, func(ws []claudetest.Written) bool {
		for _, w := range ws {
			if w.Subtype == "rename_session" {
				return true
			}
		}
		return false
	}) {
		t.Fatal("claude was not asked to rename")
	}
	if _, err := m.app.Rooms().History.Rename(info.ID, "   "); err == nil {
		t.Fatal("an empty name was taken")
	}
	// Requests name their session.
	c.Ask("r1", "Bash", map[string]any{"command": "ls"}, nil)
	p := m.waitPending(1)
	if !strings.Contains(p[0].SessionName, s.Name()) {
		t.Fatalf("request's session %q", p[0].SessionName)
	}
}

func TestForgetExitedSessions(t *testing.T) {
	m := newMem(t)
	a, ca := m.session("one")
	b, _ := m.session("two")
	if _, err := m.app.Rooms().History.Forget(a.ID); err == nil {
		t.Fatal("a running session was forgotten")
	}
	ca.Exit(nil)
	m.rec.wait(t, "exit", func([]ui.Event) bool {
		s, _ := m.app.sessions.Get(a.ID)
		return s.State() == session.StateExited
	})
	n, err := m.app.Rooms().History.Forget(0)
	if err != nil || n != 1 {
		t.Fatalf("forgot %d: %v", n, err)
	}
	if l := m.app.Sessions(); len(l) != 1 || l[0].ID != b.ID {
		t.Fatalf("left %+v", l)
	}
	m.rec.wait(t, "session_removed", func(evs []ui.Event) bool {
		for _, e := range evs {
			if e.Name == ui.EvSessionRemoved {
				return true
			}
		}
		return false
	})
}

// A resumed session shows its earlier conversation from claude's store,
// marked as history, before anything live; the resume picker lists it.
func TestResumeShowsHistory(t *testing.T) {
	m := newMem(t)
	home := t.TempDir()
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Env: map[string]string{"HOME": home}}); err != nil {
		t.Fatal(err)
	}
	const id = "aaaaaaaa-1111-2222-3333-444444444444"
	dir := store.Dir(filepath.Join(home, ".claude"), m.dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": "first prompt"}, "cwd": m.dir, "timestamp": "2026-11-30T10:00:00Z"},
		{"type": "assistant", "message": map[string]any{"id": "m1", "content": []any{map[string]any{"type": "text", "text": "first answer"}}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": "second prompt"}},
		{"type": "assistant", "message": map[string]any{"id": "m2", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "ls"}}}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}}}},
		{"type": "custom-title", "customTitle": "Stored title", "sessionId": id},
	}
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := m.app.Rooms().History.Resumable(m.dir)
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].Name != "Stored title" || list.Sessions[0].FirstPrompt != "first prompt" {
		t.Fatalf("%+v %v", list, err)
	}
	info, err := m.app.NewSession(NewParams{Cwd: m.dir, Resume: id})
	if err != nil {
		t.Fatal(err)
	}
	m.rec.wait(t, "history", func([]ui.Event) bool {
		return strings.Contains(strings.Join(mustTranscript(t, m.app, info.ID), "\n"), "live from here")
	})
	got := strings.Join(mustTranscript(t, m.app, info.ID), "\n")
	for _, want := range []string{"## You · earlier\n\nfirst prompt", "## Claude · earlier\n\nfirst answer", "second prompt", "▸ Bash `ls` ✓\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("history lacks %q:\n%s", want, got)
		}
	}
	s, _ := m.app.sessions.Get(info.ID)
	if s.Name() != "Stored title" {
		t.Fatalf("name %q", s.Name())
	}
}

func mustTranscript(t *testing.T, a *App, id int) []string {
	t.Helper()
	snap, err := a.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	return snap.Lines
}

func TestAgo(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{0, "0s"}, {12 * time.Second, "12s"}, {3 * time.Minute, "3m"}, {time.Hour, "1h"}, {47 * time.Hour, "47h"}, {72 * time.Hour, "3d"}, {-time.Second, "0s"}} {
		if got := history.Ago(tc.d); got != tc.want {
			t.Errorf("history.Ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
