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
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/landing"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
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
// file's lines keep the authors they had in the worktree, and the file
// joins the session's review round (rooms/rounds).
type Authorship interface {
	Adopt(dst, before, after, src, srcText, root string)
	Merged(s *session.Session, path string, orig *string)
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

// run is the merges of a session's branch: the one under way, and what
// every merge so far showed the user (what a removal checks against).
type run struct {
	branch, path, root string
	pending            map[string]string // request id -> file (rel)
	applied, skipped   []string
	left               []string // not proposed: binary files, links (still only in the worktree)
	// seen is each worktree file's version a merge showed the user and
	// whether they applied it; named the files they were told exist only
	// in the worktree. Kept across merges of the branch.
	seen  map[string]worktree.Seen
	named map[string]bool
	// versions are the worktree's files as this merge proposed them (by
	// request id): applying one marks that version seen and applied.
	versions map[string]worktree.Version
	merged   bool // a merge's every file was settled
	// props are the proposals still pending (by request id), as the
	// files view and "apply all clean files" take them; conflicted those
	// with conflicts (markers, or deleted by the branch and changed here).
	props      map[string]approval.Pending
	conflicted map[string]bool
	// batch holds the end of the merge back while "apply all clean files"
	// runs: what it applied is listed before the offer to remove.
	batch bool
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
	Session   int      `json:"session"`
	Branch    string   `json:"branch"`
	Proposed  int      `json:"proposed"`
	Conflicts int      `json:"conflicts"` // proposals with conflict markers
	Same      int      `json:"same"`      // files the checkout has as the branch does
	Left      []string `json:"left"`      // files not proposed (binary, links): named
	Message   string   `json:"message"`   // on one line
	Details   string   `json:"details"`   // the whole story (the transcript has it)
	Files     []File   `json:"files"`     // the proposals, for the files view
	// With apply "clean": what ApplyClean did (Result's lists).
	Applied   []string `json:"applied,omitempty"`
	Proposals []string `json:"proposals,omitempty"`
	Skipped   []string `json:"skipped,omitempty"`
}

// StartParams start a merge of a session's branch: Unsaved are the
// checkout's buffers with edits not written yet, taken as the checkout's
// side of their files (what the user sees, not what is on disk).
type StartParams struct {
	desk.ReplyTo
	Session int       `json:"session"`
	Unsaved []Unsaved `json:"unsaved"`
	// Apply "clean" applies every file without a conflict at once (as
	// ApplyClean does); "" proposes them all.
	Apply string `json:"apply"`
}

// Unsaved is a buffer's text as :w would write it.
type Unsaved struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// StartLater is Start as the front end asks for it: what refuses it is
// said at once, from memory; reading the branch (git, the disk) happens in
// the background and the summary comes as the reply.
func (r *Room) StartLater(p StartParams) error {
	s, wt, err := r.worktreeOf(p.Session)
	if err != nil {
		return err
	}
	if err := r.notBusy(s.ID, wt.Branch); err != nil {
		return err
	}
	unsaved := map[string][]byte{}
	for _, u := range p.Unsaved {
		unsaved[filepath.Clean(u.Path)] = []byte(u.Text)
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) { return r.startApply(ctx, s.ID, unsaved, p.Apply) })
	return nil
}

// Start proposes every file session id's worktree changed.
func (r *Room) Start(id int) (Summary, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return r.start(ctx, id, nil)
}

// notBusy refuses a second merge of a branch while files of the first wait.
func (r *Room) notBusy(sid int, branch string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.merges[sid]; m != nil && len(m.pending) > 0 {
		return fmt.Errorf("%s is being merged: %d file(s) wait for :w or to be closed", branch, len(m.pending))
	}
	return nil
}

// maxIgnored bounds the ignored files a merge proposes one by one; more
// are named, not proposed.
const maxIgnored = 20

