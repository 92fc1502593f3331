package session

import (
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// A session that moves into a worktree shows it against where it started.
func TestMoveTo(t *testing.T) {
	s := New(1, "/p", "", nil)
	if s.MoveTo("relative") || s.MoveTo("/p") {
		t.Fatal("moved to a relative path or where it is")
	}
	if !s.MoveTo("/p/.claude/worktrees/feat") || s.Cwd() != "/p/.claude/worktrees/feat" || s.Root() != "/p" {
		t.Fatalf("cwd %s root %s", s.Cwd(), s.Root())
	}
	if info := s.Info(); info.Worktree == nil || info.Worktree.Shown != ".claude/worktrees/feat" || info.Cwd != "/p/.claude/worktrees/feat" || info.Folder != "feat" {
		t.Fatalf("info %+v", info)
	}
	s.MoveTo("/p")
	if info := s.Info(); info.Worktree != nil {
		t.Fatalf("back home, still a worktree: %+v", info)
	}
	if got := world.WorktreeLabel("/elsewhere/wt", "/p"); got != "/elsewhere/wt" {
		t.Fatalf("outside label %q", got)
	}
}
