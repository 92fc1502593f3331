package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repo makes a repository with files committed (commit false: none).
func repo(t *testing.T, files map[string]string, commit bool) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for rel, c := range files {
		write(t, dir, rel, c)
	}
	if commit {
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "first")
	}
	return dir
}

func summary(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(string(c.Status) + " " + c.Rel)
		switch {
		case c.Ignored:
			b.WriteString(" ignored")
		case c.Unknown:
			b.WriteString(" unknown")
		case c.Before != nil:
			b.WriteString(" before=" + strings.ReplaceAll(*c.Before, "\n", "|"))
		}
		if c.Binary {
			b.WriteString(" binary")
		} else if !c.Ignored && !c.Unknown || c.Status == Created && !c.Ignored {
			b.WriteString(" +" + strconv.Itoa(c.Added) + "-" + strconv.Itoa(c.Removed))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// What a command did between two snapshots, whatever the folder.
func TestCompare(t *testing.T) {
	small := Limits{Ignored: 100, Walk: 100, FileSize: 64, Budget: 1 << 20}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		commit  bool
		outside bool // not a repository
		act     func(t *testing.T, dir string)
		want    string
	}{
		{
			name:   "sed -i on a committed file, a new file, a deleted one",
			files:  map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", "same.txt": "same\n"},
			commit: true,
			act: func(t *testing.T, dir string) {
				write(t, dir, "a.txt", "one\nTWO\n")
				write(t, dir, "sub/new.txt", "new\n")
				if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
					t.Fatal(err)
				}
			},
			want: "M a.txt before=one|two| +1-1\nD gone.txt before=bye| +0-1\nA sub/new.txt +1-0\n",
		},
		{
			name:   "an untracked file the user had, changed by the command",
			files:  map[string]string{".gitignore": "*.log\nbuild/\n"},
			commit: true,
			act: func(t *testing.T, dir string) {
				write(t, dir, "x.log", "ignored\n")
				write(t, dir, "build/out.bin", "b")
			},
			want: "A build/ ignored\nA x.log ignored\n",
		},
		{
			name:   "a repository with no commit",
			files:  map[string]string{"a.txt": "one\n"},
			commit: false,
			act:    func(t *testing.T, dir string) { write(t, dir, "a.txt", "two\n") },
			want:   "M a.txt before=one| +1-1\n",
		},
		{
			name:   "a file past the size limit and a binary one",
			files:  map[string]string{"big.txt": strings.Repeat("x\n", 100), "b.bin": "a\x00b"},
			commit: true,
			act: func(t *testing.T, dir string) {
				write(t, dir, "big.txt", "small\n")
				write(t, dir, "b.bin", "a\x00c")
			},
			want: "M b.bin before=a\x00b binary\nM big.txt unknown\n",
		},
		{
			name:    "outside git: named, content before not known",
			files:   map[string]string{"a.txt": "one\n", "gone.txt": "x\n"},
			outside: true,
			act: func(t *testing.T, dir string) {
				write(t, dir, "a.txt", "one more\n")
				write(t, dir, "n.txt", "n\n")
				if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
					t.Fatal(err)
				}
			},
			want: "M a.txt unknown\nD gone.txt unknown\nA n.txt +1-0\n",
		},
		{
			name:   "a command that deletes everything (rm -rf *)",
			files:  map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"},
			commit: true,
			act: func(t *testing.T, dir string) {
				for _, p := range []string{"a.txt", "sub"} {
					if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
						t.Fatal(err)
					}
				}
			},
			want: "D a.txt before=a| +0-1\nD sub/b.txt before=b| +0-1\n",
		},
		{
			name:   "a name with a tab and a newline",
			files:  map[string]string{"we\tird\nname.txt": "one\n"},
			commit: true,
			act:    func(t *testing.T, dir string) { write(t, dir, "we\tird\nname.txt", "one\ntwo\n") },
			want:   "M we\tird\nname.txt before=one| +1-0\n",
		},
		{
			name:   "nothing changed",
			files:  map[string]string{"a.txt": "one\n"},
			commit: true,
			act:    func(*testing.T, string) {},
			want:   "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dir string
			if tc.outside {
				dir = t.TempDir()
				for rel, c := range tc.files {
					write(t, dir, rel, c)
				}
			} else {
				dir = repo(t, tc.files, tc.commit)
			}
			index := filepath.Join(t.TempDir(), "snap.index")
			ctx := context.Background()
			before, err := Take(ctx, dir, index, small)
			if err != nil {
				t.Fatal(err)
			}
			tc.act(t, dir)
			after, err := Take(ctx, dir, index, small)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := Compare(ctx, before, after, small)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(cs); got != tc.want {
				t.Errorf("changes:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// The user's index, refs and stash are never touched: git status and the
// index file are the same after two snapshots around a change.
func TestTheUsersRepositoryIsUntouched(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": "one\n"}, true)
	write(t, dir, "staged.txt", "s\n")
	git(t, dir, "add", "staged.txt")
	indexBefore, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	status := git(t, dir, "status", "--porcelain")
	refs := git(t, dir, "for-each-ref")
	index := filepath.Join(t.TempDir(), "snap.index")
	if _, err := Take(context.Background(), dir, index, Default); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "b.txt", "b\n")
	if _, err := Take(context.Background(), dir, index, Default); err != nil {
		t.Fatal(err)
	}
	indexAfter, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(indexBefore, indexAfter) {
		t.Error("the user's index changed")
	}
	if got := git(t, dir, "status", "--porcelain"); got != status+"?? b.txt\n" {
		t.Errorf("status %q, want %q plus b.txt", got, status)
	}
	if got := git(t, dir, "for-each-ref"); got != refs {
		t.Errorf("refs %q, want %q", got, refs)
	}
}

// around snapshots dir before and after do and compares the two.
func around(t *testing.T, dir string, do func()) (before, after Snap, cs []Change) {
	t.Helper()
	ctx := context.Background()
	index := filepath.Join(t.TempDir(), "snap.index")
	before, err := Take(ctx, dir, index, Default)
	if err != nil {
		t.Fatal(err)
	}
	do()
	after, err = Take(ctx, dir, index, Default)
	if err != nil {
		t.Fatal(err)
	}
	cs, err = Compare(ctx, before, after, Default)
	if err != nil {
		t.Fatal(err)
	}
	return before, after, cs
}

// The diff under a command's line: what it did between the snapshots, not
// what the disk holds later, cut at the lines asked for.
func TestDiff(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		do       func(dir string)
		max      int
		want     []string
		wantNot  []string
		notGiven bool // outside git: no diff
	}{
		{"changed, created, deleted, ignored", func(dir string) {
			write(t, dir, "a.txt", "one\nTWO\n")
			write(t, dir, "n.txt", "new\n")
			write(t, dir, "x.log", "log\n")
			_ = os.Remove(filepath.Join(dir, "gone.txt"))
		}, 100, []string{"--- a.txt", "+++ a.txt", "-two", "+TWO", "--- /dev/null", "+++ n.txt", "+new", "+++ /dev/null", "-bye"}, []string{"x.log", "… the rest"}, false},
		{"cut at the lines asked for", func(dir string) {
			var b strings.Builder
			for i := 0; i < 50; i++ {
				b.WriteString("line " + strconv.Itoa(i) + "\n")
			}
			write(t, dir, "a.txt", b.String())
		}, 10, []string{"+line 0", "… the rest is in :ClaudeNova changes"}, []string{"+line 40"}, false},
		{"a later change is not the command's", func(dir string) {
			write(t, dir, "a.txt", "one\nTWO\n")
		}, 100, []string{"+TWO"}, []string{"later"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", ".gitignore": "*.log\n"}, true)
			before, after, cs := around(t, dir, func() { tc.do(dir) })
			write(t, dir, "a.txt", "later\n") // someone else, after the command
			got, err := Diff(ctx, before, after, cs, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the diff lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("the diff holds %q:\n%s", w, got)
				}
			}
			if n := strings.Count(got, "\n"); n > tc.max+1 {
				t.Errorf("%d lines, want at most %d and the line that says what is cut", n, tc.max)
			}
		})
	}
	t.Run("outside git", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "a.txt", "a\n")
		before, _ := Take(ctx, dir, filepath.Join(t.TempDir(), "i"), Default)
		write(t, dir, "a.txt", "b\n")
		after, _ := Take(ctx, dir, filepath.Join(t.TempDir(), "i"), Default)
		cs, _ := Compare(ctx, before, after, Default)
		if got, err := Diff(ctx, before, after, cs, 100); got != "" || err != nil {
			t.Errorf("Diff outside git = %q, %v; want nothing (no content is kept there)", got, err)
		}
	})
}

