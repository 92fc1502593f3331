//go:build unix

package proposal

import (
	"os"
	"path/filepath"
	"testing"
)

// Two requests never share a staged file, whatever their ids: two merges
// of worktrees named alike in two repositories (one Neovim, or two sharing
// the storage) both had "merge-alpha-1", and the second was staged over the
// first's open proposal, whose :w then wrote the other repository's text.
func TestStageNeverShares(t *testing.T) {
	tests := []struct {
		name       string
		id1, id2   string
		path1, pth string
	}{
		{"one id, two repositories", "merge-alpha-1", "merge-alpha-1", "/repo1/g.txt", "/repo2/g.txt"},
		{"one id, one file", "merge-alpha-1", "merge-alpha-1", "/repo1/g.txt", "/repo1/g.txt"},
		{"ids ending alike", "1:merge-alpha-1", "2:merge-alpha-1", "/r/g.txt", "/r/g.txt"},
		{"ids that sanitize alike", "a/b", "ab", "/r/g.txt", "/r/g.txt"},
		{"empty ids", "", "", "/r/g.txt", "/r/g.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			storage := t.TempDir()
			root := realProposed(t, storage)
			first, err := Stage(storage, tt.id1, tt.path1, []byte("repository 1\n"))
			if err != nil {
				t.Fatal(err)
			}
			second, err := Stage(storage, tt.id2, tt.pth, []byte("repository 2\n"))
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(first) == filepath.Dir(second) {
				t.Fatalf("both staged in %s", filepath.Dir(first))
			}
			checkStaged(t, root, first, []byte("repository 1\n"))
			checkStaged(t, root, second, []byte("repository 2\n"))
		})
	}
}

// Many stagings of one id under one storage (two instances' hosts share
// it): each gets its own directory and keeps its content.
func TestStageOneIDManyTimes(t *testing.T) {
	storage := t.TempDir()
	root := realProposed(t, storage)
	seen := map[string]string{}
	for i := range 200 {
		content := []byte{byte(i), byte(i >> 8)}
		s, err := Stage(storage, "merge-alpha-1", "/r/g.txt", content)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := seen[s]; ok {
			t.Fatalf("staging %d reused %s", i, s)
		}
		seen[s] = string(content)
	}
	for s, content := range seen {
		checkStaged(t, root, s, []byte(content))
	}
}

// Restage writes only the file its own request staged in this process;
// anything else is refused and left as it was.
func TestRestageOnlyItsOwn(t *testing.T) {
	tests := []struct {
		name    string
		request string                                             // the request restaging
		target  func(t *testing.T, root, own, other string) string // the path it restages
		ok      bool
	}{
		{"its own file", "merge-alpha-1", func(_ *testing.T, _, own, _ string) string { return own }, true},
		{"another request's file", "merge-alpha-1", func(_ *testing.T, _, _, other string) string { return other }, false},
		{"its file, as another id", "merge-alpha-2", func(_ *testing.T, _, own, _ string) string { return own }, false},
		{"another process's file", "merge-alpha-1", func(t *testing.T, root, _, _ string) string {
			dir := filepath.Join(root, "elsewhere")
			writeMarker(t, dir, "merge-alpha-1", 1) // same id, staged by pid 1
			return filepath.Join(dir, "f.txt")
		}, false},
		{"a folder outside", "merge-alpha-1", func(t *testing.T, _, _, _ string) string {
			dir := filepath.Join(t.TempDir(), "x")
			writeMarker(t, dir, "merge-alpha-1", os.Getpid())
			return filepath.Join(dir, "f.txt")
		}, false},
		{"the proposed folder itself", "merge-alpha-1", func(_ *testing.T, root, _, _ string) string {
			return filepath.Join(root, markerName)
		}, false},
		{"a symlinked directory", "merge-alpha-1", func(t *testing.T, root, own, _ string) string {
			link := filepath.Join(root, "link")
			if err := os.Symlink(filepath.Dir(own), link); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(link, filepath.Base(own))
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			storage := t.TempDir()
			root := realProposed(t, storage)
			own, err := Stage(storage, "merge-alpha-1", "/repo1/g.txt", []byte("one\n"))
			if err != nil {
				t.Fatal(err)
			}
			other, err := Stage(storage, "merge-beta-1", "/repo2/g.txt", []byte("two\n"))
			if err != nil {
				t.Fatal(err)
			}
			target := tt.target(t, root, own, other)
			before, _ := os.ReadFile(target)
			err = Restage(storage, tt.request, target, []byte("restaged\n"))
			if (err == nil) != tt.ok {
				t.Fatalf("Restage(%s): %v, want ok=%v", target, err, tt.ok)
			}
			if tt.ok {
				checkStaged(t, root, own, []byte("restaged\n"))
			} else if after, _ := os.ReadFile(target); string(after) != string(before) {
				t.Fatalf("refused, yet %s now holds %q (was %q)", target, after, before)
			}
			checkStaged(t, root, other, []byte("two\n"))
		})
	}
}
