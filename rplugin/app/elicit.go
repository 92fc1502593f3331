package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/form"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// elicitation registers an MCP server's request for the user's input and
// presents its form. It is answered exactly once, like a permission
// request: with the user's answers, a decline, or (Neovim exiting) a
// cancel; claude may withdraw it.
func (a *App) elicitation(s *session.Session, m claude.Message) {
	er, err := claude.DecodeElicitationRequest(m)
	if err != nil {
		a.log.Warn("malformed elicitation", "session", s.ID, "err", err)
		if m.RequestID != "" {
			_ = s.Proc.RespondError(m.RequestID, "claude-nova.nvim could not read this elicitation: "+err.Error())
		}
		return
	}
	id := approval.Key(s.ID, er.RequestID)
	if _, dup := a.reg.Get(id); dup {
		return
	}
	p := &approval.Pending{
		ID: id, Session: s.ID, Arrived: time.Now(), Elicit: &er,
		Perm:   claude.PermissionRequest{RequestID: er.RequestID, ToolName: "Elicitation", Input: json.RawMessage("{}")},
		Route:  approval.Route{Surface: approval.SurfaceElicit},
		Target: "MCP server " + sanitize.Line(er.Server),
	}
	a.arrive(p, s)
}

// ElicitParams is the user's answer to a form: action accept (with
// content), decline or cancel.
type ElicitParams struct {
	ID      string         `json:"id"`
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

// Elicit answers an elicitation. Answers that do not fit the form are an
// error (nothing is sent; the form can be filled again).
func (a *App) Elicit(p ElicitParams) error {
	r, ok := a.reg.Get(p.ID)
	if !ok {
		return ErrNotPending
	}
	if r.Elicit == nil {
		return errors.New("that request is not a form")
	}
	res := claude.ElicitationResult{Action: p.Action}
	switch p.Action {
	case "accept":
		if r.Elicit.Mode == "form" {
			if u := form.Of(*r.Elicit).Unsupported; u != "" {
				return fmt.Errorf("this form cannot be filled here (%s): decline it", u)
			}
			content, err := form.Check(*r.Elicit, p.Content)
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
	return a.answerElicit(r, res, outcome)
}

func (a *App) answerElicit(r approval.Pending, res claude.ElicitationResult, outcome string) error {
	err := a.finishWith(r, outcome, func(s *session.Session, p approval.Pending) error {
		return s.Proc.RespondControl(p.Perm.RequestID, res)
	})
	if err == nil {
		a.log.Info("elicitation answered", "id", r.ID, "action", res.Action, "fields", len(res.Content))
	}
	return err
}
