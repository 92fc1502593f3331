// Package app is the core of the plugin: it runs sessions, routes each
// permission request to a surface, and applies the user's gestures. It knows
// nothing about RPC (see host) or drawing (see the Lua front end); it talks to
// the UI only through ui.Sink, and to claude only through claude.Conn.
//
// Nothing here that serves a call from Neovim waits for claude: answers and
// messages are queued for each process's writer, and control requests whose
// outcome takes time (interrupt, mode) run on goroutines of their own and
// report back as events.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/attempts"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mode"
	"github.com/claude-nova/claude-nova.nvim/rplugin/others"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/ahead"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/asked"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/commands"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/complete"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/controls"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/editor"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/elicit"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/history"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/merge"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/modes"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/permissions"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/pr"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/prepare"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/provenance"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rewind"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rounds"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/world"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/transcript"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/views"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	sessionworld "github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// Options are the user's settings that matter to the Go side.
type Options struct {
	Cmd         string            `json:"cmd"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	ReviewEdits string            `json:"review_edits"`
	Storage     string            `json:"storage"`
	Model       string            `json:"model"`
	// PermissionMode is the mode sessions start in ("": the settings'
	// permissions.defaultMode, else default; see startMode).
	PermissionMode string `json:"permission_mode"`
	// TranscriptLines is how many transcript lines of a session the host
	// keeps in memory; older ones go to a file in storage.
	TranscriptLines int `json:"transcript_lines"`
	// Checkpoints runs claude with file checkpointing (rewind); nil: on.
	Checkpoints *bool `json:"checkpoints"`
	// Provenance writes a Git AI authorship note on each commit of a
	// session's repository that holds Claude's lines; nil: on.
	Provenance *bool `json:"provenance"`
	// ProvenancePrompts is what a note says of a prompt: "ref" (or ""):
	// a reference only (the session's id, the prompt's number), "text":
	// its text too (option provenance.prompts).
	ProvenancePrompts string `json:"provenance_prompts"`
	// ProvenancePush sends the authorship notes with a branch :ClaudeNova
	// pr pushes (option provenance.push).
	ProvenancePush bool `json:"provenance_push"`
	// EditorTools and Feedback: the editor's MCP server and the
	// diagnostics of Claude's changes (rooms/editor).
	EditorTools EditorToolsOptions `json:"editor_tools"`
	Feedback    FeedbackOptions    `json:"feedback"`
	// Worktree is how a new worktree is set up (rooms/prepare).
	Worktree WorktreeOptions `json:"worktree"`
}

// WorktreeOptions are the options worktree.copy, worktree.setup (a list:
// Setup; a string: Script) and worktree.setup_timeout (seconds).
type WorktreeOptions struct {
	Copy    []string `json:"copy"`
	Setup   []string `json:"setup"`
	Script  string   `json:"script"`
	Timeout float64  `json:"timeout"`
}

// defaultTranscriptLines is TranscriptLines when unset.
const defaultTranscriptLines = 5000

// stateEventsEnv makes claude send session_state_changed (checked on
// 2.1.328: without it, none is sent).
const stateEventsEnv = "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1"

// App is the plugin core.
type App struct {
	log      *slog.Logger
	ui       ui.Sink
	reg      *approval.Registry
	sessions *session.Manager
	desk     *desk.Desk        // what the rooms share: sessions, outbox, background work
	tasks    *tasks.Room       // background tasks
	rounds   *rounds.Room      // review rounds, comments, who wrote each line
	world    *world.Room       // MCP servers, hooks, schedules, worktree; the other Claude sessions
	controls *controls.Room    // interrupt, steer, model, effort, usage, queued prompts
	rewind   *rewind.Room      // the changes view, hunk undo, rewind
	edit     *editor.Room      // the editor as Claude's tool, the sessions' boundaries
	perms    *permissions.Room // the rules the user keeps: a session's own, the settings files'
	history  *history.Room     // claude's session store: resume, rename, forget
	modes    *modes.Room       // the mode the user chose, kept; claude's version
	complete *complete.Room    // the prompt input's completion
	merge    *merge.Room       // a worktree's branch brought into the checkout as proposals
	prepare  *prepare.Room     // a new worktree set up before its first prompt
	pr       *pr.Room          // a worktree's branch committed, pushed, its pull request opened
	forms    *elicit.Room      // an MCP server's forms (elicitations)
	asked    *asked.Kind       // claude's requests, answered
	notes    *provenance.Room  // who wrote each line, kept in git (authorship notes)
	commands *commands.Room    // what a command changed: snapshots around it
	views    *views.Builder    // how a request is worded for the front end
	ahead    *ahead.Room       // file changes made while claude checks them, before it asks
	route    *router           // each claude's messages, routed (run.go)

	// start spawns claude (claude.Start; tests swap in claudetest).
	start func(cfg claude.Config, log *slog.Logger) (claude.Conn, error)

	mu      sync.Mutex
	cfg     *settings
	workers map[int]*queue.Queue[func()] // per session: gestures that take time, in order

	stageMu sync.Mutex // staging vs. the stale sweep (see permission)
	spawner *claude.Spawner
	long    *claude.LongLines // shared by the sessions' claudes
}

// New returns an App that sends UI events to sink.
func New(sink ui.Sink, log *slog.Logger) *App {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sessions := session.NewManager()
	a := &App{
		log: log, ui: sink, reg: approval.NewRegistry(), sessions: sessions,
		desk:    desk.New(sink, sessions, log),
		cfg:     &settings{opts: Options{Cmd: "claude", ReviewEdits: string(approval.ReviewProposal)}},
		workers: map[int]*queue.Queue[func()]{},
	}
	// claude's config folder (settings, the session store), for the
	// environment claude runs with.
	configDir := func() string { return a.cfg.claudeHome().Dir }
	a.tasks = tasks.New(a.desk)
	a.complete = complete.New(a.desk)
	a.views = views.New(views.Deps{Sessions: sessions, Agent: a.tasks.Agent, Home: a.cfg.home,
		ConfigDir: configDir})
	a.perms = permissions.New(a.desk, a.cfg.claudeHome, a.cfg.home)
	a.modes = modes.New(a.desk, modes.Deps{
		ClaudeHome: a.cfg.claudeHome, Home: a.cfg.home, AllowRules: a.perms.AllowRules,
		Stop: func(id int) { _, _ = a.Stop(id) },
	})
	a.history = history.New(a.desk, configDir, func(sid int) {
		a.perms.Forget(sid)
		_ = os.Remove(spillFile(a.cfg.get().Storage, sid))
	})
	a.edit = editor.New(a.desk, a.cfg.editor, outsideAsks{a})
	a.notes = provenance.New(a.desk, provenance.Deps{
		Storage: func() string { return a.cfg.get().Storage },
		Enabled: func() bool { o := a.cfg.get(); return o.Provenance == nil || *o.Provenance },
		Known:   func(path string) bool { return a.rounds.Known(path) },
		Authors: func(path, text string) []review.Author { return a.rounds.AuthorsIn(path, text) },
		Prompts: func() gitai.PromptMode { return gitai.PromptMode(a.cfg.get().ProvenancePrompts) },
	})
	a.rounds = rounds.New(a.desk, rounds.Deps{
		Storage: func() string { return a.cfg.get().Storage },
		Home:    a.cfg.home, Policy: a.edit.FolderPolicy, Send: a.send, Committed: a.notes.Committed,
	})
	a.spawner, a.long = claude.NewSpawner(), claude.NewLongLines(claude.DefaultLongLines)
	a.controls = controls.New(a.desk, a.send)
	a.rewind = rewind.New(a.desk, a.rounds, a.edit.DiagnoseRewound)
	a.merge = merge.New(a.desk, mergeAsks{a}, func() string { return a.cfg.get().Storage }, a.rounds)
	a.forms = elicit.New(a.desk, formAsks{door{a}})
	a.pr = pr.New(a.desk, pr.Deps{
		SessionFor: a.merge.SessionFor, Noted: a.notes.Noted,
		PushNotes: func() bool { o := a.cfg.get(); return o.ProvenancePush && (o.Provenance == nil || *o.Provenance) },
	})
	a.prepare = prepare.New(a.desk, prepare.Deps{
		Config: func() prepare.Config {
			w := a.cfg.get().Worktree
			return prepare.Config{Copy: w.Copy, Setup: w.Setup, Script: w.Script, Timeout: time.Duration(w.Timeout * float64(time.Second))}
		},
		Send: a.sendNow, Stop: func(id int) { _, _ = a.Stop(id) }, Changed: a.tasks.Changed,
	})
	a.asked = asked.New(a.desk, asked.Deps{Door: door{a}, Keep: a.perms.Keep,
		Interrupt:   func(sid int) { _, _ = a.controls.Interrupt(sid) },
		AllowFolder: func(sid int, dir string) { a.edit.Grants(sid).AllowFolder(dir) },
		Answering:   func(s *session.Session, r approval.Pending, allowed bool) { a.commands.Answered(s, r, allowed) }})
	a.world = world.New(a.desk, func() others.Config {
		o := a.cfg.get()
		return others.Config{Cmd: o.Cmd, Env: o.Env, Home: a.cfg.home()}
	})
	a.commands = commands.New(a.desk, commands.Deps{
		Storage: func() string { return a.cfg.get().Storage },
		Record:  func(s *session.Session, path string, was checkpoint.Before) { a.route.recordFile(s, path, was) },
	})
	a.ahead = ahead.New(log, &a.stageMu, proposal.ReadFile, sink.Send, func() (string, string) {
		o := a.cfg.get()
		return o.Storage, o.ReviewEdits
	})
	a.route = &router{log: log, ui: sink, desk: a.desk, reg: a.reg, world: a.world, modes: a.modes, tasks: a.tasks,
		history: a.history, edit: a.edit, rounds: a.rounds, complete: a.complete, commands: a.commands, asks: a,
		ahead: a.ahead}
	novel := claude.NewNovelties()
	a.start = func(cfg claude.Config, log *slog.Logger) (claude.Conn, error) {
		cfg.Spawner, cfg.LongLines, cfg.Novel = a.spawner, a.long, novel
		return claude.Open(cfg, log)
	}
	return a
}

// UseStarter replaces how claude is started (tests run the core on
// in-memory claudes, see package claudetest).
func (a *App) UseStarter(start func(cfg claude.Config, log *slog.Logger) (claude.Conn, error)) {
	a.start = start
}

// Configure replaces the options (sent by Lua's setup and at host start).
func (a *App) Configure(o Options) error {
	if o.Cmd == "" {
		o.Cmd = "claude"
	}
	switch approval.ReviewEdits(o.ReviewEdits) {
	case "":
		o.ReviewEdits = string(approval.ReviewProposal)
	case approval.ReviewProposal, approval.ReviewPanel:
	default:
		return fmt.Errorf("option 'review_edits' must be \"proposal\" or \"panel\", got %q", o.ReviewEdits)
	}
	if o.Storage == "" || !filepath.IsAbs(o.Storage) {
		return fmt.Errorf("option 'storage' must be an absolute path, got %q", o.Storage)
	}
	o.Storage = filepath.Clean(o.Storage)
	if err := checkEditorOptions(o); err != nil {
		return err
	}
	if o.PermissionMode != "" {
		if err := mode.Check(o.PermissionMode); err != nil {
			return fmt.Errorf("option 'permission_mode': %w", err)
		}
	}
	if o.TranscriptLines <= 0 {
		o.TranscriptLines = defaultTranscriptLines
	}
	switch gitai.PromptMode(o.ProvenancePrompts) {
	case "":
		o.ProvenancePrompts = string(gitai.PromptsRef)
	case gitai.PromptsRef, gitai.PromptsText:
	default:
		return fmt.Errorf("option 'provenance.prompts' must be \"ref\" or \"text\", got %q", o.ProvenancePrompts)
	}
	a.cfg.set(o)
	// The repositories sessions ran in are watched again (in the
	// background): an amend there keeps its note with no session running.
	a.notes.Resume()
	return nil
}

// NewParams start a session.
type NewParams struct {
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd"`
	Mode   string `json:"mode"`
	Resume string `json:"resume"`
	Model  string `json:"model"`
	// Worktree starts claude in a git worktree of its own (claude's
	// --worktree): named WorktreeName, else after the prompt.
	Worktree     bool   `json:"worktree"`
	WorktreeName string `json:"worktree_name"`
	// Attempt: this session's number in a best of N (1…8; 0: none); Group: attempt 1's session.
	Attempt int           `json:"attempt"`
	Group   int           `json:"group"`
	Open    claude.Opener `json:"-"` // runs claude another way (tuihook)
}

