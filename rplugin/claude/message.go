// Package claude runs one `claude` subprocess and speaks its stream-json
// protocol: it spawns the process (never through a shell), decodes every
// stdout line, writes user messages and control messages, and correlates the
// control requests we send with claude's responses.
package claude

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolinput"
)

// Message is one decoded line of claude's stdout: its kind, and the typed
// value of that kind (see kinds.go), decoded once here. Raw keeps the whole
// line where it is still read: an unknown kind is kept whole, a body that
// did not decode too, and a control request is decoded by the function of
// its subtype. A kind whose typed value holds it all lets its line go once
// read (Process drops it: a long reply is not held twice while it waits).
type Message struct {
	Type      string // "system", "assistant", "user", "result", "control_request", ...
	Subtype   string // message subtype, or the control request's subtype
	RequestID string // control_request / control_cancel_request / control_response id
	Raw       json.RawMessage
	Size      int // the line's length in bytes

	// The typed value of the message's kind; nil for the other kinds, and
	// when the body did not decode (Undecoded says why).
	Assistant *Assistant
	User      *User
	System    *System
	Result    *Result
	Stream    *StreamEvent
	Progress  *ToolProgress
	RateLimit *RateLimit
	Lifecycle *Lifecycle
	// Permission is a can_use_tool request, decoded (its tool input too).
	Permission *PermissionRequest
	Undecoded  error
}

// ErrNotObject is returned for a line that is valid JSON but not an object
// with a string "type".
var ErrNotObject = errors.New("not a JSON object with a type")

// ParseLine decodes one stdout line. It never panics; malformed input returns
// an error describing it. A can_use_tool request is decoded whole, its tool
// input once (Message.Permission): nothing after it decodes the request.
func ParseLine(line []byte) (Message, error) {
	var head struct {
		Type      string          `json:"type"`
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Request   *controlBody    `json:"request"`
		Response  json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return parseSlowly(line) // a field of another type: read the careful way
		}
		return Message{}, fmt.Errorf("decode line: %w", err)
	}
	if head.Type == "" {
		return Message{}, ErrNotObject
	}
	m := Message{Type: head.Type, Subtype: head.Subtype, RequestID: head.RequestID, Raw: json.RawMessage(line), Size: len(line)}
	switch head.Type {
	case "control_request":
		m.Subtype = ""
		if head.Request != nil {
			m.Subtype = head.Request.Subtype
		}
		if m.Subtype == "can_use_tool" {
			pr, err := head.Request.permission(head.RequestID)
			m.Permission, m.Undecoded = &pr, err
		}
	case "control_response":
		var resp struct {
			Subtype   string `json:"subtype"`
			RequestID string `json:"request_id"`
		}
		if len(head.Response) > 0 {
			if err := json.Unmarshal(head.Response, &resp); err != nil {
				return Message{}, fmt.Errorf("decode control_response body: %w", err)
			}
		}
		m.Subtype, m.RequestID = resp.Subtype, resp.RequestID
	default:
		m.Undecoded = decodeKind(&m)
	}
	return m, nil
}

// controlBody is a control request's body as one decode reads it: its
// subtype and, for a can_use_tool, the request (its input kept as it came,
// decoded by permission).
type controlBody struct {
	Subtype string `json:"subtype"`
	PermissionRequest
	Input aliased `json:"input"`
}

// aliased keeps a value's bytes as they are in the line (json.Unmarshal
// hands an UnmarshalJSON the input itself): no copy of a large input.
type aliased []byte

// UnmarshalJSON keeps b.
func (a *aliased) UnmarshalJSON(b []byte) error {
	*a = b
	return nil
}

// permission is the can_use_tool request of body b, its input decoded.
func (b *controlBody) permission(requestID string) (PermissionRequest, error) {
	pr := b.PermissionRequest
	pr.RequestID, pr.Input = requestID, json.RawMessage(b.Input)
	return checkedPermission(pr)
}

func checkedPermission(pr PermissionRequest) (PermissionRequest, error) {
	if len(pr.Input) == 0 || string(pr.Input) == "null" {
		pr.Input = json.RawMessage("{}")
	}
	pr.In = toolinput.Decode(pr.Input)
	if pr.ToolName == "" {
		return pr, errors.New("can_use_tool without tool_name")
	}
	return pr, nil
}

