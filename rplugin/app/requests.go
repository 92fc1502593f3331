package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/answers"
	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/caps"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mode"
	"github.com/claude-nova/claude-nova.nvim/rplugin/plannote"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/ahead"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

// permission registers a can_use_tool request, then surfaces it. The steps:
// refuse what cannot be shown here (a tool with its own interactive UI),
// reconstruct (file changes), route, stage (proposals), register (the UI
// gets its row), present (the UI opens its surface). Rules are claude's to
// enforce (settings files, and the session's own rules given with
// apply_flag_settings): a request that reaches here is one claude asks.
func (a *App) permission(s *session.Session, m claude.Message) {
	pr, err := claude.DecodePermissionRequest(m)
	if err != nil {
		a.log.Warn("malformed can_use_tool", "session", s.ID, "err", err)
		if m.RequestID != "" {
			_ = a.respond(s, claude.PermissionRequest{RequestID: m.RequestID}, claude.Deny("claude-nova.nvim could not read this permission request ("+err.Error()+"); it was denied."), "unreadable", 0)
		}
		a.desk.Notify("warn", fmt.Sprintf("session %d sent a malformed permission request; it was denied", s.ID))
		return
	}
	// Asked: its transcript line needs no word on what let it run.
	s.Transcript.MarkAsked(pr.ToolUseID)
	if a.editorToolAllowed(s, pr) {
		return // the editor's own read-only tools: answered at once
	}
	if wt := s.World.Worktree(); wt != nil && wt.Branch != "" && !worktree.Present(wt.Path) {
		// Its worktree was removed, or replaced by a plain folder, by hand:
		// denied, and the session stopped, before it writes into a folder
		// git no longer knows as its worktree (one stat).
		why := fmt.Sprintf("%s: its folder %s was removed or replaced while session %d ran: the session is stopped so that it writes nothing there; its branch is kept",
			sanitize.Line(wt.Branch), sanitize.Line(wt.Path), s.ID)
		if err := a.respond(s, pr, claude.Deny("The worktree this session works in was removed by the user; stop here."), "worktree gone", 0); err != nil {
			a.log.Warn("answer a request of a session whose worktree is gone", "session", s.ID, "err", err)
		}
		a.desk.Note(s, why+".")
		a.desk.Notify("warn", why)
		if _, err := a.Stop(s.ID); err != nil {
			a.log.Warn("stop a session whose worktree is gone", "session", s.ID, "err", err)
		}
		return
	}
	id := approval.Key(s.ID, pr.RequestID)
	if _, dup := a.reg.Get(id); dup {
		a.log.Warn("duplicate request id ignored", "session", s.ID, "id", pr.RequestID)
		return
	}
	if path, content, ok := proposal.WriteContent(pr.ToolName, pr.In, s.Cwd()); ok &&
		approval.MayAutoAllow(pr) && s.Applied.TakeRewrite(path, content) {
		// The user approved exactly these bytes for this file already (a
		// reviewed Write the CLI refused because the file changed after
		// Claude read it): allowed without asking again, unless claude
		// asks for a person's answer (then it is asked like any other).
		if err := a.respond(s, pr, claude.Allow(pr.Input), "the content you approved", 0); err != nil {
			a.log.Warn("answer the approved rewrite", "session", s.ID, "err", err)
			return
		}
		a.desk.Note(s, "Allowed Write "+approval.TargetOf(pr.ToolName, pr.In, s.Cwd())+" without asking: exactly the content you approved.")
		return
	}
	o := a.cfg.get()
	p := &approval.Pending{
		ID: id, Session: s.ID, Kind: a.asked, Perm: pr, Arrived: time.Now(),
		Target: approval.TargetOf(pr.ToolName, pr.In, s.Cwd()),
	}
	// Staging and the stale-proposal sweep must not interleave: a folder
	// being staged, or one made ahead (package ahead) and taken, is not in
	// the registry yet, so the sweep would take it. The lock is held until
	// the request is registered.
	var t *ahead.Taken
	if approval.IsFileChange(pr.ToolName) {
		t = a.ahead.Take(s.ID, pr, s.Cwd(), ahead.ReadAhead(id, pr.ToolName, o.ReviewEdits, a.ui.Send))
		p.Change = t.Change
	} else {
		a.stageMu.Lock()
	}
	p.Route = approval.RouteOf(pr, approval.ReviewEdits(o.ReviewEdits), func() error {
		if t.Err != nil {
			return t.Err
		}
		if t.Staged != "" {
			p.Staged, p.StageKey, p.Prepared = t.Staged, t.StageKey, t.Prepared // made ahead
			return nil
		}
		if c := p.Change.Cell; c != nil && c.Mode == "delete" {
			return &approval.ToPanel{Reason: "Claude wants to " + c.Label() + " of " + p.Target + ": its source is below."}
		}
		staged, err := proposal.Stage(o.Storage, pr.RequestID, p.Change.StagePath(), p.Change.Proposed)
		if err != nil {
			return err
		}
		p.Staged, p.StageKey = staged, pr.RequestID
		return nil
	})
	if p.Route.Surface == approval.SurfaceDeny {
		a.stageMu.Unlock()
		// Refused before anything is shown: it never becomes a pending
		// request (no row, no announcement), and is answered once.
		if err := a.respond(s, pr, claude.Deny(p.Route.Reason), "no UI here", 0); err != nil {
			a.log.Warn("answer a request for a tool without a UI here", "session", s.ID, "err", err)
		}
		a.desk.Note(s, "Denied "+sanitize.Line(pr.ToolName)+": it needs an interactive UI this client does not have.")
		return
	}
	if p.Change != nil {
		p.Summary = t.Summary()
		p.Added, p.Removed = p.Summary.Added, p.Summary.Removed
	}
	added := a.arrive(p, s)
	a.stageMu.Unlock()
	if !added { // raced with a duplicate: registered once, answered once
		a.log.Warn("duplicate request id ignored", "session", s.ID, "id", pr.RequestID)
		if p.Staged != "" {
			_ = proposal.Unstage(o.Storage, p.Staged)
		}
	}
}

