// Package complete is the room of the prompt input's completion: "@" a
// file of the session's folder (the file lists are rebuilt off the loop,
// package fileindex, and learn at once of a file Claude created), "/" one
// of claude's slash commands.
package complete

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/fileindex"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// New returns the completion room.
func New(d *desk.Desk) *Room { return &Room{d: d} }

// maxItems bounds the items one completion answer holds.
const maxItems = 200

// Params is what the prompt input completes: "@" a file of the
// session's folder (Cwd when no session runs yet), "/" one of claude's slash
// commands. Token names the answer (the input drops answers it no longer
// waits for).
type Params struct {
	Session int    `json:"session"`
	Cwd     string `json:"cwd"`
	Kind    string `json:"kind"`
	Query   string `json:"query"`
	Token   int    `json:"token"`
}

// Item is one choice of the completion menu (complete-items).
type Item struct {
	Word string `json:"word"`
	Abbr string `json:"abbr,omitempty"`
	Menu string `json:"menu,omitempty"`
	Info string `json:"info,omitempty"`
}

// Completion is the answer: the items, best first, and how many matched.
type Completion struct {
	Token int    `json:"token"`
	Kind  string `json:"kind"`
	Query string `json:"query"`
	Items []Item `json:"items"`
	Total int    `json:"total"`
	Error string `json:"error,omitempty"`
}

// Room completes the prompt input: the file lists of every folder asked
// about, and the newest token (older answers still being computed are not
// sent).
type Room struct {
	d *desk.Desk

	once  sync.Once
	index *fileindex.Indexes
	mu    sync.Mutex
	last  int
}

func (r *Room) indexes() *fileindex.Indexes {
	r.once.Do(func() { r.index = fileindex.New(nil) })
	return r.index
}

// Complete ranks the completions of p off the editor's loop and sends them
// as an EvCompletion event; it returns at once.
func (r *Room) Complete(p Params) error {
	if p.Kind != "@" && p.Kind != "/" {
		return fmt.Errorf("complete: kind must be @ or /, got %q", p.Kind)
	}
	root := p.Cwd
	if s, ok := r.d.Sessions.Get(p.Session); ok {
		root = s.Cwd()
	}
	r.mu.Lock()
	if p.Token > r.last {
		r.last = p.Token
	}
	r.mu.Unlock()
	r.d.Background(func(ctx context.Context) {
		c := Completion{Token: p.Token, Kind: p.Kind, Query: p.Query, Items: []Item{}}
		switch p.Kind {
		case "@":
			if root == "" || !filepath.IsAbs(root) {
				c.Error = "no folder to complete files in"
				break
			}
			res, err := r.indexes().Query(ctx, root, p.Query, maxItems)
			if err != nil {
				c.Error = "the file list could not be read: " + err.Error()
				break
			}
			c.Total = res.Total
			for _, f := range res.Files {
				word := f
				if strings.ContainsAny(f, " \t") {
					word = `"` + f + `"`
				}
				c.Items = append(c.Items, Item{Word: sanitize.Line(word), Abbr: sanitize.Line(f), Menu: "file"})
			}
		case "/":
			cmds, _ := r.Commands(p.Session)
			for _, cmd := range cmds {
				if strings.HasPrefix(cmd.Name, p.Query) {
					c.Items = append(c.Items, Item{Word: cmd.Name, Menu: cmd.Hint, Info: cmd.Description})
				}
			}
			c.Total = len(c.Items)
		}
		r.mu.Lock()
		stale := p.Token < r.last
		r.mu.Unlock()
		if !stale {
			r.d.UI.Send(ui.EvCompletion, c)
		}
	})
	return nil
}

// Created tells the file lists that Claude created path (an applied
// proposal, a write in acceptEdits): @ completes it at once. Only for a new
// file: an edited one is listed already, and each call scans the lists.
func (r *Room) Created(path string) {
	r.indexes().Created(path)
}

// Command is one slash command claude offers (initialize's commands).
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Hint        string `json:"hint,omitempty"`
}

// Commands lists the slash commands of a session's claude (empty until
// claude answered initialize).
func (r *Room) Commands(id int) ([]Command, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return nil, err
	}
	raw, err := s.Proc.InitResponse()
	if err != nil {
		return []Command{}, nil
	}
	init, err := replies.DecodeInit(raw)
	if err != nil {
		return []Command{}, nil
	}
	out := make([]Command, 0, len(init.Commands))
	for _, c := range init.Commands {
		if c.Name == "" {
			continue
		}
		out = append(out, Command{Name: sanitize.Line(c.Name), Description: sanitize.Truncate(sanitize.Line(c.Description), 200), Hint: sanitize.Line(c.ArgumentHint)})
	}
	return out, nil
}
