// Package world is what claude reports of a session's surroundings (its
// MCP servers, hooks, schedules, checklist, worktree): see World.
package world

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tools"
)

// The session's world: what claude reports about the session's
// surroundings that is not the conversation. Its MCP servers (system/init's
// mcp_servers, refreshed with mcp_status: a server that failed to start
// says why), the errors of plugins and servers that did not load, the hooks
// that run without a tool call (SessionStart, UserPromptSubmit, Stop…),
// the wake-ups and cron jobs Claude scheduled (listed until they fired or
// were deleted), its checklist (TodoWrite, TaskCreate, TaskUpdate) and the
// worktree it works in. Every string is sanitized; the front end gets it
// whole as a WorldView whenever it changes.

// MCP server statuses (McpServerStatus.status in the SDK).
const (
	MCPConnected = "connected"
	MCPFailed    = "failed"
	MCPNeedsAuth = "needs-auth"
	MCPPending   = "pending"
	MCPDisabled  = "disabled"
)

// MCPServer is one MCP server of the session as claude reports it.
type MCPServer struct {
	Name      string   `json:"name"`
	Status    string   `json:"status"`
	Scope     string   `json:"scope,omitempty"`  // project, user, local, …
	Source    string   `json:"source,omitempty"` // sdk, plugin, or the scope
	Transport string   `json:"transport,omitempty"`
	Command   string   `json:"command,omitempty"` // the command or URL it runs at
	Error     string   `json:"error,omitempty"`   // the CLI's words, when it failed
	Tools     int      `json:"tools"`
	ToolNames []string `json:"tool_names,omitempty"`
	// Known says the details (scope, error, tools) come from mcp_status;
	// false: only init's name and status are known yet.
	Known bool `json:"known"`
}

// Up reports whether the server works (connected).
func (m MCPServer) Up() bool { return m.Status == MCPConnected }

