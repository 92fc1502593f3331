package merge

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

// asks records what the room proposes and settles.
type asks struct {
	proposed map[string]*approval.Pending
	settled  map[string]string
	times    map[string]int // how often each was settled (nil: not counted)
	stop     func(id int)   // what stopping a session does (nil: nothing)
}

func (a *asks) Propose(p *approval.Pending) bool { a.proposed[p.Merge.Rel] = p; return true }
func (a *asks) Settle(id, outcome string) {
	a.settled[id] = outcome
	if a.times != nil {
		a.times[id]++
	}
}
func (a *asks) Stop(id int) error {
	if a.stop != nil {
		a.stop(id)
	}
	return nil
}

// sent records the events a room sends.
type sent struct {
	mu     sync.Mutex
	events []ui.Event
}

func (s *sent) Send(name string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ui.Event{Name: name, Data: data})
}

func (s *sent) of(name string) []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, e := range s.events {
		if e.Name == name {
			out = append(out, e.Data)
		}
	}
	return out
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repo commits files in a new repository and adds the worktree w on the
// branch worktree-w.
func repo(t *testing.T, files map[string]string) (root, wt string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root = t.TempDir()
	git(t, root, "init", "-q")
	for name, text := range files {
		write(t, filepath.Join(root, name), text)
	}
	git(t, root, "add", ".")
	git(t, root, "commit", "-qm", "init")
	wt = filepath.Join(root, ".claude", "worktrees", "w")
	git(t, root, "worktree", "add", "-q", "-b", "worktree-w", wt)
	return root, wt
}

// A branch that deleted a file, added one, changed a binary one and made a
// change the checkout made too: the first two are proposed, the binary one
// is named and left, the same change is not proposed. A deletion saved
// empty removes the file; a skipped file keeps the worktree until the user
// says it may go.
func TestMergeOfABranch(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n", "d.txt": "delete me\n", "img.bin": "\x00\x01"})
	if err := os.Remove(filepath.Join(wt, "d.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt, "img.bin"), "\x00\x02")
	write(t, filepath.Join(wt, "n.txt"), "new\n")
	write(t, filepath.Join(wt, "a.txt"), "A\n")
	write(t, filepath.Join(root, "a.txt"), "A\n") // the checkout has it too

	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	a := &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}}
	storage := t.TempDir()
	r := New(desk.New(nowhere{}, mgr, nil), a, func() string { return storage }, nil)

	sum, err := r.Start(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for rel := range a.proposed {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	if sum.Proposed != 2 || sum.Same != 1 || strings.Join(sum.Left, ",") != "img.bin" || strings.Join(rels, ",") != "d.txt,n.txt" {
		t.Fatalf("summary %+v, proposed %v", sum, rels)
	}
	if _, err := r.Start(s.ID); err == nil || !strings.Contains(err.Error(), "being merged") {
		t.Fatalf("a second merge meanwhile: %v", err)
	}
	del := a.proposed["d.txt"]
	if !del.Merge.Deleted || len(del.Change.Proposed) != 0 {
		t.Fatalf("deletion %+v", del.Merge)
	}
	if applied, why, err := r.Saved(*del, nil); err != nil || !applied {
		t.Fatalf("deletion saved: %v %q %v", applied, why, err)
	}
	if _, err := os.Stat(filepath.Join(root, "d.txt")); !os.IsNotExist(err) {
		t.Fatalf("d.txt is still there: %v", err)
	}
	r.Skip(*a.proposed["n.txt"], "skipped")
	if a.settled[del.ID] != "applied" || a.settled[a.proposed["n.txt"].ID] != "skipped" {
		t.Fatalf("settled %v", a.settled)
	}
	if _, err := os.Stat(filepath.Join(root, "n.txt")); err == nil {
		t.Fatal("a skipped file was written")
	}
	if _, err := r.Remove(s.ID, false); err == nil || !strings.Contains(err.Error(), "stop it first") {
		t.Fatalf("remove while it runs: %v", err)
	}
	s.Exited("")
	if _, err := r.Remove(s.ID, false); err == nil || !strings.Contains(err.Error(), "img.bin, n.txt") {
		t.Fatalf("remove with work left: %v", err)
	}
	if _, err := r.Remove(s.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if wt := s.World.Worktree(); wt == nil || !wt.Gone {
		t.Fatalf("the session's worktree %+v", wt)
	}
}

// A conflict is written with markers; a save that keeps one applies
// nothing, and a file changed on disk since the merge proposed it is not
// written over.
func TestMergeConflictAndStale(t *testing.T) {
	root, wt := repo(t, map[string]string{"c.txt": "base\n"})
	write(t, filepath.Join(wt, "c.txt"), "theirs\n")
	write(t, filepath.Join(root, "c.txt"), "ours\n")
	mgr := session.NewManager()
	s, _ := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	a := &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}}
	storage := t.TempDir()
	r := New(desk.New(nowhere{}, mgr, nil), a, func() string { return storage }, nil)
	sum, err := r.Start(s.ID)
	if err != nil || sum.Conflicts != 1 {
		t.Fatalf("%+v %v", sum, err)
	}
	p := a.proposed["c.txt"]
	if len(p.Conflicts) != 1 || !strings.Contains(string(p.Change.Proposed), "<<<<<<< your checkout") {
		t.Fatalf("proposal %q", p.Change.Proposed)
	}
	if applied, why, _ := r.Saved(*p, p.Change.Proposed); applied || !strings.Contains(why, "conflict markers remain") {
		t.Fatalf("a save with markers: %v %q", applied, why)
	}
	write(t, filepath.Join(root, "c.txt"), "ours, changed again\n")
	if applied, why, _ := r.Saved(*p, []byte("resolved\n")); applied || !strings.Contains(why, "changed on disk") {
		t.Fatalf("a stale save: %v %q", applied, why)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "c.txt")); string(b) != "ours, changed again\n" {
		t.Fatalf("c.txt %q", b)
	}
}

