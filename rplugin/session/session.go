// Package session keeps the sessions (one claude process each) and their
// state; each holds its parts, kept by packages of their own: its
// transcript (transcript), background tasks (tasks) and world (world).
package session

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/caps"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mode"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/transcript"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// States a session can be in.
const (
	StateStarting = "starting" // claude has not answered initialize yet
	StateReady    = "ready"    // claude is up; no prompt was sent yet
	StateRunning  = "running"  // a turn is in progress
	StateWaiting  = "waiting"  // a turn waits for the user's decision
	StateIdle     = "idle"
	StateExited   = "exited"
)

// Session is one claude conversation.
type Session struct {
	ID         int
	Proc       claude.Conn
	Transcript *transcript.Transcript
	// Tasks are its background tasks (agents, shells).
	Tasks *tasks.Tasks
	// World is what claude reports of the session's surroundings: its MCP
	// servers, hooks, schedules, checklist, worktree (package world).
	World   *world.World
	Started time.Time
	// Turns are the prompts sent and the files each turn changed (for
	// rewind and the changes view).
	Turns *checkpoint.Log
	// Checkpoints says claude runs with file checkpointing (option
	// checkpoints): its prompts can be rewound.
	Checkpoints bool
	// Label tells an attempt of a best of N apart ("fix-login #2"): set
	// before the session is shared, never changed ("" for other sessions).
	Label string
	// Modes is the permission mode the user chose and judges the ones
	// claude reports (package mode).
	Modes *mode.Guard
	// Applied is what the user decided about the session's proposals that
	// has yet to meet claude's side (applied.go).
	Applied *Applied
	// Caps are what claude says it can do (system/init's capabilities).
	Caps *caps.Set

	mu sync.Mutex
	// cwd is the session's folder: where claude was started (root), or
	// the worktree it moved to (EnterWorktree).
	cwd, root string
	// info numbers the snapshots Info takes, so that the front end keeps the
	// newest when two goroutines send theirs in the other order.
	state       string
	mode        string
	claudeID    string
	effort      string // set with :ClaudeNova effort ("" = claude's default)
	version     string // claude's version, as it says (initialize, system/init)
	model       string
	errMsg      string
	stopping    bool
	interrupted bool     // the user asked to interrupt the current turn
	turn        bool     // a turn runs: a prompt was sent, or claude started one
	queued      []Queued // prompts sent while a turn ran, not known to be read by claude yet
	context     Context
	title       string // claude's title (rename) or the stored one of a resumed session
	firstPrompt string
	notes       []string // for Claude, sent with the next prompt
	// lastState is the last session_state_changed claude sent ("" when it
	// sends none): its "idle" is the end of the session's work.
	lastState string
}

// SawState records claude's session_state_changed.
func (s *Session) SawState(state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastState = state
}

// AwaitsIdle reports whether claude reports its own idle and has not yet:
// a turn's result is then not the end of the session's work.
func (s *Session) AwaitsIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastState != "" && s.lastState != "idle"
}

// Tell queues a note for Claude, sent with the next prompt.
func (s *Session) Tell(note string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, note)
}

// TakeNotes returns the queued notes and forgets them.
func (s *Session) TakeNotes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes
	s.notes = nil
	return n
}

// turnBudget bounds the file contents kept from before each turn, per
// session (the oldest turns' go first).
const turnBudget = 8 << 20

// maxName bounds a session's name (a prompt's first line can be long).
const maxName = 60

// Name is how a person tells the session apart: claude's title when it has
// one, else the first line of its first prompt, else its folder.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name()
}

func (s *Session) name() string {
	for _, n := range []string{s.title, s.firstPrompt} {
		if n != "" {
			return n
		}
	}
	return filepath.Base(s.cwd)
}

// Cwd is the session's folder now: where claude works (a worktree it
// entered, else where it was started).
func (s *Session) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// Root is the folder claude was started in.
func (s *Session) Root() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.root
}

