package tuihook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	shellquote "github.com/kballard/go-shellquote"
)

// ErrTUI says what a session in claude's own terminal UI cannot do from
// the editor: its conversation is typed into its terminal.
var ErrTUI = errors.New("this session runs in claude's terminal UI: type into its terminal")

// Conn is one TUI session as the host sees it: no pipe to claude, only its
// hooks' requests, each a synthesized can_use_tool message, and their
// answers, each the decision its hook prints. Neovim runs the process (a
// terminal job) and reports its pid and its exit.
type Conn struct {
	log  *slog.Logger
	argv []string
	mode string
	cwd  string

	mu       sync.Mutex
	queue    []claude.Message
	wake     chan struct{}
	out      chan claude.Message
	pending  map[string]*waiting // by request id
	answered map[string]*waiting // requests the editor allowed, until their PostToolUse
	hooks    map[string]*waiting // hook_callbacks (a PostToolUse) waiting for the host
	plans    map[string]bool     // the transcript's ExitPlanMode calls asked about already
	next     int
	pid      int
	exitErr  error
	started  chan struct{}
	done     chan struct{}
	ended    bool
	rules    sessionRules // the session's own rules (rules.go)
	given    sessionRules // what of them the TUI was given
	onEnd    func()
	// ownMCP: the TUI was given the editor's MCP server (--mcp-config),
	// which takes the place of any server of that name the user configured
	// (checked on 2.1.328): its tools' calls are the editor's own.
	ownMCP bool
}

var _ claude.Conn = (*Conn)(nil)

// waiting is a hook's request before the user: its tool call, and where
// its decision line goes (nil: none).
type waiting struct {
	tool   string
	input  string // the tool input, in a canonical form
	answer chan []byte
}

// canonical is a JSON value re-encoded (object keys sorted), to tell the
// same tool input apart from another.
func canonical(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// newConn returns the Conn of a TUI run as argv in cwd, in mode.
func newConn(argv []string, cwd, mode string, log *slog.Logger) *Conn {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Conn{
		log: log, argv: argv, mode: mode, cwd: cwd,
		wake: make(chan struct{}, 1), out: make(chan claude.Message),
		pending: map[string]*waiting{}, answered: map[string]*waiting{}, hooks: map[string]*waiting{}, plans: map[string]bool{}, started: make(chan struct{}), done: make(chan struct{}),
	}
	go c.pump()
	return c
}

// Kind says what sort of session this is (session.Info's kind).
func (c *Conn) Kind() string { return "tui" }

// pump delivers the queued messages in order; Messages is closed once the
// TUI ended and everything before was delivered.
func (c *Conn) pump() {
	defer close(c.out)
	for {
		c.mu.Lock()
		q := c.queue
		c.queue = nil
		ended := c.ended
		c.mu.Unlock()
		for _, m := range q {
			c.out <- m
		}
		if len(q) > 0 {
			continue
		}
		if ended {
			return
		}
		select {
		case <-c.wake:
		case <-c.done:
		}
	}
}

// push queues a synthesized line (nothing once the TUI ended).
func (c *Conn) push(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.log.Error("tui: encode a message", "err", err)
		return
	}
	m, err := claude.ParseLine(b)
	if err != nil {
		c.log.Error("tui: decode a synthesized message", "err", err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.queue = append(c.queue, m)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// ask puts one hook's request before the user and returns the line its
// hook prints, once decided; ok false: no decision (the hook went away,
// the TUI ended, the request was withdrawn or errored).
func (c *Conn) ask(in HookInput, gone <-chan struct{}) (out []byte, ok bool) {
	var plan *planCall
	if in.ToolName == "ExitPlanMode" {
		// The plan is not in the hook's input: claude's transcript has it.
		c.mu.Lock()
		taken := maps.Clone(c.plans)
		c.mu.Unlock()
		if p, ok := waitPlan(in.TranscriptPath, taken, gone, c.done); ok {
			plan = &p
		} else {
			select {
			case <-gone:
				return nil, false
			default:
				c.log.Info("tui: the plan was not found in the transcript", "path", in.TranscriptPath, "seen", planMiss(in.TranscriptPath))
			}
		}
	}
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, false
	}
	c.next++
	id := "tui-" + strconv.Itoa(c.next)
	w := &waiting{tool: in.ToolName, input: canonical(in.ToolInput), answer: make(chan []byte, 1)}
	c.pending[id] = w
	if plan != nil {
		c.plans[plan.ID] = true
	}
	c.mu.Unlock()
	if plan != nil {
		// The model's call, as a stream-json claude shows it: the plan
		// surface finds the plan by the request's tool_use_id.
		c.push(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": id, "name": in.ToolName, "input": map[string]any{"plan": plan.Plan}},
		}}})
	}
	req := map[string]any{
		"subtype": "can_use_tool", "tool_name": in.ToolName, "input": in.ToolInput, "tool_use_id": id,
	}
	if len(in.PermissionSuggestions) > 0 && string(in.PermissionSuggestions) != "null" {
		req["permission_suggestions"] = in.PermissionSuggestions
	}
	if c.ownMCP && editortools.ToolName(in.ToolName) != "" {
		// As a stream-json claude marks a call of the editor's server.
		req["mcp_server"] = map[string]any{"name": editortools.Server, "source": "sdk"}
	}
	c.push(map[string]any{"type": "control_request", "request_id": id, "request": req})
	select {
	case b := <-w.answer:
		return b, b != nil
	case <-gone:
	case <-c.done:
		return nil, false
	}
	// The hook went first (the user answered in the terminal, or claude
	// ended the hook): withdrawn, unless the answer was taken meanwhile.
	if c.take(id) != nil {
		c.push(map[string]any{"type": "control_cancel_request", "request_id": id})
		return nil, false
	}
	select {
	case b := <-w.answer:
		return b, b != nil
	default:
		return nil, false
	}
}

