package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Every Claude session on this machine: `claude agents --json` lists the
// running ones, interactive and background (`claude --bg`), each with its
// state (checked on 2.1.328: [{pid, id, cwd, kind, startedAt, sessionId,
// name, status, state}]; id and state for background sessions; a session
// waiting for a person is state "blocked"). The sessions this editor runs
// are listed too (as interactive, by their claude's pid): they are left
// out. It runs from the host, never on the editor's loop; one at a time.

// agentsTimeout bounds one `claude agents --json`.
const agentsTimeout = 10 * time.Second

// OtherSession is a Claude session this editor does not run.
type OtherSession struct {
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

// AgentsView is the other sessions as the front end shows them.
type AgentsView struct {
	Sessions []OtherSession `json:"sessions"`
	Error    string         `json:"error,omitempty"`
	At       int64          `json:"at"` // unix ms of the listing
}

// RefreshAgents runs `claude agents --json` in the background and sends
// the other sessions as EvAgents. A refresh asked while one runs is run
// once more after it (that one may have listed before what was asked for
// changed, or have run another claude command): one listing at a time, and
// none asked for is lost.
func (a *App) RefreshAgents() {
	// Asked first, then taken: a listing that ends after this sees it.
	a.agentsAgain.Store(true)
	if !a.agentsBusy.CompareAndSwap(false, true) {
		return
	}
	a.background(func(ctx context.Context) {
		for {
			a.agentsAgain.Store(false)
			a.ui.Send(ui.EvAgents, a.otherSessions(ctx))
			a.agentsBusy.Store(false)
			// Asked meanwhile: again, unless a new refresh took it.
			if !a.agentsAgain.Load() || ctx.Err() != nil || !a.agentsBusy.CompareAndSwap(false, true) {
				return
			}
		}
	})
}

// otherSessions lists the sessions this editor does not run.
func (a *App) otherSessions(ctx context.Context) AgentsView {
	o := a.options()
	view := AgentsView{Sessions: []OtherSession{}, At: time.Now().UnixMilli()}
	words, err := claude.SplitCommand(o.Cmd)
	if err != nil {
		view.Error = err.Error()
		return view
	}
	ctx, cancel := context.WithTimeout(ctx, agentsTimeout)
	defer cancel()
	path, err := exec.LookPath(words[0])
	if err != nil {
		view.Error = fmt.Sprintf("claude command %q not found: %v", words[0], err)
		return view
	}
	cmd := exec.CommandContext(ctx, path, append(words[1:], "agents", "--json")...)
	cmd.Args[0] = words[0]
	env := os.Environ()
	for k, v := range o.Env {
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
		view.Error = "claude agents --json failed: " + sanitize.Truncate(sanitize.Line(lastLines(why, 1)), 200)
		return view
	}
	list, err := parseAgents(out)
	if err != nil {
		view.Error = err.Error()
		return view
	}
	view.Sessions = a.notOurs(list, words)
	return view
}

// parseAgents reads claude agents --json.
func parseAgents(out []byte) ([]OtherSession, error) {
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
	var list []OtherSession
	for _, r := range raw {
		o := OtherSession{Pid: r.Pid, ID: sanitize.Line(r.ID), SessionID: sanitize.Line(r.SessionID), Cwd: sanitize.Line(r.Cwd),
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
// session id) and fills in how to show and attach the others.
func (a *App) notOurs(list []OtherSession, words []string) []OtherSession {
	pids, ids := map[int]bool{}, map[string]bool{}
	for _, s := range a.sessions.All() {
		if cid := s.ClaudeID(); cid != "" {
			ids[cid] = true
		}
		if s.State() == session.StateExited {
			continue
		}
		if p, ok := s.Proc.(interface{ Pid() int }); ok {
			pids[p.Pid()] = true
		}
	}
	home := a.home()
	out := []OtherSession{}
	for _, o := range list {
		if (o.Pid != 0 && pids[o.Pid]) || (o.SessionID != "" && ids[o.SessionID]) {
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
	// Those waiting for you first, then the most recent.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Blocked != out[j].Blocked {
			return out[i].Blocked
		}
		return out[i].Started > out[j].Started
	})
	return out
}
