package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/transcript"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// mergeLabels name the sides of a rebase conflict in the proposal.
var mergeLabels = diff.MergeLabels{
	Ours:   "your edits",
	Base:   "Claude's proposal before the file changed",
	Theirs: "the file on disk with Claude's change",
}

// writeLabels name them for a Write, whose content is the whole file: it is
// merged with the file as it is now against the file Claude read.
var writeLabels = diff.MergeLabels{
	Ours:   "Claude's write with your edits",
	Base:   "the file when Claude read it",
	Theirs: "the file on disk now",
}

// RebaseEvent tells the UI that a proposal was refreshed after its file
// changed on disk: the original side shows the file as it is now and, when
// Reload is set, the proposal buffer is reloaded from the staged file.
type RebaseEvent struct {
	ID        string          `json:"id"`
	Path      string          `json:"path"`
	Exists    bool            `json:"exists"`
	Reload    bool            `json:"reload"`
	Conflicts []int           `json:"conflicts,omitempty"`
	Hunks     []proposal.Hunk `json:"hunks,omitempty"` // Claude's change against the new file
	// Original is a notebook cell's source now (its original side).
	Original *string `json:"original,omitempty"`
}

// SaveParams is a saved proposal: :w in its buffer, or a command or the Lua
// API applying it (Behavior allow_session adds the session rule).
type SaveParams struct {
	ID       string          `json:"id"`
	Behavior string          `json:"behavior"`
	Review   feedback.Review `json:"review"` // the user's notes and rejected hunks
	// Rules and Destination: applied with "Always…" (allow rules only).
	Rules       []string `json:"rules"`
	Destination string   `json:"destination"`
	// Via is where the gesture came from (approval.ViaSurface for :w).
	Via string `json:"via"`
}

