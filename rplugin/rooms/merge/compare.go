package merge

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Compared is one branch of a comparison: whose it is and what it changed.
type Compared struct {
	BranchView
	Name    string `json:"name"` // the session's name (its first prompt)
	State   string `json:"state"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

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
		if wt == nil || wt.Branch == "" || filepath.Clean(wt.Root) != filepath.Clean(root) {
			continue
		}
		b, err := r.Changes(s.ID)
		if err != nil {
			// Nothing changed yet, or its worktree is gone: listed, empty.
			b = BranchView{Session: s.ID, Branch: wt.Branch, Base: wt.Base}
		}
		c := Compared{BranchView: b, Name: sanitize.FirstLine(s.Name(), 60), State: s.State()}
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
	if len(v.Branches) < 2 {
		return v, errors.New("compare needs two worktree sessions of this repository (:ClaudeNova new --worktree --count=2 {prompt})")
	}
	sort.Slice(v.Branches, func(i, j int) bool { return v.Branches[i].Session < v.Branches[j].Session })
	sort.Strings(v.Paths)
	return v, nil
}
