// Package merge is the room that brings a worktree session's branch into
// the user's checkout as proposals: every file the branch changed since it
// started (its commits and its uncommitted work) opens as a proposal like
// any other, :w applies it with the user's edits and wiping it skips the
// file. Where the user's file changed since the branch started, the
// proposal is a three-way merge: clean hunks merged, conflicts written with
// markers, and a save refused while a marker is left. Once every file is
// applied or skipped, the worktree and its branch may be removed; never
// with work the user did not bring over, unless they say so.
package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

// Requests is the one request path as the room sees it (app serves it).
type Requests interface {
	// Propose registers a merge proposal and presents it.
	Propose(p *approval.Pending) bool
	// Settle ends a pending request with outcome.
	Settle(id, outcome string)
	// Stop stops a session (as :ClaudeNova stop does).
	Stop(id int) error
}

// Authorship is who wrote each line, as the room hands it on: a merged
// file's lines keep the authors they had in the worktree (rooms/rounds).
type Authorship interface {
	Adopt(dst, before, after, src, srcText, root string)
}

// Room brings branches into the checkout.
type Room struct {
	d       *desk.Desk
	reqs    Requests
	storage func() string
	authors Authorship // nil: not kept

	mu     sync.Mutex
	merges map[int]*run // by session
}

// run is one merge of a session's branch under way.
type run struct {
	branch, path, root string
	pending            map[string]string // request id -> file (rel)
	applied, skipped   []string
	left               []string // not proposed: binary files, links (still only in the worktree)
}

// New returns the merge room.
func New(d *desk.Desk, reqs Requests, storage func() string, authors Authorship) *Room {
	return &Room{d: d, reqs: reqs, storage: storage, authors: authors, merges: map[int]*run{}}
}

// labels name the sides of a conflict in a merge proposal.
func labels(branch string) diff.MergeLabels {
	return diff.MergeLabels{Ours: "your checkout", Base: "where " + branch + " started", Theirs: branch}
}

// Summary is what a merge proposed.
type Summary struct {
	Branch    string   `json:"branch"`
	Proposed  int      `json:"proposed"`
	Conflicts int      `json:"conflicts"` // proposals with conflict markers
	Same      int      `json:"same"`      // files the checkout has as the branch does
	Left      []string `json:"left"`      // files not proposed (binary, links): named
	Message   string   `json:"message"`   // on one line
	Details   string   `json:"details"`   // the whole story (the transcript has it)
}

