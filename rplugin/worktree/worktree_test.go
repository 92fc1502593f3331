package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repo makes a git repository with one commit of a.txt (3 lines).
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	run(t, dir, "init", "-q")
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	run(t, dir, "add", "a.txt")
	run(t, dir, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
	return dir
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the login bug!":                     "fix-the-login-bug",
		"  refactor: db/pool.go  ":               "refactor-db-pool.go",
		"über café":                              "ber-caf",
		"@@@":                                    "",
		"a very long prompt that goes on and on": "a-very-long-prompt-that-goes-on",
		"-.-x-.-":                                "x",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlanFor(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := PlanFor(ctx, sub, "", "Fix the login bug", nil)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	if p.Root != root || p.Name != "fix-the-login-bug" || p.Branch != "worktree-fix-the-login-bug" ||
		p.Path != filepath.Join(root, ".claude", "worktrees", "fix-the-login-bug") || len(p.Base) != 40 {
		t.Fatalf("plan %+v", p)
	}
	// A branch of that name, then a folder of the next: the one after.
	run(t, dir, "branch", "worktree-fix-the-login-bug")
	write(t, filepath.Join(dir, ".claude", "worktrees", "fix-the-login-bug-2", "x"), "")
	if p, err := PlanFor(ctx, dir, "", "fix the login bug", nil); err != nil || p.Name != "fix-the-login-bug-3" {
		t.Fatalf("plan %+v %v", p, err)
	}
	if p, err := PlanFor(ctx, dir, "feat", "whatever", nil); err != nil || p.Name != "feat" {
		t.Fatalf("named: %+v %v", p, err)
	}
	if _, err := PlanFor(ctx, dir, "Bad Name", "", nil); err == nil {
		t.Fatal("a name git would not take was taken")
	}
	if p, err := PlanFor(ctx, dir, "", "???", nil); err != nil || p.Name != "session" {
		t.Fatalf("no words: %+v %v", p, err)
	}
	if _, err := PlanFor(ctx, t.TempDir(), "", "x", nil); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("outside a repository: %v", err)
	}
	empty := t.TempDir()
	run(t, empty, "init", "-q")
	if _, err := PlanFor(ctx, empty, "", "x", nil); !errors.Is(err, ErrNoCommit) {
		t.Fatalf("no commit: %v", err)
	}
}

// What a worktree changed: a commit of its own, an uncommitted edit, a new
// file and a binary one; a commit in the checkout meanwhile does not count.
func TestStatsOf(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	wt := filepath.Join(dir, ".claude", "worktrees", "w")
	run(t, dir, "worktree", "add", "-q", "-b", "worktree-w", wt)
	write(t, filepath.Join(wt, "b.txt"), "b1\nb2\n")
	run(t, wt, "add", "b.txt")
	run(t, wt, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "b")
	write(t, filepath.Join(wt, "a.txt"), "one\nTWO\nthree\nfour\n")
	write(t, filepath.Join(wt, "new.txt"), "n1\nn2\nn3")
	write(t, filepath.Join(wt, "bin.dat"), "\x00\x01")
	write(t, filepath.Join(dir, "c.txt"), "checkout\n")
	run(t, dir, "add", "c.txt")
	run(t, dir, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "c")
	st, err := StatsOf(ctx, wt, dir)
	if err != nil {
		t.Fatal(err)
	}
	// b.txt +2, a.txt +2 −1, new.txt +3, bin.dat (no lines)
	if st.Files != 4 || st.Added != 7 || st.Removed != 1 || len(st.Base) != 40 {
		t.Fatalf("stats %+v", st)
	}
	if _, err := StatsOf(ctx, filepath.Join(dir, "gone"), dir); err == nil {
		t.Fatal("a worktree deleted by hand has stats")
	}
}

func TestBranchOf(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	wt := filepath.Join(dir, ".claude", "worktrees", "w")
	run(t, dir, "worktree", "add", "-q", "-b", "worktree-w", wt)
	if b := BranchOf(ctx, wt); b != "worktree-w" {
		t.Fatalf("branch %q", b)
	}
	if b := BranchOf(ctx, t.TempDir()); b != "" {
		t.Fatalf("outside a repository: %q", b)
	}
}

func TestNumstatRename(t *testing.T) {
	var st Stats
	st.addNumstat([]byte("1\t2\ta.go\x003\t0\t\x00old.go\x00new.go\x00-\t-\tpic.png\x00"))
	if st.Files != 3 || st.Added != 4 || st.Removed != 2 {
		t.Fatalf("%+v", st)
	}
}

// A name another session planned (its worktree not made yet) is skipped.
func TestPlanForSkipsAPlannedName(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "i"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	first, err := PlanFor(context.Background(), dir, "", "fix it", nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := PlanFor(context.Background(), dir, "", "fix it", func(p string) bool { return p == first.Path })
	if err != nil || second.Name != "fix-it-2" {
		t.Fatalf("second plan %+v %v", second, err)
	}
}