// take removes a waiting request; nil when none waits by that id.
func (c *Conn) take(id string) *waiting {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.pending[id]
	delete(c.pending, id)
	return w
}

// notice is a hook that tells of the terminal: a tool that ran (or
// failed) was allowed there (its request, if one waits, is withdrawn), else a change
// the editor allowed reached the disk (the PostToolUse of app's hook: the
// note of what the user changed, the file's diagnostics, go to Claude
// with its result); a new prompt or the end of the turn leaves no request
// waiting, and says whether a turn runs. It returns the hook's reply line,
// if any.
func (c *Conn) notice(in HookInput, gone <-chan struct{}) ([]byte, bool) {
	switch in.HookEventName {
	case EventPreTool:
		return c.beforeCommand(in, gone)
	case EventPostTool:
		same := sameCall(in)
		settled := c.settled(same) > 0
		if !changeTools[in.ToolName] {
			c.commandEnded(in)
			return nil, false
		}
		id := ""
		if !settled {
			id = c.allowed(same)
		}
		return c.afterChange(in, id, gone)
	case EventToolFailed:
		same := sameCall(in)
		if c.settled(same) == 0 {
			c.allowed(same) // allowed here, failed there: no PostToolUse follows
		}
		c.commandEnded(in)
	case EventPrompt:
		c.settled(func(*waiting) bool { return true })
		// Its first prompt names it, as a session of the plugin's own, when
		// no one named it before (the host: prompt_typed).
		c.push(map[string]any{"type": "system", "subtype": "prompt_typed", "prompt": in.Prompt})
		c.push(map[string]any{"type": "system", "subtype": "session_state_changed", "state": "running"})
	case EventStop:
		c.settled(func(*waiting) bool { return true })
		c.push(map[string]any{"type": "system", "subtype": "session_state_changed", "state": "idle"})
	}
	return nil, false
}

// sameCall tells the waiting request of the call a PostToolUse (or its
// failure) is about: the same tool and input; a question or a plan by its
// tool alone (the input claude reports holds the answers; claude asks them
// one at a time).
func sameCall(in HookInput) func(*waiting) bool {
	if interactive[in.ToolName] {
		return func(w *waiting) bool { return w.tool == in.ToolName }
	}
	input := canonical(in.ToolInput)
	return func(w *waiting) bool { return w.tool == in.ToolName && w.input == input }
}

// allowed is the request the editor allowed for this call ("" if none),
// forgotten.
func (c *Conn) allowed(match func(*waiting) bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, w := range c.answered {
		if match(w) {
			delete(c.answered, id)
			return id
		}
	}
	return ""
}

// afterChange hands a change's PostToolUse to the host as app's own
// hook_callback (toolUseID: the request the editor allowed for it), then
// its result, and returns the reply line for the hook once answered.
func (c *Conn) afterChange(in HookInput, toolUseID string, gone <-chan struct{}) ([]byte, bool) {
	request := map[string]any{
		"subtype": "hook_callback", "callback_id": claude.ChangeHook,
		"input": map[string]any{"hook_event_name": EventPostTool, "tool_name": in.ToolName, "tool_use_id": toolUseID,
			"permission_mode": in.PermissionMode, "tool_input": in.ToolInput},
	}
	// Then the call's result, as a stream-json claude sends it after its
	// hook: the change is recorded (checkpoint, round, blame, notes) by the
	// one path every change takes.
	var result any
	resultID := toolUseID
	if resultID == "" {
		resultID = in.ToolUseID
	}
	if resultID != "" && len(in.ToolResponse) > 0 {
		result = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": resultID, "content": "(done in claude's terminal UI)"},
		}}, "tool_use_result": in.ToolResponse}
	}
	return c.control("tui-hook-", request, result, gone)
}

