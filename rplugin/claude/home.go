package claude

import (
	"os"
	"path/filepath"
)

// Home is where claude keeps its state for the environment it runs with:
// the one place every part of the plugin (settings, trust, the session
// store, health) looks it up.
type Home struct {
	// Dir is claude's config folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
	// It holds the user's settings.json, projects/ (the session store) and
	// plans/.
	Dir string
	// Global is claude's global config file (folder trust, among other
	// things): .claude.json in $CLAUDE_CONFIG_DIR when that is set, else in
	// the home folder itself (checked on 2.1.328).
	Global string
}

// HomeFor looks the folders up in an environment: env returns a
// variable's value as claude sees it (the user's env option over the
// host's own environment).
func HomeFor(env func(string) string) Home {
	home := env("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if d := env("CLAUDE_CONFIG_DIR"); d != "" {
		return Home{Dir: d, Global: filepath.Join(d, ".claude.json")}
	}
	return Home{Dir: filepath.Join(home, ".claude"), Global: filepath.Join(home, ".claude.json")}
}
