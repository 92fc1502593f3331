package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// ErrNotPending is returned for a gesture on a request that was already
// answered or withdrawn.
var ErrNotPending = errors.New("that request is no longer pending")

// permission registers a can_use_tool request, then surfaces it.
func (a *App) permission(s *session.Session, m claude.Message) {
	pr, err := claude.DecodePermissionRequest(m)
	if err != nil {
		a.log.Warn("malformed can_use_tool", "session", s.ID, "err", err)
		if m.RequestID != "" {
			_ = s.Proc.Respond(m.RequestID, claude.Deny("claude-nova.nvim could not read this permission request ("+err.Error()+"); it was denied."))
		}
		a.notify("warn", fmt.Sprintf("claude session %d sent a malformed permission request; it was denied", s.ID))
		return
	}
	if _, dup := a.reg.Get(approval.Key(s.ID, pr.RequestID)); dup {
		a.log.Warn("duplicate request id ignored", "session", s.ID, "id", pr.RequestID)
		return
	}
	o := a.options()
	req := &approval.Request{
		ID: approval.Key(s.ID, pr.RequestID), Session: s.ID, Perm: pr, Arrived: time.Now(),
		Target: session.ToolTarget(pr.ToolName, pr.Input, s.Cwd),
	}
	var change *proposal.Change
	var reconErr error
	if approval.IsFileChange(pr.ToolName) {
		c, err := proposal.Reconstruct(pr.ToolName, pr.Input, s.Cwd, proposal.ReadFile)
		if err != nil {
			reconErr = err
		} else {
			change = &c
			req.Added, req.Removed = diff.Stat(string(c.Original), string(c.Proposed))
		}
	}
	// Staging and the stale-proposal sweep must not interleave: a folder
	// being staged is not in the registry yet, so the sweep would take it.
	a.stageMu.Lock()
	req.Route = approval.Present(pr, approval.ReviewEdits(o.ReviewEdits), func() error {
		if reconErr != nil {
			return reconErr
		}
		staged, err := proposal.Stage(o.Storage, pr.RequestID, change.Path, change.Proposed)
		if err != nil {
			return err
		}
		req.Staged = staged
		return nil
	})
	added := a.reg.Add(req)
	a.stageMu.Unlock()
	if !added { // raced with a duplicate: registered once, answered once
		a.log.Warn("duplicate request id ignored", "session", s.ID, "id", pr.RequestID)
		return
	}
	if change != nil {
		a.proposals.put(req.ID, *change)
	}
	s.Update(session.StateWaiting, "", "", "")
	a.ui.Send(ui.EvSession, s.Info())
	view := a.view(req)
	a.ui.Send(ui.EvRequestAdded, view)
	if req.Route.Surface == approval.SurfaceDeny {
		_ = a.decide(req.ID, approval.Decision{Behavior: approval.Deny, Message: req.Route.Reason}, "denied: no UI for this tool")
		a.note(s, "Denied "+sanitize.Line(pr.ToolName)+": it needs an interactive UI this client does not have.")
		return
	}
	a.ui.Send(ui.EvPresent, view)
}

// Pending lists every pending request as view models.
func (a *App) Pending() []RequestView {
	rs := a.reg.List()
	out := make([]RequestView, 0, len(rs))
	for _, r := range rs {
		out = append(out, a.view(r))
	}
	return out
}

func (a *App) pendingFor(session int) int {
	n := 0
	for _, r := range a.reg.List() {
		if r.Session == session {
			n++
		}
	}
	return n
}

// Present opens the surface of a pending request again.
func (a *App) Present(id string) error {
	r, ok := a.reg.Get(id)
	if !ok {
		return ErrNotPending
	}
	a.ui.Send(ui.EvPresent, a.view(r))
	return nil
}

// DecideParams is a decision gesture. Via says where it came from: gestures
// from the sidebar or a command ("sidebar", "command") on a plan or question
// re-present its surface instead of answering; only the surface itself
// ("surface") answers those.
type DecideParams struct {
	ID  string `json:"id"`
	Via string `json:"via"`
	approval.Decision
}

// Decide applies a user's decision.
func (a *App) Decide(p DecideParams) error {
	r, ok := a.reg.Get(p.ID)
	if !ok {
		return ErrNotPending
	}
	switch r.Route.Surface {
	case approval.SurfacePlan, approval.SurfaceQuestion:
		if p.Via != "surface" {
			a.ui.Send(ui.EvPresent, a.view(r))
			return nil
		}
	}
	outcome := map[string]string{approval.Allow: "allowed", approval.AllowSession: "allowed for session", approval.Deny: "denied"}[p.Behavior]
	return a.decide(p.ID, p.Decision, outcome)
}

// decide answers a request exactly once: only the caller that takes it from
// the registry writes the answer.
func (a *App) decide(id string, d approval.Decision, outcome string) error {
	r, ok := a.reg.Get(id)
	if !ok {
		return ErrNotPending
	}
	res, err := d.Result(r)
	if err != nil {
		return err
	}
	r, ok = a.reg.Take(id)
	if !ok {
		return ErrNotPending
	}
	s, ok := a.sessions.Get(r.Session)
	if !ok {
		a.finish(r, "lost: session is gone")
		return fmt.Errorf("session %d is gone", r.Session)
	}
	// The UI hears of the decision before claude does: claude's next request
	// may follow the answer at once, and its surface must not meet this one's.
	a.finish(r, outcome)
	if err := s.Proc.Respond(r.Perm.RequestID, res); err != nil {
		a.log.Warn("answer not delivered", "id", id, "err", err)
		a.notify("error", fmt.Sprintf("the answer to %s could not be delivered: claude is gone", r.Perm.ToolName))
		return fmt.Errorf("answer not delivered: %w", err)
	}
	a.log.Info("answered", "id", id, "behavior", res.Behavior, "tool", r.Perm.ToolName)
	return nil
}

