package app

import (
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// A stop while a request waits: the session reads as stopped at once, the
// request leaves without an answer (an answer would let the turn go on),
// the queued prompt is dropped and said so, and claude's process group is
// ended (not its stdin closed) with no interrupt first: claude would start
// the next turn with the prompt it was already sent (seen on 2.1.300).
func TestStopEndsTheTurn(t *testing.T) {
	m := newMem(t)
	info, c := m.session("first")
	s := mustSession(t, m.app, info.ID)
	c.Ask("r1", "Bash", map[string]any{"command": "sleep 1"}, nil)
	m.waitPending(1)
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "second, while the turn runs"}); err != nil {
		t.Fatal(err)
	}
	out, err := m.app.Stop(info.ID)
	if err != nil || !strings.Contains(out.Message, "1 queued prompt claude had not read yet dropped") {
		t.Fatalf("%+v %v", out, err)
	}
	if st := s.State(); st != session.StateExited {
		t.Fatalf("state %s right after the stop", st)
	}
	if n := len(m.app.Pending()); n != 0 {
		t.Fatalf("%d pending after the stop", n)
	}
	if !c.Wait(5e9, func([]claudetest.Written) bool { return c.Killed() }) {
		t.Fatal("claude was not killed")
	}
	if n := len(c.Answers("r1")); n != 0 {
		t.Fatalf("the request was answered (%d)", n)
	}
	if interruptedBefore(c) {
		t.Fatal("an interrupt before the kill: claude would take the dropped prompt")
	}
	m.rec.wait(t, "the dropped prompt noted", func([]ui.Event) bool {
		tr := m.rec.transcriptText(info.ID)
		return strings.Contains(tr, "Dropped 1 queued prompt claude had not read yet: “second, while the turn runs”")
	})
	// What claude still says while it dies changes nothing.
	if st := s.State(); st != session.StateExited {
		t.Fatalf("state %s", st)
	}
}

// With nothing queued, a stop interrupts the turn before claude's process
// group is ended (claude keeps the turn's end in its session store).
func TestStopInterruptsFirst(t *testing.T) {
	m := newMem(t)
	info, c := m.session("first")
	c.Ask("r1", "Bash", map[string]any{"command": "sleep 1"}, nil)
	m.waitPending(1)
	if _, err := m.app.Stop(info.ID); err != nil {
		t.Fatal(err)
	}
	if !c.Wait(5e9, func([]claudetest.Written) bool { return c.Killed() }) {
		t.Fatal("claude was not killed")
	}
	if !interruptedBefore(c) {
		t.Fatal("no interrupt before the kill")
	}
}

func interruptedBefore(c *claudetest.Conn) bool {
	for _, w := range c.Written() {
		if w.Type == "control_request" && w.Subtype == "interrupt" {
			return true
		}
	}
	return false
}

// A queued prompt's mark leaves its heading when claude takes it
// (command_lifecycle started, or the replayed echo).
func TestQueuedMarkLeavesWhenTaken(t *testing.T) {
	m := newMem(t)
	info, c := m.session("first")
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "second"}); err != nil {
		t.Fatal(err)
	}
	s := mustSession(t, m.app, info.ID)
	q := s.QueuedPrompts()
	if len(q) != 1 {
		t.Fatalf("queued %+v", q)
	}
	m.rec.wait(t, "queued mark", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "· queued") })
	c.PushJSON(map[string]any{"type": "command_lifecycle", "command_uuid": q[0].ID, "state": "started"})
	m.rec.wait(t, "the mark gone", func([]ui.Event) bool {
		tr := m.rec.transcriptText(info.ID)
		return !strings.Contains(tr, "queued") && strings.Count(tr, "## You") == 2
	})
	if len(s.QueuedPrompts()) != 0 {
		t.Fatal("still queued")
	}
}
