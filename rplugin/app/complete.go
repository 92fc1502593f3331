package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/fileindex"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// maxItems bounds the items one completion answer holds.
const maxItems = 200

// CompleteParams is what the prompt input completes: "@" a file of the
// session's folder (Cwd when no session runs yet), "/" one of claude's slash
// commands. Token names the answer (the input drops answers it no longer
// waits for).
type CompleteParams struct {
	Session int    `json:"session"`
	Cwd     string `json:"cwd"`
	Kind    string `json:"kind"`
	Query   string `json:"query"`
	Token   int    `json:"token"`
}

// CompleteItem is one choice of the completion menu (complete-items).
type CompleteItem struct {
	Word string `json:"word"`
	Abbr string `json:"abbr,omitempty"`
	Menu string `json:"menu,omitempty"`
	Info string `json:"info,omitempty"`
}

// Completion is the answer: the items, best first, and how many matched.
type Completion struct {
	Token int            `json:"token"`
	Kind  string         `json:"kind"`
	Query string         `json:"query"`
	Items []CompleteItem `json:"items"`
	Total int            `json:"total"`
	Error string         `json:"error,omitempty"`
}

// completer is the app's part of completion: the file lists of every folder
// asked about, and the newest token (older answers still being computed are
// not sent).
type completer struct {
	once  sync.Once
	index *fileindex.Indexes
	mu    sync.Mutex
	last  int
}

func (c *completer) indexes() *fileindex.Indexes {
	c.once.Do(func() {
		if c.index == nil {
			c.index = fileindex.New(nil)
		}
	})
	return c.index
}

// Complete ranks the completions of p off the editor's loop and sends them
// as an EvCompletion event; it returns at once.
func (a *App) Complete(p CompleteParams) error {
	if p.Kind != "@" && p.Kind != "/" {
		return fmt.Errorf("complete: kind must be @ or /, got %q", p.Kind)
	}
	root := p.Cwd
	if s, ok := a.sessions.Get(p.Session); ok {
		root = s.Cwd()
	}
	a.comp.mu.Lock()
	if p.Token > a.comp.last {
		a.comp.last = p.Token
	}
	a.comp.mu.Unlock()
	a.desk.Background(func(ctx context.Context) {
		c := Completion{Token: p.Token, Kind: p.Kind, Query: p.Query, Items: []CompleteItem{}}
		switch p.Kind {
		case "@":
			if root == "" || !filepath.IsAbs(root) {
				c.Error = "no folder to complete files in"
				break
			}
			res, err := a.comp.indexes().Query(ctx, root, p.Query, maxItems)
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
				c.Items = append(c.Items, CompleteItem{Word: sanitize.Line(word), Abbr: sanitize.Line(f), Menu: "file"})
			}
		case "/":
			cmds, _ := a.Commands(p.Session)
			for _, cmd := range cmds {
				if strings.HasPrefix(cmd.Name, p.Query) {
					c.Items = append(c.Items, CompleteItem{Word: cmd.Name, Menu: cmd.Hint, Info: cmd.Description})
				}
			}
			c.Total = len(c.Items)
		}
		a.comp.mu.Lock()
		stale := p.Token < a.comp.last
		a.comp.mu.Unlock()
		if !stale {
			a.ui.Send(ui.EvCompletion, c)
		}
	})
	return nil
}

// fileCreated tells the file lists that Claude created path (an applied
// proposal, a write in acceptEdits): @ completes it at once. Only for a new
// file: an edited one is listed already, and each call scans the lists.
func (a *App) fileCreated(path string) {
	a.comp.indexes().Created(path)
}

// Command is one slash command claude offers (initialize's commands).
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Hint        string `json:"hint,omitempty"`
}

// Commands lists the slash commands of a session's claude (empty until
// claude answered initialize).
func (a *App) Commands(id int) ([]Command, error) {
	s, err := a.desk.Session(id)
	if err != nil {
		return nil, err
	}
	raw, err := s.Proc.InitResponse()
	if err != nil {
		return []Command{}, nil
	}
	var init struct {
		Commands []struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			ArgumentHint string `json:"argumentHint"`
		} `json:"commands"`
	}
	if json.Unmarshal(raw, &init) != nil {
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
