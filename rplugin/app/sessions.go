package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/store"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// configDir is the folder claude keeps its sessions in (see claudeHome).
func (a *App) configDir() string { return a.claudeHome().Dir }

// Rename gives a session a name. A running claude is asked to rename the
// session (rename_session: its own store and pickers show it too); an
// exited one is renamed in claude's session store directly.
func (a *App) Rename(id int, name string) (Outcome, error) {
	name = strings.TrimSpace(sanitize.Line(name))
	if name == "" {
		return Outcome{}, errors.New("rename needs a name, e.g. :ClaudeNova rename fix the login test")
	}
	s, err := a.desk.Session(id)
	if err != nil {
		return Outcome{}, err
	}
	old := s.Title()
	s.SetTitle(name)
	a.ui.Send(ui.EvSession, s)
	if s.State() == session.StateExited {
		msg := fmt.Sprintf("session %d is now %q", s.ID, s.Name())
		if cid := s.ClaudeID(); cid != "" {
			if path, err := store.Find(a.configDir(), s.Cwd(), cid); err == nil {
				if err := store.AppendTitle(path, cid, name); err != nil {
					return Outcome{Done: true, Message: msg + " here; " + err.Error()}, nil
				}
			}
		}
		return Outcome{Done: true, Message: msg}, nil
	}
	a.desk.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "rename_session", map[string]any{"title": name}); err != nil {
			a.desk.Notify("warn", fmt.Sprintf("session %d is %q here, but claude did not take the name: %v", s.ID, name, err))
			a.log.Info("rename refused", "session", s.ID, "old", old, "err", err)
		}
	})
	return Outcome{Done: true, Message: fmt.Sprintf("session %d is now %q", s.ID, s.Name())}, nil
}

// Forget removes exited sessions from the list (id 0: every exited one).
// It returns how many it removed.
func (a *App) Forget(id int) (int, error) {
	var ids []int
	if id == 0 {
		for _, s := range a.sessions.All() {
			if s.State() == session.StateExited {
				ids = append(ids, s.ID)
			}
		}
	} else {
		s, ok := a.sessions.Get(id)
		if !ok {
			return 0, fmt.Errorf("no session %d", id)
		}
		if s.State() != session.StateExited {
			return 0, fmt.Errorf("session %d is %s: stop it first (:ClaudeNova stop)", id, s.State())
		}
		ids = []int{id}
	}
	n := 0
	for _, sid := range ids {
		if !a.sessions.Remove(sid) {
			continue
		}
		n++
		a.mu.Lock()
		delete(a.flags, sid)
		a.mu.Unlock()
		_ = os.Remove(spillFile(a.options().Storage, sid))
		a.ui.Send(ui.EvSessionRemoved, map[string]any{"session": sid})
	}
	return n, nil
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

// Resumable is a stored session of a folder, for the resume picker.
type Resumable struct {
	store.Summary
	Name string `json:"name"`
	Ago  string `json:"ago"`
}

// ResumableList is what the resume picker shows.
type ResumableList struct {
	Sessions []Resumable `json:"sessions"`
	// Note explains a list that could not be read as expected.
	Note string `json:"note,omitempty"`
}

// Resumable lists the sessions claude stored for cwd, most recent first.
func (a *App) Resumable(cwd string) (ResumableList, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return ResumableList{}, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	list, err := store.List(store.Dir(a.configDir(), cwd))
	if err != nil {
		return ResumableList{}, err
	}
	out := ResumableList{Sessions: make([]Resumable, 0, len(list))}
	unknown := 0
	now := time.Now()
	for _, s := range list {
		if !s.Known {
			unknown++
		}
		r := Resumable{Summary: s, Name: sanitize.Line(s.Name()), Ago: Ago(now.Sub(time.Unix(s.Updated, 0)))}
		r.FirstPrompt = sanitize.Line(r.FirstPrompt)
		r.LastPrompt = sanitize.Line(r.LastPrompt)
		r.Title = sanitize.Line(r.Title)
		out.Sessions = append(out.Sessions, r)
	}
	if unknown > 0 {
		out.Note = fmt.Sprintf("%d of claude's stored sessions are in a format claude-nova does not know: listed by id", unknown)
	}
	return out, nil
}

// Ago is a short age: 12s, 3m, 1h, 2d.
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// history shows the earlier conversation of a resumed session (claude does
// not replay it), marked as history, before anything live.
func (a *App) history(s *session.Session, claudeID string) {
	path, err := store.Find(a.configDir(), s.Cwd(), claudeID)
	if err != nil {
		a.desk.Note(s, "Resumed session "+claudeID+": its earlier conversation is not in claude's session store here.")
		return
	}
	sum, err := store.Summarize(path)
	a.log.Debug("resumed session summary", "session", s.ID, "title", sum.Title != "", "first_prompt", sum.FirstPrompt != "", "err", err)
	if err == nil {
		s.SetTitle(sum.Title)
		if sum.FirstPrompt != "" {
			s.Prompted(sum.FirstPrompt)
		}
		a.ui.Send(ui.EvSession, s)
	}
	tr := s.Transcript
	ops := tr.BeginHistory(claudeID)
	err = store.History(path, func(e store.Entry) error {
		switch {
		case e.Prompt != "":
			mark := ""
			if e.UUID != "" {
				// Its checkpoint outlives the process: rewind works on it.
				n := s.Turns.Begin(e.UUID, e.Prompt, e.Time)
				if s.Checkpoints {
					mark = turnMark(n, e.Time.Local())
				}
			}
			ops = append(ops, tr.PromptMarked(e.Prompt, mark)...)
		case e.Note != "":
			ops = append(ops, tr.Note(e.Note)...)
		case e.Notified != "":
			ops = append(ops, tr.Notified(e.Notified, e.Status)...)
		case e.Parent != "":
			ops = append(ops, tr.ApplyIn(e.Parent, claude.Message{Type: e.Type, Raw: e.Message})...)
		default:
			m := claude.Message{Type: e.Type, Raw: e.Message}
			if path, orig, ok := changeOf(s, claude.ToolResultsOf(m)); ok {
				// An earlier change: rewind can restore it, but what
				// the session left of it is not known here.
				s.Turns.Changed(path, orig)
			}
			ops = append(ops, tr.Apply(m)...)
		}
		if len(ops) > 512 {
			a.desk.Transcript(s, ops)
			ops = nil
		}
		return nil
	})
	if err != nil {
		ops = append(ops, tr.Note(fmt.Sprintf("The rest of the earlier conversation could not be read (%v).", err))...)
	}
	ops = append(ops, tr.EndHistory()...)
	a.desk.Transcript(s, ops)
}