// The branch as a pull request: every file it changed, committed or not,
// from the base to now; a binary file is named with why it has no text.
func TestTheBranchAsAPullRequest(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\nb\n", "img.bin": "\x00\x01"})
	write(t, filepath.Join(wt, "a.txt"), "a\nB\nc\n")
	git(t, wt, "commit", "-qam", "work")
	write(t, filepath.Join(wt, "img.bin"), "\x00\x02")
	write(t, filepath.Join(wt, "n.txt"), "new\n")
	mgr := session.NewManager()
	s, _ := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, wt, "", nil), nil })
	r := New(desk.New(nowhere{}, mgr, nil), &asks{}, func() string { return t.TempDir() }, nil)
	if _, err := r.Changes(s.ID); err == nil || !strings.Contains(err.Error(), "has no worktree") {
		t.Fatalf("no worktree: %v", err)
	}
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	v, err := r.Changes(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range v.Files {
		ins, del := 0, 0
		for _, h := range f.Hunks {
			ins, del = ins+h.Ins, del+h.Del
		}
		got = append(got, fmt.Sprintf("%s +%d -%d existed=%v %s", f.Rel, ins, del, f.Existed, f.Error))
	}
	want := []string{"a.txt +2 -1 existed=true ", "img.bin +0 -0 existed=true a binary file: no text to show", "n.txt +1 -0 existed=false "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || v.Branch != "worktree-w" || len(v.Base) != 40 {
		t.Fatalf("files:\n%s\nwant:\n%s\n(%+v)", strings.Join(got, "\n"), strings.Join(want, "\n"), v)
	}
	if v.Files[0].Path != filepath.Join(wt, "a.txt") || v.Files[0].Before != "a\nb\n" || v.Files[0].Now != "a\nB\nc\n" {
		t.Fatalf("a.txt %+v", v.Files[0])
	}
}

// benchBranch is a worktree whose branch changed 200 files of 100 lines.
func benchBranch(b *testing.B) (*Room, int, string) {
	b.Helper()
	b.Setenv("HOME", b.TempDir())
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	files := map[string]string{}
	for i := range 200 {
		var sb strings.Builder
		for l := range 100 {
			fmt.Fprintf(&sb, "line %d of file %d\n", l, i)
		}
		files[fmt.Sprintf("f%03d.txt", i)] = sb.String()
	}
	root := b.TempDir()
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(root, "init", "-q")
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run(root, "add", ".")
	run(root, "commit", "-qm", "init")
	wt := filepath.Join(root, ".claude", "worktrees", "w")
	run(root, "worktree", "add", "-q", "-b", "worktree-w", wt)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(wt, name), []byte(strings.Replace(text, "line 50 ", "LINE 50 ", 1)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	mgr := session.NewManager()
	s, _ := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, wt, "", nil), nil })
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	return New(desk.New(nowhere{}, mgr, nil), &asks{}, func() string { return b.TempDir() }, nil), s.ID, wt
}

