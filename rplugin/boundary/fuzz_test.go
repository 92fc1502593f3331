package boundary

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: whatever the name, Resolve never panics, gives a clean
// absolute path or an error, agrees with the file system's own resolution
// for every name that exists, and a path Check calls inside really is
// inside a folder once every link is followed.
func FuzzResolve(f *testing.F) {
	l := newLayout(f)
	for _, s := range []string{
		"a.txt", "../notes/todo.txt", "sub/../../notes/todo.txt", "link.txt", "rel-link.txt", "inner.txt",
		"linkdir/todo.txt", "linkdir/../.env", "linkdir/back/a.txt", "file://" + l.todo, "file:///x/../y",
		"term://~//1:bash", "claudenova://session/1", "", " ", "loop", "new/../../x", "./././a.txt",
		l.notes + "/back/../notes/todo.txt", "//" + l.todo, "a.txt/..", "file://localhost/", "%2e%2e/x",
	} {
		f.Add(s)
	}
	pol := Policy{Cwd: l.project, Folders: NewFolders(l.project, l.home)}
	f.Fuzz(func(t *testing.T, name string) {
		got, err := Resolve(name, l.project)
		if err != nil {
			if c := pol.Check(name); c.Place.Open() {
				t.Fatalf("Check(%q) = %+v though it does not resolve (%v)", name, c, err)
			}
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Resolve(%q) = %q: not clean and absolute", name, got)
		}
		p, _ := filePath(name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(l.project, p)
		}
		if fsReal, ferr := filepath.EvalSymlinks(p); ferr == nil && !strings.Contains(name, "..") && fsReal != got {
			t.Fatalf("Resolve(%q) = %q, the file system says %q", name, got, fsReal)
		}
		c := pol.Check(name)
		if c.Place == Inside {
			// Every existing part of the result is a real folder or file of
			// the project: following it again changes nothing.
			if !Within(l.project, c.Real) {
				t.Fatalf("Check(%q) = inside, real %q is not in %s", name, c.Real, l.project)
			}
			if again, err := Resolve(c.Real, "/"); err != nil || again != c.Real {
				t.Fatalf("Check(%q): %q resolves again to %q (%v)", name, c.Real, again, err)
			}
			if _, err := os.Lstat(c.Real); err == nil {
				if fi, _ := os.Lstat(c.Real); fi.Mode()&os.ModeSymlink != 0 {
					t.Fatalf("Check(%q): %q is still a link", name, c.Real)
				}
			}
		}
	})
}
