package editortools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Editor answers a tool call from the live editor: args go to the Neovim
// side as JSON, the result comes back as JSON.
type Editor interface {
	Call(ctx context.Context, tool string, args any) (json.RawMessage, error)
}

// Exec starts one call in Neovim (require'claudenova.services.tools'.call): it
// returns the reply (JSON {ok, result, error}) when the editor could answer
// at once, or "" when the answer comes later through Bridge.Resolve.
// wait is how long the editor may take, in milliseconds.
type Exec func(token, tool, args string, wait int) (string, error)

// ErrEditorBusy is returned when Neovim did not answer before the deadline
// (it may be waiting for the user in a prompt).
var ErrEditorBusy = errors.New("the editor did not answer in time (it may be busy, e.g. waiting for the user in a prompt)")

// margin is how much sooner than the caller's deadline the Neovim side is
// asked to give up, so that its own answer ("timed out waiting for the
// language server") arrives instead of ours.
const margin = 300 * time.Millisecond

// Bridge is the Editor of the running Neovim. Each call is one request to
// Neovim, made from a goroutine of its own and abandoned at the caller's
// deadline; an answer that comes later (a language server's) arrives as a
// notification and is matched by its token. Nothing waits for Neovim
// beyond the caller's context.
type Bridge struct {
	exec Exec

	mu      sync.Mutex
	next    int64
	waiting map[string]chan reply
}

type reply struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// NewBridge returns a bridge that starts calls with exec.
func NewBridge(exec Exec) *Bridge {
	return &Bridge{exec: exec, waiting: map[string]chan reply{}}
}

// Call runs tool with args in Neovim and returns its result.
func (b *Bridge) Call(ctx context.Context, tool string, args any) (json.RawMessage, error) {
	payload, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("%s: encode arguments: %w", tool, err)
	}
	wait := 5 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		wait = time.Until(dl) - margin
	}
	if wait < 50*time.Millisecond {
		wait = 50 * time.Millisecond
	}
	b.mu.Lock()
	b.next++
	token := strconv.FormatInt(b.next, 10)
	later := make(chan reply, 1)
	b.waiting[token] = later
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiting, token)
		b.mu.Unlock()
	}()

	type started struct {
		out string
		err error
	}
	now := make(chan started, 1)
	go func() {
		out, err := b.exec(token, tool, string(payload), int(wait/time.Millisecond))
		now <- started{out, err}
	}()
	var r reply
	select {
	case st := <-now:
		if st.err != nil {
			return nil, fmt.Errorf("%s: %w", tool, st.err)
		}
		if st.out != "" {
			if err := json.Unmarshal([]byte(st.out), &r); err != nil {
				return nil, fmt.Errorf("%s: bad answer from the editor: %w", tool, err)
			}
			break
		}
		select {
		case r = <-later:
		case <-ctx.Done():
			return nil, busy(ctx)
		}
	case r = <-later: // answered before the call itself returned
	case <-ctx.Done():
		return nil, busy(ctx)
	}
	if !r.OK {
		if r.Error == "" {
			r.Error = "the editor gave no reason"
		}
		return nil, &ToolError{Tool: tool, Msg: r.Error}
	}
	return r.Result, nil
}

func busy(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	return ErrEditorBusy
}

// Resolve delivers a later answer (the host's tool_reply notification). An
// answer nobody waits for any more is dropped.
func (b *Bridge) Resolve(token string, ok bool, result json.RawMessage, msg string) {
	b.mu.Lock()
	ch, found := b.waiting[token]
	delete(b.waiting, token)
	b.mu.Unlock()
	if found {
		ch <- reply{OK: ok, Result: result, Error: msg}
	}
}

// ToolError is the editor's own refusal or failure of a call, in words for
// the model.
type ToolError struct{ Tool, Msg string }

func (e *ToolError) Error() string { return e.Msg }