// NewSession starts claude in p.Cwd and queues p.Prompt if given. It returns
// once claude is spawned: the prompt is written after claude answered
// initialize, by the process's writer.
func (a *App) NewSession(p NewParams) (session.Info, error) {
	o := a.cfg.get()
	if p.Mode != "" {
		if err := mode.Check(p.Mode); err != nil {
			return session.Info{}, err
		}
	}
	if p.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return session.Info{}, fmt.Errorf("working directory: %w", err)
		}
		p.Cwd = wd
	}
	if st, err := os.Stat(p.Cwd); err != nil || !st.IsDir() {
		return session.Info{}, fmt.Errorf("session directory %q is not a directory", p.Cwd)
	}
	if live, ok := a.live(p.Resume); ok {
		// Running here already: never a second claude on one session.
		a.sessions.Select(live.ID)
		if strings.TrimSpace(p.Prompt) != "" {
			if err := a.send(live, p.Prompt); err != nil {
				return live.Info(), err
			}
		}
		return live.Info(), nil
	}
	env := make([]string, 0, len(o.Env))
	for k, v := range o.Env {
		env = append(env, k+"="+v)
	}
	checkpoints := o.Checkpoints == nil || *o.Checkpoints
	if checkpoints {
		env = append(env, checkpointEnv)
	}
	// claude says when a session's work is over (session_state_changed
	// "idle", after its background agents), the idle signal where sent.
	env = append(env, stateEventsEnv)
	sort.Strings(env)
	model := p.Model
	if model == "" {
		model = o.Model
	}
	var planned *worktree.Plan
	if p.Worktree || p.WorktreeName != "" {
		if p.Resume != "" {
			return session.Info{}, errors.New("a resumed session works where it did: --worktree starts a new one")
		}
		ctx, cancel := a.desk.Bounded(worktree.Turn) // ended by Shutdown too
		plan, err := worktree.PlanAfter(ctx, p.Cwd, p.WorktreeName, p.Prompt, a.worktrees(), a.log)
		cancel()
		if err != nil {
			return session.Info{}, err
		}
		planned = &plan
	}
	label, err := attempts.Label(a.sessions, p.Attempt, p.Group, p.Prompt, planned != nil)
	if err != nil {
		return session.Info{}, err
	}
	// The mode the user chose, always passed: never claude's own default.
	start := a.modes.Start(p.Mode, o.PermissionMode, p.Cwd)
	cfg := claude.Config{
		Command: o.Cmd, Args: o.Args, Dir: p.Cwd, Env: env,
		PermissionMode: start.Mode, Model: model, Resume: p.Resume,
		Initialize: initializeFields(o), Open: p.Open,
	}
	if planned != nil {
		cfg.Worktree = planned.Name
	}
	var base rules.Permissions
	if argv, err := claude.Argv(cfg); err == nil {
		base = rules.FlagBase(argv, p.Cwd)
	}
	s, err := a.sessions.Add(func(id int) (*session.Session, error) {
		proc, err := a.start(cfg, a.log.With("session", id))
		if err != nil {
			return nil, err
		}
		a.perms.Start(id, base)
		s := session.New(id, p.Cwd, start.Mode, proc)
		if planned != nil {
			// claude makes it as it starts; the session moves in once
			// claude answered initialize.
			s.World.SetWorktree(&sessionworld.Worktree{Path: planned.Path, Branch: planned.Branch, Root: s.Root(), Base: planned.Base})
		}
		s.Checkpoints = checkpoints
		s.Label = label
		s.Transcript.Spill(spillFile(o.Storage, id), o.TranscriptLines)
		return s, nil
	})
	if err != nil {
		return session.Info{}, err
	}
	a.edit.Serve(s) // before its messages are read
	if planned != nil {
		// Its worktree stays out of the repository's git status (git runs
		// in the background: never on this call).
		root := planned.Root
		a.desk.Background(func(ctx context.Context) {
			if changed, err := worktree.Exclude(ctx, root); err != nil {
				a.log.Warn("keep worktrees out of git status", "root", root, "err", err)
			} else if changed {
				a.log.Info("worktrees kept out of git status: added to info/exclude", "root", root)
			}
		})
	}
	a.stageMu.Lock()
	a.cleanStale(o.Storage)
	a.stageMu.Unlock()
	if n, err := transcript.CleanSpills(filepath.Join(o.Storage, "transcripts")); err != nil {
		a.log.Warn("clean old transcripts", "err", err)
	} else if n > 0 {
		a.log.Info("removed transcripts of hosts that are gone", "count", n)
	}
	a.ui.Send(ui.EvSession, s)
	if start.Mode != mode.Default {
		a.desk.Note(s, fmt.Sprintf("Permission mode: %s (%s).", start.Mode, start.Where))
	}
	a.rounds.Opened(s)
	a.notes.Watch(s)
	if p.Resume != "" {
		// The earlier conversation (and its checkpoints) come first: the
		// prompt is sent once they are in.
		a.desk.Go(func() { a.route.run(s, p.Resume, p.Prompt) })
		return s.Info(), nil
	}
	a.desk.Go(func() { a.route.run(s, "", "") })
	if planned != nil && a.prepare.Wanted() {
		// Its worktree is set up first; the prompt waits for it.
		a.prepare.Start(s, *planned, p.Prompt)
		return s.Info(), nil
	}
	if strings.TrimSpace(p.Prompt) != "" {
		if err := a.send(s, p.Prompt); err != nil {
			return s.Info(), err
		}
	}
	return s.Info(), nil
}