// LoadError is a plugin or MCP server that did not load (init's
// plugin_errors and mcp_server_errors).
type LoadError struct {
	Kind    string `json:"kind"` // "plugin" or "mcp"
	Name    string `json:"name"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
}

// Hook is a hook that runs outside any tool call (SessionStart, Stop, …).
type Hook struct {
	ID      string `json:"id"`
	Name    string `json:"name"`  // "SessionStart:startup"
	Event   string `json:"event"` // "SessionStart"
	Started int64  `json:"started"`
}

// Schedule kinds.
const (
	ScheduleCron   = tools.ScheduleCron
	ScheduleWakeup = tools.ScheduleWakeup
)

// Schedule is a wake-up or cron job Claude scheduled in the session.
type Schedule = tools.Schedule

// Todo is one item of Claude's checklist.
type Todo = tools.Todo

// Worktree is the git worktree the session works in: one claude made for
// it (:ClaudeNova new --worktree), or one it entered (EnterWorktree).
type Worktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch,omitempty"`
	Root   string `json:"root"` // the folder the session started in
	Shown  string `json:"shown"`
	// What it changed since Base, the commit it started from (its commits
	// and its uncommitted work), as last counted.
	Base    string `json:"base,omitempty"`
	Files   int    `json:"files"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Gone says its folder is no longer there (deleted by hand).
	Gone bool `json:"gone,omitempty"`
}

// WorldView is a session's world for the front end.
type WorldView struct {
	Session   int         `json:"session"`
	MCP       []MCPServer `json:"mcp"`
	Errors    []LoadError `json:"errors"`
	Hooks     []Hook      `json:"hooks"`
	Schedules []Schedule  `json:"schedules"`
	Todos     []Todo      `json:"todos"`
	Worktree  *Worktree   `json:"worktree,omitempty"`
	// Asked says mcp_status was answered at least once (before it, an
	// empty MCP list means "not known yet").
	Asked bool `json:"asked"`
}

// SessionID names the session of the view (ui.SessionScoped).
func (v WorldView) SessionID() int { return v.Session }

// Bounds of what a world keeps.
const (
	maxServers   = 100
	maxSchedules = 50
	maxTodos     = 100
	maxErrors    = 50
)

// World is a session's world. The zero value is not usable: NewWorld.
type World struct {
	mu        sync.Mutex
	asked     bool
	mcp       []MCPServer
	errors    []LoadError
	hooks     []Hook
	schedules []Schedule
	todos     []Todo
	worktree  *Worktree
	now       func() time.Time
}

// NewWorld returns an empty world.
func NewWorld() *World { return &World{now: time.Now} }

// View is a snapshot.
func (w *World) View(session int) WorldView {
	w.mu.Lock()
	defer w.mu.Unlock()
	v := WorldView{Session: session, Asked: w.asked,
		MCP: append([]MCPServer{}, w.mcp...), Errors: append([]LoadError{}, w.errors...),
		Hooks: append([]Hook{}, w.hooks...), Schedules: w.pending(), Todos: append([]Todo{}, w.todos...)}
	if w.worktree != nil {
		wt := *w.worktree
		v.Worktree = &wt
	}
	return v
}

// pending is the schedules that have not fired for good: a one-shot whose
// time has passed has fired. Callers hold mu.
func (w *World) pending() []Schedule {
	now := w.now().UnixMilli()
	out := []Schedule{}
	for _, s := range w.schedules {
		if !s.Recurring && s.At > 0 && s.At <= now {
			continue
		}
		out = append(out, s)
	}
	return out
}

// MCP returns the MCP servers.
func (w *World) MCP() []MCPServer {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]MCPServer{}, w.mcp...)
}

// Server returns the MCP server name.
func (w *World) Server(name string) (MCPServer, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.mcp {
		if m.Name == name {
			return m, true
		}
	}
	return MCPServer{}, false
}

// Asked reports whether mcp_status was answered once.
func (w *World) Asked() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked
}

// FromInit reads system/init's mcp_servers, plugin_errors and
// mcp_server_errors; it reports whether anything changed. A server whose
// status is unchanged keeps the details mcp_status gave.
func (w *World) FromInit(in *claude.Init) bool {
	if in == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	old := map[string]MCPServer{}
	for _, m := range w.mcp {
		old[m.Name] = m
	}
	var next []MCPServer
	for _, s := range in.MCPServers {
		name := sanitize.Line(s.Name)
		if name == "" || len(next) >= maxServers {
			continue
		}
		m := MCPServer{Name: name, Status: sanitize.Line(s.Status), Source: sanitize.Line(s.Source)}
		if o, ok := old[name]; ok && o.Status == m.Status {
			m = o
			if src := sanitize.Line(s.Source); src != "" {
				m.Source = src
			}
		} else if ok {
			// A new status: what mcp_status said before may no longer hold.
			m.Scope, m.Transport, m.Command = o.Scope, o.Transport, o.Command
		}
		next = append(next, m)
	}
	var errs []LoadError
	for _, e := range in.PluginErrors {
		if len(errs) >= maxErrors {
			break
		}
		errs = append(errs, LoadError{Kind: "plugin", Name: sanitize.Line(e.Plugin), Type: sanitize.Line(e.Type),
			Message: sanitize.Truncate(sanitize.Line(e.Message), 300)})
	}
	errs = append(errs, serverErrors(in.MCPServerErrors)...)
	changed := !sameServers(w.mcp, next) || !sameErrors(w.errors, errs)
	w.mcp, w.errors = next, errs
	return changed
}

// serverErrors are system/init's mcp_server_errors as load errors.
func serverErrors(in claude.ServerErrors) []LoadError {
	var out []LoadError
	for _, e := range in {
		out = append(out, LoadError{Kind: "mcp", Name: sanitize.Line(e.Name), Type: sanitize.Line(e.Type),
			Message: sanitize.Truncate(sanitize.Line(e.Message), 300)})
	}
	return out
}

func sameServers(a, b []MCPServer) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Status != b[i].Status || a[i].Error != b[i].Error || a[i].Tools != b[i].Tools || a[i].Source != b[i].Source {
			return false
		}
	}
	return true
}

func sameErrors(a, b []LoadError) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FromStatus takes an mcp_status answer: the list it gives replaces the
// one known. It reports whether anything changed.
func (w *World) FromStatus(st claude.MCPStatus) bool {
	var next []MCPServer
	for _, s := range st.Servers {
		name := sanitize.Line(s.Name)
		if name == "" || len(next) >= maxServers {
			continue
		}
		m := MCPServer{Name: name, Status: sanitize.Line(s.Status), Scope: sanitize.Line(s.Scope), Source: sanitize.Line(s.Source),
			Transport: sanitize.Line(s.Transport), Error: sanitize.Truncate(sanitize.Line(s.Error), 400), Known: true}
		if m.Transport == "" {
			m.Transport = sanitize.Line(s.Config.Type)
		}
		switch {
		case s.Config.Command != "":
			m.Command = sanitize.Truncate(sanitize.Line(strings.Join(append([]string{s.Config.Command}, s.Config.Args...), " ")), 200)
		case s.Config.URL != "":
			m.Command = sanitize.Truncate(sanitize.Line(s.Config.URL), 200)
		}
		for _, t := range s.Tools {
			if n := sanitize.Line(t.Name); n != "" && len(m.ToolNames) < 200 {
				m.ToolNames = append(m.ToolNames, n)
			}
		}
		m.Tools = len(s.Tools)
		if s.ToolCount != nil && *s.ToolCount > m.Tools {
			m.Tools = *s.ToolCount
		}
		next = append(next, m)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := !w.asked || !sameServers(w.mcp, next)
	for i := range next {
		if i < len(w.mcp) && (w.mcp[i].Command != next[i].Command || w.mcp[i].Scope != next[i].Scope) {
			changed = true
		}
	}
	w.asked = true
	w.mcp = next
	return changed
}

// Failing lists the servers that do not work (failed, needs-auth), and
// the load errors, as "name · failed" lines for a person.
func (w *World) Failing() []MCPServer {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []MCPServer
	for _, m := range w.mcp {
		if m.Status == MCPFailed || m.Status == MCPNeedsAuth {
			out = append(out, m)
		}
	}
	return out
}

// HookStarted records a hook that runs outside any tool call.
func (w *World) HookStarted(id, name, event string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, h := range w.hooks {
		if h.ID == id {
			return
		}
	}
	if len(w.hooks) >= 20 {
		w.hooks = w.hooks[1:]
	}
	w.hooks = append(w.hooks, Hook{ID: sanitize.Line(id), Name: sanitize.Line(name), Event: sanitize.Line(event), Started: w.now().UnixMilli()})
}

// HookEnded forgets a hook; it reports whether it was running.
func (w *World) HookEnded(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, h := range w.hooks {
		if h.ID == id {
			w.hooks = append(w.hooks[:i], w.hooks[i+1:]...)
			return true
		}
	}
	return false
}

// EndHooks forgets every running hook (claude exited); it reports whether
// there were any.
func (w *World) EndHooks() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := len(w.hooks) > 0
	w.hooks = nil
	return had
}

// Activity is what a running hook of the session is doing ("SessionStart
// hook running 3 s"), "" when none runs.
func (w *World) Activity() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.hooks) == 0 {
		return ""
	}
	h := w.hooks[len(w.hooks)-1]
	secs := max(0, w.now().UnixMilli()-h.Started) / 1000
	return fmt.Sprintf("%s hook running %d s", h.Event, secs)
}

// RunningHooks reports whether a hook runs outside any tool call.
func (w *World) RunningHooks() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.hooks) > 0
}

// Schedule records a wake-up or cron job (replacing one with its id).
func (w *World) Schedule(s Schedule) {
	s.ID, s.What, s.Human, s.Cron = sanitize.Line(s.ID), sanitize.Truncate(sanitize.Line(s.What), 200), sanitize.Line(s.Human), sanitize.Line(s.Cron)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, old := range w.schedules {
		if old.ID == s.ID && s.ID != "" {
			w.schedules[i] = s
			return
		}
	}
	if s.Kind == ScheduleWakeup {
		// One dynamic wake-up at a time: a new one replaces the last.
		kept := w.schedules[:0]
		for _, old := range w.schedules {
			if old.Kind != ScheduleWakeup {
				kept = append(kept, old)
			}
		}
		w.schedules = kept
	}
	if len(w.schedules) >= maxSchedules {
		w.schedules = w.schedules[1:]
	}
	w.schedules = append(w.schedules, s)
}

// Unschedule forgets the cron job id (CronDelete); it reports whether it
// was listed.
func (w *World) Unschedule(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, s := range w.schedules {
		if s.ID == id && id != "" {
			w.schedules = append(w.schedules[:i], w.schedules[i+1:]...)
			return true
		}
	}
	return false
}

// StopWakeups forgets the pending wake-ups (ScheduleWakeup stop: true).
func (w *World) StopWakeups() {
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.schedules[:0]
	for _, s := range w.schedules {
		if s.Kind != ScheduleWakeup {
			kept = append(kept, s)
		}
	}
	w.schedules = kept
}

// SetCrons replaces the cron jobs with claude's list (CronList): it is
// the truth about which are left. A wake-up is a one-shot job of that list
// too (checked on 2.1.328: "Every day at 10:11 PM (one-shot)", its prompt
// the wake-up's): it stays a wake-up, with the job's id.
func (w *World) SetCrons(jobs []Schedule) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var wakeups []Schedule
	kept := w.schedules[:0]
	for _, s := range w.schedules {
		if s.Kind == ScheduleWakeup {
			wakeups = append(wakeups, s)
		} else if s.Kind != ScheduleCron {
			kept = append(kept, s)
		}
	}
	w.schedules = kept
	for _, j := range jobs {
		if len(w.schedules) >= maxSchedules {
			break
		}
		if i := matchWakeup(wakeups, j); i >= 0 {
			wakeups[i].ID = sanitize.Line(j.ID)
			w.schedules = append(w.schedules, wakeups[i])
			wakeups = append(wakeups[:i], wakeups[i+1:]...)
			continue
		}
		j.Kind = ScheduleCron
		j.ID, j.What, j.Human, j.Cron = sanitize.Line(j.ID), sanitize.Truncate(sanitize.Line(j.What), 200), sanitize.Line(j.Human), sanitize.Line(j.Cron)
		w.schedules = append(w.schedules, j)
	}
}

// matchWakeup finds the wake-up a one-shot cron job is (the same fire
// time, to the minute), -1 when none.
func matchWakeup(wakeups []Schedule, j Schedule) int {
	if j.Recurring || j.At == 0 {
		return -1
	}
	for i, wu := range wakeups {
		if d := wu.At - j.At; d > -60000 && d < 60000 {
			return i
		}
	}
	return -1
}

// Schedules returns the schedules that are still to fire.
func (w *World) Schedules() []Schedule {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending()
}

// SetTodos replaces the checklist (TodoWrite sends the whole list).
func (w *World) SetTodos(todos []Todo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.todos = nil
	for _, t := range todos {
		if len(w.todos) >= maxTodos {
			break
		}
		w.todos = append(w.todos, tools.CleanTodo(t))
	}
}

// AddTodo adds an item (TaskCreate), or replaces the one with its id.
func (w *World) AddTodo(t Todo) {
	t = tools.CleanTodo(t)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, old := range w.todos {
		if old.ID == t.ID && t.ID != "" {
			w.todos[i] = t
			return
		}
	}
	if len(w.todos) >= maxTodos {
		w.todos = w.todos[1:]
	}
	w.todos = append(w.todos, t)
}

// UpdateTodo changes item id (TaskUpdate): its status ("deleted" removes
// it), its text; it returns the item and whether it was known.
func (w *World) UpdateTodo(id, status, text, active string) (Todo, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, t := range w.todos {
		if t.ID != id {
			continue
		}
		if status == "deleted" {
			w.todos = append(w.todos[:i], w.todos[i+1:]...)
			t.Status = "deleted"
			return t, true
		}
		if status != "" {
			t.Status = sanitize.Line(status)
		}
		if text != "" {
			t.Text = sanitize.Truncate(sanitize.Line(text), 200)
		}
		if active != "" {
			t.Active = sanitize.Truncate(sanitize.Line(active), 120)
		}
		w.todos[i] = t
		return t, true
	}
	return Todo{}, false
}

// Todos returns the checklist.
func (w *World) Todos() []Todo {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Todo{}, w.todos...)
}

// SetWorktree records the worktree the session works in (nil: none).
func (w *World) SetWorktree(wt *Worktree) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wt != nil {
		c := *wt
		c.Path, c.Branch, c.Root = sanitize.Line(c.Path), sanitize.Line(c.Branch), sanitize.Line(c.Root)
		c.Shown = WorktreeLabel(c.Path, c.Root)
		wt = &c
	}
	w.worktree = wt
}

// Worktree returns the worktree the session works in (nil: none).
func (w *World) Worktree() *Worktree {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.worktree == nil {
		return nil
	}
	c := *w.worktree
	return &c
}

// CountWorktree records what the worktree at path changed (when it is still
// the session's); it reports whether that differs from before.
func (w *World) CountWorktree(path, base string, files, added, removed int, gone bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt := w.worktree
	if wt == nil || wt.Path != path {
		return false
	}
	next := *wt
	next.Files, next.Added, next.Removed, next.Gone = files, added, removed, gone
	if base != "" {
		next.Base = sanitize.Line(base)
	}
	if next == *wt {
		return false
	}
	w.worktree = &next
	return true
}

// WorktreeLabel shows a worktree against the folder the session started
// in: relative when it is inside it (".claude/worktrees/feat"), else the
// whole path.
func WorktreeLabel(path, root string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		return rel
	}
	return path
}
