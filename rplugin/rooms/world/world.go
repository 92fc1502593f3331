// Package world is the room of a session's world (its model: rplugin/world): its MCP
// servers, the hooks that run outside any call, the wake-ups and cron jobs
// Claude scheduled, its checklist and its worktree, and the other Claude
// sessions of this machine (claude agents). Every change reaches the front
// end as EvWorld (EvAgents for the other sessions). The MCP servers come
// from system/init and from mcp_status, asked when claude has answered
// initialize (before any prompt: init comes with the first turn) and after
// every change (a status that moved, a reconnect, a toggle).
package world

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/hooks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/others"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// Room keeps the sessions' worlds up to date and serves the MCP and
// agents commands.
type Room struct {
	d      *desk.Desk
	others *others.Lister
}

// New returns the world room; others is how claude agents is run.
func New(d *desk.Desk, others func() others.Config) *Room {
	r := &Room{d: d}
	r.others = r.newOthers(others)
	return r
}

// Changed tells the front end a session's world.
func (r *Room) Changed(s *session.Session) {
	r.d.UI.Send(ui.EvWorld, s.LiveWorld())
}

// RefreshMCP asks claude for its MCP servers in the background.
func (r *Room) RefreshMCP(s *session.Session) {
	r.d.Background(func(ctx context.Context) {
		if _, err := r.mcpStatus(ctx, s); err != nil {
			r.d.Log.Debug("mcp_status", "session", s.ID, "err", err)
		}
	})
}

// mcpStatus asks claude for its MCP servers and records the answer.
func (r *Room) mcpStatus(ctx context.Context, s *session.Session) ([]world.MCPServer, error) {
	raw, err := s.Proc.Control(ctx, "mcp_status", nil)
	if err != nil {
		return nil, fmt.Errorf("claude did not report its MCP servers: %w", err)
	}
	st, err := replies.DecodeMCPStatus(raw)
	if err != nil {
		return nil, err
	}
	if s.World.FromStatus(st) {
		r.Changed(s)
		for _, m := range s.World.Failing() {
			r.d.Log.Info("mcp server not connected", "session", s.ID, "server", m.Name, "status", m.Status, "error", m.Error)
		}
	}
	return s.World.MCP(), nil
}

// Init reads system/init: the MCP servers and load errors, and the
// folder claude works in (a worktree it entered says so there too).
func (r *Room) Init(s *session.Session, in *claude.System) {
	if in.Cwd != "" && !samePath(in.Cwd, s.Cwd()) {
		r.Move(s, in.Cwd, "")
	}
	if s.World.FromInit(in.Init) {
		r.Changed(s)
		r.RefreshMCP(s) // the details: errors, scopes, tools
	}
}

// samePath reports whether a and b are the same folder (through
// symlinks: claude may name the folder it was started in by its real path).
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// MCPParams act on one MCP server of a session (its answer comes later).
type MCPParams struct {
	desk.ReplyTo
	Session int    `json:"session"`
	Server  string `json:"server"`
	Enabled bool   `json:"enabled"`
}

// MCPView is what :ClaudeNova mcp shows of a session.
type MCPView struct {
	Session int             `json:"session"`
	Name    string          `json:"name"`
	World   world.WorldView `json:"world"`
}

// MCP is the world of a session (0: the current one) as known now; a
// fresh mcp_status is asked at once and arrives as EvWorld.
func (r *Room) MCP(id int) (MCPView, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return MCPView{}, err
	}
	if s.State() != session.StateExited {
		r.RefreshMCP(s)
	}
	return MCPView{Session: s.ID, Name: s.Name(), World: s.World.View(s.ID)}, nil
}

// Refresh asks claude for its MCP servers; the answer comes later
// (the servers, also as EvWorld).
func (r *Room) Refresh(p desk.Later) error {
	s, err := r.d.Live(p.Session)
	if err != nil {
		return err
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		return r.mcpStatus(ctx, s)
	})
	return nil
}

