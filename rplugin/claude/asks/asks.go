// Package asks holds what claude asks of the plugin in control requests
// (a can_use_tool's permission request, an elicitation) and the answers
// the plugin gives (a permission result, an elicitation result). Package
// claude decodes them from its lines (ParseLine) and writes the answers.
package asks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// PermissionRequest is the body of a can_use_tool control request. Besides
// the tool call it carries the CLI's hints on how the ask may be answered
// (see the comments of SDKControlPermissionRequest in the SDK's sdk.d.ts):
// the host obeys them, it does not second-guess them.
type PermissionRequest struct {
	RequestID   string          `json:"-"`
	ToolName    string          `json:"tool_name"`
	DisplayName string          `json:"display_name,omitempty"`
	Input       json.RawMessage `json:"input"`
	// In is Input decoded, once (by ParseLine): what every room reads.
	In                      toolcall.Input `json:"-"`
	ToolUseID               string         `json:"tool_use_id,omitempty"`
	Suggestions             Suggestions    `json:"permission_suggestions,omitempty"`
	BlockedPath             string         `json:"blocked_path,omitempty"`
	DecisionReason          string         `json:"decision_reason,omitempty"`
	Description             string         `json:"description,omitempty"`
	Title                   string         `json:"title,omitempty"`
	RequiresUserInteraction bool           `json:"requires_user_interaction,omitempty"`
	AgentID                 string         `json:"agent_id,omitempty"`
	// DecisionReasonType says why the ask escalated ("safetyCheck",
	// "workingDir", "rule", "classifier", …).
	DecisionReasonType string `json:"decision_reason_type,omitempty"`
	// ClassifierApprovable is set when a safety check is involved; false
	// means at least one check needs a person's approval.
	ClassifierApprovable *bool `json:"classifier_approvable,omitempty"`
	// SuppressAlwaysAllowRule: offer no persistent "don't ask again".
	SuppressAlwaysAllowRule bool `json:"suppress_always_allow_rule,omitempty"`
	// DefaultToNo: not approvable by a single stray keystroke.
	DefaultToNo bool `json:"default_to_no,omitempty"`
	// MatchedAskRule is the user's ask rule that forced this prompt.
	MatchedAskRule *AskRule `json:"matched_ask_rule,omitempty"`
	// MCPServer is the MCP server of an mcp__ tool, and where it was
	// configured.
	MCPServer *MCPServer `json:"mcp_server,omitempty"`
}

// AskRule is the user's ask rule a request matched.
type AskRule struct {
	Source      string `json:"source"`
	ToolName    string `json:"tool_name"`
	RuleContent string `json:"rule_content,omitempty"`
}

// String is the rule as written in settings: Tool or Tool(content).
func (r AskRule) String() string {
	if r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + r.RuleContent + ")"
}

// MCPServer is the provenance of an MCP tool.
type MCPServer struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// DecodePermission decodes a can_use_tool body field by field where one
// has an unexpected type (decision_reason as an object on some CLIs),
// keeping what can be read.
func DecodePermission(requestID string, body json.RawMessage) (PermissionRequest, error) {
	var pr PermissionRequest
	if err := json.Unmarshal(body, &pr); err != nil {
		var loose map[string]json.RawMessage
		if err2 := json.Unmarshal(body, &loose); err2 != nil {
			return PermissionRequest{RequestID: requestID}, fmt.Errorf("decode can_use_tool body: %w", err)
		}
		pr = lenientPermission(loose)
	}
	pr.RequestID = requestID
	return Checked(pr)
}

func lenientPermission(m map[string]json.RawMessage) PermissionRequest {
	str := func(k string) string {
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			return s
		}
		if len(m[k]) > 0 && string(m[k]) != "null" {
			return string(m[k])
		}
		return ""
	}
	flag := func(k string) bool {
		var b bool
		_ = json.Unmarshal(m[k], &b)
		return b
	}
	pr := PermissionRequest{
		ToolName: str("tool_name"), DisplayName: str("display_name"), Input: m["input"],
		ToolUseID:   str("tool_use_id"),
		BlockedPath: str("blocked_path"), DecisionReason: str("decision_reason"),
		Description: str("description"), Title: str("title"), RequiresUserInteraction: flag("requires_user_interaction"),
		AgentID: str("agent_id"), DecisionReasonType: str("decision_reason_type"),
		SuppressAlwaysAllowRule: flag("suppress_always_allow_rule"), DefaultToNo: flag("default_to_no"),
	}
	_ = json.Unmarshal(m["permission_suggestions"], &pr.Suggestions)
	var b bool
	if raw, ok := m["classifier_approvable"]; ok && json.Unmarshal(raw, &b) == nil {
		pr.ClassifierApprovable = &b
	}
	var ask AskRule
	if raw, ok := m["matched_ask_rule"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &ask) != nil || ask.ToolName == "" {
			// Unreadable, but present: it still forces a human prompt.
			ask = AskRule{ToolName: "(unreadable)"}
		}
		pr.MatchedAskRule = &ask
	}
	var srv MCPServer
	if raw, ok := m["mcp_server"]; ok && json.Unmarshal(raw, &srv) == nil && srv.Name != "" {
		pr.MCPServer = &srv
	}
	return pr
}

