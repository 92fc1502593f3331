// Package app is the core of the plugin: it runs sessions, routes each
// permission request to a surface, and applies the user's gestures. It knows
// nothing about RPC (see host) or drawing (see the Lua front end); it talks to
// the UI only through ui.Sink.
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
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Options are the user's settings that matter to the Go side.
type Options struct {
	Cmd         string            `json:"cmd"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	ReviewEdits string            `json:"review_edits"`
	Storage     string            `json:"storage"`
	Model       string            `json:"model"`
}

// App is the plugin core.
type App struct {
	log      *slog.Logger
	ui       ui.Sink
	reg      *approval.Registry
	sessions *session.Manager

	mu   sync.Mutex
	opts Options

	proposals *proposals
	stageMu   sync.Mutex // staging vs. the stale sweep (see permission)
	spawner   *claude.Spawner
	wg        sync.WaitGroup
}

// New returns an App that sends UI events to sink.
func New(sink ui.Sink, log *slog.Logger) *App {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &App{
		log: log, ui: sink, reg: approval.NewRegistry(), sessions: session.NewManager(),
		opts: Options{Cmd: "claude", ReviewEdits: string(approval.ReviewProposal)},
	}
	a.proposals = newProposals()
	a.spawner = claude.NewSpawner()
	return a
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
		return fmt.Errorf("review_edits must be \"proposal\" or \"panel\", got %q", o.ReviewEdits)
	}
	if o.Storage == "" {
		o.Storage = filepath.Join(os.TempDir(), "claudenova")
	}
	a.mu.Lock()
	a.opts = o
	a.mu.Unlock()
	return nil
}

func (a *App) options() Options {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts
}

// NewParams start a session.
type NewParams struct {
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd"`
	Mode   string `json:"mode"`
	Resume string `json:"resume"`
	Model  string `json:"model"`
}

// ValidModes are the permission modes claude accepts.
var ValidModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

func validMode(m string) bool {
	for _, v := range ValidModes {
		if v == m {
			return true
		}
	}
	return false
}

// NewSession starts claude in p.Cwd and sends p.Prompt if given.
func (a *App) NewSession(p NewParams) (session.Info, error) {
	o := a.options()
	if p.Mode != "" && !validMode(p.Mode) {
		return session.Info{}, fmt.Errorf("unknown permission mode %q (one of %s)", p.Mode, strings.Join(ValidModes, ", "))
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
	env := make([]string, 0, len(o.Env))
	for k, v := range o.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	model := p.Model
	if model == "" {
		model = o.Model
	}
	cfg := claude.Config{
		Command: o.Cmd, Args: o.Args, Dir: p.Cwd, Env: env,
		PermissionMode: p.Mode, Model: model, Resume: p.Resume, Spawner: a.spawner,
	}
	s, err := a.sessions.Add(func(id int) (*session.Session, error) {
		proc, err := claude.Start(cfg, a.log.With("session", id))
		if err != nil {
			return nil, err
		}
		return session.New(id, p.Cwd, p.Mode, proc), nil
	})
	if err != nil {
		return session.Info{}, err
	}
	a.stageMu.Lock()
	a.proposals.cleanStale(o.Storage, a.reg, a.log)
	a.stageMu.Unlock()
	a.ui.Send(ui.EvSession, s.Info())
	a.wg.Add(1)
	go a.run(s)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	go func() {
		defer cancel()
		if _, err := s.Proc.Control(ctx, "initialize", nil); err != nil {
			a.log.Warn("initialize failed", "session", s.ID, "err", err)
		}
	}()
	if p.Resume != "" {
		a.note(s, "Resumed session "+p.Resume)
	}
	if strings.TrimSpace(p.Prompt) != "" {
		if err := a.send(s, p.Prompt); err != nil {
			return s.Info(), err
		}
	}
	return s.Info(), nil
}

// session resolves id (0 = current).
func (a *App) session(id int) (*session.Session, error) {
	if id == 0 {
		if s, ok := a.sessions.Current(); ok {
			return s, nil
		}
		return nil, errors.New("no running session (start one with :ClaudeNova new)")
	}
	s, ok := a.sessions.Get(id)
	if !ok {
		return nil, fmt.Errorf("no session %d", id)
	}
	return s, nil
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
		return session.Info{}, errors.New("empty prompt")
	}
	s, err := a.session(p.Session)
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

func (a *App) send(s *session.Session, prompt string) error {
	if err := s.Proc.SendUser(prompt); err != nil {
		return fmt.Errorf("session %d: %w", s.ID, err)
	}
	a.transcript(s, s.Transcript.Prompt(prompt))
	s.Update(session.StateRunning, "", "", "")
	a.ui.Send(ui.EvSession, s.Info())
	return nil
}

// Interrupt ends the current turn of a session.
func (a *App) Interrupt(id int) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Proc.Control(ctx, "interrupt", nil); err != nil {
		return fmt.Errorf("interrupt session %d: %w", s.ID, err)
	}
	a.note(s, "Interrupted by you.")
	return nil
}

// SetMode switches a session's permission mode.
func (a *App) SetMode(id int, mode string) error {
	if !validMode(mode) {
		return fmt.Errorf("unknown permission mode %q (one of %s)", mode, strings.Join(ValidModes, ", "))
	}
	s, err := a.session(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Proc.Control(ctx, "set_permission_mode", map[string]any{"mode": mode}); err != nil {
		return fmt.Errorf("set mode of session %d: %w", s.ID, err)
	}
	s.Update("", mode, "", "")
	a.ui.Send(ui.EvSession, s.Info())
	a.note(s, "Permission mode: "+mode)
	return nil
}

// Stop ends a session: its pending requests are withdrawn, claude is stopped.
func (a *App) Stop(id int) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	a.stop(s)
	return nil
}

func (a *App) stop(s *session.Session) {
	s.MarkStopping()
	a.withdrawSession(s.ID, "session stopped")
	s.Proc.Stop(3 * time.Second)
}

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

// TranscriptLines returns the whole transcript of a session.
func (a *App) TranscriptLines(id int) ([]string, error) {
	s, ok := a.sessions.Get(id)
	if !ok {
		return nil, fmt.Errorf("no session %d", id)
	}
	return s.Transcript.Lines(), nil
}

// Shutdown answers every pending request with deny (Neovim is quitting) and
// stops every session. It returns when all claude processes are gone.
func (a *App) Shutdown() {
	for _, r := range a.reg.List() {
		_ = a.decide(r.ID, approval.Decision{Behavior: approval.Deny,
			Message: "Neovim is exiting; the user could not answer this request."}, "neovim exiting")
	}
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
	a.wg.Wait()
}

func (a *App) note(s *session.Session, text string) {
	a.transcript(s, s.Transcript.Note(text))
}

func (a *App) transcript(s *session.Session, ops []session.Op) {
	if len(ops) == 0 {
		return
	}
	a.ui.Send(ui.EvTranscript, &session.Update{Session: s.ID, Ops: ops})
}

func (a *App) notify(level, msg string) {
	a.ui.Send(ui.EvNotify, map[string]any{"msg": msg, "level": level})
}