// mcpServer checks that server is one of session s's.
func mcpServer(s *session.Session, name string) (world.MCPServer, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return world.MCPServer{}, errors.New("which MCP server? (a name :ClaudeNova mcp lists)")
	}
	m, ok := s.World.Server(name)
	if !ok {
		var names []string
		for _, x := range s.World.MCP() {
			names = append(names, x.Name)
		}
		if len(names) == 0 {
			return m, fmt.Errorf("session %d has no MCP server %q (claude reports none)", s.ID, sanitize.Line(name))
		}
		return m, fmt.Errorf("session %d has no MCP server %q (it has %s)", s.ID, sanitize.Line(name), strings.Join(names, ", "))
	}
	if m.Source == "sdk" {
		return m, fmt.Errorf("%s is the editor's own server: it is served by claude-nova, there is nothing to reconnect", m.Name)
	}
	return m, nil
}

// Reconnect asks claude to connect an MCP server again (mcp_reconnect):
// after its command was fixed, it comes up. The answer comes later: the
// server as it is then, or the CLI's error in its words.
func (r *Room) Reconnect(p MCPParams) error {
	return r.onServer(p, "mcp_reconnect", nil, "did not connect")
}

// Toggle enables or disables an MCP server (mcp_toggle; claude keeps
// the choice for the project). The answer comes later, as for reconnect.
func (r *Room) Toggle(p MCPParams) error {
	// Enabling connects it: the CLI's error says why it did not.
	failed := "was not disabled"
	if p.Enabled {
		failed = "was not enabled"
	}
	return r.onServer(p, "mcp_toggle", map[string]any{"enabled": p.Enabled}, failed)
}

// onServer sends control request subtype (with fields) about server
// p.Server of a live session; the answer comes later: the server as claude
// reports it then, or "<server> <failed>; claude says: …".
func (r *Room) onServer(p MCPParams, subtype string, fields map[string]any, failed string) error {
	s, err := r.d.Live(p.Session)
	if err != nil {
		return err
	}
	m, err := mcpServer(s, p.Server)
	if err != nil {
		return err
	}
	req := map[string]any{"serverName": m.Name}
	for k, v := range fields {
		req[k] = v
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		_, cerr := s.Proc.Control(ctx, subtype, req)
		servers, serr := r.mcpStatus(ctx, s)
		if cerr != nil {
			return nil, fmt.Errorf("%s %s; claude says: %w", m.Name, failed, claude.Refusal(cerr))
		}
		if serr != nil {
			return nil, serr
		}
		return serverOutcome(m.Name, servers), nil
	})
	return nil
}

// serverOutcome says how a server is after an action on it.
func serverOutcome(name string, servers []world.MCPServer) map[string]any {
	for _, m := range servers {
		if m.Name == name {
			msg := fmt.Sprintf("%s · %s", m.Name, m.Status)
			if m.Up() {
				msg += fmt.Sprintf(" (%s)", desk.Plural(m.Tools, "tool"))
			}
			if m.Error != "" {
				msg += ": " + m.Error
			}
			return map[string]any{"message": msg, "server": m}
		}
	}
	return map[string]any{"message": name + " is no longer listed by claude"}
}

// All lists the MCP servers of every running session (for
// :checkhealth): the details as known now.
func (r *Room) All() []MCPView {
	out := []MCPView{}
	for _, s := range r.d.Sessions.All() {
		if s.State() == session.StateExited {
			continue
		}
		out = append(out, MCPView{Session: s.ID, Name: s.Name(), World: s.World.View(s.ID)})
	}
	return out
}

