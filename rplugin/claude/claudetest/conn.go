// Package claudetest provides an in-memory claude.Conn so that the core of
// the plugin can be tested without a subprocess: a test pushes the lines
// claude would print and reads what the plugin wrote back.
package claudetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
)

// Written is one line the plugin wrote to claude, decoded.
type Written struct {
	Type      string         // "user", "control_response", "control_request"
	RequestID string         // the request an answer is for, or our control request's id
	Subtype   string         // control request subtype, or "success"/"error" of an answer
	Value     map[string]any // the whole line
}

// Result is the PermissionResult of an answer ({"behavior":…}); nil otherwise.
func (w Written) Result() map[string]any {
	r, _ := w.Value["response"].(map[string]any)
	res, _ := r["response"].(map[string]any)
	return res
}

// Conn is an in-memory claude.Conn.
type Conn struct {
	// OnControl answers our control requests (nil: an empty success). It
	// runs on the caller's goroutine and may block, like a slow claude.
	OnControl func(subtype string, fields map[string]any) (json.RawMessage, error)

	mu      sync.Mutex
	written []Written
	changed chan struct{}
	msgs    *queue.Queue[claude.Message]
	done    chan struct{}
	exited  bool
	exitErr error
	nextID  int
	backed  bool // writes fail as if claude stopped reading (SetBackedUp)
	killed  bool // Kill was used
}

// SetBackedUp makes every write fail with claude.ErrBackedUp (a claude
// that stopped reading its input) until it is called with false.
func (c *Conn) SetBackedUp(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.backed = on
}

var _ claude.Conn = (*Conn)(nil)

// New returns a running in-memory claude.
func New() *Conn {
	return &Conn{changed: make(chan struct{}), msgs: queue.New[claude.Message](), done: make(chan struct{})}
}

func (c *Conn) record(w Written) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exited {
		return claude.ErrExited
	}
	if c.backed {
		return claude.ErrBackedUp
	}
	// Round-trip through JSON, as the real process would.
	b, err := json.Marshal(w.Value)
	if err != nil {
		return err
	}
	var v map[string]any
	_ = json.Unmarshal(b, &v)
	w.Value = v
	c.written = append(c.written, w)
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

// SendUser records a user message (notes first, as text blocks).
func (c *Conn) SendUser(uuid, text string, notes ...string) error {
	var content any = text
	if len(notes) > 0 {
		var blocks []any
		for _, n := range notes {
			blocks = append(blocks, map[string]any{"type": "text", "text": n})
		}
		content = append(blocks, map[string]any{"type": "text", "text": text})
	}
	v := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}}
	if uuid != "" {
		v["uuid"] = uuid
	}
	return c.record(Written{Type: "user", Value: v})
}

// SendNote records a user message no person typed (isSynthetic).
func (c *Conn) SendNote(text string) error {
	v := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}, "isSynthetic": true}
	return c.record(Written{Type: "user", Value: v})
}

// RespondAndTell records the answer, then the user message.
func (c *Conn) RespondAndTell(requestID string, result claude.PermissionResult, note string) error {
	if err := c.Respond(requestID, result); err != nil {
		return err
	}
	if note == "" {
		return nil
	}
	return c.SendNote(note)
}

// UserTexts returns the text of every user message written, in order (the
// blocks of a message joined by a blank line).
func (c *Conn) UserTexts() []string {
	var out []string
	for _, w := range c.Written() {
		if w.Type != "user" {
			continue
		}
		msg, _ := w.Value["message"].(map[string]any)
		switch v := msg["content"].(type) {
		case string:
			out = append(out, v)
		case []any:
			var parts []string
			for _, b := range v {
				if m, ok := b.(map[string]any); ok {
					parts = append(parts, fmt.Sprint(m["text"]))
				}
			}
			out = append(out, strings.Join(parts, "\n\n"))
		}
	}
	return out
}

// Respond records an answer.
func (c *Conn) Respond(requestID string, result claude.PermissionResult) error {
	return c.record(Written{Type: "control_response", RequestID: requestID, Subtype: "success", Value: map[string]any{
		"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": requestID, "response": result},
	}})
}

// RespondError records an error answer.
func (c *Conn) RespondError(requestID, message string) error {
	return c.record(Written{Type: "control_response", RequestID: requestID, Subtype: "error", Value: map[string]any{
		"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": requestID, "error": message},
	}})
}

// RespondControl records a success answer to one of claude's control
// requests.
func (c *Conn) RespondControl(requestID string, body any) error {
	return c.record(Written{Type: "control_response", RequestID: requestID, Subtype: "success", Value: map[string]any{
		"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": requestID, "response": body},
	}})
}

