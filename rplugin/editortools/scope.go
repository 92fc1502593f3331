package editortools

import (
	"context"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
)

// scope is the boundary of one tool call: every path the call meets is
// checked once (through the session's gate), and what the user allowed for
// this call stays allowed while its answer is written.
type scope struct {
	sess  Session
	gate  Gate
	cache map[string]boundary.Check
}

func newScope(sess Session) *scope {
	g := sess.Gate
	if g == nil {
		g = closedGate{boundary.Policy{Cwd: sess.Cwd, Folders: boundary.NewFolders(sess.Cwd, sess.Home)}}
	}
	return &scope{sess: sess, gate: g, cache: map[string]boundary.Check{}}
}

// check says where name stands (cached for the call).
func (s *scope) check(name string) boundary.Check {
	if c, ok := s.cache[name]; ok {
		return c
	}
	c := s.gate.Check(name)
	s.cache[name] = c
	if c.Real != "" && c.Real != name {
		s.cache[c.Real] = c
	}
	return c
}

// open reports whether what comes from name may reach Claude unasked.
func (s *scope) open(name string) bool { return s.check(name).Place.Open() }

// ask asks the user; an allowed path stays open for the rest of the call.
func (s *scope) ask(ctx context.Context, q Question) Answer {
	ans := s.gate.Ask(ctx, q)
	if ans.Allowed {
		c := s.check(q.Path)
		c.Place = boundary.Granted
		s.cache[q.Path] = c
	}
	return ans
}

// show is how the model and the user read a path: relative to the
// session's folder inside it, "~/…" under home, else absolute.
func (s *scope) show(p string) string {
	if p == "" {
		return "an unnamed buffer"
	}
	if c := s.check(p); c.NotFile {
		return p
	}
	return boundary.Show(p, s.sess.Cwd, s.sess.Home)
}

// outsideNote says how many entries of how many files were left out.
func outsideNote(entries int, files map[string]bool, what string) string {
	if entries == 0 {
		return ""
	}
	return fmt.Sprintf("(And %s in %s outside the project, not shown: reading those needs the user's consent.)",
		plural(entries, what), plural(len(files), "file"))
}

// closedGate is the boundary of a session with no gate: its folder only,
// and nothing from outside is given.
type closedGate struct{ pol boundary.Policy }

func (g closedGate) Check(name string) boundary.Check { return g.pol.Check(name) }

func (closedGate) Ask(context.Context, Question) Answer {
	return Answer{How: "denied (no one to ask)"}
}
