package app

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// A panic while one session's message is handled ends that session only:
// its pending request is answered deny, its claude is ended, the user is
// told which session; another session's request is still put before the
// user and answered, and the host goes on.
func TestAPanicEndsOnlyItsSession(t *testing.T) {
	m := newMem(t)
	one, c1 := m.session("one")
	two, c2 := m.session("two")
	m.app.route.fault = func(s *session.Session, msg claude.Message) {
		if s.ID == one.ID && msg.Type == "assistant" {
			panic("injected fault")
		}
	}
	c1.Ask("r1", "Bash", map[string]any{"command": "ls"}, nil)
	m.waitPending(1)
	c1.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "content": []any{
		map[string]any{"type": "text", "text": "hello"}}}})
	if !c1.Wait(10*time.Second, func(ws []claudetest.Written) bool {
		for _, w := range ws {
			if w.Type == "control_response" && w.RequestID == "r1" {
				return true
			}
		}
		return false
	}) {
		t.Fatal("the faulty session's request was not answered")
	}
	if a := c1.Answers("r1"); len(a) != 1 || a[0].Result()["behavior"] != "deny" {
		t.Fatalf("answers %+v", a)
	}
	m.rec.wait(t, "session one ended", func([]ui.Event) bool {
		s, _ := m.app.sessions.Get(one.ID)
		return s.State() == session.StateExited && c1.Killed()
	})
	m.rec.wait(t, "the user told which session", func([]ui.Event) bool {
		for _, n := range m.rec.notes() {
			if strings.Contains(n, "session 1") && strings.Contains(n, "internal error") {
				return true
			}
		}
		return false
	})
	c2.Ask("r2", "Bash", map[string]any{"command": "pwd"}, nil)
	var p RequestView
	m.rec.wait(t, "session two's request", func([]ui.Event) bool {
		for _, r := range m.app.Pending() {
			if r.Session == two.ID {
				p = r
				return true
			}
		}
		return false
	})
	if d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "allow"}}); err != nil || !d.Decided {
		t.Fatalf("decide: %+v %v", d, err)
	}
	if a := c2.Answers("r2"); len(a) != 1 || a[0].Result()["behavior"] != "allow" {
		t.Fatalf("session two's answer %+v", a)
	}
}
