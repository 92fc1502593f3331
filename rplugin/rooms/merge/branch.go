package merge

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// BranchView is a worktree session's branch read like a pull request:
// every file it changed since its base (commits and uncommitted work),
// from the base to the worktree now.
type BranchView struct {
	Session int                     `json:"session"`
	Branch  string                  `json:"branch"`
	Base    string                  `json:"base"`
	Files   []checkpoint.FileChange `json:"files"`
}

// worktreeOf is session id and its worktree (an error when it has none).
func (r *Room) worktreeOf(id int) (*session.Session, *world.Worktree, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return nil, nil, err
	}
	wt := s.World.Worktree()
	if wt == nil || wt.Branch == "" {
		return nil, nil, fmt.Errorf("session %d has no worktree (:ClaudeNova new --worktree)", s.ID)
	}
	return s, wt, nil
}

// Branch answers Changes later, in the background: diffing a branch of
// many files takes longer than a frame, and the editor waits for nothing
// meanwhile (the files view opens when the answer comes).
func (r *Room) Branch(p desk.Later) error {
	s, _, err := r.worktreeOf(p.Session)
	if err != nil {
		return err
	}
	r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) { return r.Changes(s.ID) })
	return nil
}

// Changes is the branch of session id as a pull request. A binary file or
// a link is listed with why it has no text.
func (r *Room) Changes(id int) (BranchView, error) {
	s, wt, err := r.worktreeOf(id)
	if err != nil {
		return BranchView{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	br, err := worktree.ChangesOf(ctx, wt.Path, wt.Root, wt.Branch)
	if err != nil {
		return BranchView{}, err
	}
	v := BranchView{Session: s.ID, Branch: wt.Branch, Base: br.Base, Files: []checkpoint.FileChange{}}
	for _, c := range br.Changes {
		fc := checkpoint.FileChange{Path: filepath.Join(wt.Path, filepath.FromSlash(c.Path)), Rel: c.Path,
			Before: string(c.Base), Existed: c.Status != "added", Exists: c.Status != "deleted",
			Hunks: []checkpoint.Hunk{}, Others: []checkpoint.Span{}}
		switch {
		case c.Binary:
			fc.Error = "a binary file: no text to show"
		case c.Symlink:
			fc.Error = "a link or a submodule: no text to show"
		case c.Dir:
			fc.Error = "a folder git ignores: not read"
		case c.Large:
			fc.Error = "a large file: not read"
		default:
			fc = fc.With(string(c.Theirs), c.Status != "deleted")
		}
		fc.Authors = make([]string, len(fc.Hunks))
		v.Files = append(v.Files, fc)
	}
	if len(v.Files) == 0 {
		return v, fmt.Errorf("%s has changed nothing since it started (%s)", wt.Branch, gitcmd.Short(br.Base))
	}
	return v, nil
}
