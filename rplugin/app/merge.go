package app

import "github.com/claude-nova/claude-nova.nvim/rplugin/approval"

// A worktree's branch brought into the checkout lives in rooms/merge; here
// is where its proposals meet the one request path: registered and
// presented like claude's, answered by its own kind (rooms/merge: a save
// writes the file, a rejection skips it), never by claude.

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
