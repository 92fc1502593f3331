// Package modes is the room of the permission mode the user chose, and of
// the claude version a session runs.
//
// A session runs in the mode its user chose, never in claude's default of
// the day (package mode). Three guards keep it so:
//   - the mode is passed with --permission-mode, and the one claude reports
//     in its answer to initialize is set back before the first prompt is
//     written (claude.Process);
//   - a mode claude reports later (system/init, status) that the user did
//     not choose is set back at once, loudly, and the session stops when
//     claude will not take it (Reported);
//   - meanwhile no tool runs unasked: our PreToolUse hook sees the mode of
//     each call and makes claude ask the user whenever it is not the chosen
//     one (HookAnswer).
package modes

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mode"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/unasked"
	"github.com/claude-nova/claude-nova.nvim/rplugin/window"
)

// Deps is what the room asks of the rest of the core.
type Deps struct {
	ClaudeHome func() claude.Home // where claude reads its settings
	Home       func() string      // the home folder paths are shown against
	// AllowRules are the allow rules known for a session, with where each
	// lives (rooms/permissions).
	AllowRules func(s *session.Session) []unasked.Rule
	// Stop stops a session that claude would not keep in its mode.
	Stop func(id int)
}

// Room keeps each session in the mode its user chose.
type Room struct {
	d    *desk.Desk
	deps Deps

	mu   sync.Mutex
	seen map[string]bool // claude versions outside the window already told of
}

// New returns the modes room.
func New(d *desk.Desk, deps Deps) *Room {
	return &Room{d: d, deps: deps, seen: map[string]bool{}}
}

// Hook is our PreToolUse hook's callback id.
const Hook = claude.ModeHook

// Start is the mode a session starts in: asked for this session (a
// flag), else the permission_mode option, else permissions.defaultMode of
// the settings claude reads for cwd (local, project, user), else default.
func (rm *Room) Start(asked, option, cwd string) mode.Source {
	home := rm.deps.ClaudeHome()
	srcs := rules.Sources(cwd, home.Dir)
	var settings []mode.Setting
	for i := len(srcs) - 1; i >= 0; i-- { // claude's precedence: the last wins
		perms, err := rules.Read(srcs[i].Path)
		if err != nil {
			rm.d.Log.Warn("read settings for the permission mode", "path", srcs[i].Path, "err", err)
			continue
		}
		settings = append(settings, mode.Setting{Path: srcs[i].Path, Mode: perms.DefaultMode})
	}
	src, bad := mode.Resolve(asked, option, settings)
	show := func(p string) string { return boundary.Show(p, cwd, rm.deps.Home()) }
	for _, b := range bad {
		rm.d.Notify("warn", fmt.Sprintf("%s: permissions.defaultMode %q is not a mode claude knows; sessions start in %s", show(b.Path), b.Mode, src.Mode))
	}
	for _, s := range settings {
		if s.Path == src.Where {
			src.Where = "permissions.defaultMode in " + show(s.Path)
			break
		}
	}
	return src
}

// AtStart reports what the handshake made of the mode (see above): set
// back before the first prompt, or refused (the session is stopped).
func (rm *Room) AtStart(s *session.Session, initErr error) {
	var me *claude.ModeError
	if errors.As(initErr, &me) {
		msg := fmt.Sprintf("claude started in %s and would not switch to %s, the mode you chose (claude says: %s); the session was stopped before any prompt reached it", me.Got, me.Want, me.Reason)
		rm.d.Notify("error", fmt.Sprintf("session %d: %s", s.ID, msg))
		rm.d.Note(s, "**Not started:** "+msg+".")
		rm.deps.Stop(s.ID)
		return
	}
	sb, ok := s.Proc.(interface{ ModeSetBack() string })
	if !ok {
		return
	}
	if got := sb.ModeSetBack(); got != "" {
		want := s.Modes.Chosen()
		msg := fmt.Sprintf("claude started in %s, not %s; it was set to %s, the mode you chose, before your prompt", got, want, want)
		rm.d.Notify("warn", fmt.Sprintf("session %d: %s", s.ID, msg))
		rm.d.Note(s, msg+".")
	}
}

// Reported judges a mode claude reports (system/init, status): the
// user's choice, or plan (claude's EnterPlanMode), is recorded; anything
// else is set back.
func (rm *Room) Reported(s *session.Session, m string) {
	if m == "" {
		return
	}
	if s.Modes.Report(m) {
		s.Modes.Done()
		rm.changed(s, m)
		return
	}
	if s.Stopping() || s.State() == session.StateExited || !s.Modes.Fixing(m) {
		return
	}
	want := s.Modes.Chosen()
	warn := fmt.Sprintf("claude switched session %d to %s by itself; you chose %s", s.ID, m, want)
	if what := mode.Unasked(m); what != "" {
		warn += " (in " + m + " " + what + ")"
	}
	rm.d.Notify("error", warn+": setting it back; until then every tool asks you")
	rm.d.Note(s, fmt.Sprintf("**claude switched to %s by itself** (you chose %s): set back; until then every tool asks you.", m, want))
	rm.d.Background(func(ctx context.Context) {
		body, err := s.Proc.Control(ctx, "set_permission_mode", map[string]any{"mode": want})
		if err == nil {
			err = mode.Answered(body, want)
		}
		if err == nil {
			s.Modes.Done()
			rm.changed(s, want)
			return
		}
		if s.Stopping() || s.State() == session.StateExited {
			return
		}
		msg := fmt.Sprintf("claude would not go back to %s, the mode you chose, from %s (claude says: %v); the session was stopped", want, m, claude.Refusal(err))
		rm.d.Notify("error", fmt.Sprintf("session %d: %s", s.ID, msg))
		rm.d.Note(s, "**Stopped:** "+msg+".")
		rm.deps.Stop(s.ID)
	})
}