// worktrees are the sessions' worktrees, with what tells when claude has
// made its own (see worktree.AfterOthers).
func (a *App) worktrees() []worktree.Making {
	var out []worktree.Making
	for _, o := range a.sessions.All() {
		if wt := o.World.Worktree(); wt != nil {
			m := worktree.Making{Path: wt.Path}
			if c, ok := o.Proc.(initialized); ok {
				m.Made, m.Done = c.Initialized(), o.Proc.Done()
			}
			out = append(out, m)
		}
	}
	return out
}

// live is the session of this host that runs claude session id (not
// exited, not being stopped), if any.
func (a *App) live(claudeID string) (*session.Session, bool) {
	if claudeID == "" {
		return nil, false
	}
	for _, s := range a.sessions.All() {
		if s.ClaudeID() == claudeID && s.State() != session.StateExited && !s.Stopping() {
			return s, true
		}
	}
	return nil, false
}

// SendParams send a prompt.
type SendParams struct {
	Session int    `json:"session"`
	Prompt  string `json:"prompt"`
	Cwd     string `json:"cwd"`
}

// Send sends a prompt to a session, starting one when there is none.
func (a *App) Send(p SendParams) (session.Info, error) {
	if strings.TrimSpace(p.Prompt) == "" {
		return session.Info{}, errors.New("empty prompt: nothing was sent")
	}
	s, err := a.desk.Session(p.Session)
	if err != nil && p.Session == 0 {
		return a.NewSession(NewParams{Prompt: p.Prompt, Cwd: p.Cwd})
	}
	if err != nil {
		return session.Info{}, err
	}
	if s.State() == session.StateExited {
		return session.Info{}, fmt.Errorf("session %d has exited; resume it with :ClaudeNova resume", s.ID)
	}
	return s.Info(), a.send(s, p.Prompt)
}

