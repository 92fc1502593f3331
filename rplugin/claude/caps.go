package claude

import (
	"errors"
	"github.com/claude-nova/claude-nova.nvim/rplugin/window"
	"strings"
	"sync"
)

// What the running claude can do is learnt from what it answers, not from
// its version number: a control request it does not know is answered
// "Unsupported control request subtype: X" (error_code
// unsupported_request on newer releases). The first such answer is
// remembered; later calls of that subtype fail at once with an
// UnsupportedError that says, in words, what needs a newer claude, never a
// hang or a stack of errors.

// UnsupportedError is a control request the running claude does not know.
type UnsupportedError struct {
	Subtype string
	Version string        // the running claude's, "" when it did not say
	Said    *ControlError // claude's own answer
}

func (e *UnsupportedError) Error() string {
	who := "this one"
	if e.Version != "" {
		who = e.Version
	}
	return Feature(e.Subtype) + " needs a newer claude than " + who + " (claude-nova supports " + window.OldestSupported +
		" to " + window.NewestTested + "): update it (npm install -g @anthropic-ai/claude-code) or point the cmd option at a newer one"
}

// Unwrap is claude's own answer.
func (e *UnsupportedError) Unwrap() error {
	if e.Said == nil {
		return nil
	}
	return e.Said
}

// features name, for a person, what each control request of ours does.
var features = map[string]string{
	"get_task_output":      "A background command's output",
	"stop_task":            "Stopping one background task",
	"rewind_files":         "Rewind",
	"cancel_async_message": "Taking back a queued prompt",
	"get_context_usage":    "The context usage",
	"get_usage":            "The usage report",
	"mcp_status":           "The MCP server list",
	"mcp_reconnect":        "Reconnecting an MCP server",
	"mcp_toggle":           "Turning an MCP server off or on",
	"apply_flag_settings":  "Rules for this session",
	"get_settings":         "Reading claude's settings",
	"set_model":            "Switching the model",
	"list_models":          "The model list",
	"rename_session":       "Renaming a session",
	"set_permission_mode":  "Switching the permission mode",
	"interrupt":            "Interrupting a turn",
}

// Feature names what control request subtype does, for a person.
func Feature(subtype string) string {
	if f, ok := features[subtype]; ok {
		return f
	}
	return "The control request " + subtype
}

// unsupportedReply reports whether claude's error answer says it does not
// know the request.
func unsupportedReply(msg, code string) bool {
	return code == "unsupported_request" || strings.HasPrefix(msg, "Unsupported control request subtype")
}

// caps holds what a claude said it does not support.
type caps struct {
	mu          sync.Mutex
	unsupported map[string]bool
}

func (c *caps) mark(subtype string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unsupported == nil {
		c.unsupported = map[string]bool{}
	}
	c.unsupported[subtype] = true
}

func (c *caps) lacks(subtype string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unsupported[subtype]
}

// Supports reports whether claude may know control request subtype: false
// once it answered that it does not.
func (p *Process) Supports(subtype string) bool { return !p.caps.lacks(subtype) }

// unsupported is the error for a subtype claude said it does not know.
func (p *Process) unsupported(subtype string) error {
	v := ""
	if resp, err := p.InitResponse(); err == nil {
		v = window.VersionIn(resp)
	}
	return &UnsupportedError{Subtype: subtype, Version: v, Said: &ControlError{Subtype: subtype,
		Message: "Unsupported control request subtype: " + subtype, Code: "unsupported_request"}}
}

// checked turns claude's "unsupported" answer into an UnsupportedError
// (remembered for the next calls); other errors pass.
func (p *Process) checked(subtype string, err error) error {
	var ce *ControlError
	if errors.As(err, &ce) && unsupportedReply(ce.Message, ce.Code) {
		p.log.Info("claude does not support a control request", "subtype", subtype, "said", ce.Message)
		p.caps.mark(subtype)
		return p.unsupported(subtype)
	}
	return err
}
