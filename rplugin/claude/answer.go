package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Respond queues the answer to a can_use_tool request.
func (p *Process) Respond(requestID string, result PermissionResult) error {
	b, err := EncodeAnswer(requestID, result)
	if err != nil {
		return err
	}
	return p.enqueue(outLine{b: b})
}

// RespondAndTell queues the answer and, in the same write, a user message
// no person typed (the plugin telling Claude what the user changed). Written together, the
// CLI puts the message into the very request that carries the tool's result
// (checked on 2.1.328: 17 of 17 runs; 50 ms later it came one request late).
func (p *Process) RespondAndTell(requestID string, result PermissionResult, note string) error {
	b, err := EncodeAnswer(requestID, result)
	if err != nil {
		return err
	}
	if note != "" {
		u, err := noteLine(note)
		if err != nil {
			return err
		}
		b = append(b, u...)
	}
	return p.enqueue(outLine{b: b})
}

// EncodeAnswer is the control_response line (with its newline) answering
// requestID. The updatedInput, which may carry a whole file, is spliced in
// as it is instead of being encoded again: it must be valid JSON (claude
// sent it, or Decision.Result checked it).
func EncodeAnswer(requestID string, r PermissionResult) ([]byte, error) {
	input := r.UpdatedInput
	if bytes.IndexByte(input, '\n') >= 0 {
		var c bytes.Buffer
		if err := json.Compact(&c, input); err != nil {
			return nil, fmt.Errorf("encode answer: %w", err)
		}
		input = c.Bytes()
	}
	r.UpdatedInput = nil
	inner, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode answer: %w", err)
	}
	id, _ := json.Marshal(requestID)
	b := make([]byte, 0, len(inner)+len(input)+len(id)+96)
	b = append(b, `{"type":"control_response","response":{"subtype":"success","request_id":`...)
	b = append(b, id...)
	b = append(b, `,"response":`...)
	if len(input) > 0 {
		b = append(b, inner[:len(inner)-1]...)
		b = append(b, `,"updatedInput":`...)
		b = append(b, input...)
		b = append(b, '}')
	} else {
		b = append(b, inner...)
	}
	return append(b, "}}\n"...), nil
}

// RespondError answers a control request with an error (e.g. unknown subtype).
func (p *Process) RespondError(requestID, message string) error {
	return p.Send(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype": "error", "request_id": requestID, "error": message,
		},
	})
}