// ProposalSaved applies a proposal with the content the user saved, so that
// the file on disk becomes byte-equal to the saved buffer.
//
// When the real file changed on disk since the proposal was staged, nothing
// is applied: the proposal is rebased (see rebase) and the user is told to
// review and save again. While conflict markers of a rebase remain, nothing
// is applied either. The result says whether the request was answered and,
// if not, why.
func (a *App) ProposalSaved(sp SaveParams) (Decided, error) {
	id := sp.ID
	p, ok := a.reg.Get(id)
	if !ok {
		return Decided{Reason: ErrNotPending.Error()}, nil // a second :w does nothing
	}
	if p.Change == nil || p.Staged == "" {
		return Decided{}, fmt.Errorf("request %s has no staged proposal", id)
	}
	if k, ok := p.Kind.(approval.Proposer); ok {
		applied, why, err := k.Saved(p) // the user's own proposal: its kind applies it
		return Decided{Decided: applied, Reason: why}, err
	}
	via := sp.Via
	if via == "" {
		via = approval.ViaSurface
	}
	behavior := approval.Allow
	if sp.Behavior == approval.AllowSession || sp.Behavior == approval.AllowTool {
		behavior = sp.Behavior
	}
	if why := approval.Refusal(p, approval.Decision{Behavior: behavior, Rules: sp.Rules, Destination: sp.Destination}, via); why != "" {
		return Decided{Reason: why}, nil
	}
	saved, err := proposal.ReadFile(p.Staged)
	if err != nil {
		return Decided{}, fmt.Errorf("read the saved proposal: %w", err)
	}
	if msg := proposal.MarkersLeft(saved, p.Target, p.Change.Marks); msg != "" {
		a.desk.Notify("warn", msg)
		return Decided{Reason: msg}, nil
	}
	stale, err := proposal.Stale(*p.Change, proposal.ReadFile)
	if err != nil {
		return Decided{}, fmt.Errorf("check %s on disk: %w", p.Target, err)
	}
	if stale {
		msg, err := a.rebase(p, saved)
		return Decided{Reason: msg}, err
	}
	c := *p.Change
	unchanged := (c.Exists && bytes.Equal(saved, c.Original)) || (!c.Exists && len(saved) == 0)
	if c.Cell != nil {
		// A cell: an insert of what the user left is a change, whatever it
		// holds; a replace the user put back is not (Amend says so).
		unchanged = false
	}
	var input json.RawMessage
	if !unchanged {
		input, err = proposal.Amend(c, p.Perm.Input, saved)
		unchanged = errors.Is(err, proposal.ErrNoChange)
	}
	if c.Reread && !unchanged {
		return a.askRewrite(p, saved)
	}
	var d approval.Decision
	outcome := "applied"
	switch {
	case unchanged:
		// The user put the file back as it was: nothing to write.
		msg := "The user reviewed this change and kept the file exactly as it was; it was not changed."
		if !sp.Review.Empty() {
			msg = feedback.Rejection(changeLabel(p), sp.Review)
		}
		d = approval.Decision{Behavior: approval.Deny, Message: msg}
		outcome = "rejected (all hunks)"
	case err != nil:
		return Decided{}, fmt.Errorf("cannot apply the proposal for %s: %w", p.Target, err)
	default:
		d = approval.Decision{Behavior: behavior, UpdatedInput: input, Rules: sp.Rules, Destination: sp.Destination}
		if _, err := d.Result(p); err != nil {
			return Decided{}, err
		}
		if err := a.perms.Keep(p, d); err != nil {
			return Decided{}, err
		}
		am := feedback.Amendment{Path: changeLabel(p), Proposed: string(c.ClaudeProposed()), Applied: string(saved), Review: sp.Review}
		d.Tell = am.Message()
		if am.Changed() {
			outcome = "applied with your edits"
			if c.Cell == nil {
				a.rounds.ExpectAmended(c.Path, c.ClaudeProposed(), saved) // blame: your lines in Claude's
			}
		}
	}
	if _, err := p.Kind.Answer(p, d, outcome); err != nil {
		why, err := answerErr(err)
		return Decided{Reason: why}, err
	}
	if s, ok := a.sessions.Get(p.Session); ok {
		if d.Behavior != approval.Deny {
			s.Applied.Mark(p.Perm.ToolUseID, p.Change.Path)
		}
		if d.Tell != "" {
			a.desk.Transcript(s, s.Transcript.ToldBy(transcript.ToldClaude, d.Tell))
		} else if d.Behavior == approval.Deny && !sp.Review.Empty() {
			a.desk.Transcript(s, s.Transcript.ToldBy(transcript.ToldClaude, d.Message))
		}
	}
	return Decided{Decided: true, Warning: rulesWarning(d)}, nil
}

// askRewrite answers a reviewed Write whose file changed on disk after
// Claude read it. The CLI refuses that Write whatever the answer ("File has
// been modified since read"), so the way through is claude's own: deny,
// giving Claude the reviewed content and asking it to read the file again
// and write exactly that; its next Write of those bytes to that path is
// allowed without asking (see permission).
func (a *App) askRewrite(p approval.Pending, saved []byte) (Decided, error) {
	s, ok := a.sessions.Get(p.Session)
	if !ok {
		return Decided{}, fmt.Errorf("session %d is gone", p.Session)
	}
	msg := feedback.Rewrite(p.Target, string(saved))
	s.Applied.ExpectRewrite(p.Change.Path, saved)
	if _, err := p.Kind.Answer(p, approval.Decision{Behavior: approval.Deny, Message: msg}, "reviewed; Claude writes it again"); err != nil {
		if errors.Is(err, ErrNotPending) {
			return Decided{Reason: err.Error()}, nil
		}
		return Decided{}, err
	}
	a.desk.Transcript(s, s.Transcript.ToldBy(transcript.ToldClaude, msg))
	a.desk.Notify("info", fmt.Sprintf("%s changed after Claude read it: Claude is asked to read it again and write exactly your version (allowed without asking)", p.Target))
	return Decided{Decided: true}, nil
}

