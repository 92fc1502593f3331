package boundary

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheck is what the boundary costs an editor tool per path: a
// buffer list of 200 names (half inside the project, a quarter outside, a
// quarter through a symlink out of it) checked against two folders, a deny
// rule and a grant.
func BenchmarkCheck(b *testing.B) {
	base := b.TempDir()
	project, outside := filepath.Join(base, "project"), filepath.Join(base, "notes")
	for _, d := range []string{filepath.Join(project, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(project, "link")); err != nil {
		b.Fatal(err)
	}
	var names []string
	for i := 0; i < 200; i++ {
		var p string
		switch i % 4 {
		case 0, 1:
			p = filepath.Join(project, "src", fmt.Sprintf("f%d.go", i))
		case 2:
			p = filepath.Join(outside, fmt.Sprintf("n%d.txt", i))
		default:
			p = filepath.Join(project, "link", fmt.Sprintf("l%d.txt", i))
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
		names = append(names, p)
	}
	grants := &Grants{}
	grants.AllowFile(filepath.Join(outside, "n2.txt"))
	deny, _ := ParseRead("Read(./secrets/**)", "projectSettings", Bases{Cwd: project, Project: project, Home: base})
	pol := Policy{Cwd: project, Folders: NewFolders(project, base, filepath.Join(base, "extra")),
		Rules: Rules{Deny: []Pattern{deny}}, Grants: grants}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, n := range names {
			_ = pol.Check(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/path")
}
