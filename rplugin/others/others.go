// Package others lists every Claude session on this machine that this
// editor does not run: `claude agents --json` lists the running ones,
// interactive and background (`claude --bg`), each with its state
// (checked on 2.1.328: [{pid, id, cwd, kind, startedAt, sessionId, name,
// status, state}]; id and state for background sessions; a session waiting
// for a person is state "blocked"). The sessions this editor runs are
// listed too (as interactive, by their claude's pid): they are left out.
// It runs off the editor's loop, one listing at a time.
package others

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Timeout bounds one `claude agents --json`.
const Timeout = 10 * time.Second

// Session is a Claude session this editor does not run.
type Session struct {
	Pid       int    `json:"pid"`
	ID        string `json:"id,omitempty"` // a background session's, for claude attach
	SessionID string `json:"session_id,omitempty"`
	Cwd       string `json:"cwd"`
	Shown     string `json:"shown"` // cwd for a person (~/…)
	Kind      string `json:"kind"`  // background or interactive
	Name      string `json:"name"`
	Status    string `json:"status,omitempty"` // busy, idle, …
	State     string `json:"state,omitempty"`  // running, blocked, …
	Started   int64  `json:"started,omitempty"`
	// Blocked: it waits for a person.
	Blocked bool `json:"blocked"`
	// Attach is the command that opens it in a terminal ("" when it
	// cannot be attached: an interactive session has its own terminal).
	Attach []string `json:"attach,omitempty"`
}

// View is the other sessions as the front end shows them.
type View struct {
	Sessions []Session `json:"sessions"`
	Error    string    `json:"error,omitempty"`
	At       int64     `json:"at"` // unix ms of the listing
}

// Config is what a listing needs to know of the plugin's options.
type Config struct {
	Cmd  string            // the command that runs claude
	Env  map[string]string // extra environment for it
	Home string            // to show folders from ~
}

// Ours are the sessions this editor runs: their claude's pids (of the
// live ones) and claude's session ids.
type Ours struct {
	Pids map[int]bool
	IDs  map[string]bool
}

// Lister lists the other sessions and sends each listing.
type Lister struct {
	config     func() Config
	ours       func() Ours
	send       func(View)
	background func(func(ctx context.Context))

	busy  atomic.Bool // a listing runs
	again atomic.Bool // a refresh was asked while it ran
}

// New returns a lister: config and ours are read at each listing, send
// gets each listing, background runs work off the caller's goroutine.
func New(config func() Config, ours func() Ours, send func(View), background func(func(ctx context.Context))) *Lister {
	return &Lister{config: config, ours: ours, send: send, background: background}
}

// Refresh lists in the background and sends the result. A refresh asked
// while one runs is run once more after it (that one may have listed
// before what was asked for changed, or have run another claude command):
// one listing at a time, and none asked for is lost.
func (l *Lister) Refresh() {
	// Asked first, then taken: a listing that ends after this sees it.
	l.again.Store(true)
	if !l.busy.CompareAndSwap(false, true) {
		return
	}
	l.background(func(ctx context.Context) {
		for {
			l.again.Store(false)
			l.send(l.List(ctx))
			l.busy.Store(false)
			// Asked meanwhile: again, unless a new refresh took it.
			if !l.again.Load() || ctx.Err() != nil || !l.busy.CompareAndSwap(false, true) {
				return
			}
		}
	})
}

// List runs `claude agents --json` and returns the sessions this editor
// does not run (an error in the view says why there are none).
func (l *Lister) List(ctx context.Context) View {
	c := l.config()
	view := View{Sessions: []Session{}, At: time.Now().UnixMilli()}
	words, err := claude.SplitCommand(c.Cmd)
	if err != nil {
		view.Error = err.Error()
		return view
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	path, err := exec.LookPath(words[0])
	if err != nil {
		view.Error = fmt.Sprintf("claude command %q not found: %v", words[0], err)
		return view
	}
	cmd := exec.CommandContext(ctx, path, append(words[1:], "agents", "--json")...)
	cmd.Args[0] = words[0]
	env := os.Environ()
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		why := strings.TrimSpace(sanitize.Text(stderr.String()))
		if why == "" {
			why = err.Error()
		}
		view.Error = "claude agents --json failed: " + sanitize.Truncate(sanitize.Line(sanitize.LastLines(why, 1)), 200)
		return view
	}
	list, err := Parse(out)
	if err != nil {
		view.Error = err.Error()
		return view
	}
	view.Sessions = notOurs(list, l.ours(), words, c.Home)
	return view
}

// Parse reads claude agents --json (at most 200 sessions).
func Parse(out []byte) ([]Session, error) {
	var raw []struct {
		Pid       int     `json:"pid"`
		ID        string  `json:"id"`
		Cwd       string  `json:"cwd"`
		Kind      string  `json:"kind"`
		StartedAt float64 `json:"startedAt"`
		SessionID string  `json:"sessionId"`
		Name      string  `json:"name"`
		Status    string  `json:"status"`
		State     string  `json:"state"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &raw); err != nil {
		return nil, fmt.Errorf("claude agents --json printed something else than a list: %w", err)
	}
	var list []Session
	for _, r := range raw {
		o := Session{Pid: r.Pid, ID: sanitize.Line(r.ID), SessionID: sanitize.Line(r.SessionID), Cwd: sanitize.Line(r.Cwd),
			Kind: sanitize.Line(r.Kind), Name: sanitize.Truncate(sanitize.Line(r.Name), 60), Status: sanitize.Line(r.Status),
			State: sanitize.Line(r.State), Started: int64(r.StartedAt)}
		o.Blocked = o.State == "blocked" || o.Status == "blocked"
		list = append(list, o)
		if len(list) >= 200 {
			break
		}
	}
	return list, nil
}

// notOurs leaves out the sessions of this editor (by claude's pid and
// session id) and fills in how to show and attach the others: those
// waiting for a person first, then the most recent.
func notOurs(list []Session, ours Ours, words []string, home string) []Session {
	out := []Session{}
	for _, o := range list {
		if (o.Pid != 0 && ours.Pids[o.Pid]) || (o.SessionID != "" && ours.IDs[o.SessionID]) {
			continue
		}
		o.Shown = o.Cwd
		if o.Cwd != "" {
			o.Shown = sanitize.Line(boundary.Show(o.Cwd, "", home))
		}
		if o.Kind == "background" && o.ID != "" {
			o.Attach = append(append([]string{}, words...), "attach", o.ID)
		}
		out = append(out, o)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Blocked != out[j].Blocked {
			return out[i].Blocked
		}
		return out[i].Started > out[j].Started
	})
	return out
}
