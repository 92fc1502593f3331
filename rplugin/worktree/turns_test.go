package worktree

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A session's claude starts making its worktree once the claudes making
// one in the same repository have made theirs or ended, whichever comes:
// one that never does holds it for the whole limit.
func TestAfterOthers(t *testing.T) {
	const wts = "/r/.claude/worktrees/"
	cases := []struct {
		name   string
		other  string
		end    string // how the other claude ends: "made", "done", "never", "stop" (the host stops meanwhile), "before" (it had)
		limit  time.Duration
		err    error
		waited bool
	}{
		{"made its worktree", wts + "fix-login", "made", time.Hour, nil, true},
		{"ended", wts + "fix-login", "done", time.Hour, nil, true},
		{"still at it when the limit passed", wts + "fix-login", "never", 50 * time.Millisecond, context.DeadlineExceeded, true},
		{"still at it when the host stops", wts + "fix-login", "stop", time.Hour, context.Canceled, true},
		{"another repository's", "/other/.claude/worktrees/fix-login", "never", 10 * time.Second, nil, false},
		{"its own", wts + "fix-login-2", "never", 10 * time.Second, nil, false},
		{"made before", wts + "fix-login", "before", 10 * time.Second, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			made, done := make(chan struct{}), make(chan struct{})
			if c.end == "before" {
				close(made)
			}
			var waited []string
			ctx, cancel := context.WithTimeout(context.Background(), c.limit)
			defer cancel()
			err := AfterOthers(ctx, wts+"fix-login-2", []Making{{Path: c.other, Made: made, Done: done}}, func(m Making) {
				waited = append(waited, m.Path)
				// The other claude ends while this one waits.
				switch c.end {
				case "made":
					close(made)
				case "done":
					close(done)
				case "stop":
					cancel()
				}
			})
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if (len(waited) == 1) != c.waited {
				t.Fatalf("waited for %q", waited)
			}
		})
	}
}
