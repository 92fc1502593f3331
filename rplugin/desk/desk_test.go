package desk

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

type sent struct {
	mu   sync.Mutex
	name []string
	data []any
}

func (s *sent) Send(name string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.name, s.data = append(s.name, name), append(s.data, data)
}

func TestSessionSaysWhatToDo(t *testing.T) {
	d := New(&sent{}, session.NewManager(), nil)
	for _, tc := range []struct {
		id   int
		want string
	}{
		{0, "start one with :ClaudeNova new"},
		{3, "no session 3"},
	} {
		if _, err := d.Session(tc.id); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Session(%d): %v, want %q", tc.id, err, tc.want)
		}
	}
}

func TestReplyLaterAnswersOnceWithTheToken(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  any
		err  error
		want map[string]any
	}{
		{"ok", "out", nil, map[string]any{"token": "t1", "ok": true, "result": "out"}},
		{"failed", nil, errors.New("claude says no"), map[string]any{"token": "t1", "ok": false, "error": "claude says no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sent{}
			d := New(s, session.NewManager(), nil)
			d.ReplyLater(ReplyTo{Token: "t1"}, func(context.Context) (any, error) { return tc.res, tc.err })
			d.Wait()
			if len(s.name) != 1 || s.name[0] != ui.EvMark {
				t.Fatalf("sent %v, want one %s", s.name, ui.EvMark)
			}
			mk := s.data[0].(ui.Mark)
			got := map[string]any{"token": mk.Token, "ok": mk.Reply.OK, "result": mk.Reply.Result, "error": mk.Reply.Error}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestPlural(t *testing.T) {
	if got := Plural(1, "file") + ", " + Plural(3, "file"); got != "1 file, 3 files" {
		t.Fatal(got)
	}
}
