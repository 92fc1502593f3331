package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// proposals keeps the reconstructed change of each pending file request.
type proposals struct {
	mu      sync.Mutex
	changes map[string]proposal.Change
	applied map[string]string // tool_use_id -> path, allowed and not yet written by claude
}

func newProposals() *proposals {
	return &proposals{changes: map[string]proposal.Change{}, applied: map[string]string{}}
}

func (p *proposals) markApplied(toolUseID, path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.applied[toolUseID] = path
}

// written returns the path of an applied change whose tool finished.
func (p *proposals) written(toolUseID string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	path, ok := p.applied[toolUseID]
	delete(p.applied, toolUseID)
	return path, ok
}

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
	if errors.Is(err, proposal.ErrNoChange) {
		// The user put the file back as it was: nothing to write.
		return a.decide(id, approval.Decision{Behavior: approval.Deny,
			Message: "The user reviewed this change and kept the file exactly as it was; it was not changed."}, "kept unchanged")
	}
	if err != nil {
		return fmt.Errorf("cannot apply the proposal for %s: %w", r.Target, err)
	}
	outcome := "applied"
	if string(saved) != string(c.Proposed) {
		outcome = "applied with your edits"
	}
	if err := a.decide(id, approval.Decision{Behavior: approval.Allow, UpdatedInput: input}, outcome); err != nil {
		return err
	}
	a.proposals.markApplied(r.Perm.ToolUseID, c.Path)
	return nil
}

// toolsFinished tells the UI which applied proposals claude has written, so
// buffers of those files reload.
func (a *App) toolsFinished(m claude.Message) {
	var msg struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		return
	}
	var blocks []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		IsError   bool   `json:"is_error"`
	}
	if json.Unmarshal(msg.Message.Content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			continue
		}
		if path, ok := a.proposals.written(b.ToolUseID); ok && !b.IsError {
			a.ui.Send(ui.EvFileWritten, map[string]any{"path": path})
		}
	}
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
