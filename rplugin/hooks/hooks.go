// Package hooks is what claude says of the hooks it runs: with
// --include-hook-events it reports each one as it runs (checked on
// 2.1.328): system/hook_started (hook_id, hook_name "PreToolUse:Bash",
// hook_event), hook_progress (its output so far), hook_response (output,
// stdout, stderr, exit_code, outcome). An Event is one such message,
// sanitized, with what it means: whether it runs for a tool call, blocked
// what it ran for, or failed. The transcript shows a hook on its call's
// line; the world keeps the ones that run for no call.
package hooks

import (
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// toolEvents are the hook events that run for one tool call.
var toolEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true, "PermissionRequest": true}

// blocking are the events whose hook blocks what it runs for by exiting 2,
// and what that is when it is no tool call. PreSkillShellCommand (2.1.332)
// runs before a skill's shell command (!`…` in SKILL.md), which is no tool
// call: hook_name "PreSkillShellCommand:Bash"; exit 2 leaves the command
// out ("[not run: blocked by hook: …]" in the skill's text).
var blocking = map[string]string{"PreToolUse": "it", "PermissionRequest": "it", "UserPromptSubmit": "it",
	"Stop": "it", "SubagentStop": "it", "PreCompact": "it", "PreSkillShellCommand": "a skill's shell command"}

// Event is what a hook message says.
type Event claude.Hook

// Decode reads a hook_started, hook_progress or hook_response message.
func Decode(m claude.Message) (Event, bool) {
	if m.System == nil || m.System.Hook == nil || m.System.Hook.ID == "" {
		return Event{}, false
	}
	h := Event(*m.System.Hook)
	h.Name, h.Event = sanitize.Line(h.Name), sanitize.Line(h.Event)
	if h.Event == "" {
		h.Event, _, _ = strings.Cut(h.Name, ":")
	}
	return h, true
}

// Blocked reports whether the hook blocked what it ran for.
func (h Event) Blocked() bool {
	return h.ExitCode != nil && *h.ExitCode == 2 && blocking[h.Event] != ""
}

// Blocks is what a hook of h's event blocks ("a skill's shell command"),
// "it" when that is its tool call or unknown.
func (h Event) Blocks() string {
	if b := blocking[h.Event]; b != "" {
		return b
	}
	return "it"
}

// Failed reports whether the hook failed without blocking.
func (h Event) Failed() bool {
	return !h.Blocked() && (h.Outcome == "error" || (h.ExitCode != nil && *h.ExitCode != 0))
}

// Why is what the hook said about itself: its stderr, else its output.
func (h Event) Why() string {
	for _, s := range []string{h.Stderr, h.Output, h.Stdout} {
		if w := sanitize.FirstLine(sanitize.Text(s), 300); w != "" {
			return sanitize.Truncate(w, 200)
		}
	}
	return ""
}

// ForCall reports whether the hook runs for one tool call (a tool event's
// hook belongs to the last call of its tool: hook_started names no call).
func (h Event) ForCall() bool { return toolEvents[h.Event] }
