package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// ControlError is an error response from claude to one of our control requests.
type ControlError struct{ Subtype, Message, Code string }

func (e *ControlError) Error() string {
	return fmt.Sprintf("claude refused %s: %s", e.Subtype, e.Message)
}

// startControl queues a control request and returns the channel its
// response arrives on (closed if claude exits first).
func (p *Process) startControl(subtype string, fields map[string]any) (string, chan Message, error) {
	id := fmt.Sprintf("nova-%d", p.nextID.Add(1))
	req := map[string]any{"subtype": subtype}
	for k, v := range fields {
		req[k] = v
	}
	ch := make(chan Message, 1)
	p.cmu.Lock()
	p.calls[id] = ch
	p.cmu.Unlock()
	if err := p.Send(map[string]any{"type": "control_request", "request_id": id, "request": req}); err != nil {
		p.cmu.Lock()
		delete(p.calls, id)
		p.cmu.Unlock()
		return "", nil, fmt.Errorf("%s: %w", subtype, err)
	}
	return id, ch, nil
}

// forget drops call id: its caller gave up on the answer.
func (p *Process) forget(id string) {
	p.cmu.Lock()
	delete(p.calls, id)
	p.cmu.Unlock()
}

func controlResult(subtype string, m Message) (json.RawMessage, error) {
	var env struct {
		Response struct {
			Subtype  string          `json:"subtype"`
			Error    string          `json:"error"`
			Code     string          `json:"error_code"`
			Response json.RawMessage `json:"response"`
		} `json:"response"`
	}
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return nil, fmt.Errorf("%s: decode response: %w", subtype, err)
	}
	if env.Response.Subtype == "error" {
		return nil, &ControlError{Subtype: subtype, Message: env.Response.Error, Code: env.Response.Code}
	}
	return env.Response.Response, nil
}

// Control sends a control request and waits for its response body. Callers
// that serve Neovim must not wait here: run it from a goroutine of their own.
func (p *Process) Control(ctx context.Context, subtype string, fields map[string]any) (json.RawMessage, error) {
	if !p.Supports(subtype) {
		return nil, p.unsupported(subtype)
	}
	id, ch, err := p.startControl(subtype, fields)
	if err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: claude exited before answering", subtype)
		}
		body, err := controlResult(subtype, m)
		return body, p.checked(subtype, err)
	case <-ctx.Done():
		p.forget(id) // its answer, if it comes, is nobody's
		return nil, fmt.Errorf("%s: %w", subtype, ctx.Err())
	case <-p.done:
		return nil, fmt.Errorf("%s: claude exited before answering", subtype)
	}
}

// Reply is the outcome of a control request started with Begin.
type Reply struct {
	Body json.RawMessage
	Err  error
}

// Begin queues a control request, in order with every other line to
// claude, and returns at once: the channel delivers its one Reply (an error
// when claude exits first). A line queued after Begin returns is read by
// claude after the request.
func (p *Process) Begin(subtype string, fields map[string]any) (<-chan Reply, error) {
	if !p.Supports(subtype) {
		return nil, p.unsupported(subtype)
	}
	_, ch, err := p.startControl(subtype, fields)
	if err != nil {
		return nil, err
	}
	out := make(chan Reply, 1)
	go func() {
		select {
		case m, ok := <-ch:
			if !ok {
				out <- Reply{Err: fmt.Errorf("%s: claude exited before answering", subtype)}
				return
			}
			body, err := controlResult(subtype, m)
			out <- Reply{Body: body, Err: p.checked(subtype, err)}
		case <-p.done:
			out <- Reply{Err: fmt.Errorf("%s: claude exited before answering", subtype)}
		}
	}()
	return out, nil
}

// RespondControl answers one of claude's control requests (other than
// can_use_tool) with a success and body.
func (p *Process) RespondControl(requestID string, body any) error {
	return p.Send(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype": "success", "request_id": requestID, "response": body,
		},
	})
}

// Refusal is a control request's refusal in the CLI's own words.
func Refusal(err error) error {
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		return ue // what needs a newer claude, in words
	}
	var ce *ControlError
	if errors.As(err, &ce) {
		return errors.New(sanitize.Truncate(sanitize.Line(ce.Message), 300))
	}
	return err
}