func (r *Room) start(ctx context.Context, id int, unsaved map[string][]byte) (Summary, error) {
	s, wt, err := r.worktreeOf(id)
	if err != nil {
		return Summary{}, err
	}
	if err := r.notBusy(s.ID, wt.Branch); err != nil {
		return Summary{}, err
	}
	br, err := worktree.ChangesOf(ctx, wt.Path, wt.Root, wt.Branch)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Session: s.ID, Branch: wt.Branch, Files: []File{}}
	var props []*approval.Pending
	var tookUnsaved, left []string
	pending, versions := map[string]string{}, map[string]worktree.Version{}
	pendings, conflicted := map[string]approval.Pending{}, map[string]bool{}
	seen := map[string]worktree.Seen{} // what this merge shows, besides its proposals
	ignored := 0
	for i, c := range br.Changes {
		v := worktree.VersionOfChange(c, wt.Path)
		if c.Ignored && !c.Dir && !c.Binary && !c.Large && !c.Symlink {
			ignored++
		}
		if c.Binary || c.Symlink || c.Large || c.Dir || (c.Ignored && ignored > maxIgnored) {
			left = append(left, c.Path)
			seen[c.Path] = worktree.Seen{Version: v} // named in the summary
			continue
		}
		p, conflicts, same, err := r.proposal(s, br.Top, wt.Branch, i, c, unsaved)
		if err != nil {
			r.unstage(props)
			return Summary{}, err
		}
		if same {
			sum.Same++
			seen[c.Path] = worktree.Seen{Version: v, Applied: true}
			continue
		}
		if conflicts {
			sum.Conflicts++
		}
		if p.Merge.Unsaved {
			tookUnsaved = append(tookUnsaved, c.Path)
		}
		props = append(props, p)
		pending[p.ID] = c.Path
		pendings[p.ID] = *p
		// Deleted by the branch and changed here: the user's lines are
		// proposed, which is a conflict a save cannot settle by itself.
		conflicted[p.ID] = conflicts || (p.Merge.Deleted && len(p.Change.Proposed) > 0)
		sum.Files = append(sum.Files, fileOf(p, conflicted[p.ID]))
		versions[p.ID] = v // seen once settled: a proposal left open (the host killed) was decided by no one
	}
	r.mu.Lock()
	m := r.runOf(s.ID, wt.Path, wt.Root, wt.Branch)
	m.pending, m.versions, m.left = pending, versions, left
	m.props, m.conflicted = pendings, conflicted
	m.applied, m.skipped = nil, nil
	for p, v := range seen {
		m.seen[p] = v
	}
	r.mu.Unlock()
	sum.Proposed, sum.Left = len(props), left
	sum.Message, sum.Details = short(sum), message(sum)
	r.d.Note(s, "Merging "+wt.Branch+" into your checkout: "+sum.Details)
	for _, rel := range tookUnsaved {
		r.d.Notify("info", rel+": the merge takes your unsaved edits as your side (:w writes them with the branch's changes)")
	}
	for _, p := range props {
		if !r.reqs.Propose(p) {
			r.settle(p.Session, p.ID, "", false)
		}
	}
	if len(props) == 0 {
		r.mu.Lock()
		m.merged = true
		r.save(m, false)
		r.mu.Unlock()
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
		s += fmt.Sprintf(", %d left (not text)", len(sum.Left))
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
		parts = append(parts, "not brought over (binary, large, a link or an ignored folder; copy it yourself): "+names(sum.Left))
	}
	return strings.Join(parts, "; ")
}