// Start proposes every file session id's worktree changed.
func (r *Room) Start(id int) (Summary, error) {
	s, wt, err := r.worktreeOf(id)
	if err != nil {
		return Summary{}, err
	}
	r.mu.Lock()
	if m := r.merges[s.ID]; m != nil && len(m.pending) > 0 {
		r.mu.Unlock()
		return Summary{}, fmt.Errorf("%s is being merged: %d file(s) wait for :w or to be closed", wt.Branch, len(m.pending))
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	br, err := worktree.ChangesOf(ctx, wt.Path, wt.Root)
	if err != nil {
		return Summary{}, err
	}
	m := &run{branch: wt.Branch, path: wt.Path, root: wt.Root, pending: map[string]string{}}
	sum := Summary{Branch: wt.Branch}
	var props []*approval.Pending
	for i, c := range br.Changes {
		if c.Binary || c.Symlink {
			m.left = append(m.left, c.Path)
			continue
		}
		p, conflicts, same, err := r.proposal(s, br.Top, wt.Branch, i, c)
		if err != nil {
			r.unstage(props)
			return Summary{}, err
		}
		if same {
			sum.Same++
			continue
		}
		if conflicts {
			sum.Conflicts++
		}
		props = append(props, p)
		m.pending[p.ID] = c.Path
	}
	sum.Proposed, sum.Left = len(props), m.left
	sum.Message, sum.Details = short(sum), message(sum)
	r.mu.Lock()
	r.merges[s.ID] = m
	r.mu.Unlock()
	r.d.Note(s, "Merging "+wt.Branch+" into your checkout: "+sum.Details)
	for _, p := range props {
		if !r.reqs.Propose(p) {
			r.settle(p.Session, p.ID, "", false)
		}
	}
	if len(props) == 0 {
		r.finished(s, m)
	}
	return sum, nil
}

// short says what a merge proposed, on one line.
func short(sum Summary) string {
	s := fmt.Sprintf("%s: %d to review", sum.Branch, sum.Proposed)
	if sum.Proposed == 0 {
		s = sum.Branch + ": nothing to bring over"
	}
	if sum.Conflicts > 0 {
		s += fmt.Sprintf(", %d with conflicts", sum.Conflicts)
	}
	if len(sum.Left) > 0 {
		s += fmt.Sprintf(", %d left (binary)", len(sum.Left))
	}
	return s
}

// message says what a merge proposed, for a person.
func message(sum Summary) string {
	var parts []string
	switch sum.Proposed {
	case 0:
		parts = append(parts, "nothing to bring over")
	case 1:
		parts = append(parts, "1 file to review (:w applies it, closing it skips it)")
	default:
		parts = append(parts, fmt.Sprintf("%d files to review (:w applies each, closing one skips it)", sum.Proposed))
	}
	if sum.Conflicts > 0 {
		parts = append(parts, fmt.Sprintf("%d with conflict markers to resolve", sum.Conflicts))
	}
	if sum.Same > 0 {
		parts = append(parts, fmt.Sprintf("%d already as the branch has them", sum.Same))
	}
	if len(sum.Left) > 0 {
		parts = append(parts, "not brought over (binary or a link; copy it yourself): "+strings.Join(sum.Left, ", "))
	}
	return strings.Join(parts, "; ")
}

// proposal stages change c (the i-th of the branch) as a proposal for the
// checkout at top. same says the checkout has it already.
func (r *Room) proposal(s *session.Session, top, branch string, i int, c worktree.Change) (p *approval.Pending, conflicts, same bool, err error) {
	path := filepath.Join(top, filepath.FromSlash(c.Path))
	ours, rerr := proposal.ReadFile(path)
	exists := rerr == nil
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return nil, false, false, fmt.Errorf("read %s: %w", c.Path, rerr)
	}
	var proposed []byte
	var marks []int
	var mk *proposal.Marks
	switch {
	case c.Status == "deleted":
		if !exists {
			return nil, false, true, nil
		}
		proposed = nil
		if !bytes.Equal(ours, c.Base) {
			// Deleted in the branch, changed here: the user's lines are
			// shown; saving it empty deletes it.
			proposed = ours
		}
	case exists && bytes.Equal(ours, c.Theirs):
		return nil, false, true, nil
	case !exists || bytes.Equal(ours, c.Base):
		proposed = c.Theirs
	default:
		res := diff.Merge3(string(c.Base), string(ours), string(c.Theirs), labels(branch))
		proposed, marks, mk = []byte(res.Text), res.Conflicts, proposal.MarksOf(res, labels(branch))
	}
	reqID := fmt.Sprintf("merge-%s-%d-%s", strings.TrimPrefix(branch, "worktree-"), i+1, proposal.Token()) // one of its own: another repository's worktree may have this name
	staged, err := proposal.Stage(r.storage(), reqID, path, proposed)
	if err != nil {
		return nil, false, false, fmt.Errorf("stage %s: %w", c.Path, err)
	}
	tool := "Merge"
	if c.Status == "deleted" {
		tool = "Merge (deleted)"
	}
	input, _ := json.Marshal(map[string]string{"file_path": path})
	change := &proposal.Change{Path: path, Exists: exists, Original: ours, Proposed: proposed, Marks: mk}
	added, removed := diff.Stat(string(ours), string(proposed))
	p = &approval.Pending{
		ID: approval.Key(s.ID, reqID), Session: s.ID, Arrived: time.Now(),
		Perm:   claude.PermissionRequest{RequestID: reqID, ToolName: tool, Input: input},
		Route:  approval.Route{Surface: approval.SurfaceProposal},
		Target: sanitize.Line(c.Path), Added: added, Removed: removed,
		Change: change, Staged: staged, Conflicts: marks,
		Merge: &approval.Merge{Branch: branch, Path: path, Rel: c.Path, Deleted: c.Status == "deleted"},
	}
	return p, len(marks) > 0, false, nil
}