// Control records the request and answers it with OnControl.
func (c *Conn) Control(ctx context.Context, subtype string, fields map[string]any) (json.RawMessage, error) {
	ch, err := c.Begin(subtype, fields)
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.Body, r.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Begin records the request at once and answers it with OnControl.
func (c *Conn) Begin(subtype string, fields map[string]any) (<-chan claude.Reply, error) {
	// Read before the request is recorded: a test that waits for the
	// record may set OnControl for the next ones.
	on := c.OnControl
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("test-%d", c.nextID)
	c.mu.Unlock()
	req := map[string]any{"subtype": subtype}
	for k, v := range fields {
		req[k] = v
	}
	if err := c.record(Written{Type: "control_request", RequestID: id, Subtype: subtype, Value: map[string]any{
		"type": "control_request", "request_id": id, "request": req,
	}}); err != nil {
		return nil, err
	}
	out := make(chan claude.Reply, 1)
	if on == nil {
		out <- claude.Reply{Body: json.RawMessage(`{}`)}
		return out, nil
	}
	go func() {
		ch := make(chan claude.Reply, 1)
		go func() {
			b, err := on(subtype, fields)
			ch <- claude.Reply{Body: b, Err: err}
		}()
		select {
		case r := <-ch:
			out <- r
		case <-c.done:
			out <- claude.Reply{Err: fmt.Errorf("%s: claude exited before answering", subtype)}
		}
	}()
	return out, nil
}

// Messages delivers what Push queued.
func (c *Conn) Messages() <-chan claude.Message { return c.msgs.Out() }

// Done is closed by Exit.
func (c *Conn) Done() <-chan struct{} { return c.done }

// ExitErr is the error given to Exit.
func (c *Conn) ExitErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitErr
}

// StderrTail is empty.
func (c *Conn) StderrTail() string { return "" }

// CommandLine names the fake.
func (c *Conn) CommandLine() string { return "claudetest" }

// InitResponse is an empty answer.
func (c *Conn) InitResponse() (json.RawMessage, error) {
	return json.RawMessage(`{"commands":[]}`), nil
}

// Stop ends the fake like claude exiting after stdin closed.
func (c *Conn) Stop(time.Duration) { c.Exit(nil) }

// Kill ends the fake (as Stop); Killed reports that it was used.
func (c *Conn) Kill(time.Duration) {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	c.Exit(nil)
}

// Killed reports whether the app killed the fake (Kill, not Stop).
func (c *Conn) Killed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// Exit ends the fake: Messages is closed after what was pushed, Done closes.
func (c *Conn) Exit(err error) {
	c.mu.Lock()
	if c.exited {
		c.mu.Unlock()
		return
	}
	c.exited = true
	c.exitErr = err
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	c.msgs.Close()
	close(c.done)
}

// Push queues a line as if claude printed it. It panics on a line the real
// parser refuses: tests push valid protocol.
func (c *Conn) Push(line string) {
	m, err := claude.ParseLine([]byte(line))
	if err != nil {
		panic(fmt.Sprintf("claudetest: bad line %q: %v", line, err))
	}
	c.msgs.Push(m)
}

// PushMessage pushes a message parsed already (a benchmark times its
// parse itself).
func (c *Conn) PushMessage(m claude.Message) { c.msgs.Push(m) }

// PushJSON marshals v and pushes it.
func (c *Conn) PushJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	c.Push(string(b))
}

// Name pushes the assistant message that names tool call toolUseID, as
// claude does before it asks for it (Ask's tool_use_id is "toolu_" and its
// request id).
func (c *Conn) Name(toolUseID, tool string, input any) {
	c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + toolUseID, "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": toolUseID, "name": tool, "input": input}}},
		"parent_tool_use_id": nil, "session_id": ""})
}

// Ask pushes a can_use_tool request.
func (c *Conn) Ask(requestID, tool string, input any, extra map[string]any) {
	req := map[string]any{"subtype": "can_use_tool", "tool_name": tool, "input": input, "tool_use_id": "toolu_" + requestID}
	for k, v := range extra {
		req[k] = v
	}
	c.PushJSON(map[string]any{"type": "control_request", "request_id": requestID, "request": req})
}

// Written returns every line written so far.
func (c *Conn) Written() []Written {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Written(nil), c.written...)
}

// Answers returns the answers written for requestID.
func (c *Conn) Answers(requestID string) []Written {
	var out []Written
	for _, w := range c.Written() {
		if w.Type == "control_response" && w.RequestID == requestID {
			out = append(out, w)
		}
	}
	return out
}

// Wait blocks until cond holds for what was written, or the timeout passes
// (it reports whether cond held). It wakes on every write, never polls;
// cond runs without the lock and may call the Conn.
func (c *Conn) Wait(timeout time.Duration, cond func([]Written) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ws := append([]Written(nil), c.written...)
		ch := c.changed
		c.mu.Unlock()
		if cond(ws) {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}
