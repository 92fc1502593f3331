package tuihook

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	shellquote "github.com/kballard/go-shellquote"
)

// hookTimeout is how long claude lets our hook wait for the user (s): a
// day; the TUI's own dialog stays open meanwhile.
const hookTimeout = 86400

// noticeTimeout bounds a notice hook (the host answers it at once);
// changeTimeout a change's PostToolUse, which waits (bounded) for the
// file's diagnostics, as app's own hook does.
// snapshotTimeout a command's PreToolUse, which waits for the snapshot
// of the folder (bounded at 30 s by the host).
const (
	noticeTimeout   = 10
	changeTimeout   = 60
	snapshotTimeout = 60
)

// Room starts TUI sessions and follows their terminals.
type Room struct {
	log    *slog.Logger
	start  Starter
	getenv func(string) string
	exe    func() (string, error)

	mu     sync.Mutex
	server *Server
	conns  map[int]*Conn
}

// Starter registers a session run by open (app.NewSession, wired by the
// host).
type Starter func(p Params, open claude.Opener) (session.Info, error)

// New returns the room of the TUI sessions that start registers.
func New(start Starter, log *slog.Logger) *Room {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Room{log: log, start: start, getenv: os.Getenv, exe: os.Executable, conns: map[int]*Conn{}}
}

// Params start a TUI session.
type Params struct {
	Cwd    string   `json:"cwd"`
	Args   []string `json:"args"`
	Prompt string   `json:"prompt"`
	Mode   string   `json:"mode"`
	Model  string   `json:"model"`
	// Worktree runs the TUI in a git worktree of its own (claude's
	// --worktree), named WorktreeName, else after the prompt: as new.
	Worktree     bool   `json:"worktree"`
	WorktreeName string `json:"worktree_name"`
}

// Started is what the front end runs in a terminal, for the session.
type Started struct {
	Session session.Info      `json:"session"`
	Argv    []string          `json:"argv"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
}

// Start registers a TUI session and returns how to run it; the front end
// starts it in a terminal and reports Running, then Exited.
func (r *Room) Start(p Params) (Started, error) {
	srv, err := r.listening()
	if err != nil {
		return Started{}, err
	}
	exe, err := r.exe()
	if err != nil {
		return Started{}, fmt.Errorf("the host's own path (for the permission hook): %w", err)
	}
	if p.Worktree && p.WorktreeName == "" {
		// Named after the prompt, as new names it (the prompt is the
		// TUI's to send, not the session's).
		p.WorktreeName = worktree.Slug(p.Prompt)
	}
	var out Started
	var conn *Conn
	open := func(cfg claude.Config, log *slog.Logger) (claude.Conn, error) {
		argv, err := Argv(cfg, exe, p.Args, p.Prompt)
		if err != nil {
			return nil, err
		}
		c := newConn(argv, cfg.Dir, cfg.PermissionMode, log)
		_, c.ownMCP = cfg.Initialize["sdkMcpServers"]
		token, err := srv.Add(c)
		if err != nil {
			return nil, err
		}
		c.onEnd = func() { srv.Remove(token) }
		env := map[string]string{EnvSocket: srv.Path(), EnvToken: token}
		for _, kv := range cfg.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		out.Argv, out.Env, out.Cwd, conn = argv, env, cfg.Dir, c
		return c, nil
	}
	info, err := r.start(p, open)
	if err != nil {
		if conn != nil {
			conn.end(err) // made, never run: its token goes
		}
		return Started{}, err
	}
	if conn == nil {
		return Started{}, fmt.Errorf("session %d was not started as a TUI", info.ID)
	}
	r.mu.Lock()
	r.conns[info.ID] = conn
	r.mu.Unlock()
	out.Session = info
	return out, nil
}

// listening is the hooks' server, started on first use.
func (r *Room) listening() (*Server, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.server != nil {
		return r.server, nil
	}
	srv, err := Listen(Dir(r.getenv), r.log)
	if err != nil {
		return nil, err
	}
	r.server = srv
	return srv, nil
}

func (r *Room) conn(id int) (*Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.conns[id]
	if !ok {
		return nil, fmt.Errorf("session %d is no TUI session of this editor", id)
	}
	return c, nil
}

// Running: the front end started session id's terminal job as pid.
func (r *Room) Running(id, pid int) error {
	c, err := r.conn(id)
	if err != nil {
		return err
	}
	c.Running(pid)
	return nil
}

// Exited: session id's terminal job exited with code.
func (r *Room) Exited(id, code int) error {
	c, err := r.conn(id)
	if err != nil {
		return err
	}
	c.Exited(code)
	r.mu.Lock()
	delete(r.conns, id)
	r.mu.Unlock()
	return nil
}

// Close stops listening: hooks that wait get no decision.
func (r *Room) Close() {
	r.mu.Lock()
	srv := r.server
	r.server = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Argv is the TUI's command: the user's claude command and arguments, the
// mode and model the session starts with, our PermissionRequest hook
// (passed for this session only, never written to a settings file), the
// editor's MCP server when claude gets it (cfg.Initialize names it), its
// worktree, if any, and the first prompt, if any. exe is this binary.
func Argv(cfg claude.Config, exe string, extra []string, prompt string) ([]string, error) {
	words, err := claude.SplitCommand(cfg.Command)
	if err != nil {
		return nil, err
	}
	hookCommand := shellquote.Join(exe, "hook")
	hook := func(timeout int) []any {
		return []any{map[string]any{"type": "command", "command": hookCommand, "timeout": timeout}}
	}
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{
		EventPermission: []any{map[string]any{"matcher": "*", "hooks": hook(hookTimeout)}},
		EventPreTool:    []any{map[string]any{"matcher": commandTool, "hooks": hook(snapshotTimeout)}},
		EventPostTool:   []any{map[string]any{"matcher": "*", "hooks": hook(changeTimeout)}},
		EventToolFailed: []any{map[string]any{"matcher": "*", "hooks": hook(noticeTimeout)}},
		EventPrompt:     []any{map[string]any{"hooks": hook(noticeTimeout)}},
		EventStop:       []any{map[string]any{"hooks": hook(noticeTimeout)}},
	}})
	if err != nil {
		return nil, fmt.Errorf("encode the hook's settings: %w", err)
	}
	argv := append(append(words, "--settings", string(settings)), claude.SessionFlags(cfg)...)
	if _, ok := cfg.Initialize["sdkMcpServers"]; ok {
		mcpConfig, err := MCPConfig(exe)
		if err != nil {
			return nil, err
		}
		argv = append(argv, "--mcp-config", mcpConfig)
	}
	argv = append(append(argv, cfg.Args...), extra...)
	if strings.TrimSpace(prompt) != "" {
		argv = append(argv, "--", prompt)
	}
	return argv, nil
}
