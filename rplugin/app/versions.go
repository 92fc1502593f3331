package app

import (
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// checkVersion notes the claude version a session runs and, the first
// time the host sees a version outside the supported window, says so once
// (not per session).
func (a *App) checkVersion(s *session.Session, v string) {
	if v == "" || !s.SetVersion(v) {
		return
	}
	place, ok := claude.Place(v)
	if !ok || place == 0 {
		return
	}
	a.mu.Lock()
	seen := a.versionsSeen[v]
	if a.versionsSeen == nil {
		a.versionsSeen = map[string]bool{}
	}
	a.versionsSeen[v] = true
	a.mu.Unlock()
	if seen {
		return
	}
	window := claude.OldestSupported + " to " + claude.NewestTested
	if place < 0 {
		a.desk.Notify("warn", fmt.Sprintf("claude %s is older than claude-nova supports (%s): update it (npm install -g @anthropic-ai/claude-code) or point the cmd option at a newer one", v, window))
		return
	}
	a.desk.Notify("info", fmt.Sprintf("claude %s is newer than claude-nova was tested with (%s); it is expected to work, :checkhealth claudenova says more", v, window))
}