// Saved applies a merge proposal with what the user saved: the file is
// written (or, for a file the branch deleted and the user left empty,
// removed). It says why when it applied nothing.
func (r *Room) Saved(p approval.Pending, saved []byte) (applied bool, why string, err error) {
	mg := p.Merge
	if why = proposal.MarkersLeft(saved, p.Target, p.Change.Marks); why != "" {
		r.d.Notify("warn", why)
		return false, why, nil
	}
	stale, err := proposal.Stale(*p.Change, proposal.ReadFile)
	if err != nil {
		return false, "", fmt.Errorf("check %s on disk: %w", p.Target, err)
	}
	if stale {
		why = fmt.Sprintf("%s changed on disk since the merge proposed it: nothing applied; close it and run :ClaudeNova merge again", p.Target)
		r.d.Notify("warn", why)
		return false, why, nil
	}
	switch {
	case mg.Deleted && len(saved) == 0:
		if err := os.Remove(mg.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, "", fmt.Errorf("delete %s: %w", p.Target, err)
		}
	default:
		if err := os.MkdirAll(filepath.Dir(mg.Path), 0o755); err != nil {
			return false, "", fmt.Errorf("create the folder of %s: %w", p.Target, err)
		}
		perm := os.FileMode(0o644)
		if st, err := os.Stat(mg.Path); err == nil {
			perm = st.Mode().Perm()
		}
		if err := atomicfile.Write(mg.Path, saved, atomicfile.Options{Perm: perm}); err != nil {
			return false, "", err
		}
		r.mu.Lock()
		m := r.merges[p.Session]
		r.mu.Unlock()
		if m != nil && r.authors != nil {
			// Claude's lines stay Claude's in the checkout (blame, notes).
			src := filepath.Join(m.path, filepath.FromSlash(mg.Rel))
			if theirs, err := os.ReadFile(src); err == nil {
				r.authors.Adopt(mg.Path, string(p.Change.Original), string(saved), src, string(theirs), m.root)
			}
		}
	}
	r.settle(p.Session, p.ID, "applied", true)
	return true, "", nil
}

// Skip settles a merge proposal the user closed or denied: its file stays
// as it is in the checkout.
func (r *Room) Skip(p approval.Pending, outcome string) {
	r.settle(p.Session, p.ID, outcome, false)
}

// settle ends request id of session sid's merge; outcome "" when it was
// never presented.
func (r *Room) settle(sid int, id, outcome string, applied bool) {
	r.mu.Lock()
	m := r.merges[sid]
	var rel string
	if m != nil {
		rel = m.pending[id]
		delete(m.pending, id)
		if applied {
			m.applied = append(m.applied, rel)
		} else {
			m.skipped = append(m.skipped, rel)
		}
	}
	done := m != nil && len(m.pending) == 0
	r.mu.Unlock()
	if outcome != "" {
		r.reqs.Settle(id, outcome)
	}
	if done {
		if s, ok := r.d.Sessions.Get(sid); ok {
			r.finished(s, m)
		}
	}
}

// Offer is what the front end offers once every file of a merge is
// settled (ui.EvMergeDone): to remove the worktree and its branch, all the
// same when some files were kept (Kept: only in the worktree still), and
// stopping the session first when it still runs. Removed withdraws it.
type Offer struct {
	Session int      `json:"session"`
	Branch  string   `json:"branch"`
	Kept    []string `json:"kept"`
	Running bool     `json:"running"`
	Removed bool     `json:"removed,omitempty"`
}

// finished tells the user every file of the merge is settled, and offers
// to remove the worktree.
func (r *Room) finished(s *session.Session, m *run) {
	r.mu.Lock()
	applied, skipped, left := len(m.applied), append([]string(nil), m.skipped...), append([]string(nil), m.left...)
	r.mu.Unlock()
	sort.Strings(skipped)
	text := fmt.Sprintf("%s: %d file(s) applied, %d skipped.", m.branch, applied, len(skipped))
	line := m.branch + " merged: :ClaudeNova merge remove deletes it"
	if kept := append(skipped, left...); len(kept) > 0 {
		text += " Only in the worktree still: " + strings.Join(kept, ", ") + ". :ClaudeNova merge remove! removes the worktree and its branch all the same."
		line = fmt.Sprintf("%s: %d file(s) only there still (see the transcript)", m.branch, len(kept))
	} else {
		text += " :ClaudeNova merge remove removes the worktree and its branch."
	}
	r.d.Note(s, text)
	r.d.Notify("info", line)
	r.d.UI.Send(ui.EvMergeDone, Offer{Session: s.ID, Branch: m.branch, Kept: append(skipped, left...),
		Running: s.State() != session.StateExited})
}

