package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Every kind of pending request is answered exactly once, through its
// kind: a second answer finds it gone; one claude withdrew is answered by
// no gesture (claude gets nothing; an editor tool's call, which waits,
// learns it was withdrawn, once). A merged file, the fourth kind, is
// answered by its room (rooms/merge: TestAMergedFileIsAnsweredOnce).
func TestEveryKindAnswersOnce(t *testing.T) {
	kinds := []struct {
		name string
		// ask puts a request of the kind before the user, as claude's
		// control request id.
		ask func(t *testing.T, m *mem, c *claudetest.Conn, id string)
		// answer is a gesture that answers it.
		answer approval.Decision
		// waits: a call waits for the answer and learns of a withdrawal.
		waits bool
	}{
		{"permission", func(_ *testing.T, _ *mem, c *claudetest.Conn, id string) {
			c.Ask(id, "Bash", map[string]any{"command": "ls"}, nil)
		}, approval.Decision{Behavior: approval.Allow}, false},
		{"elicitation", func(_ *testing.T, _ *mem, c *claudetest.Conn, id string) {
			c.PushJSON(map[string]any{"type": "control_request", "request_id": id, "request": map[string]any{
				"subtype": "elicitation", "mcp_server_name": "tracker", "message": "Which project?",
				"requested_schema": json.RawMessage(`{"type":"object","properties":{"project":{"type":"string"}}}`)}})
		}, approval.Decision{Behavior: approval.Deny}, false},
		{"editor read", func(t *testing.T, m *mem, c *claudetest.Conn, id string) {
			notes := filepath.Join(t.TempDir(), "notes.txt")
			if err := os.WriteFile(notes, []byte("secret\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m.app.Rooms().Editor.Use(&cannedEditor{results: map[string]string{"buffer_text": `{"open":true,"path":"` + notes +
				`","on_disk":true,"from":1,"to":1,"total":1,"lines":["secret"]}`}})
			toolCall(c, id, "buffer_text", map[string]any{"path": notes})
		}, approval.Decision{Behavior: approval.Allow}, true},
	}
	wire := func(t *testing.T, c *claudetest.Conn, id string, want int) {
		t.Helper()
		if want > 0 && !c.Wait(10*time.Second, func([]claudetest.Written) bool { return len(c.Answers(id)) >= want }) {
			t.Fatalf("no answer to %s", id)
		}
		if n := len(c.Answers(id)); n != want {
			t.Fatalf("%d answers to %s on the wire, want %d", n, id, want)
		}
	}
	for _, k := range kinds {
		t.Run(k.name+"/answer twice", func(t *testing.T) {
			m := newMem(t)
			_, c := m.session("")
			k.ask(t, m, c, "k1")
			p := m.waitPending(1)[0]
			d, err := m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaSurface, Decision: k.answer})
			if err != nil || !d.Decided {
				t.Fatalf("first answer: %+v %v", d, err)
			}
			d, err = m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaSurface, Decision: k.answer})
			if err != nil || d.Decided || d.Reason != ErrNotPending.Error() {
				t.Fatalf("second answer: %+v %v", d, err)
			}
			wire(t, c, "k1", 1)
		})
		t.Run(k.name+"/withdraw then answer", func(t *testing.T) {
			m := newMem(t)
			_, c := m.session("")
			k.ask(t, m, c, "k2")
			p := m.waitPending(1)[0]
			c.PushJSON(map[string]any{"type": "control_cancel_request", "request_id": "k2"})
			m.rec.wait(t, "withdrawn", func([]ui.Event) bool { return len(m.app.Pending()) == 0 })
			d, err := m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaSurface, Decision: k.answer})
			if err != nil || d.Decided || d.Reason != ErrNotPending.Error() {
				t.Fatalf("answer after the withdrawal: %+v %v", d, err)
			}
			if !k.waits {
				// Wait for the next thing in order, then count: nothing
				// was written for the withdrawn request.
				c.Ask("after", "Bash", map[string]any{"command": "true"}, nil)
				m.waitPending(1)
				wire(t, c, "k2", 0)
				return
			}
			wire(t, c, "k2", 1)
			if got, isErr := toolReply(t, c, "k2"); !isErr || strings.Contains(got, "secret") {
				t.Fatalf("the waiting call: %q", got)
			}
		})
	}
}
