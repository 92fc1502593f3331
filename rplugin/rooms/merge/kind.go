package merge

import (
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/views"
)

// file is the kind of a merge proposal (approval.Kind, approval.Proposer):
// the user asked for it, so a save applies it and a rejection skips it; no
// one else is answered, and it outlives the session whose branch it brings
// over.
type file struct{ r *Room }

func (file) Outlives() bool             { return true }
func (file) Withdrawn(approval.Pending) {}
func (file) Refusal(p approval.Pending, d approval.Decision, via string) string {
	return approval.AskRefusal(p, d, via)
}

// Answer skips the file on a deny; an allow applies it as it is staged.
func (k file) Answer(p approval.Pending, d approval.Decision, outcome string) (bool, error) {
	if d.Behavior == approval.Deny {
		if outcome == "" {
			outcome = approval.Outcome(d.Behavior)
		}
		k.r.Skip(p, outcome)
		return true, nil
	}
	applied, why, err := k.Saved(p)
	if err == nil && !applied {
		err = errors.New(why)
	}
	return applied, err
}

// Saved applies the proposal as its staged file holds it now.
func (k file) Saved(p approval.Pending) (applied bool, why string, err error) {
	saved, err := proposal.ReadFile(p.Staged)
	if err != nil {
		return false, "", fmt.Errorf("read the saved proposal: %w", err)
	}
	return k.r.Saved(p, saved)
}

// View: a merged file whose checkout side is the user's unsaved buffer
// shows that side.
func (file) View(v *views.Request, p approval.Pending) bool {
	if p.Merge.Unsaved && p.Change != nil {
		v.Unsaved, v.Original = true, string(p.Change.Original)
	}
	return false // the rest as any proposal's
}
