package merge

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
)

// File is one proposal of a merge as the files view lists it.
type File struct {
	ID        string `json:"id"` // the pending request's
	Rel       string `json:"rel"`
	Path      string `json:"path"`
	Added     int    `json:"added"`
	Removed   int    `json:"removed"`
	Conflicts bool   `json:"conflicts"`
	New       bool   `json:"new"`
	Deleted   bool   `json:"deleted"`
}

// fileOf is proposal p as the files view lists it.
func fileOf(p *approval.Pending, conflicted bool) File {
	return File{ID: p.ID, Rel: p.Merge.Rel, Path: p.Merge.Path, Added: p.Added, Removed: p.Removed,
		Conflicts: conflicted, New: !p.Change.Exists, Deleted: p.Merge.Deleted}
}

// Result is what "apply all clean files" did: the files it applied, those
// that stay proposals (a conflict, a buffer of the proposal with edits not
// saved, one that changed on disk meanwhile), and those the merge does not
// bring over (closed by the user, or not text: binary, a link, large).
type Result struct {
	Applied   []string `json:"applied"`
	Proposals []string `json:"proposals"`
	Skipped   []string `json:"skipped"`
	Message   string   `json:"message"`
}

// ApplyParams apply every clean file of session Session's merge; Except
// are proposals the user is editing (their buffers have unsaved edits):
// they stay proposals.
type ApplyParams struct {
	desk.ReplyTo
	Session int      `json:"session"`
	Except  []string `json:"except"`
}

// ApplyLater is ApplyClean as the front end asks for it: a merge that does
// not wait is said at once; the files are written in the background and
// the result comes as the reply.
func (r *Room) ApplyLater(p ApplyParams) error {
	s, wt, err := r.worktreeOf(p.Session)
	if err != nil {
		return err
	}
	r.mu.Lock()
	m := r.merges[s.ID]
	waiting := m != nil && len(m.pending) > 0
	r.mu.Unlock()
	if !waiting {
		return fmt.Errorf("%s: no file of a merge waits (:ClaudeNova merge starts one)", wt.Branch)
	}
	except := map[string]bool{}
	for _, id := range p.Except {
		except[id] = true
	}
	r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) { return r.ApplyClean(s.ID, except) })
	return nil
}

// startApply is start, then ApplyClean when apply is "clean".
func (r *Room) startApply(ctx context.Context, id int, unsaved map[string][]byte, apply string) (Summary, error) {
	switch apply {
	case "", "clean":
	default:
		return Summary{}, fmt.Errorf("merge: apply takes \"clean\", got %q", apply)
	}
	sum, err := r.start(ctx, id, unsaved)
	if err != nil || apply == "" {
		return sum, err
	}
	if sum.Proposed == 0 {
		// Nothing to apply: the lists say so (the left files skipped).
		sum.Applied, sum.Proposals, sum.Skipped = []string{}, []string{}, append([]string{}, sum.Left...)
		return sum, nil
	}
	res, err := r.ApplyClean(sum.Session, nil)
	if err != nil {
		return sum, err
	}
	sum.Applied, sum.Proposals, sum.Skipped, sum.Message = res.Applied, res.Proposals, res.Skipped, res.Message
	return sum, nil
}

// ApplyClean applies every pending file of session sid's merge that has no
// conflict, each as :w of its proposal does (Saved: written, its buffers
// follow, the session's round and blame have it); the others stay
// proposals. What it applied, left and skipped is said (the transcript and
// a message) before the merge's end is: the offer to remove comes after.
func (r *Room) ApplyClean(sid int, except map[string]bool) (Result, error) {
	s, wt, err := r.worktreeOf(sid)
	if err != nil {
		return Result{}, err
	}
	r.mu.Lock()
	m := r.merges[s.ID]
	if m == nil || len(m.pending) == 0 {
		r.mu.Unlock()
		return Result{}, fmt.Errorf("%s: no file of a merge waits (:ClaudeNova merge starts one)", wt.Branch)
	}
	res := Result{Applied: []string{}, Proposals: []string{}, Skipped: append(append([]string{}, m.skipped...), m.left...)}
	ids := make([]string, 0, len(m.pending))
	for id := range m.pending {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return m.pending[ids[i]] < m.pending[ids[j]] })
	var todo []approval.Pending
	var left []string // the proposals, each with why it stays one
	for _, id := range ids {
		p, ok := m.props[id]
		switch {
		case !ok || m.conflicted[id]:
			left = append(left, m.pending[id]+" (conflicts)")
		case except[id]:
			left = append(left, m.pending[id]+" (you are editing it)")
		default:
			todo = append(todo, p)
			continue
		}
		res.Proposals = append(res.Proposals, m.pending[id])
	}
	m.batch = true
	r.mu.Unlock()
	var whys []string
	for _, p := range todo {
		applied, why, err := file{r}.Saved(p) // the path of :w
		switch {
		case err != nil:
			whys = append(whys, p.Merge.Rel+": "+err.Error())
			res.Proposals = append(res.Proposals, p.Merge.Rel)
			left = append(left, p.Merge.Rel+" (not written: see the transcript)")
		case applied:
			res.Applied = append(res.Applied, p.Merge.Rel)
		case why == approval.ErrNotPending.Error():
			// Settled meanwhile (closed, saved): not this batch's.
		default:
			whys = append(whys, why)
			res.Proposals = append(res.Proposals, p.Merge.Rel)
			left = append(left, p.Merge.Rel+" (changed on disk)")
		}
	}
	sort.Strings(res.Proposals)
	sort.Strings(res.Skipped)
	r.mu.Lock()
	m.batch = false
	done := r.merges[s.ID] == m && len(m.pending) == 0
	r.mu.Unlock()
	res.Message = applyMessage(wt.Branch, res, left)
	note := res.Message
	if len(whys) > 0 {
		note += " (" + strings.Join(whys, "; ") + ")"
	}
	r.d.Note(s, "Applied every clean file: "+note)
	r.d.Notify("info", res.Message)
	if done {
		r.finished(s, m)
	}
	return res, nil
}

// applyMessage says what "apply all clean files" did, on one line.
func applyMessage(branch string, res Result, left []string) string {
	parts := []string{"applied nothing"}
	if len(res.Applied) > 0 {
		parts[0] = "applied " + names(res.Applied)
	}
	switch len(left) {
	case 0:
	case 1:
		parts = append(parts, "still a proposal: "+names(left))
	default:
		parts = append(parts, "still proposals: "+names(left))
	}
	if len(res.Skipped) > 0 {
		parts = append(parts, "not brought over: "+names(res.Skipped))
	}
	return branch + ": " + strings.Join(parts, "; ")
}
