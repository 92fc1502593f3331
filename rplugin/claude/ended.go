package claude

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrEnded says no claude runs for the session: it was left from an earlier
// one (a worktree whose session is gone), nothing can be sent to it.
var ErrEnded = errors.New("no claude runs for this session (left from an earlier one): :ClaudeNova resume continues it")

// Ended is the Conn of a session no claude runs for: a worktree left from
// an earlier session, brought back to be merged or removed. Every send
// fails with ErrEnded; its messages and Done are closed from the start.
type Ended struct{ done chan struct{} }

var _ Conn = Ended{}

// NewEnded returns an Ended conn.
func NewEnded() Ended {
	done := make(chan struct{})
	close(done)
	return Ended{done: done}
}

func (Ended) SendUser(string, string, ...string) error              { return ErrEnded }
func (Ended) SendNote(string) error                                 { return ErrEnded }
func (Ended) Respond(string, PermissionResult) error                { return ErrEnded }
func (Ended) RespondAndTell(string, PermissionResult, string) error { return ErrEnded }
func (Ended) RespondError(string, string) error                     { return ErrEnded }
func (Ended) RespondControl(string, any) error                      { return ErrEnded }
func (Ended) Control(context.Context, string, map[string]any) (json.RawMessage, error) {
	return nil, ErrEnded
}
func (Ended) Begin(string, map[string]any) (<-chan Reply, error) { return nil, ErrEnded }

// Messages is closed: there is nothing to read.
func (e Ended) Messages() <-chan Message {
	ch := make(chan Message)
	close(ch)
	return ch
}

func (e Ended) Done() <-chan struct{}                { return e.done }
func (Ended) ExitErr() error                         { return nil }
func (Ended) StderrTail() string                     { return "" }
func (Ended) CommandLine() string                    { return "" }
func (Ended) InitResponse() (json.RawMessage, error) { return nil, ErrEnded }
func (Ended) Stop(time.Duration)                     {}
func (Ended) Kill(time.Duration)                     {}