// A file that changed while a snapshot was read is unsure: its last write
// was during the snapshot before (so not the command's, which had not
// started) or during or after the snapshot after (a process still writing).
// A time a command set itself (cp -p, tar) is its own.
func TestMarkUnsure(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n"}, true)
	var start time.Time
	before, after, cs := around(t, dir, func() {
		start = time.Now()
		for _, f := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
			write(t, dir, f, f+" by the command\n")
		}
		write(t, dir, "gone.txt", "x\n")
	})
	if before.Began.IsZero() || before.Ended.Before(before.Began) || start.Before(before.Ended) || after.Began.Before(start) {
		t.Fatalf("the snapshots' times: %v – %v, then %v", before.Began, before.Ended, after.Began)
	}
	set := func(rel string, at time.Time) {
		if err := os.Chtimes(filepath.Join(dir, rel), at, at); err != nil {
			t.Fatal(err)
		}
	}
	// The snapshots' times as if each took seconds (a small one takes
	// less than a file time's slack).
	now := time.Now()
	before.Began, before.Ended, after.Began = now.Add(-10*time.Second), now.Add(-5*time.Second), now.Add(-time.Second)
	set("a.txt", now.Add(-3*time.Second))         // by the command, between the snapshots
	set("b.txt", now.Add(-7*time.Second))         // last written while the snapshot before was read
	set("c.txt", now)                             // written since the snapshot after began
	set("d.txt", now.Add(-time.Hour))             // cp -p: a time the command kept
	_ = os.Remove(filepath.Join(dir, "gone.txt")) // created, then removed by someone: unsure
	got := map[string]bool{}
	for _, c := range MarkUnsure(before, after, cs) {
		got[c.Rel] = c.Unsure
	}
	want := map[string]bool{"a.txt": false, "b.txt": true, "c.txt": true, "d.txt": false, "gone.txt": true}
	for rel, w := range want {
		if got[rel] != w {
			t.Errorf("%s unsure = %v, want %v (all: %v)", rel, got[rel], w, got)
		}
	}
}

