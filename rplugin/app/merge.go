package app

import (
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/merge"
)

// A worktree's branch brought into the checkout lives in rooms/merge; here
// is where its proposals meet the one request path: registered and
// presented like claude's, answered by a save (the file is written) or a
// rejection (it is skipped), never by claude.

// mergeAsks is the request path as the merge room sees it.
type mergeAsks struct{ a *App }

// Propose registers a merge proposal and presents it. The session is not
// made "waiting": it asks nothing, the user does.
func (m mergeAsks) Propose(p *approval.Pending) bool {
	return m.a.arrive(p, nil)
}

// Settle ends a merge proposal.
func (m mergeAsks) Settle(id, outcome string) { m.a.finish(id, outcome) }

// Stop stops a session, as :ClaudeNova stop does.
func (m mergeAsks) Stop(id int) error {
	_, err := m.a.Stop(id)
	return err
}

// mergeSaved applies a merge proposal as its staged file holds it now.
func mergeSaved(room *merge.Room, p approval.Pending) (Decided, error) {
	saved, err := proposal.ReadFile(p.Staged)
	if err != nil {
		return Decided{}, fmt.Errorf("read the saved proposal: %w", err)
	}
	applied, why, err := room.Saved(p, saved)
	return Decided{Decided: applied, Reason: why}, err
}
