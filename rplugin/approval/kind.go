package approval

import (
	"errors"
	"fmt"
)

// Kind is what a pending request is, and how it is answered: a permission
// claude asks, an elicitation (an MCP server's form), an editor tool's
// read outside the session's folders, a file of a worktree's branch
// brought into the checkout. Each kind is implemented where its answer
// goes (its room); the registry, the views and the gestures ask the kind
// and never tell the kinds apart.
type Kind interface {
	// Answer answers p with d, exactly once: through a Door, so that a
	// request that left meanwhile is ErrNotPending and an answer that
	// could not be sent leaves it pending. outcome is the answer in words
	// for the UI ("" lets the kind word it). decided says p was answered.
	Answer(p Pending, d Decision, outcome string) (decided bool, err error)
	// Withdrawn is told that p left the registry (without an answer: claude
	// cancelled it, its session ended; after an answer it does nothing):
	// whatever waits for its answer learns it.
	Withdrawn(p Pending)
	// Refusal says why d, a gesture from via, may not answer p ("" when
	// it may). Nothing is answered then and p stays pending.
	Refusal(p Pending, d Decision, via string) string
	// Outlives says p stays pending when its session ends (the user asked
	// for it, not the session's claude).
	Outlives() bool
}

// ErrNotPending is returned for a gesture on a request that was already
// answered or withdrawn.
var ErrNotPending = errors.New("that request is no longer pending")

// Door is the one way out of the registry with an answer: Finish queues the
// answer with write while p is still pending and, once it is queued, takes
// p out (the UI hears of it in the same step) and cleans up after it. It
// is ErrNotPending when p left meanwhile; an error of write leaves p
// pending (NotSent).
type Door interface {
	Finish(p Pending, outcome string, write func(Pending) error) error
}

// NotSent is an answer that could not be queued: the request stays
// pending (nothing is lost) and the user may answer again.
type NotSent struct{ Err error }

func (e NotSent) Error() string { return e.Err.Error() }
func (e NotSent) Unwrap() error { return e.Err }

// NewNotSent words an answer to p that could not be sent.
func NewNotSent(tool string, err error) NotSent {
	return NotSent{fmt.Errorf("the answer to %s could not be sent (%v); the request is still pending: answer it again", tool, err)}
}

// Proposer is a kind whose proposal the user asked for (a merged file): a
// save applies it by itself, no one else is answered (why: what stopped
// it, when it applied nothing).
type Proposer interface {
	Kind
	Saved(p Pending) (applied bool, why string, err error)
}