// arrive is every request's arrival: it adds the request to the registry,
// announces it, marks its session (s; nil for none, a merge's) as waiting
// and presents its surface. The session's state is one transition that
// reads the registry's count under the session's lock (as the cleanup
// after a decision does): whichever runs last sees the other's work, so a
// decision that comes between the arrival and "waiting" never leaves the
// session waiting for nothing, nor running with a request that waits.
// (A registry callback never takes a session's lock: the lock order is
// session, then registry.) What it sends reaches the front end in one batch (ui.Hold):
// the row, the session's state and the surface drawn at once. False for a
// duplicate id.
func (a *App) arrive(p *approval.Pending, s *session.Session) bool {
	view := a.views.Request(*p)
	release := ui.Hold(a.ui)
	defer release()
	if !a.reg.Register(p, func(approval.Pending) { a.ui.Send(ui.EvRequestAdded, view) }) {
		return false
	}
	if s != nil {
		// Waiting while any of its requests is: a decision that came
		// since it was registered has left nothing to wait for.
		s.Transition(func(cur session.Now) session.Now {
			if a.reg.Count(s.ID) > 0 {
				cur.State = session.StateWaiting
			}
			return cur
		})
		a.ui.Send(ui.EvSession, s)
	}
	// The request is the one just added: the front end has it from
	// EvRequestAdded, so it is not encoded and decoded a second time.
	a.reg.Present(p.ID, func(approval.Pending) { a.ui.Send(ui.EvPresent, ui.AsAdded{ID: p.ID, AsAdded: true}) })
	return true
}

// Pending lists every pending request as view models.
func (a *App) Pending() []RequestView {
	ps := a.reg.List()
	out := make([]RequestView, 0, len(ps))
	for _, p := range ps {
		out = append(out, a.views.Request(p))
	}
	return out
}

// Present opens the surface of a pending request again.
func (a *App) Present(id string) error {
	p, ok := a.reg.Get(id)
	if !ok {
		return ErrNotPending
	}
	view := a.views.Request(p)
	if !a.reg.Present(id, func(approval.Pending) { a.ui.Send(ui.EvPresent, view) }) {
		return ErrNotPending
	}
	return nil
}

// DecideParams is a decision gesture. Via says where it came from (see
// approval.ViaSurface …): gestures from elsewhere than the surface itself
// on a plan, question or form re-present its surface instead of answering;
// the CLI's hints may refuse a gesture (see approval.Refusal).
type DecideParams struct {
	ID  string `json:"id"`
	Via string `json:"via"`
	approval.Decision
}

// Decided is the outcome of a decision gesture.
type Decided struct {
	// Decided is true when the request was answered by this gesture.
	Decided bool `json:"decided"`
	// Reason says why not: no longer pending, the request needs its own
	// surface (which was presented), claude's hints forbid this answer.
	// The request then stays pending.
	Reason string `json:"reason,omitempty"`
	// Warning is worth telling the user although it was decided (a rule
	// for a tool the plugin does not know).
	Warning string `json:"warning,omitempty"`
}

