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

// toolCall sends a tools/call of editor tool name for control request id.
func toolCall(c *claudetest.Conn, id, name string, args map[string]any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	mcpMessage(c, id, "nvim", string(b))
}

// toolReply waits for the tool call's result: its text and whether it is
// an error.
func toolReply(t *testing.T, c *claudetest.Conn, id string) (string, bool) {
	t.Helper()
	st, rpc, msg := mcpReply(t, c, id)
	if st != "success" {
		t.Fatalf("%s: %s", id, msg)
	}
	res := rpc["result"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	return res["content"].([]any)[0].(map[string]any)["text"].(string), isErr
}

func noReplyYet(t *testing.T, c *claudetest.Conn, id string) {
	t.Helper()
	if n := len(c.Answers(id)); n != 0 {
		t.Fatalf("%s answered without the user (%d)", id, n)
	}
}

// A buffer outside the session's folder: its text is a request like any
// other, and the tool answers only with the user's decision; a session
// allow covers that file (or its folder) and nothing else; claude's
// cancel withdraws the request; a batch never allows it; claude's own Read
// rules (get_settings) are obeyed.
func TestOutsideReadsAsk(t *testing.T) {
	m := newMem(t)
	notes := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	todo, other := filepath.Join(notes, "todo.txt"), filepath.Join(notes, "other.txt")
	text := func(p string) string {
		return `{"open":true,"path":"` + p + `","on_disk":true,"from":1,"to":1,"total":1,"lines":["secret of ` + filepath.Base(p) + `"]}`
	}
	ed := &cannedEditor{results: map[string]string{"buffer_text": text(todo)}}
	m.app.Rooms().Editor.Use(ed)
	_, c := m.session("")

	// Denied: the model gets the refusal and the user's words, not the text.
	toolCall(c, "m1", "buffer_text", map[string]any{"path": todo})
	p := m.waitPending(1)[0]
	if p.Tool != "mcp__nvim__buffer_text" || p.Outside == "" || p.Surface != "panel" || p.NoAlways == "" ||
		!strings.Contains(p.Reason, "the text of") || !strings.Contains(strings.Join(p.Review, "\n"), "secret of todo.txt") {
		t.Fatalf("the request: %+v", p)
	}
	noReplyYet(t, c, "m1")
	if d, err := m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaBatch, Decision: approval.Decision{Behavior: approval.Allow}}); err != nil || d.Decided {
		t.Fatalf("a batch allowed it: %+v %v", d, err)
	}
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaSurface, Decision: approval.Decision{Behavior: approval.Allow, Rules: []string{"Read(//x)"}, Destination: "session"}}); d.Decided {
		t.Fatal("Always… answered it")
	}
	if d, err := m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaSurface, Decision: approval.Decision{Behavior: approval.Deny, Message: "not my notes"}}); err != nil || !d.Decided {
		t.Fatalf("deny: %+v %v", d, err)
	}
	got, isErr := toolReply(t, c, "m1")
	if !isErr || strings.Contains(got, "secret") || !strings.Contains(got, "The user says: not my notes") {
		t.Fatalf("denied: %q", got)
	}

	// Allowed for the session: this file answers from now on, unasked.
	toolCall(c, "m2", "buffer_text", map[string]any{"path": todo})
	p = m.waitPending(1)[0]
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: approval.ViaSidebar, Decision: approval.Decision{Behavior: approval.AllowSession}}); !d.Decided {
		t.Fatalf("allow for the session: %+v", d)
	}
	if got, isErr := toolReply(t, c, "m2"); isErr || !strings.Contains(got, "secret of todo.txt") {
		t.Fatalf("allowed: %q", got)
	}
	toolCall(c, "m3", "buffer_text", map[string]any{"path": todo})
	if got, isErr := toolReply(t, c, "m3"); isErr || !strings.Contains(got, "secret of todo.txt") {
		t.Fatalf("granted: %q", got)
	}
	// Another file of the folder still asks; claude's cancel withdraws it.
	ed.mu.Lock()
	ed.results["buffer_text"] = text(other)
	ed.mu.Unlock()
	toolCall(c, "m4", "buffer_text", map[string]any{"path": other})
	m.waitPending(1)
	c.Push(`{"type":"control_cancel_request","request_id":"m4"}`)
	m.rec.wait(t, "the request withdrawn", func([]ui.Event) bool { return len(m.app.Pending()) == 0 })
	if got, isErr := toolReply(t, c, "m4"); !isErr || strings.Contains(got, "secret") {
		t.Fatalf("withdrawn: %q", got)
	}
	// The folder, for the session.
	toolCall(c, "m5", "buffer_text", map[string]any{"path": other})
	p = m.waitPending(1)[0]
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Decision: approval.Decision{Behavior: approval.AllowTool}}); !d.Decided {
		t.Fatalf("allow the folder: %+v", d)
	}
	if got, _ := toolReply(t, c, "m5"); !strings.Contains(got, "secret of other.txt") {
		t.Fatalf("folder allowed: %q", got)
	}

	// claude's Read deny rule refuses before the editor is asked.
	c.OnControl = func(subtype string, _ map[string]any) (json.RawMessage, error) {
		if subtype == "get_settings" {
			return json.RawMessage(`{"effective":{},"sources":[{"source":"userSettings","settings":{"permissions":{"deny":["Read(//` +
				strings.TrimPrefix(notes, "/") + `/**)"]}}}]}`), nil
		}
		return json.RawMessage(`{}`), nil
	}
	ed.mu.Lock()
	calls := len(ed.calls)
	ed.mu.Unlock()
	toolCall(c, "m6", "buffer_text", map[string]any{"path": other})
	if got, isErr := toolReply(t, c, "m6"); !isErr || !strings.Contains(got, "denied by the user's settings") {
		t.Fatalf("a deny rule: %q", got)
	}
	ed.mu.Lock()
	if len(ed.calls) != calls {
		t.Fatalf("the editor was asked: %v", ed.calls)
	}
	ed.mu.Unlock()
	// additionalDirectories make the folder inside: no ask.
	c.OnControl = func(subtype string, _ map[string]any) (json.RawMessage, error) {
		return json.RawMessage(`{"effective":{"permissions":{"additionalDirectories":["` + notes + `"]}},"sources":[]}`), nil
	}
	m2 := newMem(t)
	m2.app.Rooms().Editor.Use(&cannedEditor{results: map[string]string{"buffer_text": text(todo)}})
	_, c2 := m2.session("")
	c2.OnControl = c.OnControl
	toolCall(c2, "n1", "buffer_text", map[string]any{"path": todo})
	if got, isErr := toolReply(t, c2, "n1"); isErr || !strings.Contains(got, "secret of todo.txt") {
		t.Fatalf("an added directory: %q", got)
	}
	if b := m2.app.Rooms().Editor.Boundaries(); len(b) != 1 || len(b[0].Folders) != 2 {
		t.Fatalf("boundaries: %+v", b)
	}
}

// Neovim quits while the user has not answered: the call is answered
// (denied), once.
func TestOutsideAskOnShutdown(t *testing.T) {
	m := newMem(t)
	out := filepath.Join(t.TempDir(), "x.txt")
	m.app.Rooms().Editor.Use(&cannedEditor{results: map[string]string{"buffer_text": `{"open":true,"path":"` + out + `","on_disk":true,"from":1,"to":1,"total":1,"lines":["s"]}`}})
	_, c := m.session("")
	toolCall(c, "m1", "buffer_text", map[string]any{"path": out})
	m.waitPending(1)
	done := make(chan struct{})
	go func() { m.app.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Shutdown did not return")
	}
	if got, isErr := toolReply(t, c, "m1"); !isErr || strings.Contains(got, "\ts") {
		t.Fatalf("after shutdown: %q", got)
	}
}