// rebase refreshes a proposal whose file changed on disk since it was
// staged; nothing is applied. Claude's change is applied again to the file as
// it is now (as the CLI would apply it). If it applies, the proposal becomes
// a three-way merge: the user's edits to Claude's proposal are carried over
// onto the new proposal, with diff3 conflict markers where both touched the
// same lines. If it no longer applies, the user's buffer is kept as it is and
// the next :w writes exactly that buffer over the new file.
func (a *App) rebase(p approval.Pending, saved []byte) (string, error) {
	old := *p.Change
	cur, err := proposal.ReadFile(old.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", p.Target, err)
	}
	read := func(string) ([]byte, error) {
		if !exists {
			return nil, fs.ErrNotExist
		}
		return cur, nil
	}
	s, _ := a.sessions.Get(p.Session)
	cwd := ""
	if s != nil {
		cwd = s.Cwd()
	}
	next, rerr := proposal.ReconstructOf(p.Perm.ToolName, p.Perm.In, cwd, read)
	if rerr == nil && old.Detached {
		// The buffer is the user's own since Claude's change stopped
		// applying: keep it, whatever the file became.
		rerr = errors.New("the proposal was already detached from it")
	}
	ev := RebaseEvent{ID: p.ID, Path: old.Path, Exists: exists}
	var msg string
	if old.Tool == "Write" {
		// A Write's content is the whole file: re-applying it would drop
		// the outside change. Merge three ways instead: what Claude read,
		// the reviewed content, the disk now. The CLI then refuses the
		// Write (the file changed since Claude read it): the save that
		// follows asks Claude to read it again and write exactly this.
		m := diff.Merge3(string(old.Original), string(saved), string(cur), writeLabels)
		if err := proposal.Restage(a.cfg.get().Storage, p.StageKey, p.Staged, []byte(m.Text)); err != nil {
			return "", fmt.Errorf("restage %s: %w", p.Target, err)
		}
		next = proposal.Change{Tool: old.Tool, Path: old.Path, Exists: exists, Original: cur, Proposed: []byte(m.Text),
			Detached: true, Claude: old.ClaudeProposed(), Reread: true, Marks: proposal.MarksOf(m, writeLabels)}
		ev.Reload, ev.Conflicts = true, m.Conflicts
		if len(m.Conflicts) > 0 {
			msg = fmt.Sprintf("conflict: %s changed on disk where Claude writes (line %s); nothing applied: resolve the markers, then :w (Claude then re-reads the file and writes exactly your version)",
				p.Target, joinInts(m.Conflicts))
		} else {
			msg = fmt.Sprintf("nothing applied: %s changed on disk; Claude's write is merged with it: review, then :w (Claude then re-reads the file and writes exactly your version)", p.Target)
		}
	} else if rerr == nil {
		base := string(old.Proposed)
		m := diff.Merge3(base, string(saved), string(next.Proposed), mergeLabels)
		next.Marks = proposal.MarksOf(m, mergeLabels)
		if err := proposal.Restage(a.cfg.get().Storage, p.StageKey, p.Staged, []byte(m.Text)); err != nil {
			return "", fmt.Errorf("restage %s: %w", p.Target, err)
		}
		ev.Reload, ev.Conflicts = true, m.Conflicts
		switch {
		case len(m.Conflicts) > 0:
			msg = fmt.Sprintf("conflict: %s changed on disk where you edited (line %s); nothing applied: resolve the markers, then :w",
				p.Target, joinInts(m.Conflicts))
		case string(saved) != base:
			msg = fmt.Sprintf("nothing applied: %s changed on disk; Claude's change and your edits now sit on the new file: review, then :w", p.Target)
		default:
			msg = fmt.Sprintf("nothing applied: %s changed on disk; Claude's change now sits on the new file: review, then :w", p.Target)
		}
	} else {
		next = proposal.Change{Tool: old.Tool, Path: old.Path, Exists: exists, Original: cur, Proposed: saved, Detached: true,
			Claude: old.ClaudeProposed()}
		if old.Cell != nil {
			// The cell's source stays what the user reviewed against; the
			// notebook is what is on disk now.
			cell := *old.Cell
			cell.Notebook = cur
			next.Original, next.Cell = old.Original, &cell
		}
		if old.Detached {
			msg = fmt.Sprintf("nothing applied: %s changed on disk again; your buffer is kept: :w writes it as it is, :q rejects", p.Target)
		} else {
			msg = fmt.Sprintf("nothing applied: %s changed on disk and Claude's change no longer applies (%s); your buffer is kept: :w writes it as it is, :q rejects",
				p.Target, rerr)
		}
	}
	if !next.Detached {
		ev.Hunks, _ = proposal.Hunks(next)
	}
	if next.Cell != nil {
		orig := string(next.Original)
		ev.Original = &orig
	}
	if !a.reg.Rebase(p.ID, p.Rev, &next, ev.Conflicts, func(approval.Pending) { a.ui.Send(ui.EvProposalRebase, ev) }) {
		return ErrNotPending.Error(), nil // decided or rebased meanwhile
	}
	a.desk.Notify("warn", msg)
	return msg, nil
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// toolsFinished tells the UI which files claude has written (applied
// proposals, and written a file it reports: any mode), so buffers of those
// files follow the disk.
func (a *App) toolsFinished(s *session.Session, results []claude.ToolResult, wrote string) {
	if wrote != "" {
		a.ui.Send(ui.EvFileWritten, map[string]any{"path": wrote})
	}
	for _, r := range results {
		if path, ok := s.Applied.Written(r.ToolUseID); ok && !r.IsError && path != wrote {
			a.ui.Send(ui.EvFileWritten, map[string]any{"path": path})
		}
		if note := s.Applied.TakeResultNote(r.ToolUseID); note != "" && !r.IsError {
			// Our PostToolUse hook did not run for it (a claude without
			// hooks): the note goes as a message instead. A failed call
			// wrote nothing the note could speak of.
			a.log.Info("the note for a result goes as a message: no PostToolUse hook came", "session", s.ID, "tool_use_id", r.ToolUseID)
			a.desk.SendNote(s, note) // the transcript has it (Told, when decided)
		}
	}
}

// ProposalWiped denies a proposal the user rejected: its deny key, or its
// buffer closed unsaved. Their notes on it, if any, go with the deny.
func (a *App) ProposalWiped(sp SaveParams) error {
	id := sp.ID
	p, ok := a.reg.Get(id)
	if !ok {
		return nil
	}
	if k, ok := p.Kind.(approval.Proposer); ok {
		_, err := k.Answer(p, approval.Decision{Behavior: approval.Deny}, "skipped")
		return err
	}
	msg := fmt.Sprintf("The user rejected this change to %s; the file was not changed.", p.Target)
	if len(sp.Review.Notes) > 0 {
		msg = feedback.Rejection(changeLabel(p), sp.Review)
		if s, ok := a.sessions.Get(p.Session); ok {
			a.desk.Transcript(s, s.Transcript.ToldBy(transcript.ToldClaude, msg))
		}
	}
	_, err := p.Kind.Answer(p, approval.Decision{Behavior: approval.Deny, Message: msg}, "rejected")
	if errors.Is(err, ErrNotPending) {
		return nil
	}
	return err
}

// changeLabel names a proposal's change for Claude: its file, or the cell
// of a notebook ("cell c1 (python) of analysis.ipynb").
func changeLabel(p approval.Pending) string {
	if p.Change != nil && p.Change.Cell != nil {
		return p.Change.Cell.Label() + " of " + p.Target
	}
	return p.Target
}
