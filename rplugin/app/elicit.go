package app

import (
	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/elicit"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// An MCP server's form lives in rooms/elicit; here is where it meets the
// one request path.

// ElicitParams is the user's answer to a form (elicit.Params).
type ElicitParams = elicit.Params

// elicitation puts an MCP server's form before the user.
func (a *App) elicitation(s *session.Session, m claude.Message) { a.forms.Arrive(s, m) }

// Elicit answers a form.
func (a *App) Elicit(p ElicitParams) error { return a.forms.Answer(p) }

// formAsks is the request path as the elicitation room sees it.
type formAsks struct{ door }

func (f formAsks) Get(id string) (approval.Pending, bool) { return f.a.reg.Get(id) }
func (f formAsks) Arrive(p *approval.Pending, s *session.Session) bool {
	return f.a.arrive(p, s)
}
