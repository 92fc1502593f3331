package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// applyRoom is a merge room over a worktree that changed a.txt, b.txt and
// c.txt, the checkout having changed c.txt's line too (a conflict).
func applyRoom(t *testing.T) (r *Room, a *asks, ev *sent, sid int, root string) {
	t.Helper()
	root, wt := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		write(t, filepath.Join(wt, f), strings.ToUpper(strings.TrimSuffix(f, ".txt"))+"\n")
	}
	write(t, filepath.Join(root, "c.txt"), "mine\n")
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	a = &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}}
	ev = &sent{}
	storage := t.TempDir()
	return New(desk.New(ev, mgr, nil), a, func() string { return storage }, nil), a, ev, s.ID, root
}

// "Apply all clean files" applies every file without a conflict through
// the path of :w, leaves the conflicted one and the one being edited as
// proposals, and says what it did before the merge's end is offered.
func TestApplyCleanLeavesConflictsAndEditedOnes(t *testing.T) {
	r, a, ev, sid, root := applyRoom(t)
	sum, err := r.Start(sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Files) != 3 || sum.Files[2].Rel != "c.txt" || !sum.Files[2].Conflicts || sum.Files[0].Conflicts ||
		sum.Files[0].Added != 1 || sum.Files[0].Removed != 1 || sum.Files[0].ID != a.proposed["a.txt"].ID || sum.Session != sid {
		t.Fatalf("the files of the summary: %+v", sum.Files)
	}
	res, err := r.ApplyClean(sid, map[string]bool{a.proposed["b.txt"].ID: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Applied, ",") != "a.txt" || strings.Join(res.Proposals, ",") != "b.txt,c.txt" || len(res.Skipped) != 0 {
		t.Fatalf("applied %v, proposals %v, skipped %v", res.Applied, res.Proposals, res.Skipped)
	}
	if res.Message != "worktree-w: applied a.txt; still proposals: b.txt (you are editing it), c.txt (conflicts)" {
		t.Fatalf("message %q", res.Message)
	}
	for f, want := range map[string]string{"a.txt": "A\n", "b.txt": "b\n", "c.txt": "mine\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, f)); string(b) != want {
			t.Errorf("%s holds %q, want %q", f, b, want)
		}
	}
	if a.settled[a.proposed["a.txt"].ID] != "applied" || a.settled[a.proposed["b.txt"].ID] != "" {
		t.Fatalf("settled %v", a.settled)
	}
	if len(ev.of(ui.EvMergeDone)) != 0 {
		t.Fatal("the merge's end was offered while files wait")
	}
	// Again, nothing excepted: b.txt goes, c.txt stays; no end yet.
	res, err = r.ApplyClean(sid, nil)
	if err != nil || strings.Join(res.Applied, ",") != "b.txt" || strings.Join(res.Proposals, ",") != "c.txt" {
		t.Fatalf("the second: %+v, %v", res, err)
	}
	if len(ev.of(ui.EvMergeDone)) != 0 {
		t.Fatal("the merge's end was offered while c.txt waits")
	}
}

// When every file is clean the merge ends: what was applied is said first,
// then the offer to remove comes; skipped files are named.
func TestApplyCleanListsBeforeTheOffer(t *testing.T) {
	r, a, ev, sid, root := applyRoom(t)
	write(t, filepath.Join(root, "c.txt"), "c\n") // no conflict now
	if _, err := r.Start(sid); err != nil {
		t.Fatal(err)
	}
	r.Skip(*a.proposed["c.txt"], "rejected")
	res, err := r.ApplyClean(sid, nil)
	if err != nil || strings.Join(res.Applied, ",") != "a.txt,b.txt" || len(res.Proposals) != 0 || strings.Join(res.Skipped, ",") != "c.txt" {
		t.Fatalf("%+v, %v", res, err)
	}
	listed, offered := -1, -1
	for i, e := range ev.events {
		if m, ok := e.Data.(map[string]any); ok && e.Name == ui.EvNotify && strings.Contains(m["msg"].(string), "applied a.txt, b.txt; not brought over: c.txt") {
			listed = i
		}
		if e.Name == ui.EvMergeDone && offered < 0 {
			offered = i
		}
	}
	if listed < 0 || offered < 0 || listed > offered {
		t.Fatalf("listed at %d, offered at %d", listed, offered)
	}
	if _, err := r.ApplyClean(sid, nil); err == nil || !strings.Contains(err.Error(), "no file of a merge waits") {
		t.Fatalf("a second apply of a settled merge: %v", err)
	}
}

// Start with apply "clean" merges and applies in one call; another word is
// refused.
func TestStartApplyClean(t *testing.T) {
	r, _, _, sid, _ := applyRoom(t)
	if _, err := r.startApply(t.Context(), sid, nil, "all"); err == nil || !strings.Contains(err.Error(), `apply takes "clean"`) {
		t.Fatalf("apply all: %v", err)
	}
	sum, err := r.startApply(t.Context(), sid, nil, "clean")
	if err != nil || strings.Join(sum.Applied, ",") != "a.txt,b.txt" || strings.Join(sum.Proposals, ",") != "c.txt" {
		t.Fatalf("%+v, %v", sum, err)
	}
}

// A branch with nothing to bring over: apply "clean" answers empty lists,
// not an error.
func TestStartApplyCleanOfNothing(t *testing.T) {
	r, _, _, sid, root := applyRoom(t)
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		write(t, filepath.Join(root, f), strings.ToUpper(strings.TrimSuffix(f, ".txt"))+"\n")
	}
	sum, err := r.startApply(t.Context(), sid, nil, "clean")
	if err != nil || sum.Applied == nil || len(sum.Applied)+len(sum.Proposals)+len(sum.Skipped) != 0 || sum.Same != 3 {
		t.Fatalf("%+v, %v", sum, err)
	}
}