// proposal stages change c (the i-th of the branch) as a proposal for the
// checkout at top: its side is the user's unsaved buffer when there is one
// (unsaved, by path). same says the checkout has it already, mode included.
func (r *Room) proposal(s *session.Session, top, branch string, i int, c worktree.Change, unsaved map[string][]byte) (p *approval.Pending, conflicts, same bool, err error) {
	path := filepath.Join(top, filepath.FromSlash(c.Path))
	disk, rerr := proposal.ReadFile(path)
	exists := rerr == nil
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return nil, false, false, fmt.Errorf("read %s: %w", c.Path, rerr)
	}
	ours := disk
	buf, fromBuffer := unsaved[filepath.Clean(path)]
	if fromBuffer {
		ours, exists = buf, true
	}
	oursMode := worktree.ModeOf(path)
	// The mode, three ways: the branch's when the checkout kept the base's.
	mode := oursMode
	if c.Mode != 0 && (!exists || oursMode == c.BaseMode || oursMode == 0) {
		mode = c.Mode
	}
	var proposed []byte
	var marks []int
	var mk *proposal.Marks
	tool := "Merge"
	switch {
	case c.Status == "deleted":
		if !exists {
			return nil, false, true, nil
		}
		proposed = nil
		tool = "Merge (deleted)"
		if !bytes.Equal(ours, c.Base) {
			// Deleted in the branch, changed here: the user's lines are
			// shown; saving it empty deletes it.
			proposed = ours
		}
	case exists && bytes.Equal(ours, c.Theirs) && mode == oursMode:
		return nil, false, true, nil
	case exists && bytes.Equal(ours, c.Theirs):
		proposed = ours // the mode alone: a proposal of its own
	case !exists || bytes.Equal(ours, c.Base):
		proposed = c.Theirs
	default:
		res := diff.Merge3(string(c.Base), string(ours), string(c.Theirs), labels(branch))
		proposed, marks, mk = []byte(res.Text), res.Conflicts, proposal.MarksOf(res, labels(branch))
	}
	if c.Status != "deleted" && mode != oursMode && oursMode != 0 {
		tool = fmt.Sprintf("Merge (mode %o → %o)", oursMode, mode)
	} else if c.Status != "deleted" && mode == 0o755 && !exists {
		tool = "Merge (executable)"
	}
	if c.Ignored {
		tool += " · ignored by git"
	}
	reqID := fmt.Sprintf("merge-%s-%d-%s", strings.TrimPrefix(branch, "worktree-"), i+1, proposal.Token()) // one of its own: another repository's worktree may have this name
	staged, err := proposal.Stage(r.storage(), reqID, path, proposed)
	if err != nil {
		return nil, false, false, fmt.Errorf("stage %s: %w", c.Path, err)
	}
	input, _ := json.Marshal(map[string]string{"file_path": path})
	change := &proposal.Change{Path: path, Exists: exists, Original: ours, Proposed: proposed, Marks: mk}
	added, removed := diff.Stat(string(ours), string(proposed))
	p = &approval.Pending{
		ID: approval.Key(s.ID, reqID), Session: s.ID, Kind: file{r}, Arrived: time.Now(),
		Perm:   claude.PermissionRequest{RequestID: reqID, ToolName: tool, Input: input, In: toolcall.Decode(input)},
		Route:  approval.Route{Surface: approval.SurfaceProposal},
		Target: sanitize.Line(c.Path), Added: added, Removed: removed,
		Change: change, Staged: staged, StageKey: reqID, Conflicts: marks,
		Merge: &approval.Merge{Branch: branch, Path: path, Rel: c.Path, Deleted: c.Status == "deleted", Mode: mode,
			Unsaved: fromBuffer, Disk: disk, DiskExists: rerr == nil},
	}
	return p, len(marks) > 0, false, nil
}

// Saved applies a merge proposal with what the user saved: the file is
// written (or, for a file the branch deleted and the user left empty,
// removed), its buffers follow, and Claude's lines stay Claude's. It says
// why when it applied nothing.
func (r *Room) Saved(p approval.Pending, saved []byte) (applied bool, why string, err error) {
	mg := p.Merge
	if why = proposal.MarkersLeft(saved, p.Target, p.Change.Marks); why != "" {
		r.d.Notify("warn", why)
		return false, why, nil
	}
	onDisk := *p.Change
	if mg.Unsaved {
		onDisk.Original, onDisk.Exists = mg.Disk, mg.DiskExists
	}
	stale, err := proposal.Stale(onDisk, proposal.ReadFile)
	if err != nil {
		return false, "", fmt.Errorf("check %s on disk: %w", p.Target, err)
	}
	if stale {
		why = fmt.Sprintf("%s changed on disk since the merge proposed it: nothing applied; close it and run :ClaudeNova merge again", p.Target)
		r.d.Notify("warn", why)
		return false, why, nil
	}
	r.mu.Lock()
	m := r.merges[p.Session]
	_, pending := m.pendingID(p.ID)
	r.mu.Unlock()
	if !pending {
		// Skipped meanwhile (or applied): answered once, nothing written.
		return false, approval.ErrNotPending.Error(), nil
	}
	root := ""
	if m != nil {
		root = m.root
	}
	f := landing.File{Path: mg.Path, Content: saved, Mode: mg.Mode, Root: root, Remove: mg.Deleted && len(saved) == 0}
	if err := landing.Write(f); err != nil {
		return false, "", err
	}
	r.d.Landed(mg.Path, mg.Unsaved)
	if s, ok := r.d.Sessions.Get(p.Session); ok {
		// The session's change, as any applied proposal's: its checkpoint
		// log knows what it left, its round lists the file.
		s.Turns.Landed(mg.Path, string(saved), !f.Remove)
		if r.authors != nil {
			var orig *string
			if onDisk.Exists {
				o := string(onDisk.Original)
				orig = &o
			}
			r.authors.Merged(s, mg.Path, orig)
		}
	}
	if m != nil && r.authors != nil && !f.Remove {
		// Claude's lines stay Claude's in the checkout (blame, notes).
		src := filepath.Join(m.path, filepath.FromSlash(mg.Rel))
		if theirs, err := os.ReadFile(src); err == nil {
			r.authors.Adopt(mg.Path, string(p.Change.Original), string(saved), src, string(theirs), m.root)
		}
	}
	r.settle(p.Session, p.ID, "applied", true)
	return true, "", nil
}