// beforeCommand hands a command's PreToolUse to the host as app's own
// (claude waits for it): the folder is snapshotted before the command
// runs, as for a stream-json claude. The mode is left out: the user may
// have switched it in the terminal, which is theirs to do.
func (c *Conn) beforeCommand(in HookInput, gone <-chan struct{}) ([]byte, bool) {
	if in.ToolName != commandTool {
		return nil, false
	}
	return c.control("tui-pre-", map[string]any{
		"subtype": "hook_callback", "callback_id": claude.ModeHook,
		"input": map[string]any{"hook_event_name": EventPreTool, "tool_name": in.ToolName, "tool_use_id": in.ToolUseID,
			"tool_input": in.ToolInput},
	}, nil, gone)
}

// commandEnded hands the host a command's result, as a stream-json claude
// sends it: the folder is compared with its snapshot before.
func (c *Conn) commandEnded(in HookInput) {
	if in.ToolName != commandTool || in.ToolUseID == "" {
		return
	}
	c.push(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": in.ToolUseID, "content": "(ran in claude's terminal UI)",
			"is_error": in.HookEventName == EventToolFailed},
	}}})
}

// mcp hands a message for the editor's MCP server to the host as the
// mcp_message a stream-json claude sends, and returns the reply line once
// answered (ok false: none; the bridge answers with an error).
func (c *Conn) mcp(msg json.RawMessage, gone <-chan struct{}) ([]byte, bool) {
	return c.control("tui-mcp-", map[string]any{"subtype": "mcp_message", "server_name": editortools.Server, "message": msg}, nil, gone)
}

// control sends the host a control request of ours (then the message
// after, if any) and waits for its answer (RespondControl): the reply
// line, or ok false when none came (RespondError, the caller gone, the TUI
// ended).
func (c *Conn) control(prefix string, request map[string]any, after any, gone <-chan struct{}) ([]byte, bool) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, false
	}
	c.next++
	id := prefix + strconv.Itoa(c.next)
	w := &waiting{answer: make(chan []byte, 1)}
	c.hooks[id] = w
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.hooks, id)
		c.mu.Unlock()
	}()
	c.push(map[string]any{"type": "control_request", "request_id": id, "request": request})
	if after != nil {
		c.push(after)
	}
	select {
	case b := <-w.answer:
		return b, b != nil
	case <-gone:
	case <-c.done:
	}
	return nil, false
}

// RespondControl answers a hook_callback of ours: the hook prints body.
func (c *Conn) RespondControl(requestID string, body any) error {
	c.mu.Lock()
	w := c.hooks[requestID]
	delete(c.hooks, requestID)
	c.mu.Unlock()
	if w == nil {
		return fmt.Errorf("the TUI's hook %s no longer waits", requestID)
	}
	out, err := json.Marshal(body)
	if err != nil {
		w.answer <- nil
		return fmt.Errorf("encode the hook's answer: %w", err)
	}
	line, err := json.Marshal(reply{Output: out})
	if err != nil {
		w.answer <- nil
		return fmt.Errorf("encode the hook's answer: %w", err)
	}
	w.answer <- append(line, '\n')
	return nil
}

// settled withdraws the waiting requests that match (decided in the
// terminal: their hooks get no decision from the editor) and says how
// many.
func (c *Conn) settled(match func(*waiting) bool) int {
	c.mu.Lock()
	var ids []string
	for id, w := range c.pending {
		if match(w) {
			ids = append(ids, id)
		}
	}
	gone := make([]*waiting, 0, len(ids))
	for _, id := range ids {
		gone = append(gone, c.pending[id])
		delete(c.pending, id)
	}
	c.mu.Unlock()
	sort.Strings(ids)
	for i, id := range ids {
		c.log.Info("tui: decided in the terminal", "request", id)
		c.push(map[string]any{"type": "control_cancel_request", "request_id": id})
		gone[i].answer <- nil
	}
	return len(ids)
}

