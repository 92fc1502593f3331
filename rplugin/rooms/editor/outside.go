package editor

import (
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/views"
)

// outside is the kind of an editor tool's ask outside the session's
// folders (approval.Kind): the waiting tool call gets the answer (claude
// is not asked); allowed for the session, the file or its folder is
// granted first.
type outside struct{ r *Room }

func (outside) Outlives() bool { return false }

// Withdrawn tells the waiting call (after an answer it has it already).
func (k outside) Withdrawn(p approval.Pending) {
	k.r.Deliver(p.ID, editortools.Answer{How: "withdrawn"})
}

// Refusal: no lasting rule, never a batch's allow, no folder claude
// suggests (there is none: allow_tool allows the file's folder).
func (outside) Refusal(_ approval.Pending, d approval.Decision, via string) string {
	if why := approval.OutsideRefusal(d, via); why != "" {
		return why
	}
	if d.Behavior == approval.AllowDir {
		return "a read outside the session's folders is allowed once, for its file or for its folder (allow_tool)"
	}
	return ""
}

// Answer settles the ask with the user's decision: the waiting call gets
// it (and the grant, for the session, is kept first). A deny that stops
// asks claude to end the turn.
func (k outside) Answer(r approval.Pending, d approval.Decision, _ string) (bool, error) {
	o := r.Outside
	ans := editortools.Answer{Allowed: d.Behavior != approval.Deny, Message: d.Message}
	outcome := approval.Outcome(approval.Deny)
	switch d.Behavior {
	case approval.Allow:
		ans.How, outcome = "allowed once by you", "allowed once"
	case approval.AllowSession:
		ans.How, outcome = "allowed by you for this session", approval.Outcome(approval.AllowSession)+": "+o.Shown
	case approval.AllowTool:
		ans.How, outcome = "allowed by you for this session (its folder)", approval.Outcome(approval.AllowSession)+": "+o.FolderShown+"/"
	case approval.Deny:
		ans.How = "denied by you"
	default:
		return false, fmt.Errorf("unknown decision %q (want allow, allow_session, allow_tool or deny)", d.Behavior)
	}
	err := k.r.req.Finish(r, outcome, func(p approval.Pending) error {
		switch d.Behavior {
		case approval.AllowSession:
			k.r.Grants(p.Session).AllowFile(o.Path)
		case approval.AllowTool:
			k.r.Grants(p.Session).AllowFolder(o.Folder)
		}
		k.r.Deliver(p.ID, ans)
		return nil
	})
	if err != nil {
		return false, err
	}
	if d.Behavior == approval.Deny && d.Interrupt {
		// The editor's own tool: claude is asked to end the turn.
		k.r.req.Interrupt(r.Session)
	}
	return true, nil
}

// View is the panel of the ask: what Claude wants, why it asks, and
// exactly what it would get.
func (outside) View(v *views.Request, r approval.Pending) bool {
	o := r.Outside
	v.Tool = sanitize.Line(editortools.ModelName(o.Tool))
	v.Title = "Claude wants to read outside the project · " + v.SessionName
	v.Outside = o.Shown
	v.Reason = "Claude wants " + o.What + ". It is outside this session's folders, so the editor asks before it answers."
	v.Fields = []views.Field{
		{Label: "Tool", Value: v.Tool},
		{Label: "Path", Value: o.Shown},
		{Label: "Inside (the session's folders)", Value: strings.Join(o.Inside, ", ")},
	}
	v.Hints = approval.Hints{HumanOnly: true} // never allowed by a batch (see approval.Refusal)
	v.SessionChoice = o.Shown + " for this session"
	v.ToolChoice = "everything in " + o.FolderShown + "/ for this session"
	v.NoAlways = approval.OutsideNoRule
	v.Review = append([]string{"What Claude would receive:", ""}, sanitize.Lines(o.Preview)...)
	if len(v.Review) > views.ReviewCap {
		v.Review = append(v.Review[:views.ReviewCap], fmt.Sprintf("(%d more lines)", len(v.Review)-views.ReviewCap))
	}
	return true
}