// parseSlowly decodes a line one part at a time: a control request whose
// body has a field of an unexpected type still tells its subtype (and a
// can_use_tool is read field by field).
func parseSlowly(line []byte) (Message, error) {
	var head struct {
		Type      string          `json:"type"`
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Message{}, fmt.Errorf("decode line: %w", err)
	}
	if head.Type != "control_request" {
		return Message{}, fmt.Errorf("decode line: a %q with a field of another type", head.Type)
	}
	var req struct {
		Subtype string `json:"subtype"`
	}
	if len(head.Request) > 0 {
		if err := json.Unmarshal(head.Request, &req); err != nil {
			return Message{}, fmt.Errorf("decode control_request body: %w", err)
		}
	}
	m := Message{Type: head.Type, Subtype: req.Subtype, RequestID: head.RequestID, Raw: json.RawMessage(line), Size: len(line)}
	if m.Subtype == "can_use_tool" {
		pr, err := decodePermission(head.RequestID, head.Request)
		m.Permission, m.Undecoded = &pr, err
	}
	return m, nil
}

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
	In                      toolinput.Input `json:"-"`
	ToolUseID               string          `json:"tool_use_id,omitempty"`
	Suggestions             Suggestions     `json:"permission_suggestions,omitempty"`
	BlockedPath             string          `json:"blocked_path,omitempty"`
	DecisionReason          string          `json:"decision_reason,omitempty"`
	Description             string          `json:"description,omitempty"`
	Title                   string          `json:"title,omitempty"`
	RequiresUserInteraction bool            `json:"requires_user_interaction,omitempty"`
	AgentID                 string          `json:"agent_id,omitempty"`
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

// DecodePermissionRequest is the can_use_tool request of a message
// (ParseLine decoded it).
func DecodePermissionRequest(m Message) (PermissionRequest, error) {
	if m.Permission == nil {
		return PermissionRequest{}, errors.New("not a can_use_tool request")
	}
	return *m.Permission, m.Undecoded
}

// decodePermission decodes a can_use_tool body field by field where one
// has an unexpected type (decision_reason as an object on some CLIs),
// keeping what can be read.
func decodePermission(requestID string, body json.RawMessage) (PermissionRequest, error) {
	var pr PermissionRequest
	if err := json.Unmarshal(body, &pr); err != nil {
		var loose map[string]json.RawMessage
		if err2 := json.Unmarshal(body, &loose); err2 != nil {
			return PermissionRequest{RequestID: requestID}, fmt.Errorf("decode can_use_tool body: %w", err)
		}
		pr = lenientPermission(loose)
	}
	pr.RequestID = requestID
	return checkedPermission(pr)
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

// DecodeElicitationRequest extracts an elicitation request from a
// control_request message.
func DecodeElicitationRequest(m Message) (ElicitationRequest, error) {
	var env struct {
		RequestID string             `json:"request_id"`
		Request   ElicitationRequest `json:"request"`
	}
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return ElicitationRequest{}, fmt.Errorf("decode elicitation: %w", err)
	}
	er := env.Request
	er.RequestID = env.RequestID
	if er.RequestID == "" {
		return er, errors.New("elicitation without request_id")
	}
	if er.Mode == "" {
		er.Mode = "form"
	}
	if er.Mode != "form" && er.Mode != "url" {
		return er, fmt.Errorf("elicitation mode %q is neither form nor url", er.Mode)
	}
	return er, nil
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

// LazyString is a JSON string value decoded only when asked for: a large
// text nobody reads (a streamed reply's final copy, a turn's result) is not
// copied. It refers to the message it was decoded from (json.Unmarshal
// hands an UnmarshalJSON the input itself), so it is valid as long as that
// message's Raw, which is never changed.
type LazyString struct{ raw []byte }

// UnmarshalJSON keeps the encoded value.
func (l *LazyString) UnmarshalJSON(b []byte) error {
	l.raw = b
	return nil
}

// Len is the size of the encoded value (about the text's).
func (l LazyString) Len() int { return len(l.raw) }

// Tail decodes about the last n bytes of the value: from the start of a
// line (after an encoded "\n") near n bytes before its end. cut says text
// came before it. A value with no line break there is decoded whole.
func (l LazyString) Tail(n int) (s string, cut bool) {
	raw := l.raw
	if len(raw) <= 2*n || raw[0] != '"' {
		return l.String(), false
	}
	for i := len(raw) - n; i+1 < len(raw); i++ {
		if raw[i] != '\\' || raw[i+1] != 'n' {
			continue
		}
		// An escape only if the backslashes before it are paired.
		k := i
		for k > 0 && raw[k-1] == '\\' {
			k--
		}
		if (i-k)%2 != 0 {
			continue
		}
		var out string
		if json.Unmarshal(append([]byte{'"'}, raw[i+2:]...), &out) == nil {
			return out, true
		}
		break
	}
	return l.String(), false
}

// String decodes the value ("" for null or anything but a string).
func (l LazyString) String() string {
	var s string
	if len(l.raw) > 0 && l.raw[0] == '"' {
		_ = json.Unmarshal(l.raw, &s)
	}
	return s
}