// MoveTo records that claude now works in dir (a worktree it entered, or
// the folder it came back to); it reports whether the folder changed. The
// transcript shows paths against it from now on.
func (s *Session) MoveTo(dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	s.mu.Lock()
	if s.cwd == dir {
		s.mu.Unlock()
		return false
	}
	s.cwd = dir
	s.mu.Unlock()
	s.Transcript.SetCwd(dir)
	return true
}

// SetTitle records the session's title (empty: no title).
func (s *Session) SetTitle(title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.title = shortName(title)
}

// Title is the session's title ("" when it has none).
func (s *Session) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.title
}

// Prompted records a prompt; the first one names an untitled session.
func (s *Session) Prompted(prompt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstPrompt == "" {
		s.firstPrompt = shortName(prompt)
	}
}

// shortName is the first non-blank line of text, trimmed and bounded.
// shortName is the first line of text that says something, safe to show,
// at most maxName runes.
func shortName(text string) string {
	return sanitize.Line(sanitize.FirstLine(sanitize.Text(text), maxName))
}

// Context is how full the session's context window is (get_context_usage).
type Context struct {
	Tokens  int     `json:"tokens"`
	Max     int     `json:"max"`
	Percent float64 `json:"percent"`
}

// SetContext records the context usage.
func (s *Session) SetContext(c Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.context = c
}

