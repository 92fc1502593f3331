// Package elicit is the room of elicitations: an MCP server of the user's
// asks the user for input (a form, or a URL to open). A form is a pending
// request of its own kind: answered exactly once, like a permission
// request, with the user's answers, a decline, or (Neovim exiting) a
// cancel; claude may withdraw it.
package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/form"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/views"
)

// Requests is the request path as the room sees it.
type Requests interface {
	// Get is a pending request (a copy).
	Get(id string) (approval.Pending, bool)
	// Arrive registers p for session s and presents it; false for a
	// duplicate id.
	Arrive(p *approval.Pending, s *session.Session) bool
	approval.Door
}

// Room puts forms before the user and answers them.
type Room struct {
	d   *desk.Desk
	req Requests
}

// New returns the room.
func New(d *desk.Desk, req Requests) *Room { return &Room{d: d, req: req} }

// Arrive registers an elicitation of session s and presents its form.
func (r *Room) Arrive(s *session.Session, m claude.Message) {
	er, err := claude.DecodeElicitationRequest(m)
	if err != nil {
		r.d.Log.Warn("malformed elicitation", "session", s.ID, "err", err)
		if m.RequestID != "" {
			_ = s.Proc.RespondError(m.RequestID, "claude-nova.nvim could not read this elicitation: "+err.Error())
		}
		return
	}
	id := approval.Key(s.ID, er.RequestID)
	if _, dup := r.req.Get(id); dup {
		return
	}
	r.req.Arrive(&approval.Pending{
		ID: id, Session: s.ID, Kind: kind{r}, Arrived: time.Now(), Elicit: &er,
		Perm:   claude.PermissionRequest{RequestID: er.RequestID, ToolName: "Elicitation", Input: json.RawMessage("{}")},
		Route:  approval.Route{Surface: approval.SurfaceElicit},
		Target: "MCP server " + sanitize.Line(er.Server),
	}, s)
}

// Params is the user's answer to a form: action accept (with content),
// decline or cancel.
type Params struct {
	ID      string         `json:"id"`
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

// Answer answers a form. Answers that do not fit it are an error (nothing
// is sent; the form can be filled again).
func (r *Room) Answer(p Params) error {
	q, ok := r.req.Get(p.ID)
	if !ok {
		return approval.ErrNotPending
	}
	if _, ok := q.Kind.(kind); !ok {
		return errors.New("that request is not a form")
	}
	res := claude.ElicitationResult{Action: p.Action}
	switch p.Action {
	case "accept":
		if q.Elicit.Mode == "form" {
			if u := form.Of(*q.Elicit).Unsupported; u != "" {
				return fmt.Errorf("this form cannot be filled here (%s): decline it", u)
			}
			content, err := form.Check(*q.Elicit, p.Content)
			if err != nil {
				return err
			}
			res.Content = content
		}
	case "decline", "cancel":
	default:
		return fmt.Errorf("unknown answer %q (accept, decline or cancel)", p.Action)
	}
	outcome := map[string]string{"accept": "answered", "decline": "declined", "cancel": "cancelled"}[p.Action]
	return r.send(q, res, outcome)
}

// send answers form q with res, once.
func (r *Room) send(q approval.Pending, res claude.ElicitationResult, outcome string) error {
	s, ok := r.d.Sessions.Get(q.Session)
	if !ok {
		return fmt.Errorf("session %d is gone", q.Session)
	}
	err := r.req.Finish(q, outcome, func(p approval.Pending) error {
		return s.Proc.RespondControl(p.Perm.RequestID, res)
	})
	if err == nil {
		r.d.Log.Info("elicitation answered", "id", q.ID, "action", res.Action, "fields", len(res.Content))
	}
	return err
}

// kind is the kind of a form (approval.Kind): answered with its fields
// (Answer), or declined; Neovim exiting cancels it.
type kind struct{ r *Room }

func (kind) Outlives() bool             { return false }
func (kind) Withdrawn(approval.Pending) {}

// Refusal: a form is answered with its fields, on its surface; elsewhere
// only declined.
func (kind) Refusal(_ approval.Pending, d approval.Decision, _ string) string {
	if d.Behavior != approval.Deny || len(d.Rules) > 0 {
		return "a form is answered with its fields: its surface is open"
	}
	return ""
}

// Answer declines the form (cancels it as Neovim exits).
func (k kind) Answer(q approval.Pending, d approval.Decision, outcome string) (bool, error) {
	if d.Behavior != approval.Deny {
		return false, errors.New("an elicitation is answered with its form")
	}
	action := "decline"
	switch outcome {
	case "neovim exiting":
		action = "cancel"
	case "":
		outcome = "declined"
	}
	return true, k.r.send(q, claude.ElicitationResult{Action: action}, outcome)
}

// View is the form: its server, its message, its fields.
func (kind) View(v *views.Request, q approval.Pending) bool {
	f := form.Of(*q.Elicit)
	v.Form, v.Tool = &f, "MCP form"
	name := v.SessionName
	v.Title = "MCP server " + f.Server + " asks · " + name
	if t := q.Elicit.Title; t != "" {
		v.Title = sanitize.Line(t) + " · " + name
	}
	v.Fields = []views.Field{{Label: "MCP server", Value: f.Server}, {Label: "Message", Value: f.Message}}
	if f.URL != "" {
		v.Fields = append(v.Fields, views.Field{Label: "URL", Value: f.URL})
	}
	if d := q.Elicit.Description; d != "" {
		v.Fields = append(v.Fields, views.Field{Label: "Description", Value: sanitize.Text(d)})
	}
	return true
}
