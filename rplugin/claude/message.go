// Package claude runs one `claude` subprocess and speaks its stream-json
// protocol: it spawns the process (never through a shell), decodes every
// stdout line, writes user messages and control messages, and correlates the
// control requests we send with claude's responses.
package claude

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/asks"
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
	if head.Type == "control_request" {
		m.Subtype = ""
		if head.Request != nil {
			m.Subtype = head.Request.Subtype
		}
		if m.Subtype == "can_use_tool" {
			pr, err := head.Request.permission(head.RequestID)
			m.Permission, m.Undecoded = &pr, err
		}
	}
	return completed(m, head.Response)
}

// completed completes a message of a line's head: a control response's
// subtype and id, another kind's typed value.
func completed(m Message, response json.RawMessage) (Message, error) {
	switch m.Type {
	case "control_request":
	case "control_response":
		var resp struct {
			Subtype   string `json:"subtype"`
			RequestID string `json:"request_id"`
		}
		if len(response) > 0 {
			if err := json.Unmarshal(response, &resp); err != nil {
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
	return asks.Checked(pr)
}

// parseSlowly decodes a line one part at a time, where a field has an
// unexpected type: a control request's body still tells its subtype (and
// a can_use_tool is read field by field); a message with a "request" that
// is not an object is read as any other.
func parseSlowly(line []byte) (Message, error) {
	var head struct {
		Type      string          `json:"type"`
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
		Response  json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Message{}, fmt.Errorf("decode line: %w", err)
	}
	if head.Type == "" {
		return Message{}, ErrNotObject
	}
	m := Message{Type: head.Type, Subtype: head.Subtype, RequestID: head.RequestID, Raw: json.RawMessage(line), Size: len(line)}
	if head.Type == "control_request" {
		var req struct {
			Subtype string `json:"subtype"`
		}
		if len(head.Request) > 0 {
			if err := json.Unmarshal(head.Request, &req); err != nil {
				return Message{}, fmt.Errorf("decode control_request body: %w", err)
			}
		}
		m.Subtype = req.Subtype
		if m.Subtype == "can_use_tool" {
			pr, err := asks.DecodePermission(head.RequestID, head.Request)
			m.Permission, m.Undecoded = &pr, err
		}
	}
	return completed(m, head.Response)
}

// DecodePermissionRequest is the can_use_tool request of a message
// (ParseLine decoded it).
func DecodePermissionRequest(m Message) (PermissionRequest, error) {
	if m.Permission == nil {
		return PermissionRequest{}, errors.New("not a can_use_tool request")
	}
	return *m.Permission, m.Undecoded
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
