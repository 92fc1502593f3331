package app

import (
	"github.com/claude-nova/claude-nova.nvim/rplugin/others"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// The other Claude sessions of this machine are package others' room: the
// app gives it the options, the sessions it runs and the outbox.

func (a *App) newOthers() *others.Lister {
	return others.New(
		func() others.Config {
			o := a.options()
			return others.Config{Cmd: o.Cmd, Env: o.Env, Home: a.home()}
		},
		a.ourSessions,
		func(v others.View) { a.ui.Send(ui.EvAgents, v) },
		a.desk.Background,
	)
}

// ourSessions are this editor's sessions as `claude agents` lists them: by
// their live claude's pid and by claude's session id.
func (a *App) ourSessions() others.Ours {
	ours := others.Ours{Pids: map[int]bool{}, IDs: map[string]bool{}}
	for _, s := range a.sessions.All() {
		if cid := s.ClaudeID(); cid != "" {
			ours.IDs[cid] = true
		}
		if s.State() == session.StateExited {
			continue
		}
		if p, ok := s.Proc.(interface{ Pid() int }); ok {
			ours.Pids[p.Pid()] = true
		}
	}
	return ours
}

// RefreshAgents lists the other sessions in the background and sends them
// as EvAgents (see others.Lister.Refresh).
func (a *App) RefreshAgents() { a.others.Refresh() }
