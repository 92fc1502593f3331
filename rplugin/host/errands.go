package host

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
)

// errands runs the front end's calls and notifications one after another,
// in the order they came, on a goroutine of its own: never on the one
// Neovim waits on. A call's work may read the disk, run git or wait on a
// lock; Neovim only waits for the call to be queued. Its reply is a mark
// of the event stream, after every event the work caused, as before.
type errands struct {
	q   *queue.Queue[func()]
	log *slog.Logger
}

func newErrands(log *slog.Logger) *errands {
	e := &errands{q: queue.New[func()](), log: log}
	go e.run()
	return e
}

func (e *errands) run() {
	for fn := range e.q.Out() {
		fn()
	}
}

// add queues fn; after close it is dropped.
func (e *errands) add(fn func()) { e.q.Push(fn) }

// close stops taking errands; the one running finishes on its own (the
// app's shutdown ends what it waits on), nobody waits for it.
func (e *errands) close() { e.q.Close() }

// safely runs a method; a panic in it becomes the call's error, logged
// with its stack, and the host goes on.
func safely(log *slog.Logger, method string, fn func() (any, error)) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			if log != nil {
				log.Error("a call failed", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			out, err = nil, fmt.Errorf("internal error in %s (see :ClaudeNova log)", method)
		}
	}()
	return fn()
}
