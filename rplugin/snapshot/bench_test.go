package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// benchRepo is a committed repository of n small files in folders of 100.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	hourAgo := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%04d", i/100), fmt.Sprintf("f%03d.txt", i%100))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("line %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		// Written an hour ago, as a real checkout's files were (and its
		// commit starts no gc in the background meanwhile): files
		// written in the second git indexes them are "racily clean", and
		// git reads every one of them again at each snapshot.
		if err := os.Chtimes(p, hourAgo, hourAgo); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "gc.auto=0", "commit", "-qm", "files"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// What a command that changes nothing costs more with snapshots on: the
// snapshot before, the one after and their comparison (the index warm, as
// it is from a session's second command on). The command itself (here
// `true`) runs in both. CLAUDENOVA_BENCH_BIG=1 adds 200,000 files.
func BenchmarkCommandThatChangesNothing(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("CLAUDENOVA_BENCH_BIG") != "" {
		sizes = append(sizes, 200000)
	}
	ctx := context.Background()
	for _, n := range sizes {
		dir := benchRepo(b, n)
		index := filepath.Join(b.TempDir(), "snap.index")
		if _, err := Take(ctx, dir, index, Default); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("files=%d/snapshots=off", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := exec.Command("true").Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%d/snapshots=on", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				before, err := Take(ctx, dir, index, Default)
				if err != nil {
					b.Fatal(err)
				}
				if err := exec.Command("true").Run(); err != nil {
					b.Fatal(err)
				}
				after, err := Take(ctx, dir, index, Default)
				if err != nil {
					b.Fatal(err)
				}
				if cs, err := Compare(ctx, before, after, Default); err != nil || len(cs) != 0 {
					b.Fatalf("%v %v", cs, err)
				}
			}
		})
	}
}