// Hook shows a hook as it runs: on the line of the call it runs
// for, else on the session (its World) until it ends.
func (r *Room) Hook(s *session.Session, m claude.Message) {
	h, ok := hooks.Decode(m)
	if !ok {
		return
	}
	ops, onCall := s.Transcript.Hook(h)
	r.d.Transcript(s, ops)
	if onCall {
		return
	}
	switch h.Subtype {
	case "hook_started":
		s.World.HookStarted(h.ID, h.Name, h.Event)
	case "hook_response":
		if !s.World.HookEnded(h.ID) {
			return
		}
	default:
		return
	}
	r.Changed(s)
	r.d.UI.Send(ui.EvSession, s)
}

// Tick moves what is live in a session once a second while it is: the
// elapsed time of a running hook (on its call's line, in the winbar). It
// returns when claude exits; a second without a running hook costs a look.
func (r *Room) Tick(s *session.Session) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.Proc.Done():
			return
		case <-t.C:
		}
		if s.Transcript.RunningHooks() {
			r.d.Transcript(s, s.Transcript.Tick())
		}
		if s.World.RunningHooks() {
			r.d.UI.Send(ui.EvSession, s)
		}
	}
}

// FromResults applies the results of today's tools to the session's
// world: a cron job or a wake-up scheduled or deleted, the checklist, the
// worktree the session moved into.
func (r *Room) FromResults(s *session.Session, tr claude.ToolResults) {
	changed := false
	for _, res := range tr.Results {
		if res.IsError {
			continue
		}
		name, input, ok := s.Transcript.ToolCall(res.ToolUseID)
		if !ok {
			continue
		}
		if r.applyTool(s, res.ToolUseID, name, input, tr.Structured) {
			changed = true
		}
	}
	if changed {
		r.Changed(s)
	}
}

// applyTool applies one successful call of a today's tool (what it
// changed is its entry's Effect); it reports whether the world changed.
func (w *Room) applyTool(s *session.Session, id, name string, input, result json.RawMessage) bool {
	t, ok := tools.Of(name)
	if !ok || t.Effect == nil {
		return false
	}
	e := t.Effect(tools.Call{ID: id, In: tools.DecodeInput(input), Result: tools.Result(result), Now: time.Now()})
	changed := false
	if e.Schedule != nil {
		s.World.Schedule(*e.Schedule)
		changed = true
	}
	if e.Unschedule != "" && s.World.Unschedule(e.Unschedule) {
		changed = true
	}
	if e.Jobs != nil {
		s.World.SetCrons(*e.Jobs)
		changed = true
	}
	if e.StopWakeups {
		s.World.StopWakeups()
		changed = true
	}
	if e.Todos != nil {
		s.World.SetTodos(*e.Todos)
		changed = true
	}
	checklist := false
	if e.AddTodo != nil {
		s.World.AddTodo(*e.AddTodo)
		changed, checklist = true, true
	}
	if u := e.UpdateTodo; u != nil {
		if _, ok := s.World.UpdateTodo(u.ID, u.Status, u.Text, u.Active); ok {
			changed, checklist = true, true
		}
	}
	if checklist {
		w.d.Transcript(s, s.Transcript.Checklist(id, s.World.Todos()))
	}
	if e.MoveTo != nil && w.Move(s, e.MoveTo.Dir, e.MoveTo.Branch) {
		changed = true
	}
	return changed
}