// pendingID reports whether request id of the merge is still to settle
// (a merge gone: it is not).
func (m *run) pendingID(id string) (string, bool) {
	if m == nil {
		return "", false
	}
	rel, ok := m.pending[id]
	return rel, ok
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
		var ok bool
		if rel, ok = m.pending[id]; !ok {
			// Settled already (a save and a skip raced: Neovim exiting as
			// a save applies): the first one counts, once.
			r.mu.Unlock()
			return
		}
		delete(m.pending, id)
		delete(m.props, id)
		if v, ok := m.versions[id]; ok {
			m.seen[rel] = worktree.Seen{Version: v, Applied: applied}
			delete(m.versions, id)
		}
		if applied {
			m.applied = append(m.applied, rel)
		} else {
			m.skipped = append(m.skipped, rel)
		}
		if len(m.pending) == 0 {
			m.merged = true
		}
		r.save(m, false)
	}
	done := m != nil && len(m.pending) == 0 && !m.batch
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
	// Short enough for one line at 60 columns: what to do next is the offer
	// that follows (keep or remove) and the transcript's note.
	line := m.branch + " merged, every file settled"
	if kept := append(skipped, left...); len(kept) > 0 {
		text += " Only in the worktree still: " + names(kept) + ". :ClaudeNova merge remove! removes the worktree and its branch all the same."
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
	// Named are the files the question the user answered named as lost
	// (a discard's, the offer's): a force may delete those, no other.
	Named []string `json:"named"`
	// Branch names the worktree instead of Session (its session may be
	// gone: one is brought back for it), in the repository holding Cwd.
	Branch string `json:"branch"`
	Cwd    string `json:"cwd"`
}

// RemoveLater is Remove as the front end asks for it (the offer's choice,
// :ClaudeNova merge remove): what refuses it is said at once; stopping the
// session and removing happen in the background.
func (r *Room) RemoveLater(p RemoveParams) error {
	if p.Branch != "" {
		r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
			s, err := r.SessionFor(ctx, p.Cwd, p.Branch)
			if err != nil {
				return nil, err
			}
			running := s.State() != session.StateExited
			if _, err := r.removable(s, running && p.Stop); err != nil {
				return nil, err
			}
			return r.stopThenRemove(ctx, s, running && p.Stop, p)
		})
		return nil
	}
	s, err := r.d.Session(p.Session)
	if err != nil {
		return err
	}
	running := s.State() != session.StateExited
	if _, err := r.removable(s, running && p.Stop); err != nil {
		return err
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		return r.stopThenRemove(ctx, s, running && p.Stop, p)
	})
	return nil
}