func rulesWarning(d approval.Decision) string {
	if _, warn, _ := d.ParsedRules(); len(warn) > 0 {
		return "the rule names a tool claude-nova does not know (" + strings.Join(warn, ", ") + "); it was saved as written"
	}
	return ""
}

// Decide applies a user's decision.
func (a *App) Decide(p DecideParams) (Decided, error) {
	r, ok := a.reg.Get(p.ID)
	if !ok {
		return Decided{Reason: ErrNotPending.Error()}, nil
	}
	if p.Via == "" {
		p.Via = approval.ViaCommand
	}
	if approval.OwnSurface(r.Route.Surface) && p.Via != approval.ViaSurface {
		_ = a.Present(p.ID)
		return Decided{Reason: approval.OwnRefusal(r.Route.Surface)}, nil
	}
	if why := approval.Refusal(r, p.Decision, p.Via); why != "" {
		if p.Via == approval.ViaSidebar && approval.HintsOf(r.Perm).Deliberate {
			_ = a.Present(p.ID)
		}
		return Decided{Reason: why}, nil
	}
	d := p.Decision
	d.Gesture = true
	decided, err := r.Kind.Answer(r, d, "")
	if why, err := answerErr(err); why != "" || err != nil {
		return Decided{Reason: why}, err
	}
	return Decided{Decided: decided, Warning: rulesWarning(p.Decision)}, nil
}

// withdraw removes a request without answering it (claude cancelled it).
func (a *App) withdraw(session int, requestID, reason string) {
	a.finish(approval.Key(session, requestID), "withdrawn: "+reason)
}

// withdrawSession takes every pending request of session sid away (its
// claude exited or was stopped: no answer is written); deny, when not "",
// answers each of them deny with that message first (the session is ended
// for a fault of ours).
func (a *App) withdrawSession(sid int, reason, deny string) {
	if deny != "" {
		// Ended for a fault of ours: claude is told, once per request.
		for _, p := range a.reg.List() {
			if p.Session != sid {
				continue
			}
			if _, err := p.Kind.Answer(p, approval.Decision{Behavior: approval.Deny, Message: deny}, reason); err != nil && !errors.Is(err, ErrNotPending) {
				a.log.Warn("deny a request of a session that ends", "session", sid, "id", p.ID, "err", err)
			}
		}
	}
	ps := a.reg.FinishSession(sid, func(p approval.Pending) {
		a.ui.Send(ui.EvRequestRemoved, removed(p, "withdrawn: "+reason))
	})
	for _, p := range ps {
		a.cleanup(p)
	}
}

func removed(p approval.Pending, outcome string) map[string]any {
	return map[string]any{"id": p.ID, "session": p.Session, "outcome": outcome}
}

// finish takes a request out of the registry (the UI hears of it in the
// same step) and removes every trace of it.
func (a *App) finish(id, outcome string) (approval.Pending, bool) {
	p, ok := a.reg.Finish(id, func(p approval.Pending) {
		a.ui.Send(ui.EvRequestRemoved, removed(p, outcome))
	})
	if ok {
		a.cleanup(p)
	}
	return p, ok
}

func (a *App) cleanup(p approval.Pending) {
	p.Kind.Withdrawn(p) // after an answer: nothing
	if p.Staged != "" {
		if err := proposal.Unstage(a.cfg.get().Storage, p.Staged); err != nil {
			a.log.Warn("unstage", "path", p.Staged, "err", err)
		}
	}
	if s, ok := a.sessions.Get(p.Session); ok && s.Transition(func(cur session.Now) session.Now {
		if cur.State != session.StateWaiting || a.reg.Count(p.Session) > 0 {
			return cur
		}
		cur.State = session.StateRunning
		if !cur.Turn {
			cur.State = session.StateIdle // a background agent asked between turns
		}
		return cur
	}) {
		a.ui.Send(ui.EvSession, s)
	}
}

// cleanStale removes staged proposals of requests that are no longer live.
// Callers hold stageMu.
func (a *App) cleanStale(storage string) {
	name := func(staged string) string { return filepath.Base(filepath.Dir(staged)) }
	keep := a.reg.StagedDirs(name)
	a.ahead.Keep(keep, name)
	n, err := proposal.CleanStale(storage, keep)
	if err != nil {
		a.log.Warn("clean stale proposals", "err", err)
	} else if n > 0 {
		a.log.Info("removed stale proposals", "count", n)
	}
}

