package app

import (
	"os"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/editor"
)

// settings are the options the user set (Lua's setup, checked by
// Configure), read by every part of the core; a Configure replaces them
// whole.
type settings struct {
	mu   sync.Mutex
	opts Options
}

func (c *settings) get() Options {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts
}

func (c *settings) set(o Options) {
	c.mu.Lock()
	c.opts = o
	c.mu.Unlock()
}

// home is the user's home folder as claude sees it (env HOME first).
func (c *settings) home() string {
	if h := c.get().Env["HOME"]; h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// claudeHome is claude's config folder, from the environment it runs with.
func (c *settings) claudeHome() claude.Home {
	env := c.get().Env
	return claude.HomeFor(func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	})
}

// editor is the editor room's part of the options.
func (c *settings) editor() editor.Options {
	o := c.get()
	return editor.Options{Tools: o.EditorTools, Feedback: o.Feedback, Args: o.Args, Home: c.home()}
}
