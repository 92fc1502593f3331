package app

import (
	"errors"
	"fmt"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/commands"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// The answer path. Every can_use_tool gets its answer from respond, the one
// place that writes one: a pending request (a gesture, a proposal's :w, a
// plan, a question, Neovim exiting) through decide, which takes the request
// as it was looked up and answers it once through finishWith; a request that
// never becomes pending (one that cannot be read, a tool with no UI here,
// the editor's own read-only tools, a rewrite the user approved already)
// directly from permission. A request claude withdraws gets no answer
// (withdraw). Forms (elicitations) and the editor's reads outside the
// session's folders are pending requests too: decide answers them as they
// are answered (a control response, the waiting tool call).

// respond writes claude's answer to session s's can_use_tool request pr
// and logs it (by: who or what answered; told: the bytes of a note for
// Claude that goes with it).
func (a *App) respond(s *session.Session, pr claude.PermissionRequest, res claude.PermissionResult, by string, told int) error {
	if err := s.Proc.Respond(pr.RequestID, res); err != nil {
		return err
	}
	a.log.Info("answered", "id", approval.Key(s.ID, pr.RequestID), "behavior", res.Behavior, "tool", pr.ToolName,
		"input_bytes", len(res.UpdatedInput), "told_bytes", told, "by", by)
	return nil
}

// notQueued is an answer that could not be queued for claude: the request
// stays pending (nothing is lost) and the user may answer again.
type notQueued struct{ err error }

func (e notQueued) Error() string { return e.err.Error() }
func (e notQueued) Unwrap() error { return e.err }

// decide answers pending request r exactly once: the answer is queued for
// claude while the request is still in the registry, and only once it is
// queued does the request leave (the UI hears of it in the same step,
// before claude can read the answer and ask the next thing). An answer that
// cannot be queued leaves the request pending; one for a request that left
// meanwhile is ErrNotPending.
func (a *App) decide(r approval.Pending, d approval.Decision, outcome string) (bool, error) {
	if r.Outside != nil {
		return true, a.answerOutside(r, d)
	}
	if r.Merge != nil {
		if d.Behavior == approval.Deny {
			a.merge.Skip(r, outcome)
			return true, nil
		}
		res, err := mergeSaved(a.merge, r) // allowed from elsewhere: as staged
		if err == nil && !res.Decided {
			err = errors.New(res.Reason)
		}
		return res.Decided, err
	}
	if r.Elicit != nil {
		action := "decline"
		if d.Behavior != approval.Deny {
			return false, errors.New("an elicitation is answered with its form")
		}
		if outcome == "neovim exiting" {
			action = "cancel"
		}
		return true, a.answerElicit(r, claude.ElicitationResult{Action: action}, outcome)
	}
	res, err := d.Result(r)
	if err != nil {
		return false, err
	}
	if s, ok := a.sessions.Get(r.Session); ok && res.Behavior == "allow" {
		switch {
		case commands.Tools[r.Perm.ToolName]:
			// Before claude may run it: what it changes is then known.
			a.commands.Before(s, r.Perm.ToolUseID, r.Perm.Input)
		case r.Change != nil:
			// Not the change of another session's command running now.
			a.commands.Writes(s.ID, r.Change.Path)
		}
	}
	err = a.finishWith(r, outcome, func(s *session.Session, p approval.Pending) error {
		if m := res.ModeSet(); m != "" {
			// The user's choice (a plan approved into a mode, accept
			// edits for the session): claude's report of it is no
			// mismatch.
			s.Modes.Propose(m)
		}
		if d.Tell != "" && res.Behavior == "allow" {
			// Beside the tool's result (hooks.go), not as a message
			// from the user.
			s.Applied.SetResultNote(p.Perm.ToolUseID, d.Tell)
		}
		return a.respond(s, p.Perm, res, outcome, len(d.Tell))
	})
	if err != nil {
		return false, err
	}
	return true, nil
}

// finishWith queues an answer to pending request r with write and, once it
// is queued, takes the request out of the registry (see decide): the
// registry's one step checks that it is still pending.
func (a *App) finishWith(r approval.Pending, outcome string, write func(*session.Session, approval.Pending) error) error {
	s, ok := a.sessions.Get(r.Session)
	if !ok {
		return fmt.Errorf("session %d is gone", r.Session)
	}
	p, pending, err := a.reg.FinishIf(r.ID, func(p approval.Pending) error { return write(s, p) },
		func(p approval.Pending) { a.ui.Send(ui.EvRequestRemoved, removed(p, outcome)) })
	switch {
	case !pending:
		return ErrNotPending
	case err != nil:
		a.log.Warn("answer not queued", "id", r.ID, "err", err)
		return notQueued{fmt.Errorf("the answer to %s could not be sent (%v); the request is still pending: answer it again", sanitize.Line(r.Perm.ToolName), err)}
	}
	a.cleanup(p)
	return nil
}
