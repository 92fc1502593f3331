package merge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// Worktrees outlive their sessions: claude leaves .claude/worktrees/NAME
// and its branch when the session ends, and a restart of the editor
// forgets the session. Here they are listed from git itself, whatever runs,
// and one is brought back (as a session no claude runs for) to be merged
// or removed without resuming it.

// Leftover is a worktree the plugin made for a repository.
type Leftover struct {
	Path    string `json:"path"`
	Branch  string `json:"branch"`
	Base    string `json:"base"`
	Session int    `json:"session"` // the session that works there now (0: none)
	Merged  bool   `json:"merged"`  // a merge of it was settled, file by file
	Files   int    `json:"files"`   // what it changed since Base
	Gone    bool   `json:"gone,omitempty"`
	Error   string `json:"error,omitempty"` // why it could not be read
}

// ListParams ask for the worktrees of the repository holding Cwd.
type ListParams struct {
	desk.ReplyTo
	Cwd string `json:"cwd"`
}

// WorktreesLater answers Worktrees later: it runs git.
func (r *Room) WorktreesLater(p ListParams) error {
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) { return r.Worktrees(ctx, p.Cwd) })
	return nil
}

// Worktrees lists the worktrees under .claude/worktrees/ of the repository
// holding cwd, with the session working in each and whether it was merged.
func (r *Room) Worktrees(ctx context.Context, cwd string) ([]Leftover, error) {
	root, found, err := r.worktreesOf(ctx, cwd)
	if err != nil {
		return nil, err
	}
	rec, err := r.loadRecord(root)
	if err != nil {
		r.d.Log.Warn("merge state", "err", err)
	}
	out := []Leftover{}
	for _, l := range found {
		l.Session = r.sessionIn(l.Path)
		if br := rec.Branches[l.Branch]; br != nil && filepath.Clean(br.Path) == filepath.Clean(l.Path) {
			l.Merged = br.Merged
		}
		r.mu.Lock()
		if m := r.merges[l.Session]; l.Session != 0 && m != nil {
			l.Merged = m.merged && len(m.pending) == 0
		}
		r.mu.Unlock()
		if !l.Gone {
			if st, err := worktree.StatsOf(ctx, l.Path, root); err == nil {
				l.Base, l.Files = st.Base, st.Files
			} else {
				l.Error = sanitize.Line(err.Error())
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// repoOf is the top folder of the checkout holding cwd (a worktree's
// checkout when cwd is in one of ours).
func (r *Room) repoOf(ctx context.Context, cwd string) (string, error) {
	top, err := gitcmd.Run(ctx, cwd, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", errors.New("worktrees are those of a git repository; this folder is in none")
	}
	if filepath.Base(top) == ".git" {
		return filepath.Dir(top), nil
	}
	return gitcmd.Run(ctx, cwd, "rev-parse", "--show-toplevel")
}

// worktreesOf is the top folder of the repository holding cwd and the
// worktrees the plugin made for it.
func (r *Room) worktreesOf(ctx context.Context, cwd string) (string, []Leftover, error) {
	root, err := r.repoOf(ctx, cwd)
	if err != nil {
		return "", nil, err
	}
	found, err := listWorktrees(ctx, root)
	return root, found, err
}

// listWorktrees reads git worktree list --porcelain for those under
// root/.claude/worktrees/.
func listWorktrees(ctx context.Context, root string) ([]Leftover, error) {
	out, err := gitcmd.Bytes(ctx, root, nil, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	under := filepath.Join(root, ".claude", "worktrees") + string(filepath.Separator)
	var list []Leftover
	var cur *Leftover
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "worktree "):
			list = append(list, Leftover{Path: strings.TrimPrefix(line, "worktree ")})
			cur = &list[len(list)-1]
		case cur != nil && strings.HasPrefix(line, "branch refs/heads/"):
			cur.Branch = strings.TrimPrefix(line, "branch refs/heads/")
		case cur != nil && strings.HasPrefix(line, "prunable"):
			cur.Gone = true
		}
	}
	var mine []Leftover
	for _, l := range list {
		if strings.HasPrefix(l.Path, under) && l.Branch != "" {
			mine = append(mine, l)
		}
	}
	return mine, nil
}

// sessionIn is the session whose worktree is path (the newest; 0: none).
func (r *Room) sessionIn(path string) int {
	id := 0
	for _, s := range r.d.Sessions.All() {
		if wt := s.World.Worktree(); wt != nil && filepath.Clean(wt.Path) == filepath.Clean(path) && !wt.Gone {
			id = s.ID
		}
	}
	return id
}

// BranchParams start the merge of a worktree's branch by its name, with or
// without a session (see StartParams).
type BranchParams struct {
	StartParams
	Branch string `json:"branch"`
	Cwd    string `json:"cwd"`
}

// MergeBranchLater merges branch (worktree-NAME, or NAME) of the repository
// holding p.Cwd: through the session that works there, else through a
// session brought back for it, no claude running (its transcript says what
// the merge did). The summary comes as the reply.
func (r *Room) MergeBranchLater(p BranchParams) error {
	if strings.TrimSpace(p.Branch) == "" {
		return errors.New("merge {branch}: name the worktree's branch (:ClaudeNova worktrees lists them)")
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		s, err := r.SessionFor(ctx, p.Cwd, p.Branch)
		if err != nil {
			return nil, err
		}
		unsaved := map[string][]byte{}
		for _, u := range p.Unsaved {
			unsaved[filepath.Clean(u.Path)] = []byte(u.Text)
		}
		return r.startApply(ctx, s.ID, unsaved, p.Apply)
	})
	return nil
}

// SessionFor is the session of branch's worktree in the repository holding
// cwd, brought back (no claude) when none has it.
func (r *Room) SessionFor(ctx context.Context, cwd, branch string) (*session.Session, error) {
	root, found, err := r.worktreesOf(ctx, cwd)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range found {
		names = append(names, l.Branch)
		if l.Branch != branch && l.Branch != "worktree-"+branch {
			continue
		}
		if id := r.sessionIn(l.Path); id != 0 {
			if s, ok := r.d.Sessions.Get(id); ok {
				return s, nil
			}
		}
		return r.bringBack(ctx, root, l)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no worktree named %s: this repository has none of claude's", sanitize.Line(branch))
	}
	return nil, fmt.Errorf("no worktree named %s (there are: %s)", sanitize.Line(branch), sanitize.Line(strings.Join(names, ", ")))
}

// bringBack adds a session for worktree l whose own session is gone: no
// claude runs for it (it has exited); it can be merged, removed, resumed.
func (r *Room) bringBack(ctx context.Context, root string, l Leftover) (*session.Session, error) {
	if err := worktree.Verify(ctx, l.Path, root, l.Branch); err != nil {
		return nil, err
	}
	prev, hadCurrent := r.d.Sessions.Current()
	s, err := r.d.Sessions.Add(func(id int) (*session.Session, error) {
		s := session.New(id, l.Path, "", claude.NewEnded())
		s.SetTitle(l.Branch + " (left from an earlier session)")
		s.World.SetWorktree(&world.Worktree{Path: l.Path, Branch: l.Branch, Root: root,
			Shown: filepath.ToSlash(filepath.Join(".claude", "worktrees", filepath.Base(l.Path)))})
		s.Exited("")
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	if hadCurrent {
		r.d.Sessions.Select(prev.ID) // brought back, not chosen
	}
	r.d.UI.Send(ui.EvSession, s)
	r.d.UI.Send(ui.EvWorld, s.LiveWorld())
	r.d.Note(s, "Brought back "+sanitize.Line(l.Branch)+" ("+sanitize.Line(l.Path)+"), left from an earlier session: no claude runs for it.")
	return s, nil
}
