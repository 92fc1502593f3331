package history

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/store"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

func TestForgetOnlyWhatHasExited(t *testing.T) {
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, t.TempDir(), "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	var gone []int
	r := New(desk.New(nowhere{}, mgr, nil), t.TempDir, func(sid int) { gone = append(gone, sid) })
	if _, err := r.Forget(9); err == nil || !strings.Contains(err.Error(), "no session 9") {
		t.Errorf("forget of no session: %v", err)
	}
	if _, err := r.Forget(s.ID); err == nil || !strings.Contains(err.Error(), "stop it first") {
		t.Errorf("forget of a live session: %v", err)
	}
	if n, err := r.Forget(0); err != nil || n != 0 || len(gone) != 0 {
		t.Errorf("forget of every exited one: %d, %v, %v", n, err, gone)
	}
	if _, err := r.Rename(s.ID, "  "); err == nil || !strings.Contains(err.Error(), "rename needs a name") {
		t.Errorf("rename to nothing: %v", err)
	}
}

// notifies counts the messages the host gives the user.
type notifies struct{ n atomic.Int32 }

func (s *notifies) Send(name string, _ any) {
	if name == ui.EvNotify {
		s.n.Add(1)
	}
}

// tuiProc is claude's terminal UI as the session sees it: no control
// channel (tuihook.Conn).
type tuiProc struct {
	claude.Ended
	asked atomic.Int32
}

func (*tuiProc) Kind() string { return "tui" }
func (p *tuiProc) Control(context.Context, string, map[string]any) (json.RawMessage, error) {
	p.asked.Add(1)
	return nil, errors.New("this session runs in claude's terminal UI")
}

// A session of claude's terminal UI is renamed in the editor without
// asking its claude (which cannot be asked) and without a warning.
func TestRenameATerminalUISession(t *testing.T) {
	mgr := session.NewManager()
	proc := &tuiProc{Ended: claude.NewEnded()}
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, t.TempDir(), "", proc), nil })
	if err != nil {
		t.Fatal(err)
	}
	told := &notifies{}
	d := desk.New(told, mgr, nil)
	out, err := New(d, t.TempDir, func(int) {}).Rename(s.ID, "the TUI tour")
	d.Wait()
	if err != nil || !out.Done || s.Name() != "the TUI tour" {
		t.Fatalf("rename: %+v, %v; name %q", out, err, s.Name())
	}
	if n := proc.asked.Load(); n != 0 {
		t.Errorf("claude's terminal UI was sent %d control requests", n)
	}
	if n := told.n.Load(); n != 0 {
		t.Errorf("the user was told %d things (a warning that claude did not take the name)", n)
	}
}

func TestResumableOfAFolderWithNone(t *testing.T) {
	r := New(desk.New(nowhere{}, session.NewManager(), nil), t.TempDir, func(int) {})
	l, err := r.Resumable(t.TempDir())
	if err != nil || len(l.Sessions) != 0 {
		t.Fatalf("%+v, %v", l, err)
	}
}

// A session claude kept under one of this folder's worktrees is listed
// with the folder's own, newest first, naming its worktree.
func TestResumableListsTheFolderWorktrees(t *testing.T) {
	config, dir := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude", "worktrees", "fix"), 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(folder, id, prompt string, age time.Duration) {
		d := store.Dir(config, folder)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, id+".jsonl")
		line := `{"type":"user","message":{"role":"user","content":"` + prompt + `"},"uuid":"u-` + id + `","timestamp":"` +
			time.Now().Add(-age).UTC().Format(time.RFC3339) + `","sessionId":"` + id + `","cwd":"` + folder + `"}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	put(dir, "aaaa1111", "here", 2*time.Hour)
	put(filepath.Join(dir, ".claude", "worktrees", "fix"), "bbbb2222", "in the worktree", time.Hour)
	r := New(desk.New(nowhere{}, session.NewManager(), nil), func() string { return config }, func(int) {})
	l, err := r.Resumable(dir)
	if err != nil || len(l.Sessions) != 2 {
		t.Fatalf("%+v, %v", l, err)
	}
	if l.Sessions[0].ID != "bbbb2222" || l.Sessions[0].Worktree != "fix" || l.Sessions[1].ID != "aaaa1111" || l.Sessions[1].Worktree != "" {
		t.Fatalf("sessions %+v", l.Sessions)
	}
}

func TestAgo(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{-time.Second, "0s"}, {59 * time.Second, "59s"}, {3 * time.Minute, "3m"}, {47 * time.Hour, "47h"}, {72 * time.Hour, "3d"}} {
		if got := Ago(tc.d); got != tc.want {
			t.Errorf("Ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
