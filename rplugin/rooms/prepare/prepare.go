// Package prepare is the room that sets up a session's new worktree before
// its first prompt, as the user's checkout is set up: the untracked files
// the user listed (worktree.copy) copied in from the checkout, then the
// user's setup (worktree.setup: commands, or a script of the project) run
// in it. The work is a task of the session (its output read and stopped
// like claude's tasks); the session's prompts wait for it, and a setup that
// fails, times out or is stopped stops the session with the reason.
// Everything runs in the background, never on a call Neovim waits on.
package prepare

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

// Config is the user's worktree options.
type Config struct {
	Setup   []string      // commands, each run by sh -c in the worktree
	Script  string        // or a script of the project (relative to its top folder), run as is
	Copy    []string      // patterns of the checkout's files copied in (path.Match, relative to the top folder)
	Timeout time.Duration // bounds the whole setup (0: DefaultTimeout)
}

// DefaultTimeout bounds a setup whose Timeout is unset.
const DefaultTimeout = 10 * time.Minute

// Wanted reports whether a new worktree has anything to set up.
func (c Config) Wanted() bool {
	return len(c.Setup) > 0 || c.Script != "" || len(c.Copy) > 0
}

// Deps are what the room is given.
type Deps struct {
	Config func() Config
	// Send sends a prompt to claude now (the app's send, past the hold).
	Send func(s *session.Session, prompt string) error
	// Stop stops a session (its setup failed).
	Stop func(id int)
	// Changed sends the session's task list (its setup task changed).
	Changed func(s *session.Session)
}

// Room sets up new worktrees.
type Room struct {
	d    *desk.Desk
	deps Deps

	mu   sync.Mutex
	held map[int]*hold // sessions being set up: the prompts that wait
}

type hold struct {
	prompts []string
	ending  bool // the setup is over: the prompts are being sent
}

// New returns the room.
func New(d *desk.Desk, deps Deps) *Room {
	return &Room{d: d, deps: deps, held: map[int]*hold{}}
}

// Wanted reports whether new worktrees are set up (the user's options).
func (r *Room) Wanted() bool { return r.deps.Config().Wanted() }

// Hold keeps a prompt for a session whose worktree is being set up: true
// when it waits (sent once the setup is done, in order).
func (r *Room) Hold(s *session.Session, prompt string) bool {
	r.mu.Lock()
	h, ok := r.held[s.ID]
	waits := ok && !h.ending
	if ok {
		h.prompts = append(h.prompts, prompt)
	}
	r.mu.Unlock()
	if waits {
		r.d.Note(s, "Your prompt waits for the worktree's setup; it is sent when the setup is done.")
	}
	return ok
}

// initialized is what a claude.Conn that knows when claude answered
// initialize offers.
type initialized interface {
	Initialized() <-chan struct{}
}

// Start sets up the worktree plan of session s in the background, once
// claude made it (claude's --worktree makes it as it starts), and then
// sends prompt ("" none) and every prompt held meanwhile.
func (r *Room) Start(s *session.Session, plan worktree.Plan, prompt string) {
	cfg := r.deps.Config()
	h := &hold{}
	if strings.TrimSpace(prompt) != "" {
		h.prompts = append(h.prompts, prompt)
	}
	r.mu.Lock()
	r.held[s.ID] = h
	r.mu.Unlock()
	limit := cfg.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
	}
	r.d.Go(func() {
		// claude makes the worktree as it starts: the setup waits for
		// that, and its time (the timeout) starts after.
		if c, ok := s.Proc.(initialized); ok {
			select {
			case <-c.Initialized():
			case <-s.Proc.Done():
			}
		}
		select {
		case <-s.Proc.Done():
			// claude is gone before its worktree was set up: its exit says why.
			r.mu.Lock()
			delete(r.held, s.ID)
			r.mu.Unlock()
			return
		default:
		}
		ctx, cancel := r.d.Bounded(limit)
		defer cancel()
		stopped := false
		var stopMu sync.Mutex
		stop := func() {
			stopMu.Lock()
			stopped = true
			stopMu.Unlock()
			cancel()
		}
		// claude gone meanwhile: nothing to set up for.
		go func() {
			select {
			case <-s.Proc.Done():
				cancel()
			case <-ctx.Done():
			}
		}()
		id := fmt.Sprintf("setup-%d", s.ID)
		_, out := s.Tasks.StartLocal(id, "setup", plan.Branch, stop)
		r.deps.Changed(s)
		r.d.Note(s, "Setting up the worktree "+sanitize.Line(plan.Path)+" before the first prompt (:ClaudeNova tasks shows its output).")
		sum, err := Run(ctx, cfg, plan.Root, plan.Path, plan.Branch, out)
		stopMu.Lock()
		wasStopped := stopped
		stopMu.Unlock()
		switch {
		case err == nil:
		case wasStopped:
			err = errors.New("stopped by the user")
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			err = fmt.Errorf("it ran past worktree.setup_timeout (%s): %w", limit, err)
		}
		r.finish(s, id, sum, err, wasStopped)
	})
}

// finish ends the setup task, then sends the held prompts or stops the
// session with the reason.
func (r *Room) finish(s *session.Session, id string, sum Summary, err error, stopped bool) {
	status := tasks.TaskCompleted
	why := ""
	if err != nil {
		status, why = tasks.TaskFailed, err.Error()
		if stopped {
			status = tasks.TaskStopped
		}
	}
	s.Tasks.EndLocal(id, status, why)
	r.deps.Changed(s)
	if err == nil {
		r.d.Note(s, "Worktree set up: "+sum.String()+".")
		r.drain(s)
		return
	}
	r.mu.Lock()
	h := r.held[s.ID]
	delete(r.held, s.ID)
	r.mu.Unlock()
	msg := fmt.Sprintf("session %d: the worktree's setup failed: %s; the session stops", s.ID, sanitize.FirstLine(why, 200))
	if n := len(h.prompts); n > 0 {
		msg += fmt.Sprintf(" and its %s never went to Claude", desk.Plural(n, "prompt"))
	}
	r.d.Note(s, "**Setup failed:** "+msg+". Its output: :ClaudeNova tasks.")
	r.d.Notify("error", msg)
	r.deps.Stop(s.ID)
}

// drain sends the held prompts in order, and those held while it sends,
// then lets prompts through.
func (r *Room) drain(s *session.Session) {
	for {
		r.mu.Lock()
		h := r.held[s.ID]
		h.ending = true
		if len(h.prompts) == 0 {
			delete(r.held, s.ID)
			r.mu.Unlock()
			return
		}
		p := h.prompts[0]
		h.prompts = h.prompts[1:]
		r.mu.Unlock()
		if err := r.deps.Send(s, p); err != nil {
			r.d.Notify("error", err.Error())
		}
	}
}
