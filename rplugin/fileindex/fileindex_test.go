package fileindex

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestScoreRanks(t *testing.T) {
	files := []string{
		"docs/readme.md", "README.md", "src/reader/main.go", "src/read.go", "scripts/release.sh",
		"lua/claudenova/ui/prompt.lua", "lua/claudenova/context.lua", "rplugin/app/prompt_test.go",
	}
	for _, tc := range []struct {
		q    string
		want []string // the best first, in order
		none []string // not matched at all
	}{
		{"readme", []string{"README.md", "docs/readme.md"}, []string{"src/read.go"}},
		{"read", []string{"README.md"}, nil},
		{"read.go", []string{"src/read.go", "src/reader/main.go"}, nil},
		{"prompt", []string{"lua/claudenova/ui/prompt.lua", "rplugin/app/prompt_test.go"}, []string{"lua/claudenova/context.lua"}},
		{"lcuip", []string{"lua/claudenova/ui/prompt.lua"}, []string{"README.md"}},
		{"src/", []string{"src/read.go", "src/reader/main.go"}, []string{"README.md"}},
	} {
		var got []scored
		for i, f := range files {
			if s, ok := Score(strings.ToLower(tc.q), f); ok {
				got = append(got, scored{i, s, f})
			} else {
				for _, w := range tc.want {
					if w == f {
						t.Errorf("%q does not match %s", tc.q, f)
					}
				}
			}
		}
		tp := newTop(10)
		for _, g := range got {
			tp.add(g.i, g.score, g.path)
		}
		var order []string
		for _, s := range tp.sorted() {
			order = append(order, s.path)
		}
		if len(order) < len(tc.want) || !reflect.DeepEqual(order[:len(tc.want)], tc.want) {
			t.Errorf("%q ranks %v, want %v first", tc.q, order, tc.want)
		}
		for _, n := range tc.none {
			for _, o := range order {
				if o == n {
					t.Errorf("%q matched %s", tc.q, n)
				}
			}
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// In a git work tree the list is git's (tracked and untracked, .gitignore
// respected); elsewhere a walk that skips .git and node_modules.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	write(t, repo, "a.go", "sub/b.go", "untracked.txt", "ignored.log", ".gitignore", "with space.md")
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "a.go", "sub/b.go", ".gitignore")
	l, err := Build(context.Background(), repo)
	if err != nil || !l.Git {
		t.Fatalf("%+v %v", l, err)
	}
	got := strings.Join(sorted(l.Files), ",")
	if want := ".gitignore,a.go,sub/b.go,untracked.txt,with space.md"; got != want {
		t.Fatalf("git list %s, want %s", got, want)
	}
	plain := t.TempDir()
	write(t, plain, "a.txt", "d/e/f.txt", "node_modules/x/y.js", ".git/config")
	l, err = Build(context.Background(), plain)
	if err != nil || l.Git || strings.Join(l.Files, ",") != "a.txt,d/e/f.txt" {
		t.Fatalf("walk %+v %v", l, err)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func synthetic(n int) []string {
	files := make([]string, n)
	for i := range files {
		files[i] = fmt.Sprintf("pkg%03d/sub%02d/file_%06d.go", i%997, i%31, i)
	}
	return files
}

func fixed(files []string) Lister {
	return func(context.Context, string) (List, error) { return List{Files: files}, nil }
}

// A narrower query gives what a fresh one gives (the candidates of the last
// query are reused); every file can be reached, the last one too.
func TestQueryNarrows(t *testing.T) {
	files := synthetic(200000)
	x := New(fixed(files))
	ctx := context.Background()
	var prev Result
	for _, q := range []string{"f", "fi", "file_1999", "file_199999"} {
		r, err := x.Query(ctx, "/r", q, 50)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := New(fixed(files)).Query(ctx, "/r", q, 50)
		if !reflect.DeepEqual(r, fresh) {
			t.Fatalf("%q narrowed: %v, fresh: %v", q, r.Files[:3], fresh.Files[:3])
		}
		prev = r
	}
	if prev.Total != 1 || prev.Files[0] != files[len(files)-1] {
		t.Fatalf("the last file: %+v", prev)
	}
	// The start of the last file's path completes to it.
	r, _ := x.Query(ctx, "/r", files[len(files)-1][:len(files[len(files)-1])-4], 50)
	if r.Files[0] != files[len(files)-1] {
		t.Fatalf("prefix: %v", r.Files[:3])
	}
}

// A file just written is listed at once; an old list answers while a new
// one is built, which Created forces at the next query.
func TestRefresh(t *testing.T) {
	var builds atomic.Int32
	var mu sync.Mutex
	files := []string{"a.go"}
	x := New(func(context.Context, string) (List, error) {
		builds.Add(1)
		mu.Lock()
		defer mu.Unlock()
		return List{Files: append([]string(nil), files...)}, nil
	})
	ctx := context.Background()
	if r, _ := x.Query(ctx, "/r", "", 10); len(r.Files) != 1 || builds.Load() != 1 {
		t.Fatalf("%+v, %d builds", r, builds.Load())
	}
	mu.Lock()
	files = append(files, "sub/b.go", "c.go")
	mu.Unlock()
	x.Created("/r/sub/b.go")
	x.Created("/r/sub/b.go")  // twice: listed once
	x.Created("/elsewhere/x") // outside every list: nothing
	if r, _ := x.Query(ctx, "/r", "", 10); strings.Join(r.Files, ",") != "a.go,sub/b.go" {
		t.Fatalf("the written file should be listed at once: %+v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if r, _ := x.Query(ctx, "/r", "", 10); len(r.Files) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never rebuilt")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if builds.Load() != 2 {
		t.Fatalf("%d builds, want 2", builds.Load())
	}
}

func FuzzScore(f *testing.F) {
	for _, s := range [][2]string{{"read", "README.md"}, {"", "x"}, {"a/b", "a/x/b"}, {"ü", "über"}, {"zz", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, q, path string) {
		q = strings.ToLower(q)
		_, ok := Score(q, path)
		// ok exactly when q is a subsequence of the folded path.
		j := 0
		for i := 0; i < len(path) && j < len(q); i++ {
			if lower(path[i]) == q[j] {
				j++
			}
		}
		if ok != (j == len(q)) {
			t.Fatalf("Score(%q, %q) ok=%v", q, path, ok)
		}
	})
}

func BenchmarkQuery200k(b *testing.B) { benchQuery(b, 200000) }
func BenchmarkQuery1M(b *testing.B)   { benchQuery(b, 1000000) }

func benchQuery(b *testing.B, n int) {
	files := synthetic(n)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x := New(fixed(files)) // each run starts cold: no narrowing
		if _, err := x.Query(ctx, "/r", "sub07file", 200); err != nil {
			b.Fatal(err)
		}
	}
}
