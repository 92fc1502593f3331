package app

import (
	"os"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// claudeHome is where claude keeps its state for the environment it runs
// with (the env option over the host's own): the one lookup of claude's
// config folder for settings, trust, the session store and health.
func (a *App) claudeHome() claude.Home {
	env := a.options().Env
	return claude.HomeFor(func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	})
}
