package app

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// A session's state has one writer: a decision settling one request while
// claude asks the next one (the router's goroutine) never leaves the
// session "running" with a request waiting for the user, nor "waiting"
// with none. Run with -race: the decision and the arrival race on purpose.
func TestStateFollowsRequestsWhileTheyRace(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	s := mustSession(t, m.app, info.ID)
	c.Ask("r0", "Bash", map[string]any{"command": "ls 0"}, nil)
	m.waitPending(1)
	const rounds = 200
	for i := 0; i < rounds; i++ {
		ps := m.app.Pending()
		if len(ps) != 1 {
			t.Fatalf("round %d: %d pending", i, len(ps))
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := m.app.Decide(DecideParams{ID: ps[0].ID, Via: "surface", Decision: decision("allow")}); err != nil {
				t.Errorf("decide: %v", err)
			}
		}()
		next := fmt.Sprintf("r%d", i+1)
		go func() {
			defer wg.Done()
			c.Ask(next, "Bash", map[string]any{"command": "ls " + next}, nil)
		}()
		wg.Wait()
		answer(t, c, fmt.Sprintf("r%d", i))
		m.rec.wait(t, next+" pending", func([]ui.Event) bool {
			p := m.app.Pending()
			return len(p) == 1 && p[0].ID != ps[0].ID
		})
		// Both happened; whatever their order, one request waits.
		deadline := time.Now().Add(2 * time.Second)
		for s.State() != session.StateWaiting && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if st := s.State(); st != session.StateWaiting {
			t.Fatalf("round %d: the session is %q with %s waiting for the user", i, st, next)
		}
	}
}
