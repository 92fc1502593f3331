package merge

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// A branch whose worktree was removed (discarded, or merged and removed)
// leaves the comparison; each branch carries its attempt's label; with one
// branch left the comparison says it needs two (an open one, asking again,
// takes it as it is).
func TestCompareLeavesARemovedBranch(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n"})
	wt2 := filepath.Join(root, ".claude", "worktrees", "w2")
	git(t, root, "worktree", "add", "-q", "-b", "worktree-w2", wt2)
	write(t, filepath.Join(wt, "a.txt"), "one way\n")
	write(t, filepath.Join(wt2, "a.txt"), "another\n")
	mgr := session.NewManager()
	var ss []*session.Session
	for i, w := range []struct{ path, branch string }{{wt, "worktree-w"}, {wt2, "worktree-w2"}} {
		s, _ := mgr.Add(func(id int) (*session.Session, error) {
			s := session.New(id, w.path, "", nil)
			s.Label = "w #" + string(rune('1'+i))
			return s, nil
		})
		s.World.SetWorktree(&world.Worktree{Path: w.path, Branch: w.branch, Root: root})
		ss = append(ss, s)
	}
	r := New(desk.New(nowhere{}, mgr, nil), &asks{}, func() string { return t.TempDir() }, nil)
	v, err := r.Compare(0, root)
	if err != nil || len(v.Branches) != 2 || v.Branches[0].Label != "w #1" || v.Branches[1].Label != "w #2" {
		t.Fatalf("compare %+v %v", v, err)
	}
	ss[1].World.CountWorktree(wt2, "", 0, 0, 0, true) // removed
	v, err = r.Compare(0, root)
	if !errors.Is(err, errFewBranches) || len(v.Branches) != 1 || v.Branches[0].Session != ss[0].ID {
		t.Fatalf("after a removal: %+v %v", v, err)
	}
}
