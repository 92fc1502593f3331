package history

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
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

func TestResumableOfAFolderWithNone(t *testing.T) {
	r := New(desk.New(nowhere{}, session.NewManager(), nil), t.TempDir, func(int) {})
	l, err := r.Resumable(t.TempDir())
	if err != nil || len(l.Sessions) != 0 {
		t.Fatalf("%+v, %v", l, err)
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