// HookAnswer answers our PreToolUse hook: a call in a mode the user
// chose runs as that mode says; in any other, claude asks the user (an
// "ask" decision turns into a can_use_tool even in auto mode: checked on
// 2.1.300, 2.1.328 and 2.1.332).
func (rm *Room) HookAnswer(s *session.Session, in claude.HookInput) map[string]any {
	if in.PermissionMode == "" || s.Modes.Allows(in.PermissionMode) {
		return map[string]any{}
	}
	rm.d.Log.Warn("a tool call in a mode the user did not choose: asked", "session", s.ID, "tool", in.ToolName, "mode", in.PermissionMode, "chosen", s.Modes.Chosen())
	rm.Reported(s, in.PermissionMode)
	return map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       "ask",
		"permissionDecisionReason": fmt.Sprintf("claude runs in %s, which you did not choose (you chose %s): claude-nova asks you instead", in.PermissionMode, s.Modes.Chosen()),
	}}
}

// ExplainUnasked puts on the line of each call of a message's results that
// ran without asking the user what let it (package unasked): the mode, a
// rule and where it lives, a hook.
func (rm *Room) ExplainUnasked(s *session.Session, results []claude.ToolResult) {
	var allow []unasked.Rule
	read := false
	for _, r := range results {
		tool, subject, ok := s.Transcript.Unasked(r.ToolUseID)
		if !ok || r.IsError {
			continue
		}
		if !read { // only for a message that needs them
			allow, read = rm.deps.AllowRules(s), true
		}
		d := r.Decision
		why := unasked.Why(unasked.Call{Tool: tool, Subject: subject},
			unasked.Decision{Decision: d.Decision, Source: d.Source, ReasonType: d.ReasonType},
			unasked.Context{Mode: s.Mode(), Allow: allow, Cwd: s.Cwd()})
		if why != "" {
			s.Transcript.ExplainUnasked(r.ToolUseID, why)
		}
	}
}

// Set asks claude to switch a session's permission mode. It returns at
// once; the switch is noted in the transcript when claude confirms it, a
// refusal arrives as a notification.
func (rm *Room) Set(id int, m string) (desk.Outcome, error) {
	if err := mode.Check(m); err != nil {
		return desk.Outcome{}, err
	}
	s, err := rm.d.Session(id)
	if err != nil {
		return desk.Outcome{}, err
	}
	if s.State() == session.StateExited {
		return desk.Outcome{}, fmt.Errorf("session %d has exited", s.ID)
	}
	// The user's choice from now on: claude's report of it (status) may
	// come before its answer.
	s.Modes.Propose(m)
	rm.d.Background(func(ctx context.Context) {
		body, err := s.Proc.Control(ctx, "set_permission_mode", map[string]any{"mode": m})
		if err == nil {
			err = mode.Answered(body, m) // the mode claude took, if another
		}
		if err != nil {
			s.Modes.Drop(m)
			// The CLI's reason, marked as its words (auto may be refused).
			rm.d.Notify("error", fmt.Sprintf("session %d stays in %s; claude says: %v", s.ID, s.Info().Mode, err))
			return
		}
		s.Modes.Confirm(m)
		rm.changed(s, m)
	})
	return desk.Outcome{Done: true, Message: fmt.Sprintf("switching session %d to %s", s.ID, m)}, nil
}

// changed records a session's new permission mode and notes it once,
// whoever reports it first (our control request or claude's status).
func (rm *Room) changed(s *session.Session, m string) {
	if s.SetMode(m) {
		rm.d.UI.Send(ui.EvSession, s)
		rm.d.Note(s, "Permission mode: "+m)
	}
}

// CheckVersion notes the claude version a session runs and, the first
// time the host sees a version outside the supported window, says so once
// (not per session).
func (rm *Room) CheckVersion(s *session.Session, v string) {
	if v == "" || !s.SetVersion(v) {
		return
	}
	place, ok := window.Place(v)
	if !ok || place == 0 {
		return
	}
	rm.mu.Lock()
	seen := rm.seen[v]
	rm.seen[v] = true
	rm.mu.Unlock()
	if seen {
		return
	}
	window := window.OldestSupported + " to " + window.NewestTested
	if place < 0 {
		rm.d.Notify("warn", fmt.Sprintf("claude %s is older than claude-nova supports (%s): update it (npm install -g @anthropic-ai/claude-code) or point the cmd option at a newer one", v, window))
		return
	}
	rm.d.Notify("info", fmt.Sprintf("claude %s is newer than claude-nova was tested with (%s); it is expected to work, :checkhealth claudenova says more", v, window))
}
