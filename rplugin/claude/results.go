package claude

import (
	"bytes"
	"encoding/json"
)

// ToolResult is one tool_result block of a user message, with claude's
// word on what let the call run.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	// Decision is the call's permission_decision from the message's
	// tool_result_meta (2.1.300 on; empty before, or when claude gives
	// none).
	Decision PermissionDecision
}

// PermissionDecision says why claude ran a call: source "config" (its
// settings, rules, mode) or "user_…" (an answer), and for config a
// reason_type (mode, rule, subcommandResults, hook, classifier, …).
type PermissionDecision struct {
	Decision   string `json:"decision"`
	Source     string `json:"source"`
	ReasonType string `json:"reason_type"`
}

// ToolResults is what a user message says of the calls it answers,
// decoded once for every reader: its tool_result blocks, and the CLI's
// structured result of the call it carries (tool_use_result on the wire,
// toolUseResult in claude's session store; one call per message), which
// says what a Write, Edit or a today's tool did.
type ToolResults struct {
	Results    []ToolResult
	Structured json.RawMessage
}

// ToolResultsOf decodes a user message's tool results (empty for any other
// message, and for a user message that carries none).
func ToolResultsOf(m Message) ToolResults {
	if m.Type != "user" || !bytes.Contains(m.Raw, []byte(`"tool_result"`)) {
		return ToolResults{}
	}
	var msg struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Meta []struct {
			ID       string             `json:"id"`
			Decision PermissionDecision `json:"permission_decision"`
		} `json:"tool_result_meta"`
		Result json.RawMessage `json:"tool_use_result"`
		Stored json.RawMessage `json:"toolUseResult"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		return ToolResults{}
	}
	out := ToolResults{Structured: msg.Result}
	if len(out.Structured) == 0 {
		out.Structured = msg.Stored
	}
	var blocks []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		IsError   bool   `json:"is_error"`
	}
	if json.Unmarshal(msg.Message.Content, &blocks) != nil {
		return out
	}
	for _, b := range blocks {
		if b.Type != "tool_result" || b.ToolUseID == "" {
			continue
		}
		r := ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError}
		for _, mt := range msg.Meta {
			if mt.ID == b.ToolUseID {
				r.Decision = mt.Decision
			}
		}
		out.Results = append(out.Results, r)
	}
	return out
}