// Move records that claude works in dir now (a worktree it
// entered, or the folder it came back to): proposals, the editor tools'
// boundary, rules, rewind and the sidebar follow the session's folder. It
// reports whether the folder changed.
func (r *Room) Move(s *session.Session, dir, branch string) bool {
	if dir == "" {
		return false
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		r.d.Log.Info("claude named a folder that is not one", "session", s.ID, "dir", dir)
		return false
	}
	if !s.MoveTo(dir) {
		return false
	}
	cwd := s.Cwd()
	if cwd == s.Root() {
		s.World.SetWorktree(nil)
		r.d.Note(s, "Back in "+sanitize.Line(cwd)+": proposals, the editor tools and rules follow the session's folder.")
	} else {
		if branch == "" && strings.Contains(filepath.ToSlash(cwd), "/.claude/worktrees/") {
			// system/init names the folder only (a resumed session goes
			// back to claude's worktree): git knows its branch.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			branch = worktree.BranchOf(ctx, cwd)
			cancel()
		}
		next := &world.Worktree{Path: cwd, Branch: branch, Root: s.Root()}
		if old := s.World.Worktree(); old != nil && old.Path == cwd {
			// The worktree claude was started in (or entered before): what
			// is known of it stays.
			next = old
			if branch != "" {
				next.Branch = branch
			}
			branch = next.Branch
		}
		s.World.SetWorktree(next)
		text := "Now working in the worktree " + sanitize.Line(cwd)
		if branch != "" {
			text += " (branch " + sanitize.Line(branch) + ")"
		}
		r.d.Note(s, text+": proposals, the editor tools and rules follow it.")
	}
	r.d.Log.Info("session folder moved", "session", s.ID, "cwd", cwd, "root", s.Root())
	r.d.UI.Send(ui.EvSession, s)
	r.Changed(s)
	r.CountWorktree(s)
	return true
}

// EnterPlanned moves a session started in a worktree of its own (claude's
// --worktree makes it at start, before any prompt) into it.
func (r *Room) EnterPlanned(s *session.Session) {
	if wt := s.World.Worktree(); wt != nil && s.Cwd() != wt.Path {
		r.Move(s, wt.Path, wt.Branch)
	}
}

// CountWorktree counts, in the background, what the session's worktree
// changed since it started (files, lines added and removed), and notices a
// worktree whose folder was deleted by hand.
func (r *Room) CountWorktree(s *session.Session) {
	wt := s.World.Worktree()
	if wt == nil || wt.Branch == "" {
		return
	}
	r.d.Background(func(ctx context.Context) {
		var st worktree.Stats
		gone := false
		if _, err := os.Stat(wt.Path); err != nil || !worktree.Present(wt.Path) {
			if s.Cwd() != wt.Path {
				return // not made yet
			}
			gone = true // deleted, or a plain folder made in its place: git there reads the checkout
		} else {
			var err error
			if st, err = worktree.StatsOf(ctx, wt.Path, wt.Root); err != nil {
				r.d.Log.Info("count the worktree's changes", "session", s.ID, "worktree", wt.Path, "err", err)
				return
			}
		}
		if s.World.CountWorktree(wt.Path, st.Base, st.Files, st.Added, st.Removed, gone) {
			if gone && !wt.Gone {
				why := sanitize.Line(wt.Branch) + ": its worktree " + sanitize.Line(wt.Path) + " is gone (deleted or replaced outside the plugin): the session stops at its next request, before it writes there"
				r.d.Note(s, why+".")
				r.d.Notify("warn", why)
			}
			r.d.UI.Send(ui.EvSession, s)
			r.Changed(s)
		}
	})
}

// The other Claude sessions of this machine are package others' room: the
// app gives it the options, the sessions it runs and the outbox.

func (r *Room) newOthers(cfg func() others.Config) *others.Lister {
	return others.New(cfg, r.ourSessions,
		func(v others.View) { r.d.UI.Send(ui.EvAgents, v) },
		r.d.Background,
	)
}

// ourSessions are this editor's sessions as `claude agents` lists them: by
// their live claude's pid and by claude's session id.
func (r *Room) ourSessions() others.Ours {
	ours := others.Ours{Pids: map[int]bool{}, IDs: map[string]bool{}}
	for _, s := range r.d.Sessions.All() {
		if cid := s.ClaudeID(); cid != "" {
			ours.IDs[cid] = true
		}
		if s.State() == session.StateExited {
			continue
		}
		if p, ok := s.Proc.(interface{ Pid() int }); ok {
			ours.Pids[p.Pid()] = true
		}
	}
	return ours
}

// RefreshAgents lists the other sessions in the background and sends them
// as EvAgents (see others.Lister.Refresh).
func (r *Room) RefreshAgents() { r.others.Refresh() }
