package approval

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// Behaviors a user can choose.
const (
	Allow        = "allow"
	AllowSession = "allow_session"
	Deny         = "deny"
)

// DefaultDenyMessage is sent when the user denies without a message.
const DefaultDenyMessage = "The user denied this tool use in claude-nova.nvim."

// Decision is what the user chose for one request.
type Decision struct {
	Behavior     string          `json:"behavior"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"` // replaces the echoed input
	Mode         string          `json:"mode,omitempty"`          // setMode on allow (plan approval)
	// Tell is a message for Claude written with the answer (what the user
	// changed in a proposal); never set from the front end.
	Tell string `json:"-"`
}

// Result turns a decision into the answer claude receives.
func (d Decision) Result(r Pending) (claude.PermissionResult, error) {
	input := r.Perm.Input
	if len(d.UpdatedInput) > 0 {
		if !json.Valid(d.UpdatedInput) {
			return claude.PermissionResult{}, errors.New("updated input is not valid JSON")
		}
		input = d.UpdatedInput
	}
	switch d.Behavior {
	case Allow:
		if d.Mode != "" {
			return claude.Allow(input, claude.SetMode(d.Mode)), nil
		}
		return claude.Allow(input), nil
	case AllowSession:
		return claude.Allow(input, claude.SessionRule(r.Perm.ToolName)), nil
	case Deny:
		msg := d.Message
		if msg == "" {
			msg = DefaultDenyMessage
		}
		return claude.Deny(msg), nil
	default:
		return claude.PermissionResult{}, fmt.Errorf("unknown decision %q (want allow, allow_session or deny)", d.Behavior)
	}
}

// WithAnswers returns an AskUserQuestion input with the user's answers added
// ({question text: label}; multi-select labels joined with ", ").
func WithAnswers(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, fmt.Errorf("question input: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	m["answers"] = answers
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	return b, nil
}
