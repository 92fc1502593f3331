package app

import (
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/editor"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// The editor as Claude's tool lives in rooms/editor; here is where its
// requests meet the one answer path: an editor tool's own can_use_tool, an
// ask outside the session's folders and its answer.

// EditorToolsOptions and FeedbackOptions are the options editor_tools and
// feedback (rooms/editor reads them).
type (
	EditorToolsOptions = editor.ToolsOptions
	FeedbackOptions    = editor.FeedbackOptions
)

// editorOptions is what the editor room reads of the options.
// outsideAsks is the request path as the editor room sees it.
type outsideAsks struct{ a *App }

// AskOutside registers an ask outside the session's folders and presents it.
func (o outsideAsks) AskOutside(p *approval.Pending, s *session.Session) bool {
	return o.a.arrive(p, s)
}

// Withdraw ends an ask whose call was cancelled.
func (o outsideAsks) Withdraw(id, reason string) { o.a.finish(id, reason) }

// Finish is the registry's way out with an answer.
func (o outsideAsks) Finish(p approval.Pending, outcome string, write func(approval.Pending) error) error {
	return door{o.a}.Finish(p, outcome, write)
}

// Interrupt asks session sid's claude to end its turn.
func (o outsideAsks) Interrupt(sid int) { _, _ = o.a.controls.Interrupt(sid) }

// editorToolAllowed answers a can_use_tool for one of the editor's own
// read-only tools at once, unless the user wants to be asked (option
// editor_tools.ask; an ask rule or a hook of theirs, or any hint of claude's
// that asks for a person's answer). It reports whether it answered. Deny
// rules are claude's to enforce: a denied call never asks.
func (a *App) editorToolAllowed(s *session.Session, pr claude.PermissionRequest) bool {
	tool := editortools.ToolName(pr.ToolName)
	if tool == "" || !a.edit.OfferedTo(s.ID, tool) || a.cfg.get().EditorTools.Ask {
		return false
	}
	if pr.MCPServer == nil {
		// A claude that does not name a request's MCP server (mcp_server:
		// 2.1.300 names it, 2.1.263 does not) cannot tell our server from
		// one of the user's named the same: the user is asked.
		a.log.Info(NoMCPServerNamed, "session", s.ID, "tool", pr.ToolName)
		return false
	}
	if srv := pr.MCPServer; srv.Source != "sdk" || srv.Name != editortools.Server {
		return false // not our server: trust the source, not the name
	}
	switch pr.DecisionReasonType {
	case "rule", "hook", "safetyCheck":
		return false // a rule, a hook or a safety check of the user's asked
	}
	if !approval.MayAutoAllow(pr) {
		return false
	}
	if err := a.respond(s, pr, claude.Allow(pr.Input), "editor tool, read-only", 0); err != nil {
		a.log.Warn("answer editor tool", "session", s.ID, "err", err)
		return false
	}
	return true
}

// NoMCPServerNamed is logged when claude's request for an editor tool
// names no MCP server: the user is asked for each call.
const NoMCPServerNamed = "claude names no MCP server in its permission request: the editor tool asks the user"

func checkEditorOptions(o Options) error {
	if bad := editortools.Unknown(o.EditorTools.Tools); len(bad) > 0 {
		return fmt.Errorf("option 'editor_tools.tools' names unknown tools: %s (known: %s)",
			strings.Join(bad, ", "), strings.Join(editortools.Names(), ", "))
	}
	if o.Feedback.DiagnosticsWait < 0 || o.Feedback.DiagnosticsWait > 60000 {
		return fmt.Errorf("option 'feedback.diagnostics_wait' must be between 0 and 60000 ms, got %d", o.Feedback.DiagnosticsWait)
	}
	return nil
}