// send sends a prompt under a new id (claude keys the turn's file
// checkpoint by it), with the notes for Claude that waited for it; while
// the session's worktree is being set up it waits (rooms/prepare).
func (a *App) send(s *session.Session, prompt string) error {
	if a.prepare.Hold(s, prompt) {
		return nil
	}
	return a.sendNow(s, prompt)
}

// sendNow is send past the setup's hold.
func (a *App) sendNow(s *session.Session, prompt string) error {
	id := checkpoint.NewID()
	notes := s.TakeNotes()
	if err := s.Proc.SendUser(id, prompt, notes...); err != nil {
		for _, n := range notes {
			s.Tell(n) // not lost: they go with the next prompt that is sent
		}
		return fmt.Errorf("session %d: %w", s.ID, err)
	}
	now := time.Now()
	busy := s.State() == session.StateRunning || s.State() == session.StateWaiting
	n := s.Turns.Begin(id, prompt, now)
	mark := ""
	if s.Checkpoints {
		mark = checkpoint.Mark(n, now)
	}
	if busy {
		// Claude holds it until the running turn can take it: it can
		// still be withdrawn (CancelQueued). The mark leaves its line
		// when claude takes it (promptTaken).
		s.Queue(id, prompt)
		a.desk.Transcript(s, s.Transcript.PromptQueued(id, prompt, mark))
	} else {
		a.desk.Transcript(s, s.Transcript.PromptMarked(prompt, mark))
	}
	s.Prompted(prompt)
	s.Transition(func(session.Now) session.Now { return session.Now{State: session.StateRunning, Turn: true} })
	a.ui.Send(ui.EvSession, s)
	return nil
}