// RemoveParams remove a merged session's worktree and its branch: Force
// even with work not brought over, Stop stopping the session first when it
// still runs. The answer comes later (a session takes a moment to stop).
type RemoveParams struct {
	desk.Later
	Force bool `json:"force"`
	Stop  bool `json:"stop"`
}

// RemoveLater is Remove as the front end asks for it (the offer's choice,
// :ClaudeNova merge remove): what refuses it is said at once; stopping the
// session and removing happen in the background.
func (r *Room) RemoveLater(p RemoveParams) error {
	s, err := r.d.Session(p.Session)
	if err != nil {
		return err
	}
	running := s.State() != session.StateExited
	if _, err := r.removable(s, p.Force, running && p.Stop); err != nil {
		return err
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		if running && p.Stop {
			if err := r.reqs.Stop(s.ID); err != nil {
				return nil, err
			}
			wait, cancel := context.WithTimeout(ctx, stopWait)
			defer cancel()
			for s.State() != session.StateExited {
				select {
				case <-wait.Done():
					return nil, fmt.Errorf("session %d did not stop in time: its worktree stays", s.ID)
				case <-time.After(50 * time.Millisecond):
				}
			}
		}
		return r.Remove(s.ID, p.Force)
	})
	return nil
}

// stopWait bounds how long a removal waits for the session it stopped to
// exit.
const stopWait = 10 * time.Second

// removable is the worktree of s when it may be removed, else why not;
// running says the session may still run (it is stopped first).
func (r *Room) removable(s *session.Session, force, running bool) (*session.Worktree, error) {
	wt := s.World.Worktree()
	if wt == nil || wt.Branch == "" {
		return nil, fmt.Errorf("session %d has no worktree", s.ID)
	}
	if !running && s.State() != session.StateExited {
		return nil, fmt.Errorf("session %d still runs in %s: stop it first (:ClaudeNova stop)", s.ID, wt.Branch)
	}
	r.mu.Lock()
	m := r.merges[s.ID]
	r.mu.Unlock()
	switch {
	case m == nil && !force:
		return nil, fmt.Errorf("%s was not merged: :ClaudeNova merge brings it over first (merge remove! removes it unmerged)", wt.Branch)
	case m != nil && len(m.pending) > 0:
		return nil, fmt.Errorf("%s is being merged: %d file(s) wait for :w or to be closed", wt.Branch, len(m.pending))
	case m != nil && (len(m.skipped) > 0 || len(m.left) > 0) && !force:
		return nil, fmt.Errorf("%s has work you did not bring over (%s): :ClaudeNova merge remove! removes it all the same",
			wt.Branch, strings.Join(append(append([]string(nil), m.skipped...), m.left...), ", "))
	}
	return wt, nil
}

// Remove removes session id's worktree and its branch once its merge is
// over; force says work not brought over may go with it.
func (r *Room) Remove(id int, force bool) (string, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return "", err
	}
	wt, err := r.removable(s, force, false)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := worktree.Remove(ctx, wt.Path, wt.Root, wt.Branch); err != nil {
		return "", err
	}
	r.mu.Lock()
	delete(r.merges, s.ID)
	r.mu.Unlock()
	s.World.CountWorktree(wt.Path, "", 0, 0, 0, true)
	r.d.Note(s, "Removed the worktree "+sanitize.Line(wt.Path)+" and its branch "+sanitize.Line(wt.Branch)+".")
	r.d.UI.Send(ui.EvMergeDone, Offer{Session: s.ID, Branch: wt.Branch, Removed: true})
	return "removed " + sanitize.Line(wt.Branch) + " and its worktree", nil
}

func (r *Room) unstage(ps []*approval.Pending) {
	for _, p := range ps {
		_ = proposal.Unstage(r.storage(), p.Staged)
	}
}
