package claude

import "encoding/json"

// ToolResult is one tool_result block of a user message, with claude's
// word on what let the call run.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	// Decision is the call's permission_decision from the message's
	// tool_result_meta (2.1.300 on; empty before, or when claude gives
	// none).
	Decision PermissionDecision
	// Rewritten: a plugin's session.append hook changed the tool_result
	// after the tool made it (tool_result_meta rewritten_by_plugin, 2.1.332);
	// tool_use_result is still the tool's own.
	Rewritten bool
}

// Rewritten reports whether a plugin changed the result of call id.
func (tr ToolResults) Rewritten(id string) bool {
	for _, r := range tr.Results {
		if r.ToolUseID == id {
			return r.Rewritten
		}
	}
	return false
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

// ToolResultsOf is a user message's tool results (empty for any other
// message, and for a user message that carries none).
func ToolResultsOf(m Message) ToolResults {
	if m.User == nil {
		return ToolResults{}
	}
	return m.User.ToolResults
}