// Outcome says what a command did, in words for the user.
type Outcome = desk.Outcome

// Stop ends a session: its pending requests are withdrawn at once, claude
// is stopped in the background (the session reports exited when it is gone).
func (a *App) Stop(id int) (Outcome, error) {
	s, err := a.desk.Session(id)
	if err != nil {
		return Outcome{}, err
	}
	if s.State() == session.StateExited {
		return Outcome{Message: fmt.Sprintf("session %d has already exited", s.ID)}, nil
	}
	// Nothing of the turn runs after the user's stop: the session reads as
	// stopped at once, its requests leave without an answer (an answer, or
	// claude's stdin closing, would let the turn go on), the prompts claude
	// had not taken are dropped, and claude is interrupted, then its process
	// group ended.
	inTurn := s.InTurn() || s.State() == session.StateRunning || s.State() == session.StateWaiting
	dropped := s.StopNow()
	a.withdrawSession(s.ID, "session stopped", "")
	a.ui.Send(ui.EvSession, s)
	msg := fmt.Sprintf("stopped session %d", s.ID)
	for _, q := range dropped {
		a.desk.Transcript(s, s.Transcript.Unqueue(q.ID, "dropped"))
	}
	if n := len(dropped); n > 0 {
		msg += fmt.Sprintf("; %s claude had not read yet dropped", desk.Plural(n, "queued prompt"))
		a.desk.Note(s, fmt.Sprintf("Dropped %s claude had not read yet: %s", desk.Plural(n, "queued prompt"), session.QueuedList(dropped)))
	}
	a.desk.Go(func() {
		// An interrupt ends the turn and claude starts the next one with a
		// prompt it has already been sent (2.1.300 did, before the kill
		// came): with prompts dropped, claude is ended without it.
		if inTurn && len(dropped) == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), stopInterrupt)
			_, _ = s.Proc.Control(ctx, "interrupt", nil)
			cancel()
		}
		s.Proc.Kill(time.Second)
	})
	return Outcome{Done: true, Message: msg}, nil
}

