package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mode"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/unasked"
)

// A session runs in the mode its user chose, never in claude's default of
// the day (package mode). Three guards keep it so:
//   - the mode is passed with --permission-mode, and the one claude reports
//     in its answer to initialize is set back before the first prompt is
//     written (claude.Process);
//   - a mode claude reports later (system/init, status) that the user did
//     not choose is set back at once, loudly, and the session stops when
//     claude will not take it (modeReported);
//   - meanwhile no tool runs unasked: our PreToolUse hook sees the mode of
//     each call and makes claude ask the user whenever it is not the chosen
//     one (modeHookAnswer).

// modeHook is our PreToolUse hook's callback id.
const modeHook = "claudenova-mode"

// startMode is the mode a session starts in: asked for this session (a
// flag), else the permission_mode option, else permissions.defaultMode of
// the settings claude reads for cwd (local, project, user), else default.
func (a *App) startMode(asked, option, cwd string) mode.Source {
	home := a.claudeHome()
	srcs := rules.Sources(cwd, home.Dir)
	var settings []mode.Setting
	for i := len(srcs) - 1; i >= 0; i-- { // claude's precedence: the last wins
		perms, err := rules.Read(srcs[i].Path)
		if err != nil {
			a.log.Warn("read settings for the permission mode", "path", srcs[i].Path, "err", err)
			continue
		}
		settings = append(settings, mode.Setting{Path: srcs[i].Path, Mode: perms.DefaultMode})
	}
	src, bad := mode.Resolve(asked, option, settings)
	show := func(p string) string { return boundary.Show(p, cwd, a.userHome()) }
	for _, b := range bad {
		a.desk.Notify("warn", fmt.Sprintf("%s: permissions.defaultMode %q is not a mode claude knows; sessions start in %s", show(b.Path), b.Mode, src.Mode))
	}
	for _, s := range settings {
		if s.Path == src.Where {
			src.Where = "permissions.defaultMode in " + show(s.Path)
			break
		}
	}
	return src
}

// userHome is the home folder claude sees (the env option over the host's).
func (a *App) userHome() string {
	if h := a.options().Env["HOME"]; h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// modeAtStart reports what the handshake made of the mode (see above): set
// back before the first prompt, or refused (the session is stopped).
func (a *App) modeAtStart(s *session.Session, initErr error) {
	var me *claude.ModeError
	if errors.As(initErr, &me) {
		msg := fmt.Sprintf("claude started in %s and would not switch to %s, the mode you chose (claude says: %s); the session was stopped before any prompt reached it", me.Got, me.Want, me.Reason)
		a.desk.Notify("error", fmt.Sprintf("session %d: %s", s.ID, msg))
		a.desk.Note(s, "**Not started:** "+msg+".")
		_, _ = a.Stop(s.ID)
		return
	}
	sb, ok := s.Proc.(interface{ ModeSetBack() string })
	if !ok {
		return
	}
	if got := sb.ModeSetBack(); got != "" {
		want := s.Modes.Chosen()
		msg := fmt.Sprintf("claude started in %s, not %s; it was set to %s, the mode you chose, before your prompt", got, want, want)
		a.desk.Notify("warn", fmt.Sprintf("session %d: %s", s.ID, msg))
		a.desk.Note(s, msg+".")
	}
}

// modeReported judges a mode claude reports (system/init, status): the
// user's choice, or plan (claude's EnterPlanMode), is recorded; anything
// else is set back.
func (a *App) modeReported(s *session.Session, m string) {
	if m == "" {
		return
	}
	if s.Modes.Report(m) {
		s.Modes.Done()
		a.modeChanged(s, m)
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
	a.desk.Notify("error", warn+": setting it back; until then every tool asks you")
	a.desk.Note(s, fmt.Sprintf("**claude switched to %s by itself** (you chose %s): set back; until then every tool asks you.", m, want))
	a.desk.Background(func(ctx context.Context) {
		_, err := s.Proc.Control(ctx, "set_permission_mode", map[string]any{"mode": want})
		if err == nil {
			s.Modes.Done()
			a.modeChanged(s, want)
			return
		}
		if s.Stopping() || s.State() == session.StateExited {
			return
		}
		msg := fmt.Sprintf("claude would not go back to %s, the mode you chose, from %s (claude says: %v); the session was stopped", want, m, claude.Refusal(err))
		a.desk.Notify("error", fmt.Sprintf("session %d: %s", s.ID, msg))
		a.desk.Note(s, "**Stopped:** "+msg+".")
		_, _ = a.Stop(s.ID)
	})
}

// modeHookAnswer answers our PreToolUse hook: a call in a mode the user
// chose runs as that mode says; in any other, claude asks the user (an
// "ask" decision turns into a can_use_tool even in auto mode: checked on
// 2.1.300, 2.1.328 and 2.1.332).
func (a *App) modeHookAnswer(s *session.Session, in hookInput) map[string]any {
	if in.PermissionMode == "" || s.Modes.Allows(in.PermissionMode) {
		return map[string]any{}
	}
	a.log.Warn("a tool call in a mode the user did not choose: asked", "session", s.ID, "tool", in.ToolName, "mode", in.PermissionMode, "chosen", s.Modes.Chosen())
	a.modeReported(s, in.PermissionMode)
	return map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       "ask",
		"permissionDecisionReason": fmt.Sprintf("claude runs in %s, which you did not choose (you chose %s): claude-nova asks you instead", in.PermissionMode, s.Modes.Chosen()),
	}}
}

// hookInput is what claude sends our hook callbacks (the fields we read).
type hookInput struct {
	Event          string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	PermissionMode string          `json:"permission_mode"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// explainUnasked puts on the line of each call of a message's results that
// ran without asking the user what let it (package unasked): the mode, a
// rule and where it lives, a hook.
func (a *App) explainUnasked(s *session.Session, results []claude.ToolResult) {
	var allow []unasked.Rule
	read := false
	for _, r := range results {
		tool, subject, ok := s.Transcript.Unasked(r.ToolUseID)
		if !ok || r.IsError {
			continue
		}
		if !read { // only for a message that needs them
			allow, read = a.perms.AllowRules(s), true
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
