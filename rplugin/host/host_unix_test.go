//go:build unix

package host

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/app"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// A call with a reply token never holds Neovim: its work (here blame,
// whose git does not answer until the test lets it) runs off the RPC, the
// call returns queued at once, and the reply comes as its mark once the
// work is done. A call that waits on git holds no call made after it: the
// next one is replied to first.
func TestATokenedCallNeverHoldsNeovim(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command(real, append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("commit", "-qm", "first")
	git("notes", "--ref=ai", "add", "-m", "a note", "HEAD")
	// From here on git waits until the file release exists.
	release := filepath.Join(dir, "release")
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Bounded (30 s) on its own: a git left behind by a test that ended
	// early goes too.
	script := "#!/bin/sh\ni=0\nwhile [ ! -e " + release + " ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	batches := make(chan string, 64)
	o := ui.NewOutbox(func(b string) error { batches <- b; return nil }, slog.New(slog.DiscardHandler))
	a := app.New(o, nil)
	h := &Host{App: a, outbox: o, log: slog.New(slog.DiscardHandler)}
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o644); h.Close(); a.Shutdown(); o.Close() })
	if _, err := h.request([]string{"configure", `{"storage":"` + filepath.Join(dir, "st") + `"}`}); err != nil {
		t.Fatal(err)
	}
	returned := make(chan string, 2)
	go func() {
		for _, c := range [][]string{
			{"blame", `{"path":"` + filepath.Join(repo, "a.txt") + `","cwd":"` + repo + `"}`, "c1"},
			{"sessions", `{}`, "c2"},
		} {
			out, _ := h.request(c)
			returned <- out
		}
	}()
	for i := 0; i < 2; i++ {
		select {
		case out := <-returned:
			if out != `{"queued":true}` {
				t.Fatalf("call %d = %s, want it queued", i+1, out)
			}
		case <-time.After(3 * time.Second):
			// Blame gives git 5 s before it gives up: an RPC that has not
			// returned after 3 s waits for git (a bound that tells
			// waiting from not waiting, not a measure of speed).
			t.Fatal("the RPC waited for git: Neovim would wait with it")
		}
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range marksOf(t, batches, "c1", "c2") {
		if m.Token != "" {
			order = append(order, m.Token)
		}
	}
	if strings.Join(order, ",") != "c2,c1" {
		t.Errorf("replies in the order %v, want c2 (not held) then c1", order)
	}
}
