package checkpoint

import (
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// A rewind restores what *this* session changed since a prompt, and
// nothing else. Each file the session changed since then is put back as
// it was before its first change by the session, except where someone
// else (another session, the user) changed it after the session: their
// change is carried onto the restored file, as a three-way merge does
// (base: what the session left; ours: the file now; theirs: the file before
// the session's changes). Where the session's own lines were changed again
// by someone else, keeping their change is the default, and those places
// are named; restoring them too is the user's explicit choice.

// FilePlan is what a rewind does to one file.
type FilePlan struct {
	Path string
	// Before is the file before the session's first change since the
	// prompt: what a plain restore writes.
	Before Before
	// Now is the file on disk now (Exists false: it is gone).
	Now       string
	NowExists bool
	// Result is what the rewind writes when it keeps others' changes;
	// ResultExists false removes the file.
	Result       string
	ResultExists bool
	// Others says someone changed the file after the session's last change.
	Others bool
	// Kept are the places (lines of Result, 1-based) where a later change
	// by someone else sits on the session's own lines and was kept.
	Kept []diff.Kept
	// Untracked says the host does not know what the session left of the
	// file (its change came before this process: a resumed session), so
	// others' later changes cannot be told apart: only a plain restore
	// (claude's own rewind) is possible.
	Untracked bool
}

// Restores reports whether keeping others' changes still changes the file.
func (p FilePlan) Restores() bool {
	return p.ResultExists != p.NowExists || p.Result != p.Now
}

// PlanRewind plans the rewind of the files a session changed since a
// prompt (Since), given what it left of each and how each is now.
func PlanRewind(files []FileBefore, left func(path string) (Left, bool), now func(path string) (content string, exists bool, err error)) ([]FilePlan, error) {
	out := make([]FilePlan, 0, len(files))
	for _, f := range files {
		cur, exists, err := now(f.Path)
		if err != nil {
			return nil, err
		}
		p := FilePlan{Path: f.Path, Before: f.Before, Now: cur, NowExists: exists}
		lf, ok := left(f.Path)
		switch {
		case !ok:
			p.Untracked = true
			p.Result, p.ResultExists = f.Content, f.Existed
		case lf.Exists == exists && lf.Content == cur:
			// Nobody changed it since the session: a plain restore.
			p.Result, p.ResultExists = f.Content, f.Existed
		default:
			p.Others = true
			switch {
			case !exists:
				// Someone removed it after the session: it stays removed.
				p.ResultExists = false
			case !f.Existed && !lf.Exists:
				p.Result, p.ResultExists = cur, true
			case !f.Existed:
				// The session created it and someone changed it since:
				// the file stays, with their change and without the
				// session's lines where theirs do not sit on them.
				p.Result, p.Kept = diff.Merge3Ours(lf.Content, cur, "")
				p.ResultExists = true
			default:
				p.Result, p.Kept = diff.Merge3Ours(lf.Content, cur, f.Content)
				p.ResultExists = true
			}
		}
		out = append(out, p)
	}
	return out, nil
}
