package merge

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Compared is one branch of a comparison: whose it is and what it changed.
type Compared struct {
	BranchView
	Name  string `json:"name"`            // the session's name (its first prompt)
	Label string `json:"label,omitempty"` // its attempt's label ("fix-login #2")
	State string `json:"state"`
	// Merge says the branch is being merged ("merging") or was ("merged").
	Merge   string `json:"merge,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// CompareParams ask for a comparison: of session Session's repository,
// else of the one holding Cwd. Refresh: an open comparison asks again (a
// branch was discarded or merged), and one branch or none is an answer.
type CompareParams struct {
	desk.Later
	Cwd     string `json:"cwd"`
	Refresh bool   `json:"refresh"`
}

// CompareLater answers Compare in the background: it runs git for every
// branch, and the editor waits for nothing meanwhile.
func (r *Room) CompareLater(p CompareParams) error {
	r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) {
		v, err := r.Compare(p.Session, p.Cwd)
		if err != nil && p.Refresh && errors.Is(err, errFewBranches) {
			return v, nil
		}
		return v, err
	})
	return nil
}

// errFewBranches says there are not two branches to compare.
var errFewBranches = errors.New("compare needs two worktree sessions of this repository (:ClaudeNova new --worktree --count=2 {prompt})")

// CompareView is the worktree sessions of one repository side by side
// (best of N: the same prompt, each in its own worktree), every file any
// of them changed in Paths.
type CompareView struct {
	Root     string     `json:"root"`
	Branches []Compared `json:"branches"`
	Paths    []string   `json:"paths"`
}

// Compare lays the worktree sessions of a repository side by side: the
// repository of session id's worktree, else the one holding cwd.
func (r *Room) Compare(id int, cwd string) (CompareView, error) {
	root := ""
	if s, err := r.d.Session(id); err == nil {
		if wt := s.World.Worktree(); wt != nil {
			root = wt.Root
		} else {
			cwd = s.Cwd()
		}
	}
	if root == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		top, err := gitcmd.Run(ctx, cwd, "rev-parse", "--show-toplevel")
		cancel()
		if err != nil {
			return CompareView{}, errors.New("compare lays side by side the worktree sessions of a git repository; this folder is in none")
		}
		root = top
	}
	v := CompareView{Root: root, Branches: []Compared{}, Paths: []string{}}
	seen := map[string]bool{}
	for _, s := range r.d.Sessions.All() {
		wt := s.World.Worktree()
		if wt == nil || wt.Branch == "" || wt.Gone || filepath.Clean(wt.Root) != filepath.Clean(root) {
			continue // no worktree, another repository's, or removed
		}
		b, err := r.Changes(s.ID)
		if err != nil {
			// Nothing changed yet, or its worktree is gone: listed, empty.
			b = BranchView{Session: s.ID, Branch: wt.Branch, Base: wt.Base}
		}
		c := Compared{BranchView: b, Name: sanitize.FirstLine(s.Name(), 60), Label: s.Label, State: s.State(), Merge: r.mergeState(s.ID)}
		for _, f := range b.Files {
			for _, h := range f.Hunks {
				c.Added, c.Removed = c.Added+h.Ins, c.Removed+h.Del
			}
			if !seen[f.Rel] {
				seen[f.Rel] = true
				v.Paths = append(v.Paths, f.Rel)
			}
		}
		v.Branches = append(v.Branches, c)
	}
	sort.Slice(v.Branches, func(i, j int) bool { return v.Branches[i].Session < v.Branches[j].Session })
	sort.Strings(v.Paths)
	if len(v.Branches) < 2 {
		return v, errFewBranches
	}
	return v, nil
}

// mergeState is "merging" while a merge of session id's branch waits for
// files to be settled, "merged" once none waits, "" when none ran.
func (r *Room) mergeState(id int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch m := r.merges[id]; {
	case m == nil || (len(m.pending) == 0 && !m.merged):
		return "" // never merged (a refused removal keeps what it named)
	case len(m.pending) > 0:
		return "merging"
	default:
		return "merged"
	}
}
