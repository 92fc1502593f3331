package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// proposals keeps the reconstructed change of each pending file request.
type proposals struct {
	mu      sync.Mutex
	changes map[string]proposal.Change
}

func newProposals() *proposals { return &proposals{changes: map[string]proposal.Change{}} }

func (p *proposals) put(id string, c proposal.Change) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changes[id] = c
}

func (p *proposals) get(id string) (proposal.Change, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.changes[id]
	return c, ok
}

func (p *proposals) drop(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.changes, id)
}

// cleanStale removes staged proposals of requests that are no longer live.
func (p *proposals) cleanStale(storage string, reg *approval.Registry, log *slog.Logger) {
	keep := map[string]bool{}
	for _, r := range reg.List() {
		if r.Staged != "" {
			keep[filepath.Base(filepath.Dir(r.Staged))] = true
		}
	}
	n, err := proposal.CleanStale(storage, keep)
	if err != nil {
		log.Warn("clean stale proposals", "err", err)
	} else if n > 0 {
		log.Info("removed stale proposals", "count", n)
	}
}

// ProposalSaved applies a proposal with the content the user saved. When the
// real file changed on disk since staging, nothing is applied: the proposal
// is rebased on the new content and the user is told to review and save again.
func (a *App) ProposalSaved(id string) error {
	r, ok := a.reg.Get(id)
	if !ok {
		return nil // already decided: a second :w does nothing
	}
	c, ok := a.proposals.get(id)
	if !ok || r.Staged == "" {
		return fmt.Errorf("request %s has no staged proposal", id)
	}
	saved, err := os.ReadFile(r.Staged)
	if err != nil {
		return fmt.Errorf("read saved proposal: %w", err)
	}
	stale, err := proposal.Stale(c, proposal.ReadFile)
	if err != nil {
		return fmt.Errorf("check %s on disk: %w", c.Path, err)
	}
	if stale {
		cur, rerr := os.ReadFile(c.Path)
		c.Exists = rerr == nil
		c.Original = cur
		if !c.Exists {
			c.Original = nil
		}
		a.proposals.put(id, c)
		a.ui.Send(ui.EvProposalRebase, map[string]any{"id": id, "path": c.Path, "exists": c.Exists})
		a.notify("warn", fmt.Sprintf("%s changed on disk since this proposal was staged; nothing was applied. "+
			"The original side now shows the file as it is on disk: review, then :w again to apply your version, or close the proposal to deny.", r.Target))
		return nil
	}
	input, err := proposal.Amend(c, r.Perm.Input, saved)
	if err != nil {
		return fmt.Errorf("build the amended change: %w", err)
	}
	outcome := "applied"
	if string(saved) != string(c.Proposed) {
		outcome = "applied with your edits"
	}
	return a.decide(id, approval.Decision{Behavior: approval.Allow, UpdatedInput: input}, outcome)
}

// ProposalWiped denies a proposal whose buffer the user closed.
func (a *App) ProposalWiped(id string) error {
	if _, ok := a.reg.Get(id); !ok {
		return nil
	}
	err := a.decide(id, approval.Decision{Behavior: approval.Deny,
		Message: "The user rejected this change: they closed the proposed file without saving it. The file was not changed."}, "rejected")
	if err == ErrNotPending {
		return nil
	}
	return err
}