// Checked completes a request decoded: no input reads as {}, the input
// is decoded (In), and a request without a tool is an error.
func Checked(pr PermissionRequest) (PermissionRequest, error) {
	if len(pr.Input) == 0 || string(pr.Input) == "null" {
		pr.Input = json.RawMessage("{}")
	}
	pr.In = toolcall.Decode(pr.Input)
	if pr.ToolName == "" {
		return pr, errors.New("can_use_tool without tool_name")
	}
	return pr, nil
}

// ElicitationRequest is the body of an elicitation control request: an MCP
// server of the user's asks the user for input (a form, or a URL to open).
type ElicitationRequest struct {
	RequestID       string          `json:"-"`
	Server          string          `json:"mcp_server_name"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode,omitempty"` // "form" (default) or "url"
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitation_id,omitempty"`
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	PropertyOrder   []string        `json:"property_order,omitempty"`
	Title           string          `json:"title,omitempty"`
	DisplayName     string          `json:"display_name,omitempty"`
	Description     string          `json:"description,omitempty"`
}

// ElicitationResult is the answer to an elicitation (the MCP ElicitResult):
// action "accept" (with the form's content), "decline" or "cancel".
type ElicitationResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// PermissionResult is our answer to a can_use_tool request.
type PermissionResult struct {
	Behavior           string          `json:"behavior"` // "allow" or "deny"
	UpdatedInput       json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedPermissions []any           `json:"updatedPermissions,omitempty"`
	Message            string          `json:"message,omitempty"`
	Interrupt          bool            `json:"interrupt,omitempty"`
}

// Allow returns an allow result echoing input (older CLIs require updatedInput).
func Allow(input json.RawMessage, perms ...any) PermissionResult {
	return PermissionResult{Behavior: "allow", UpdatedInput: input, UpdatedPermissions: perms}
}

// Deny returns a deny result; message is shown to Claude.
func Deny(message string) PermissionResult {
	return PermissionResult{Behavior: "deny", Message: message}
}

// SessionRule is the updatedPermissions entry for "Allow for Session".
func SessionRule(tool string) any {
	return map[string]any{
		"type": "addRules", "rules": []any{map[string]any{"toolName": tool}},
		"behavior": "allow", "destination": "session",
	}
}

// SetMode is the updatedPermissions entry that switches the permission mode.
func SetMode(mode string) any {
	return map[string]any{"type": "setMode", "mode": mode, "destination": "session"}
}

// ModeSet is the mode an allow switches to (its setMode entry), "" when
// it switches none.
func (r PermissionResult) ModeSet() string {
	for _, p := range r.UpdatedPermissions {
		if m, ok := p.(map[string]any); ok && m["type"] == "setMode" {
			if s, ok := m["mode"].(string); ok {
				return s
			}
		}
	}
	return ""
}

// Suggestion is one of a can_use_tool request's permission_suggestions:
// how the CLI would let the user allow it for longer.
type Suggestion struct {
	Type        string   `json:"type"`
	Behavior    string   `json:"behavior,omitempty"`
	Mode        string   `json:"mode,omitempty"`
	Destination string   `json:"destination,omitempty"`
	Directories []string `json:"directories,omitempty"`
	Rules       []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent,omitempty"`
	} `json:"rules,omitempty"`
}

// Suggestions are a request's permission_suggestions; a shape the plugin
// cannot read is no suggestion (the request itself is still asked).
type Suggestions []Suggestion

// UnmarshalJSON reads a list of suggestions; anything else reads as none.
func (s *Suggestions) UnmarshalJSON(raw []byte) error {
	var list []Suggestion
	if json.Unmarshal(raw, &list) != nil {
		list = nil
	}
	*s = list
	return nil
}
