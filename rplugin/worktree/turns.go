package worktree

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"
)

// claude makes its worktree as it starts, and two claudes doing so in one
// repository at once can fail in claude itself: "Error creating worktree:
// Could not read the repository git config to neutralize filter drivers"
// (seen starting a best of two). So a repository's worktrees are made one
// at a time: a session waits for the claudes still making one there.

// Making is another session's worktree, at Path: Made closes once its
// claude made it (claude answered initialize), Done when claude ended;
// both nil when nothing tells (it counts as made).
type Making struct {
	Path       string
	Made, Done <-chan struct{}
}

// Turn bounds how long a session waits for other claudes to make their
// worktrees of its repository.
const Turn = 20 * time.Second

// PlanAfter plans a worktree for a session started in dir (see PlanFor:
// the folders of others are taken), then waits its turn to make it (see
// AfterOthers) until ctx's deadline, past which it starts anyway; ctx
// ended otherwise (the host stops) is an error.
func PlanAfter(ctx context.Context, dir, name, prompt string, others []Making, log *slog.Logger) (Plan, error) {
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	plan, err := PlanFor(pctx, dir, name, prompt, func(path string) bool {
		for _, o := range others {
			if o.Path == path {
				return true
			}
		}
		return false
	})
	cancel()
	if err != nil {
		return Plan{}, err
	}
	err = AfterOthers(ctx, plan.Path, others, func(m Making) {
		log.Info("waiting for another claude to make its worktree first", "path", m.Path)
	})
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("another claude still makes its worktree: this one starts anyway", "path", plan.Path)
	} else if err != nil {
		return Plan{}, fmt.Errorf("waiting for another claude to make its worktree: %w", err)
	}
	return plan, nil
}

// AfterOthers returns once every claude of others making a worktree beside
// path (in the same repository's worktrees folder) has made it or ended,
// or with ctx's error once ctx ends. waiting, when not nil, is told of
// each one it waits for, before it waits.
func AfterOthers(ctx context.Context, path string, others []Making, waiting func(Making)) error {
	for _, o := range others {
		if o.Made == nil || closed(o.Made) || closed(o.Done) || filepath.Dir(o.Path) != filepath.Dir(path) || o.Path == path {
			continue
		}
		if waiting != nil {
			waiting(o)
		}
		select {
		case <-o.Made:
		case <-o.Done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// closed reports whether c is closed (nil never is).
func closed(c <-chan struct{}) bool {
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}
