package app

import (
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/commands"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/editor"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/modes"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// The plugin's own hooks, registered with claude in initialize (SDK hook
// callbacks: claude asks the host with a hook_callback control request):
//   - PreToolUse, every tool: the mode guard (rooms/modes);
//   - PostToolUse, Write/Edit/MultiEdit/NotebookEdit, after the change
//     reached the disk: what Claude must know with the tool's result, as
//     additional context beside it (the note of what the user changed in
//     a proposal, the new diagnostics of the file). claude puts that
//     context right after the tool_result ("PostToolUse:Write hook
//     additional context: …", a system message in the same request: checked
//     on 2.1.300, 2.1.328 and 2.1.332), where the model reads it as a fact
//     about the call, not as something the user typed. ExitPlanMode too:
//     the user's comments on an approved plan go beside its result.

// changeHook is our PostToolUse hook's callback id.
const changeHook = claude.ChangeHook

// changeTools are the tools whose changes the PostToolUse hook follows,
// and ExitPlanMode (a plan's comments).
const changeTools = "Write|Edit|MultiEdit|NotebookEdit|" + planTool

const planTool = "ExitPlanMode"

// initializeFields are what a new claude is told in initialize: the
// editor's MCP server (with its handshake, so the CLI needs no round trip
// for it) and our hooks.
func initializeFields(o Options) map[string]any {
	fields := editor.InitializeFields(o.EditorTools)
	fields["hooks"] = map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "", "hookCallbackIds": []string{modes.Hook}, "timeout": 30}},
		"PostToolUse": []any{map[string]any{
			"matcher": changeTools, "hookCallbackIds": []string{changeHook},
			// seconds; we answer within the wait plus the time a server
			// takes to attach to a buffer we load
			"timeout": 60,
		}},
	}
	return fields
}

// hookCallback answers claude's hook_callback requests (one answer each).
func (r *router) hookCallback(s *session.Session, m claude.Message) {
	id, in := claude.HookCallback(m)
	switch {
	case id == modes.Hook && in.Event == "PreToolUse":
		answer := r.modes.HookAnswer(s, in)
		if commands.Tools[in.ToolName] {
			// claude waits for this answer before it runs the command
			// (asked or not): the folder as it was before it.
			r.commands.Before(s, in.ToolUseID, toolcall.Decode(in.ToolInput))
		}
		r.answerHook(s, m.RequestID, answer)
	case id == changeHook && in.Event == "PostToolUse" && in.ToolName == planTool:
		r.answerHook(s, m.RequestID, contextAnswer(s.Applied.TakeResultNote(in.ToolUseID)))
	case id == changeHook && in.Event == "PostToolUse":
		r.afterChange(s, m.RequestID, in)
	default:
		r.answerHook(s, m.RequestID, map[string]any{})
	}
}

func (r *router) answerHook(s *session.Session, requestID string, answer map[string]any) {
	if err := s.Proc.RespondControl(requestID, answer); err != nil {
		r.log.Warn("answer hook_callback", "session", s.ID, "err", err)
	}
}

// afterChange answers the PostToolUse hook of a change that reached the
// disk: the note of what the user changed in its proposal goes with the
// tool's result; with feedback.diagnostics, the answer also waits (bounded)
// for the file's diagnostics and carries the new errors and warnings.
func (r *router) afterChange(s *session.Session, requestID string, in claude.HookInput) {
	note := s.Applied.TakeResultNote(in.ToolUseID)
	target, _ := claude.FieldsOf(in.ToolInput)
	path := target.Path()
	r.edit.AfterChange(s, path, note, func(note string) {
		r.answerHook(s, requestID, contextAnswer(note))
	})
}

// contextAnswer is a PostToolUse hook's answer carrying note beside the
// tool's result (none when note is "").
func contextAnswer(note string) map[string]any {
	if note == "" {
		return map[string]any{}
	}
	return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PostToolUse", "additionalContext": note}}
}