// Respond sends the decision to the request's hook.
func (c *Conn) Respond(requestID string, result claude.PermissionResult) error {
	if _, err := Output(&result); err != nil {
		return err // no decision the hook could print
	}
	w := c.take(requestID)
	if w == nil {
		return fmt.Errorf("the TUI's request %s no longer waits", requestID)
	}
	result = c.withRules(result)
	if result.Behavior == "allow" && interactive[w.tool] && len(result.UpdatedInput) == 0 {
		// Without an updatedInput claude leaves its own dialog open.
		result.UpdatedInput = json.RawMessage(w.input)
	}
	out, err := json.Marshal(reply{Decision: &result})
	if err != nil {
		w.answer <- nil // no decision: the TUI asks
		return fmt.Errorf("encode the decision: %w", err)
	}
	if result.Behavior == "allow" && changeTools[w.tool] {
		ran := *w
		if len(result.UpdatedInput) > 0 {
			ran.input = canonical(result.UpdatedInput)
		}
		c.mu.Lock()
		c.answered[requestID] = &ran
		c.mu.Unlock()
	}
	w.answer <- append(out, '\n')
	return nil
}

// RespondAndTell sends the decision; the note cannot reach Claude (the
// TUI takes no message from the host): it is logged.
func (c *Conn) RespondAndTell(requestID string, result claude.PermissionResult, note string) error {
	if note != "" {
		c.log.Info("tui: a note for claude is not sent (the TUI takes none)", "request", requestID)
	}
	return c.Respond(requestID, result)
}

// RespondError gives the request's hook no decision (the TUI asks), or a
// message for the editor's MCP server no answer (the bridge answers with
// an error).
func (c *Conn) RespondError(requestID, message string) error {
	if w := c.take(requestID); w != nil {
		c.log.Info("tui: no decision", "request", requestID, "why", message)
		w.answer <- nil
	}
	c.mu.Lock()
	w := c.hooks[requestID]
	delete(c.hooks, requestID)
	c.mu.Unlock()
	if w != nil {
		c.log.Info("tui: no answer", "request", requestID, "why", message)
		w.answer <- nil
	}
	return nil
}

func (c *Conn) SendUser(string, string, ...string) error { return ErrTUI }

// SendNote is refused like SendUser.
func (c *Conn) SendNote(string) error { return ErrTUI }
func (c *Conn) Control(context.Context, string, map[string]any) (json.RawMessage, error) {
	return nil, ErrTUI
}

// Messages delivers the synthesized messages; closed after the TUI ended.
func (c *Conn) Messages() <-chan claude.Message { return c.out }

// Done is closed once the TUI ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// ExitErr is how the TUI ended; valid after Done.
func (c *Conn) ExitErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitErr
}

func (c *Conn) StderrTail() string { return "" }

// CommandLine is the TUI's command, quoted.
func (c *Conn) CommandLine() string { return shellquote.Join(c.argv...) }

// Initialized is closed once the TUI runs (Neovim reported its pid).
func (c *Conn) Initialized() <-chan struct{} { return c.started }

// InitResponse: the TUI has no handshake; nothing to report.
func (c *Conn) InitResponse() (json.RawMessage, error) { return json.RawMessage(`{}`), nil }

// Running records the TUI's pid (its process group: Neovim starts a
// terminal's job as a session leader) and announces the session.
func (c *Conn) Running(pid int) {
	c.mu.Lock()
	select {
	case <-c.started:
		c.mu.Unlock()
		return // told already
	default:
	}
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.pid = pid
	c.mu.Unlock()
	c.push(map[string]any{"type": "system", "subtype": "init", "cwd": c.cwd, "permissionMode": c.mode})
	close(c.started)
}

// Exited ends the session: the TUI's job exited with code.
func (c *Conn) Exited(code int) {
	var err error
	if code != 0 {
		err = fmt.Errorf("exit status %d", code)
	}
	c.end(err)
}

// end marks the TUI gone: waiting hooks get no decision, Messages closes.
func (c *Conn) end(err error) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended, c.exitErr = true, err
	pending := c.pending
	c.pending = map[string]*waiting{}
	onEnd := c.onEnd
	c.mu.Unlock()
	for _, w := range pending {
		w.answer <- nil
	}
	close(c.done)
	if onEnd != nil {
		onEnd()
	}
}

// Stop ends the TUI (as Kill: it has no stdin of ours to close).
func (c *Conn) Stop(grace time.Duration) { c.Kill(grace) }

// Kill ends the TUI's process group (SIGTERM, SIGKILL after grace) and
// returns once Neovim reported its exit, or after another grace.
func (c *Conn) Kill(grace time.Duration) {
	c.mu.Lock()
	pid := c.pid
	if c.ended {
		// Its job exited: the pid is free, and may already name another
		// process group (a machine's pids wrap around; during the tests
		// one was another test's Neovim). Nothing is signalled.
		pid = 0
	}
	c.mu.Unlock()
	if pid > 0 {
		signalGroup(pid, false)
		if c.waitDone(grace) {
			return
		}
		signalGroup(pid, true)
		if c.waitDone(grace) {
			return
		}
	}
	c.end(errors.New("stopped"))
}

func (c *Conn) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
		return false
	}
}
