// Package asked is the kind of a pending request claude asks (a
// can_use_tool): answered allow or deny, by a gesture of the user's (which
// may keep rules first) or by the plugin (a plan, a question, a proposal's
// save, a deny as the session ends), exactly once, through the registry's
// door.
package asked

import (
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// Deps is what answering claude's requests takes from the rest of the
// plugin.
type Deps struct {
	Door approval.Door
	// Keep keeps the rules a gesture's decision makes (rooms/permissions).
	Keep func(approval.Pending, approval.Decision) error
	// Interrupt asks session sid's claude to end its turn.
	Interrupt func(sid int)
	// AllowFolder lets the editor's tools read dir for session sid.
	AllowFolder func(sid int, dir string)
	// Answering is told of a request's answer just before claude hears of
	// it (rooms/commands: the folder before an allowed command runs; a
	// denied one never runs).
	Answering func(s *session.Session, r approval.Pending, allowed bool)
}

// Kind answers claude's requests (approval.Kind).
type Kind struct {
	d    *desk.Desk
	deps Deps
}

// New returns the kind.
func New(d *desk.Desk, deps Deps) *Kind { return &Kind{d: d, deps: deps} }

// Outlives: a request of claude's ends with its session.
func (*Kind) Outlives() bool { return false }

// Withdrawn: claude withdrew it; nothing else waits.
func (*Kind) Withdrawn(approval.Pending) {}

// Refusal is what claude's hints refuse (approval.AskRefusal).
func (*Kind) Refusal(r approval.Pending, d approval.Decision, via string) string {
	return approval.AskRefusal(r, d, via)
}

// Respond writes claude's answer to session s's can_use_tool request pr
// and logs it (by: who or what answered; told: the bytes of a note for
// Claude that goes with it).
func (k *Kind) Respond(s *session.Session, pr claude.PermissionRequest, res claude.PermissionResult, by string, told int) error {
	if err := s.Proc.Respond(pr.RequestID, res); err != nil {
		return err
	}
	k.d.Log.Info("answered", "id", approval.Key(s.ID, pr.RequestID), "behavior", res.Behavior, "tool", pr.ToolName,
		"input_bytes", len(res.UpdatedInput), "told_bytes", told, "by", by)
	return nil
}

// Answer answers claude's request r exactly once.
func (k *Kind) Answer(r approval.Pending, d approval.Decision, outcome string) (bool, error) {
	if d.Gesture {
		return k.gesture(r, d)
	}
	res, err := d.Result(r)
	if err != nil {
		return false, err
	}
	s, ok := k.d.Sessions.Get(r.Session)
	if !ok {
		return false, fmt.Errorf("session %d is gone", r.Session)
	}
	if k.deps.Answering != nil {
		k.deps.Answering(s, r, res.Behavior == "allow")
	}
	err = k.deps.Door.Finish(r, outcome, func(p approval.Pending) error {
		if m := res.ModeSet(); m != "" {
			// The user's choice (a plan approved into a mode, accept
			// edits for the session): claude's report of it is no
			// mismatch.
			s.Modes.Propose(m)
		}
		if d.Tell != "" && res.Behavior == "allow" {
			// Beside the tool's result (the PostToolUse hook), not as a
			// message from the user.
			s.Applied.SetResultNote(p.Perm.ToolUseID, d.Tell)
		}
		return k.Respond(s, p.Perm, res, outcome, len(d.Tell))
	})
	if err != nil {
		return false, err
	}
	return true, nil
}

// gesture answers r with the user's decision d: its rules kept first, a
// stop noted (and a subagent's foreground turn interrupted), a folder
// allowed for the editor's tools too.
func (k *Kind) gesture(r approval.Pending, d approval.Decision) (bool, error) {
	d.Gesture = false
	outcome := approval.Outcome(d.Behavior)
	stop := d.Behavior == approval.Deny && d.Interrupt
	if stop {
		outcome = "denied and stopped"
	}
	if len(d.Rules) > 0 {
		outcome += " with a rule: " + strings.Join(d.Rules, ", ")
	}
	// Check everything that can be wrong before anything is kept.
	if _, err := d.Result(r); err != nil {
		return false, err
	}
	if err := k.deps.Keep(r, d); err != nil {
		return false, err
	}
	s, _ := k.d.Sessions.Get(r.Session)
	if stop && s != nil {
		// The turn ends with this answer: an interrupt the user asked for,
		// not an error (claude's result says error_during_execution).
		s.MarkInterrupted()
	}
	decided, err := k.Answer(r, d, outcome)
	if stop && !decided && s != nil {
		s.TakeInterrupted() // not answered: the turn goes on
	}
	if stop && decided && s != nil && r.Perm.AgentID != "" {
		// A subagent's request: claude's interrupt flag ends that agent
		// only. A foreground agent's turn would go on to its next tool,
		// and the user said stop: that turn is interrupted too. A
		// background agent's stop leaves the conversation's turn alone.
		if t, ok := s.Tasks.Get(r.Perm.AgentID); !ok || !t.Background {
			k.deps.Interrupt(r.Session)
		}
	}
	if decided && d.Behavior == approval.AllowDir {
		for _, dir := range rules.SuggestedDirs(r.Perm.Suggestions) {
			// The editor's tools may read there too, for the session.
			k.deps.AllowFolder(r.Session, dir)
		}
	}
	return decided, err
}