// Info is a snapshot of a session for the UI.
type Info struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`   // title, else first prompt, else folder
	Folder      string   `json:"folder"` // the folder's base name
	Cwd         string   `json:"cwd"`
	State       string   `json:"state"`
	Mode        string   `json:"mode"`
	ClaudeID    string   `json:"claude_id"`
	Model       string   `json:"model"`
	Effort      string   `json:"effort,omitempty"`
	Version     string   `json:"claude_version,omitempty"` // claude's own
	Error       string   `json:"error,omitempty"`
	CommandLine string   `json:"cmdline"`
	Context     *Context `json:"context,omitempty"`
	// Turn says a turn runs (the user's, or one claude started itself);
	// between turns a session may still run its background tasks.
	Turn bool `json:"turn"`
	// Tasks is how many of its background tasks run: the session is
	// running meanwhile, even between turns.
	Tasks int `json:"tasks"`
	// Activity is what claude is doing that the conversation does not
	// show ("retrying 2/10", "compacting", "writing greet.py · 12 kB").
	Activity string `json:"activity,omitempty"`
	// Worktree is the git worktree the session works in (nil when none).
	Worktree *world.Worktree `json:"worktree,omitempty"`
	// Label tells an attempt of a best of N apart ("fix-login #2"; "" for
	// any other session).
	Label string `json:"label,omitempty"`
	// Kind is "tui" for claude's own terminal UI in the editor ("": a
	// stream-json session).
	Kind string `json:"kind,omitempty"`
}

// New makes a session around a started process.
func New(id int, cwd, chosen string, proc claude.Conn) *Session {
	if chosen == "" {
		chosen = mode.Default
	}
	return &Session{
		ID: id, cwd: cwd, root: cwd, Proc: proc, Transcript: transcript.NewTranscript(cwd), Tasks: tasks.NewTasks(id), World: world.NewWorld(), Started: time.Now(),
		Turns: checkpoint.NewLog(turnBudget), Modes: mode.NewGuard(chosen),
		state: StateStarting, mode: chosen, Applied: newApplied(), Caps: caps.New(),
	}
}

// Live is the session's snapshot as the outbox delivers it (ui.Live): taken
// when it is written to the front end, so the newest one always goes last,
// whatever goroutine asked for it.
func (s *Session) Live() any { return s.Info() }

// LiveKey names the session's snapshots for the outbox: two waiting to be
// delivered are one.
func (s *Session) LiveKey() string { return "session:" + strconv.Itoa(s.ID) }

// LiveWorld is a session's world as an event's data, read when the
// outbox delivers it (ui.Live): the front end gets the world as it is then,
// and two views waiting to be delivered are one.
type LiveWorld struct{ s *Session }

// LiveWorld returns the session's world for the outbox.
func (s *Session) LiveWorld() LiveWorld { return LiveWorld{s} }

// Live reads the world now.
func (l LiveWorld) Live() any { return l.s.World.View(l.s.ID) }

// LiveKey names the session's world views.
func (l LiveWorld) LiveKey() string { return "world:" + strconv.Itoa(l.s.ID) }

// Info returns a snapshot.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := Info{
		ID: s.ID, Name: s.name(), Folder: filepath.Base(s.cwd), Cwd: s.cwd, State: s.state, Mode: s.mode,
		ClaudeID: s.claudeID, Model: s.model, Effort: s.effort, Version: s.version, Error: s.errMsg, Turn: s.turn,
		Label: s.Label,
	}
	if s.context.Max > 0 {
		c := s.context
		info.Context = &c
	}
	info.Tasks = s.Tasks.Active()
	if info.Tasks > 0 && info.State == StateIdle {
		info.State = StateRunning // between turns, its tasks work
	}
	if info.State != StateExited {
		info.Activity = s.Transcript.CurrentActivity()
	}
	if s.Proc != nil {
		info.CommandLine = s.Proc.CommandLine()
		if k, ok := s.Proc.(interface{ Kind() string }); ok {
			info.Kind = k.Kind()
		}
	}
	info.Worktree = s.World.Worktree()
	if info.Worktree == nil && s.cwd != s.root {
		// A folder it moved to that is no worktree claude named.
		info.Worktree = &world.Worktree{Path: s.cwd, Root: s.root, Shown: world.WorktreeLabel(s.cwd, s.root)}
	}
	if info.Activity == "" && info.State != StateExited {
		info.Activity = s.World.Activity()
	}
	return info
}

// Update changes what claude reported of the session under the lock; empty
// strings leave a field as it is. The state is Transition's alone.
func (s *Session) Update(mode, claudeID, model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mode != "" {
		s.mode = mode
	}
	if claudeID != "" {
		s.claudeID = claudeID
	}
	if model != "" {
		s.model = model
	}
}

// Now is what a transition sees of a session, and what it returns: the
// state ("" in a returned Now keeps it) and whether a turn runs.
type Now struct {
	State string
	Turn  bool
}

// Transition is the one writer of a session's state: next is called under
// the session's lock with the state as it is and returns the next one, so
// nothing can come between what it read and what it wrote. An exited
// session stays exited. next must not call the session; it may read an
// owner that never calls a session while it holds its own lock (the
// registry's count of requests). It reports whether the state or the turn
// changed.
func (s *Session) Transition(next func(Now) Now) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.move(next)
}

// move is Transition under the lock held.
func (s *Session) move(next func(Now) Now) bool {
	cur := Now{State: s.state, Turn: s.turn}
	n := next(cur)
	if n.State == "" || cur.State == StateExited {
		n.State = cur.State
	}
	changed := n.State != s.state || n.Turn != s.turn
	s.state, s.turn = n.State, n.Turn
	return changed
}

// To moves to state, keeping the turn as it is.
func To(state string) func(Now) Now {
	return func(cur Now) Now { cur.State = state; return cur }
}

// MarkReady records that claude answered initialize: a session that has
// not been sent a prompt is ready (it reported "starting" until its first
// prompt before). It reports whether the state changed.
func (s *Session) MarkReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.move(func(cur Now) Now {
		if cur.State == StateStarting {
			cur.State = StateReady
		}
		return cur
	})
}

// SetVersion records the claude version the session runs; false when it
// was known already.
func (s *Session) SetVersion(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v == "" || v == s.version {
		return false
	}
	s.version = v
	return true
}

// SetEffort records the effort level the user chose.
func (s *Session) SetEffort(level string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.effort = level
}

// SetMode records the permission mode and reports whether it changed (so
// that a switch is noted once, whoever reports it first: our
// set_permission_mode or claude's status message).
func (s *Session) SetMode(mode string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mode == "" || mode == s.mode {
		return false
	}
	s.mode = mode
	return true
}

// BeginTurn records that a turn runs (until EndTurn): the user's, or one
// claude started by itself when a task ended.
func (s *Session) BeginTurn() {
	s.Transition(func(cur Now) Now { cur.Turn = true; return cur })
}

// EndTurn records that the turn ended (claude's result).
func (s *Session) EndTurn() {
	s.Transition(func(cur Now) Now { cur.Turn = false; return cur })
}

// InTurn reports whether a turn runs: a request decided between turns (a
// background agent's) leaves the session idle, not running.
func (s *Session) InTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

// MarkInterrupted records that the user asked to end the current turn.
func (s *Session) MarkInterrupted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interrupted = true
}

// TakeInterrupted reports (and forgets) whether the user asked to end the
// turn that just ended.
func (s *Session) TakeInterrupted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.interrupted
	s.interrupted = false
	return was
}

// Queued is a prompt sent while a turn ran: claude holds it until it can
// read it (it joins the running turn or starts the next).
type Queued struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// QueuedList quotes prompts for a note: “first”, “second”.
func QueuedList(qs []Queued) string {
	parts := make([]string, 0, len(qs))
	for _, q := range qs {
		parts = append(parts, "“"+sanitize.Truncate(sanitize.Line(q.Text), 60)+"”")
	}
	return strings.Join(parts, ", ")
}

// Queue records a prompt sent while a turn ran.
func (s *Session) Queue(id, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queued = append(s.queued, Queued{ID: id, Text: text})
}

// QueuedPrompts lists the prompts claude may not have read yet.
func (s *Session) QueuedPrompts() []Queued {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Queued{}, s.queued...)
}

// Dequeue forgets a queued prompt and reports whether it was queued.
func (s *Session) Dequeue(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, q := range s.queued {
		if q.ID == id {
			s.queued = append(s.queued[:i], s.queued[i+1:]...)
			return true
		}
	}
	return false
}

// Exited marks the session as ended with an optional error text.
func (s *Session) Exited(errMsg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.move(To(StateExited))
	s.errMsg = errMsg
	s.Applied.forget()
	s.queued = nil
}

// State returns the current state.
func (s *Session) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Mode returns the current permission mode.
func (s *Session) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// ClaudeID returns claude's own session id (for --resume).
func (s *Session) ClaudeID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claudeID
}

// StopNow records the user's stop: the session reads as exited at once
// (nothing it does from now on changes that), and the prompts claude had not
// taken yet are dropped and returned.
func (s *Session) StopNow() []Queued {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
	s.move(func(Now) Now { return Now{State: StateExited} })
	dropped := s.queued
	s.queued = nil
	return dropped
}

// MarkStopping records that the user asked to stop, so the exit is expected.
func (s *Session) MarkStopping() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
}

// Stopping reports whether the user asked to stop this session.
func (s *Session) Stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// Manager holds all sessions.
type Manager struct {
	mu       sync.Mutex
	next     int
	sessions map[int]*Session
	current  int
}

// NewManager returns an empty manager.
func NewManager() *Manager { return &Manager{sessions: map[int]*Session{}} }

// Add registers a session built by mk with the next id and makes it current.
func (m *Manager) Add(mk func(id int) (*Session, error)) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next + 1
	s, err := mk(id)
	if err != nil {
		return nil, err
	}
	m.next = id
	m.sessions[id] = s
	m.current = id
	return s, nil
}

// Get returns a session by id.
func (m *Manager) Get(id int) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok
}

// Current returns the current session (the last created or selected that has
// not exited), if any.
func (m *Manager) Current() (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[m.current]
	if ok && s.State() != StateExited {
		return s, true
	}
	return nil, false
}

// Select makes id the current session.
func (m *Manager) Select(id int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[id]; ok {
		m.current = id
		return true
	}
	return false
}

// Remove forgets an exited session; it reports whether it did.
func (m *Manager) Remove(id int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok || s.State() != StateExited {
		return false
	}
	delete(m.sessions, id)
	return true
}

// All returns every session ordered by id.
func (m *Manager) All() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