// QuestionAnswer is the user's answer to one question (package answers).
type QuestionAnswer = answers.Answer

// Answer answers an AskUserQuestion request. answers[i] answers question i;
// labels come from the original input, so they match what Claude asked. A
// question left unanswered is annotated as such when claude lists the
// capability, else answered as before (a decline denies).
func (a *App) Answer(id string, ans []QuestionAnswer) error {
	r, ok := a.reg.Get(id)
	if !ok {
		return ErrNotPending
	}
	annotate := false
	if s, ok := a.sessions.Get(r.Session); ok {
		annotate = s.Caps.Has(caps.AskUnanswered)
	}
	res, err := answers.Build(r.Perm.In, ans, annotate)
	if err != nil {
		return err
	}
	d, outcome := approval.Decision{Behavior: approval.Allow, UpdatedInput: res.Input}, "answered"
	switch {
	case res.Deny != "":
		d, outcome = approval.Decision{Behavior: approval.Deny, Message: res.Deny}, "declined"
	case res.Unanswered > 0:
		outcome = fmt.Sprintf("answered, %d left unanswered", res.Unanswered)
	}
	_, err = r.Kind.Answer(r, d, outcome)
	return err
}

// PlanParams is the user's choice on a plan.
type PlanParams struct {
	ID       string `json:"id"`
	Approve  bool   `json:"approve"`
	Mode     string `json:"mode"`     // mode after approval: acceptEdits or default
	Feedback string `json:"feedback"` // keep planning: what to change
	Plan     string `json:"plan"`     // the plan as the user left it (maybe edited)
	// Comments on lines of Plan (of the plan shown when Plan is ""): sent
	// with the approval or with "keep planning", quoted with their lines.
	Comments []plannote.Comment `json:"comments"`
}

// PlanDecide approves a plan (switching mode) or asks Claude to keep
// planning. Either way the plan as the user left it goes (when edited) and
// their line comments with it: in the answer when they keep planning,
// beside the tool's result when they approve.
func (a *App) PlanDecide(p PlanParams) error {
	r, ok := a.reg.Get(p.ID)
	if !ok {
		return ErrNotPending
	}
	orig := a.views.PlanText(r)
	plan := orig
	if p.Plan != "" {
		plan = p.Plan
	}
	if err := plannote.Check(p.Comments, len(strings.Split(plan, "\n"))); err != nil {
		return err
	}
	notes := plannote.Message(plan, p.Comments)
	edited := p.Plan != "" && strings.TrimSpace(p.Plan) != strings.TrimSpace(orig)
	if !p.Approve {
		msg := "The user wants you to keep planning and not exit plan mode yet."
		if p.Feedback != "" {
			msg += " Their feedback: " + p.Feedback
		}
		if edited {
			msg += "\n\nThey edited the plan; the plan as they left it:\n\n" + p.Plan
		}
		if notes != "" {
			msg += "\n\n" + notes
		}
		_, err := r.Kind.Answer(r, approval.Decision{Behavior: approval.Deny, Message: msg}, "keep planning")
		return err
	}
	if p.Mode == "" {
		p.Mode = "default"
	}
	if !mode.Valid(p.Mode) || p.Mode == mode.Plan {
		return fmt.Errorf("cannot approve a plan into mode %q", p.Mode)
	}
	input := r.Perm.Input
	if edited {
		var err error
		// claude tells the model "Approved Plan (edited by user)" and saves
		// it to the plan file (checked on 2.1.328).
		if input, err = planInput(r.Perm.In, p.Plan); err != nil {
			return err
		}
	}
	// The comments go beside the result (our PostToolUse hook of
	// ExitPlanMode), not into the plan claude saves.
	d := approval.Decision{Behavior: approval.Allow, UpdatedInput: input, Mode: p.Mode, Tell: notes}
	if _, err := r.Kind.Answer(r, d, "plan approved"); err != nil {
		return err
	}
	if s, ok := a.sessions.Get(r.Session); ok {
		if s.SetMode(p.Mode) {
			a.ui.Send(ui.EvSession, s)
		}
		a.desk.Note(s, plannote.Approved(edited, len(p.Comments), p.Mode))
	}
	return nil
}

func planInput(input toolcall.Input, plan string) (json.RawMessage, error) {
	m := maps.Clone(input.Obj)
	if m == nil {
		m = map[string]any{}
	}
	m["plan"] = plan
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return b, nil
}
