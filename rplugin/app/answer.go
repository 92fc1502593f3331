package app

import (
	"errors"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// The answer path. Every can_use_tool gets its answer from respond, the one
// place that writes one: a pending request (a gesture, a proposal's :w, a
// plan, a question, Neovim exiting) through its kind's Answer
// (rooms/asked, for claude's), which answers it once through the door; a request that never
// becomes pending (one that cannot be read, a tool with no UI here, the
// editor's own read-only tools, a rewrite the user approved already)
// directly from permission. A request claude withdraws gets no answer
// (withdraw). Forms (elicitations), the editor's reads outside the
// session's folders and merged files are pending requests of their own
// kinds, answered by them (a control response, the waiting tool call, the
// file written).

// ErrNotPending is returned for a gesture on a request that was already
// answered or withdrawn.
var ErrNotPending = approval.ErrNotPending

// respond writes claude's answer to session s's can_use_tool request pr
// and logs it (see asked.Kind.Respond).
func (a *App) respond(s *session.Session, pr claude.PermissionRequest, res claude.PermissionResult, by string, told int) error {
	return a.asked.Respond(s, pr, res, by, told)
}

// door is the registry's one way out with an answer (approval.Door): the
// answer is queued while the request is still in the registry, and only
// once it is queued does the request leave (the UI hears of it in the same
// step, before claude can read the answer and ask the next thing).
type door struct{ a *App }

// Finish queues an answer to pending request r with write and, once it is
// queued, takes r out of the registry and cleans up after it.
func (d door) Finish(r approval.Pending, outcome string, write func(approval.Pending) error) error {
	a := d.a
	p, pending, err := a.reg.FinishIf(r.ID, write,
		func(p approval.Pending) { a.ui.Send(ui.EvRequestRemoved, removed(p, outcome)) })
	switch {
	case !pending:
		return ErrNotPending
	case err != nil:
		a.log.Warn("answer not queued", "id", r.ID, "err", err)
		return approval.NewNotSent(sanitize.Line(r.Perm.ToolName), err)
	}
	a.cleanup(p)
	return nil
}

// answerErr is a gesture's error as the gesture's result: a request no
// longer pending, or an answer not sent, is a reason (it stays pending);
// anything else an error.
func answerErr(err error) (reason string, rest error) {
	var ns approval.NotSent
	if errors.Is(err, ErrNotPending) || errors.As(err, &ns) {
		return err.Error(), nil
	}
	return "", err
}