// A file's mode before is kept (a rewind brings a deleted script back
// runnable); a link is never taken for a file (its blob is its target).
func TestModeBeforeAndLinks(t *testing.T) {
	dir := repo(t, map[string]string{"run.sh": "echo run\n", "a.txt": "a\n"}, false)
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "first")
	_, _, cs := around(t, dir, func() {
		for _, f := range []string{"run.sh", "a.txt", "link"} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	})
	got := map[string]string{}
	for _, c := range cs {
		got[c.Rel] = fmt.Sprintf("%c %v %o", c.Status, c.Unknown, c.Mode)
	}
	want := map[string]string{"run.sh": "D false 755", "a.txt": "D false 644", "link": "D true 0"}
	for rel, w := range want {
		if got[rel] != w {
			t.Errorf("%s: %q, want %q", rel, got[rel], w)
		}
	}
}

// What git status --porcelain=v2 -z says is read as the paths to add and
// the ignored ones.
func TestStatusOf(t *testing.T) {
	raw := strings.Join([]string{
		"1 .M N... 100644 100644 100644 aaa aaa a.txt",             // changed in the worktree
		"1 A. N... 000000 100644 100644 bbb bbb staged only.txt",   // the index is the snapshot's: nothing to add
		"1 .D N... 100644 100644 000000 ccc ccc gone/b.txt",        // deleted
		"2 .M N... 100644 100644 100644 ddd ddd R100 new name.txt", // a rename (not asked for): its original follows
		"old name.txt",
		"u UU N... 100644 100644 100644 100644 e1 e2 e3 both.txt", // unmerged (a copy of a merge's index)
		"? we\tird\nname.txt",
		"! build/",
		"! x.log",
		"",
	}, "\x00")
	changed, ignored := statusOf([]byte(raw))
	want := []string{"a.txt", "gone/b.txt", "new name.txt", "both.txt", "we\tird\nname.txt"}
	if strings.Join(changed, "|") != strings.Join(want, "|") {
		t.Errorf("changed = %q, want %q", changed, want)
	}
	if strings.Join(ignored, "|") != "build/|x.log" {
		t.Errorf("ignored = %q", ignored)
	}
}