// BenchmarkBranchChanges200: the files view's data for a branch that
// changed 200 files (every file's text at the base and now, its hunks).
func BenchmarkBranchChanges200(b *testing.B) {
	r, id, _ := benchBranch(b)
	for b.Loop() {
		v, err := r.Changes(id)
		if err != nil || len(v.Files) != 200 {
			b.Fatalf("%d files, %v", len(v.Files), err)
		}
	}
}

// BenchmarkGitDiffStatControl: git's own summary of the same branch, one
// process (git diff --numstat against HEAD): the figure above is read
// against it.
func BenchmarkGitDiffStatControl(b *testing.B) {
	_, _, wt := benchBranch(b)
	for b.Loop() {
		if out, err := exec.Command("git", "-C", wt, "diff", "--numstat", "HEAD").Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// Best of two: two worktree sessions of one repository side by side, every
// file either changed listed once.
func TestCompareTwoBranches(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n"})
	wt2 := filepath.Join(root, ".claude", "worktrees", "w2")
	git(t, root, "worktree", "add", "-q", "-b", "worktree-w2", wt2)
	write(t, filepath.Join(wt, "a.txt"), "one way\n")
	write(t, filepath.Join(wt2, "a.txt"), "another\nway\n")
	write(t, filepath.Join(wt2, "b.txt"), "new\n")
	mgr := session.NewManager()
	var ids []int
	for _, w := range []struct{ path, branch string }{{wt, "worktree-w"}, {wt2, "worktree-w2"}} {
		s, _ := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, w.path, "", nil), nil })
		s.World.SetWorktree(&world.Worktree{Path: w.path, Branch: w.branch, Root: root})
		ids = append(ids, s.ID)
	}
	r := New(desk.New(nowhere{}, mgr, nil), &asks{}, func() string { return t.TempDir() }, nil)
	v, err := r.Compare(ids[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Branches) != 2 || strings.Join(v.Paths, ",") != "a.txt,b.txt" ||
		v.Branches[0].Added != 1 || v.Branches[1].Added != 3 || v.Branches[1].Removed != 1 {
		t.Fatalf("compare %+v", v)
	}
	empty := New(desk.New(nowhere{}, session.NewManager(), nil), &asks{}, func() string { return t.TempDir() }, nil)
	if _, err := empty.Compare(0, t.TempDir()); err == nil || !strings.Contains(err.Error(), "in none") {
		t.Fatalf("outside a repository: %v", err)
	}
}

// Once every file is settled the room offers to remove the worktree; taken
// while the session runs, the offer stops it first, then removes the
// worktree and its branch, and withdraws itself.
func TestTheOfferStopsTheSessionThenRemoves(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(wt, "a.txt"), "A\n")
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	var stopped []int
	a := &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}, stop: func(id int) {
		stopped = append(stopped, id)
		s.Exited("")
	}}
	out := &sent{}
	d := desk.New(out, mgr, nil)
	storage := t.TempDir()
	r := New(d, a, func() string { return storage }, nil)
	if _, err := r.Start(s.ID); err != nil {
		t.Fatal(err)
	}
	p := a.proposed["a.txt"]
	if applied, why, err := r.Saved(*p, []byte("A\n")); err != nil || !applied {
		t.Fatalf("saved: %v %q %v", applied, why, err)
	}
	offers := out.of(ui.EvMergeDone)
	if len(offers) != 1 {
		t.Fatalf("offers %v", offers)
	}
	if o := offers[0].(Offer); o.Branch != "worktree-w" || !o.Running || len(o.Kept) != 0 || o.Removed {
		t.Fatalf("the offer %+v", o)
	}
	if err := r.RemoveLater(RemoveParams{Later: desk.Later{Session: s.ID}}); err == nil || !strings.Contains(err.Error(), "stop it first") {
		t.Fatalf("remove, not stopping, while it runs: %v", err)
	}
	p2 := RemoveParams{Later: desk.Later{Session: s.ID}, Stop: true}
	p2.SetReply("c9", "merge_remove")
	if err := r.RemoveLater(p2); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	if len(stopped) != 1 || stopped[0] != s.ID {
		t.Fatalf("stopped %v", stopped)
	}
	marks := out.of(ui.EvMark)
	if len(marks) != 1 || !marks[0].(ui.Mark).Reply.OK || marks[0].(ui.Mark).Token != "c9" {
		t.Fatalf("the reply %+v", marks)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if offers := out.of(ui.EvMergeDone); len(offers) != 2 || !offers[1].(Offer).Removed {
		t.Fatalf("the offer withdrawn: %+v", offers)
	}
}

