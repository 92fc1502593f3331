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
	if srv := pr.MCPServer; srv == nil || srv.Source != "sdk" || srv.Name != editortools.Server {
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

// answerOutside settles an ask with the user's decision: the waiting call
// gets it (and the grant, for the session, is kept first).
func (a *App) answerOutside(r approval.Pending, d approval.Decision) error {
	ans := editortools.Answer{Allowed: d.Behavior != approval.Deny, Message: d.Message}
	outcome := approval.Outcome(approval.Deny)
	switch d.Behavior {
	case approval.Allow:
		ans.How, outcome = "allowed once by you", "allowed once"
	case approval.AllowSession:
		ans.How, outcome = "allowed by you for this session", approval.Outcome(approval.AllowSession)+": "+r.Outside.Shown
	case approval.AllowTool:
		ans.How, outcome = "allowed by you for this session (its folder)", approval.Outcome(approval.AllowSession)+": "+r.Outside.FolderShown+"/"
	case approval.Deny:
		ans.How = "denied by you"
	default:
		return fmt.Errorf("unknown decision %q (want allow, allow_session, allow_tool or deny)", d.Behavior)
	}
	return a.finishWith(r, outcome, func(_ *session.Session, p approval.Pending) error {
		switch d.Behavior {
		case approval.AllowSession:
			a.edit.Grants(p.Session).AllowFile(p.Outside.Path)
		case approval.AllowTool:
			a.edit.Grants(p.Session).AllowFolder(p.Outside.Folder)
		}
		a.edit.Deliver(p.ID, ans)
		return nil
	})
}
