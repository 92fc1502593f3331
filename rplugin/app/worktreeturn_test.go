package app

import (
	"context"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
)

// slowStart is an in-memory claude that answers initialize when told to
// (close init), as a claude making its worktree does once it made it.
type slowStart struct {
	*claudetest.Conn
	init chan struct{}
}

func (c slowStart) Initialized() <-chan struct{} { return c.init }

// logSignal tells of each record logged whose message holds want.
type logSignal struct {
	want string
	seen chan string
}

func (h logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (h logSignal) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.want) {
		h.seen <- r.Message
	}
	return nil
}
func (h logSignal) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h logSignal) WithGroup(string) slog.Handler      { return h }

// Two claudes making worktrees of one repository at once can fail in
// claude itself ("Could not read the repository git config…", seen in a
// best of two): the second attempt's claude starts once the first one
// made its worktree, or once it ended.
func TestTheSecondAttemptStartsOnceTheFirstMadeItsWorktree(t *testing.T) {
	for _, how := range []string{"made", "ended"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
				cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			waiting := make(chan string, 4)
			a := New(newRecorder(), slog.New(logSignal{want: "waiting for another claude", seen: waiting}))
			t.Cleanup(a.Shutdown)
			var mu sync.Mutex
			var started []slowStart
			a.start = func(claude.Config, *slog.Logger) (claude.Conn, error) {
				c := slowStart{claudetest.New(), make(chan struct{})}
				mu.Lock()
				started = append(started, c)
				mu.Unlock()
				return c, nil
			}
			home := t.TempDir()
			if err := a.Configure(Options{Storage: filepath.Join(dir, ".storage"), Env: map[string]string{"HOME": home}}); err != nil {
				t.Fatal(err)
			}
			first, err := a.NewSession(NewParams{Cwd: dir, Prompt: "fix the login", Worktree: true, Attempt: 1})
			if err != nil {
				t.Fatal(err)
			}
			second := make(chan error, 1)
			go func() {
				_, err := a.NewSession(NewParams{Cwd: dir, Prompt: "fix the login", Worktree: true, Attempt: 2, Group: first.ID})
				second <- err
			}()
			select {
			case <-waiting:
			case err := <-second:
				t.Fatalf("the second attempt started at once (%v)", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the second attempt neither waited nor started")
			}
			mu.Lock()
			n := len(started)
			mu.Unlock()
			if n != 1 {
				t.Fatalf("%d claudes started while the first made its worktree", n)
			}
			if how == "made" {
				close(started[0].init)
			} else {
				started[0].Exit(nil)
			}
			select {
			case err := <-second:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the second attempt did not start once the first " + how)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(started) != 2 {
				t.Fatalf("%d claudes started", len(started))
			}
		})
	}
}
