package worktree

import (
	"testing"
	"time"
)

// A session's claude starts making its worktree once the claudes making
// one in the same repository have made theirs or ended, whichever comes:
// one that never does holds it for the whole limit.
func TestAfterOthers(t *testing.T) {
	const wts = "/r/.claude/worktrees/"
	cases := []struct {
		name     string
		other    string
		end      string // how the other claude ends: "made", "done", "never", "before" (it had)
		limit    time.Duration
		timedOut bool
		waited   bool
	}{
		{"made its worktree", wts + "fix-login", "made", time.Hour, false, true},
		{"ended", wts + "fix-login", "done", time.Hour, false, true},
		{"still at it when the limit passed", wts + "fix-login", "never", 50 * time.Millisecond, true, true},
		{"another repository's", "/other/.claude/worktrees/fix-login", "never", 10 * time.Second, false, false},
		{"its own", wts + "fix-login-2", "never", 10 * time.Second, false, false},
		{"made before", wts + "fix-login", "before", 10 * time.Second, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			made, done := make(chan struct{}), make(chan struct{})
			if c.end == "before" {
				close(made)
			}
			var waited []string
			timedOut := AfterOthers(wts+"fix-login-2", []Making{{Path: c.other, Made: made, Done: done}}, c.limit, func(m Making) {
				waited = append(waited, m.Path)
				// The other claude ends while this one waits.
				switch c.end {
				case "made":
					close(made)
				case "done":
					close(done)
				}
			})
			if timedOut != c.timedOut {
				t.Fatalf("timed out: %v, want %v", timedOut, c.timedOut)
			}
			if (len(waited) == 1) != c.waited {
				t.Fatalf("waited for %q", waited)
			}
		})
	}
}