// withdraw removes a request without answering it (claude cancelled it).
func (a *App) withdraw(session int, requestID, reason string) {
	r, ok := a.reg.Take(approval.Key(session, requestID))
	if !ok {
		return
	}
	a.finish(r, "withdrawn: "+reason)
}

func (a *App) withdrawSession(session int, reason string) {
	for _, r := range a.reg.TakeSession(session) {
		a.finish(r, "withdrawn: "+reason)
	}
}

// finish removes every trace of a request that left the registry.
func (a *App) finish(r *approval.Request, outcome string) {
	o := a.options()
	if r.Staged != "" {
		if err := proposal.Unstage(o.Storage, r.Staged); err != nil {
			a.log.Warn("unstage", "path", r.Staged, "err", err)
		}
	}
	a.proposals.drop(r.ID)
	a.ui.Send(ui.EvRequestRemoved, map[string]any{"id": r.ID, "session": r.Session, "outcome": outcome})
	if s, ok := a.sessions.Get(r.Session); ok && s.State() == session.StateWaiting && a.pendingFor(r.Session) == 0 {
		s.Update(session.StateRunning, "", "", "")
		a.ui.Send(ui.EvSession, s.Info())
	}
}

// QuestionAnswer is the user's answer to one question: the indexes of the
// chosen options and/or free text ("Other").
type QuestionAnswer struct {
	Selected []int  `json:"selected"`
	Other    string `json:"other"`
}

// Answer answers an AskUserQuestion request. answers[i] answers question i;
// labels come from the original input, so they match what Claude asked.
func (a *App) Answer(id string, answers []QuestionAnswer) error {
	r, ok := a.reg.Get(id)
	if !ok {
		return ErrNotPending
	}
	var in struct {
		Questions []struct {
			Question string `json:"question"`
			Options  []struct {
				Label string `json:"label"`
			} `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(r.Perm.Input, &in); err != nil {
		return fmt.Errorf("question input: %w", err)
	}
	if len(answers) != len(in.Questions) {
		return fmt.Errorf("%d answers for %d questions", len(answers), len(in.Questions))
	}
	out := make(map[string]string, len(answers))
	for i, ans := range answers {
		q := in.Questions[i]
		var labels []string
		for _, k := range ans.Selected {
			if k < 0 || k >= len(q.Options) {
				return fmt.Errorf("question %d has no option %d", i+1, k+1)
			}
			labels = append(labels, q.Options[k].Label)
		}
		if strings.TrimSpace(ans.Other) != "" {
			labels = append(labels, ans.Other)
		}
		if len(labels) == 0 {
			return fmt.Errorf("question %d is not answered", i+1)
		}
		out[q.Question] = strings.Join(labels, ", ")
	}
	input, err := approval.WithAnswers(r.Perm.Input, out)
	if err != nil {
		return err
	}
	return a.decide(id, approval.Decision{Behavior: approval.Allow, UpdatedInput: input}, "answered")
}

// PlanParams is the user's choice on a plan.
type PlanParams struct {
	ID       string `json:"id"`
	Approve  bool   `json:"approve"`
	Mode     string `json:"mode"`     // mode after approval: acceptEdits or default
	Feedback string `json:"feedback"` // keep planning: what to change
	Plan     string `json:"plan"`     // the plan as the user left it (maybe edited)
}

// PlanDecide approves a plan (switching mode) or asks Claude to keep planning.
func (a *App) PlanDecide(p PlanParams) error {
	r, ok := a.reg.Get(p.ID)
	if !ok {
		return ErrNotPending
	}
	if !p.Approve {
		msg := "The user wants you to keep planning and not exit plan mode yet."
		if p.Feedback != "" {
			msg += " Their feedback: " + p.Feedback
		}
		return a.decide(p.ID, approval.Decision{Behavior: approval.Deny, Message: msg}, "keep planning")
	}
	if p.Mode == "" {
		p.Mode = "default"
	}
	if !validMode(p.Mode) || p.Mode == "plan" {
		return fmt.Errorf("cannot approve a plan into mode %q", p.Mode)
	}
	input := r.Perm.Input
	orig := a.planText(r)
	if p.Plan != "" && p.Plan != orig {
		var err error
		// claude tells the model "Approved Plan (edited by user)" and saves
		// it to the plan file (checked on 2.1.328).
		if input, err = planInput(input, p.Plan); err != nil {
			return err
		}
	}
	if err := a.decide(p.ID, approval.Decision{Behavior: approval.Allow, UpdatedInput: input, Mode: p.Mode}, "plan approved"); err != nil {
		return err
	}
	if s, ok := a.sessions.Get(r.Session); ok {
		s.Update("", p.Mode, "", "")
		a.ui.Send(ui.EvSession, s.Info())
		if p.Plan != "" && p.Plan != orig {
			a.note(s, "Plan approved with your edits; mode: "+p.Mode)
		} else {
			a.note(s, "Plan approved; mode: "+p.Mode)
		}
	}
	return nil
}

func planInput(input json.RawMessage, plan string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		m = map[string]any{}
	}
	m["plan"] = plan
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return b, nil
}