// stopInterrupt bounds the wait for claude's answer to the interrupt a stop
// sends before it ends the process.
const stopInterrupt = 500 * time.Millisecond

// Select makes a session current.
func (a *App) Select(id int) error {
	if !a.sessions.Select(id) {
		return fmt.Errorf("no session %d", id)
	}
	return nil
}

// Sessions lists every session.
func (a *App) Sessions() []session.Info {
	all := a.sessions.All()
	out := make([]session.Info, 0, len(all))
	for _, s := range all {
		out = append(out, s.Info())
	}
	return out
}

// spillFile is where a session's older transcript lines go: one folder per
// host process, so hosts sharing the storage never mix them.
func spillFile(storage string, id int) string {
	return filepath.Join(storage, "transcripts", fmt.Sprint(os.Getpid()), fmt.Sprintf("session-%d.md", id))
}

// Transcript returns the whole transcript of a session.
func (a *App) Transcript(id int) (transcript.Snapshot, error) {
	s, ok := a.sessions.Get(id)
	if !ok {
		return transcript.Snapshot{}, fmt.Errorf("no session %d", id)
	}
	return s.Transcript.Snapshot(), nil
}

// ToolOutput is the file holding the whole result of the tool call shown on
// line (0-based) of a session's transcript, when the transcript cut it.
func (a *App) ToolOutput(id, line int) (string, error) {
	s, ok := a.sessions.Get(id)
	if !ok {
		return "", fmt.Errorf("no session %d", id)
	}
	path, ok := s.Transcript.ToolAt(line)
	if !ok {
		return "", errors.New("no cut tool result on this line")
	}
	return path, nil
}