// A save and a skip of one merge proposal (Neovim exiting as the save
// applies): the first counts, once; the merge is over once, not twice.
func TestASaveAndASkipSettleOnce(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(wt, "a.txt"), "A\n")
	mgr := session.NewManager()
	s, _ := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	a := &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}}
	ev := &sent{}
	storage := t.TempDir()
	r := New(desk.New(ev, mgr, nil), a, func() string { return storage }, nil)
	if _, err := r.Start(s.ID); err != nil {
		t.Fatal(err)
	}
	p := a.proposed["a.txt"]
	if applied, why, err := r.Saved(*p, []byte("A\n")); err != nil || !applied {
		t.Fatalf("saved: %v %q %v", applied, why, err)
	}
	r.Skip(*p, "skipped")
	if a.settled[p.ID] != "applied" {
		t.Fatalf("settled %q", a.settled[p.ID])
	}
	offers := 0
	ev.mu.Lock()
	for _, e := range ev.events {
		if e.Name == ui.EvMergeDone {
			offers++
		}
	}
	ev.mu.Unlock()
	if offers != 1 {
		t.Fatalf("the merge was over %d times", offers)
	}
}

// The host killed halfway through a merge: after a restart, a file whose
// proposal was never settled counts as never shown (a "remove all the
// same" may not take it), a file applied before is not lost.
func TestAMergeCutShortNamesItsOpenFiles(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	write(t, filepath.Join(wt, "a.txt"), "A\n")
	write(t, filepath.Join(wt, "b.txt"), "B\n")
	storage := t.TempDir()
	start := func() (*Room, *session.Session, *asks) {
		mgr := session.NewManager()
		s, _ := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
		s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
		a := &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}}
		return New(desk.New(nowhere{}, mgr, nil), a, func() string { return storage }, nil), s, a
	}
	r, s, a := start()
	if _, err := r.Start(s.ID); err != nil {
		t.Fatal(err)
	}
	if applied, _, err := r.Saved(*a.proposed["a.txt"], []byte("A\n")); err != nil || !applied {
		t.Fatalf("a.txt: %v %v", applied, err)
	}
	// The host is killed: b.txt's proposal was never settled. A new host:
	r2, s2, _ := start()
	s2.Exited("")
	_, err := r2.Remove(s2.ID, true)
	if err == nil || !strings.Contains(err.Error(), "b.txt") || strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("remove all the same after a merge cut short: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, "b.txt")); err != nil {
		t.Fatalf("b.txt: %v", err)
	}
}

// A merged file is a pending request of its own kind: a rejection skips
// it, once (a second answer, a save after it, settles nothing); it
// outlives its session; an allow from elsewhere applies it as staged.
func TestAMergedFileIsAnsweredOnce(t *testing.T) {
	root, wt := repo(t, map[string]string{"a.txt": "a\n"})
	write(t, filepath.Join(wt, "n.txt"), "new\n")
	write(t, filepath.Join(wt, "m.txt"), "more\n")
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, root, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	s.World.SetWorktree(&world.Worktree{Path: wt, Branch: "worktree-w", Root: root})
	a := &asks{proposed: map[string]*approval.Pending{}, settled: map[string]string{}, times: map[string]int{}}
	storage := t.TempDir()
	r := New(desk.New(nowhere{}, mgr, nil), a, func() string { return storage }, nil)
	if _, err := r.Start(s.ID); err != nil {
		t.Fatal(err)
	}
	n, m := a.proposed["n.txt"], a.proposed["m.txt"]
	if n == nil || m == nil || !n.Kind.Outlives() {
		t.Fatalf("proposed %v", a.proposed)
	}
	deny := approval.Decision{Behavior: approval.Deny}
	for i := 0; i < 2; i++ {
		if ok, err := n.Kind.Answer(*n, deny, ""); !ok || err != nil {
			t.Fatalf("skip %d: %v %v", i, ok, err)
		}
	}
	if ok, _, _ := n.Kind.(approval.Proposer).Saved(*n); ok {
		t.Fatal("a skipped file was applied")
	}
	if a.times[n.ID] != 1 || a.settled[n.ID] != "denied" {
		t.Fatalf("settled %v %v", a.times, a.settled)
	}
	if ok, err := m.Kind.Answer(*m, approval.Decision{Behavior: approval.Allow}, ""); !ok || err != nil {
		t.Fatalf("allow: %v %v", ok, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "m.txt")); string(got) != "more\n" || a.times[m.ID] != 1 {
		t.Fatalf("applied %q, settled %v", got, a.times)
	}
}
