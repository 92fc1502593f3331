package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const added = "# claude-nova: the worktrees of Claude sessions\n" + ExcludeLine + "\n"

func TestExcludeIn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		old     *string // nil: no file (nor info folder)
		want    string
		changed bool
	}{
		{name: "no file", old: nil, want: added, changed: true},
		{name: "empty file", old: ptr(""), want: added, changed: true},
		{name: "file without the line", old: ptr("# git ls-files --others --exclude-from=.git/info/exclude\n*.swp\n"),
			want: "# git ls-files --others --exclude-from=.git/info/exclude\n*.swp\n" + added, changed: true},
		{name: "no newline at its end", old: ptr("*.swp"), want: "*.swp\n" + added, changed: true},
		{name: "with the line", old: ptr("*.swp\n/.claude/worktrees/\n"), want: "*.swp\n/.claude/worktrees/\n"},
		{name: "with the line, no newline", old: ptr("/.claude/worktrees/"), want: "/.claude/worktrees/"},
		{name: "with the line and trailing spaces", old: ptr("/.claude/worktrees/  \r\n"), want: "/.claude/worktrees/  \r\n"},
		{name: "all of .claude excluded", old: ptr(".claude/\n"), want: ".claude/\n"},
		{name: "a longer path is not it", old: ptr("/.claude/worktrees/old\n"), want: "/.claude/worktrees/old\n" + added, changed: true},
		{name: "commented out is not it", old: ptr("#/.claude/worktrees/\n"), want: "#/.claude/worktrees/\n" + added, changed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "info", "exclude")
			if tc.old != nil {
				write(t, path, *tc.old)
				if err := os.Chmod(path, 0o664); err != nil {
					t.Fatal(err)
				}
			}
			changed, err := excludeIn(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed || string(b) != tc.want {
				t.Fatalf("changed %v, text %q; want %v, %q", changed, b, tc.changed, tc.want)
			}
			// Once more: nothing to add.
			if again, err := excludeIn(path); err != nil || again {
				t.Fatalf("a second time: changed %v, %v", again, err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := os.FileMode(0o664); tc.old != nil && st.Mode().Perm() != want {
				t.Fatalf("mode %v, want %v kept", st.Mode().Perm(), want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// Exclude writes the common git folder's info/exclude (from the checkout,
// a folder in it, or one of its worktrees), never .gitignore, and not when
// something already ignores the worktrees.
func TestExclude(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	write(t, filepath.Join(dir, ".gitignore"), "*.log")
	write(t, filepath.Join(dir, "sub", "b.txt"), "b\n")
	run(t, dir, "worktree", "add", "-q", filepath.Join(dir, ".claude", "worktrees", "w"))
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)
	if changed, err := Exclude(ctx, filepath.Join(dir, ".claude", "worktrees", "w")); err != nil || !changed {
		t.Fatalf("from the worktree: %v %v", changed, err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "sub")} {
		if changed, err := Exclude(ctx, d); err != nil || changed {
			t.Fatalf("again from %s: %v %v", d, changed, err)
		}
	}
	b, err := os.ReadFile(exclude)
	if err != nil || !strings.HasPrefix(string(b), string(before)) || strings.Count(string(b), ExcludeLine+"\n") != 1 {
		t.Fatalf("info/exclude %q (was %q) %v", b, before, err)
	}
	if g, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(g) != "*.log" {
		t.Fatalf(".gitignore %q", g)
	}
	out, err := git(ctx, dir, "status", "--porcelain")
	if err != nil || strings.Contains(out, ".claude") {
		t.Fatalf("git status %q %v", out, err)
	}

	// Ignored by the user already (here by .gitignore): nothing written.
	other := repo(t)
	write(t, filepath.Join(other, ".gitignore"), ".claude/\n")
	ex := filepath.Join(other, ".git", "info", "exclude")
	was, _ := os.ReadFile(ex)
	if changed, err := Exclude(ctx, other); err != nil || changed {
		t.Fatalf("ignored already: %v %v", changed, err)
	}
	if now, _ := os.ReadFile(ex); string(now) != string(was) {
		t.Fatalf("info/exclude touched: %q", now)
	}
	if _, err := Exclude(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("outside a repository: %v", err)
	}
}