// stopThenRemove stops s first when stop says so (and waits until it
// exited), then removes its worktree as p asks.
func (r *Room) stopThenRemove(ctx context.Context, s *session.Session, stop bool, p RemoveParams) (any, error) {
	if stop {
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
	return r.remove(ctx, s.ID, p.Force, p.Named)
}

// stopWait bounds how long a removal waits for the session it stopped to
// exit.
const stopWait = 10 * time.Second

// removable is the worktree of s when it may be removed as far as memory
// tells (a removal then reads the worktree itself: Remove), else why not;
// running says the session may still run (it is stopped first).
func (r *Room) removable(s *session.Session, running bool) (*world.Worktree, error) {
	wt := s.World.Worktree()
	if wt == nil || wt.Branch == "" {
		return nil, fmt.Errorf("session %d has no worktree", s.ID)
	}
	if !running && s.State() != session.StateExited {
		return nil, fmt.Errorf("session %d still runs in %s: stop it first (:ClaudeNova stop)", s.ID, wt.Branch)
	}
	if err := r.notBusy(s.ID, wt.Branch); err != nil {
		return nil, err
	}
	return wt, nil
}

// Remove removes session id's worktree and its branch, once the session
// stopped, when that loses nothing the user has not seen: the worktree is
// read again now (commits, uncommitted, untracked and ignored files, modes)
// and every file that exists only there is named. Without force it is
// removed only when no such file is left; with force (the user's "remove
// all the same") only when each of them was named to the user before. A
// refusal names them (a later force may then remove them).
func (r *Room) Remove(id int, force bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return r.remove(ctx, id, force, nil)
}

// remove is Remove, named holding files the user was just shown as lost.
func (r *Room) remove(ctx context.Context, id int, force bool, named []string) (string, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return "", err
	}
	wt, err := r.removable(s, false)
	if err != nil {
		return "", err
	}
	br, err := worktree.ChangesOf(ctx, wt.Path, wt.Root, wt.Branch)
	if err != nil {
		return "", fmt.Errorf("%s: nothing removed: %w", wt.Branch, err)
	}
	entries := worktree.Entries(br, wt.Path) // reads the checkout: not under the room's lock
	r.mu.Lock()
	m := r.runOf(s.ID, wt.Path, wt.Root, wt.Branch)
	for _, f := range named {
		m.named[f] = true
	}
	d := worktree.Decide(entries, m.seen, m.named)
	if !d.May(force) {
		// Told now: a "remove all the same" may take them from here on.
		for _, f := range d.Lost {
			m.named[f] = true
		}
		r.save(m, false)
	}
	merged := len(m.seen) > 0
	r.mu.Unlock()
	if !d.May(force) {
		what := fmt.Sprintf("%s: nothing removed: %s only in its worktree: %s", wt.Branch,
			desk.Plural(len(d.Lost), "file"), names(d.Lost))
		switch {
		case len(d.Unnamed) > 0 && merged:
			what += fmt.Sprintf(" (%s since you merged it or never shown: %s)", desk.Plural(len(d.Unnamed), "file"), names(d.Unnamed))
		case !merged:
			what += " (not merged yet)"
		}
		r.d.Note(s, what+". :ClaudeNova merge brings them over; :ClaudeNova merge remove! removes them all the same.")
		return "", errors.New(what + ": :ClaudeNova merge brings them over, merge remove! deletes them")
	}
	if err := worktree.Remove(ctx, wt.Path, wt.Root, wt.Branch); err != nil {
		return "", err
	}
	r.mu.Lock()
	r.save(m, true)
	delete(r.merges, s.ID)
	r.mu.Unlock()
	s.World.CountWorktree(wt.Path, "", 0, 0, 0, true)
	note := "Removed the worktree " + sanitize.Line(wt.Path) + " and its branch " + sanitize.Line(wt.Branch) + "."
	if len(d.Lost) > 0 {
		note += " With it, as you chose: " + names(d.Lost) + "."
	}
	r.d.Note(s, note)
	r.d.UI.Send(ui.EvMergeDone, Offer{Session: s.ID, Branch: wt.Branch, Removed: true})
	return "removed " + sanitize.Line(wt.Branch) + " and its worktree", nil
}

// names lists files for a person: up to 8 by name, then how many more.
func names(files []string) string { return sanitize.List(files, 8) }

func (r *Room) unstage(ps []*approval.Pending) {
	for _, p := range ps {
		_ = proposal.Unstage(r.storage(), p.Staged)
	}
}