// InBackground runs fn on the worker of the session that request id belongs
// to: gestures that take time (saving a large proposal) run there, in order
// per session, never on the goroutine that serves Neovim's notifications. An
// error is shown to the user.
func (a *App) InBackground(requestID string, fn func() error) {
	sid := 0
	if p, ok := a.reg.Get(requestID); ok {
		sid = p.Session
	}
	a.mu.Lock()
	q, ok := a.workers[sid]
	if !ok {
		q = queue.New[func()]()
		a.workers[sid] = q
		a.desk.Go(func() {
			backgroundThread()
			for f := range q.Out() {
				f()
			}
		})
	}
	a.mu.Unlock()
	q.Push(func() {
		if err := fn(); err != nil && !errors.Is(err, ErrNotPending) {
			a.desk.Notify("error", err.Error())
		}
	})
}

// Shutdown answers every pending request with deny (Neovim is quitting) and
// stops every session. It returns when all claude processes are gone.
func (a *App) Shutdown() {
	a.desk.Close() // background git (a push, a merge) ends now
	a.edit.Stop()
	a.notes.Close()
	defer a.commands.Close()
	for _, r := range a.reg.List() {
		_, _ = r.Kind.Answer(r, approval.Decision{Behavior: approval.Deny,
			Message: "Neovim is exiting; the user could not answer this request."}, "neovim exiting")
	}
	a.edit.WaitCalls(2 * time.Second) // their answers (a denied ask) go out before claude stops
	var wg sync.WaitGroup
	for _, s := range a.sessions.All() {
		if s.State() == session.StateExited {
			continue
		}
		wg.Add(1)
		go func(s *session.Session) {
			defer wg.Done()
			s.MarkStopping()
			s.Proc.Stop(2 * time.Second)
		}(s)
	}
	wg.Wait()
	a.mu.Lock()
	for _, q := range a.workers {
		q.Close()
	}
	a.workers = map[int]*queue.Queue[func()]{}
	storage := a.cfg.get().Storage
	a.mu.Unlock()
	a.desk.Wait()
	if storage != "" {
		_ = os.RemoveAll(filepath.Dir(spillFile(storage, 0)))
	}
}

// Rooms are the features of the core, each owning its state (package
// desk is what they share). Host calls reach them here; app wires them to
// each other and routes claude's messages and the requests to them.
type Rooms struct {
	Tasks       *tasks.Room       // background tasks
	Rounds      *rounds.Room      // review rounds, comments, who wrote each line
	World       *world.Room       // MCP servers, hooks, schedules, worktree; other Claude sessions
	Controls    *controls.Room    // interrupt, steer, model, effort, usage, queued prompts
	Rewind      *rewind.Room      // the changes view, hunk undo, rewind
	Editor      *editor.Room      // the editor as Claude's tool, the sessions' boundaries
	Permissions *permissions.Room // the rules the user keeps
	History     *history.Room     // claude's session store
	Modes       *modes.Room       // the mode the user chose; claude's version
	Complete    *complete.Room    // the prompt input's completion
	Merge       *merge.Room       // a worktree's branch brought into the checkout as proposals
	PR          *pr.Room          // a worktree's branch as a pull request: commit, push, gh
	Provenance  *provenance.Room  // who wrote each line, kept in git
	Commands    *commands.Room    // what a command changed
	Desk        *desk.Desk        // what the rooms share: background work, later answers
}

// Rooms returns the rooms.
func (a *App) Rooms() Rooms {
	return Rooms{Tasks: a.tasks, Rounds: a.rounds, World: a.world, Controls: a.controls, Rewind: a.rewind,
		Editor: a.edit, Permissions: a.perms, History: a.history, Modes: a.modes, Complete: a.complete, Merge: a.merge, PR: a.pr, Provenance: a.notes, Commands: a.commands, Desk: a.desk}
}

// RequestView is a pending request as the front end shows it.
type RequestView = views.Request
