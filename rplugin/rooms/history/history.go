// Package history is the room of the sessions as claude stores them: the
// earlier conversation of a resumed session, the sessions of a folder one
// may resume, renaming a session (in claude's store too) and forgetting
// exited ones.
package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/store"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// Room serves the session store's commands.
type Room struct {
	d         *desk.Desk
	configDir func() string // claude's config folder (its session store is in it)
	forgotten func(sid int) // what else goes with a forgotten session
}

// New returns the history room.
func New(d *desk.Desk, configDir func() string, forgotten func(sid int)) *Room {
	return &Room{d: d, configDir: configDir, forgotten: forgotten}
}

// Rename gives a session a name. A running claude is asked to rename the
// session (rename_session: its own store and pickers show it too); an
// exited one is renamed in claude's session store directly; claude's own
// terminal UI, which takes no control request, is named in the editor only.
func (r *Room) Rename(id int, name string) (desk.Outcome, error) {
	name = strings.TrimSpace(sanitize.Line(name))
	if name == "" {
		return desk.Outcome{}, errors.New("rename needs a name, e.g. :ClaudeNova rename fix the login test")
	}
	s, err := r.d.Session(id)
	if err != nil {
		return desk.Outcome{}, err
	}
	old := s.Title()
	s.SetTitle(name)
	r.d.UI.Send(ui.EvSession, s)
	if s.State() == session.StateExited {
		msg := fmt.Sprintf("session %d is now %q", s.ID, s.Name())
		if cid := s.ClaudeID(); cid != "" {
			if path, err := store.Find(r.configDir(), s.Cwd(), cid); err == nil {
				if err := store.AppendTitle(path, cid, name); err != nil {
					return desk.Outcome{Done: true, Message: msg + " here; " + err.Error()}, nil
				}
			}
		}
		return desk.Outcome{Done: true, Message: msg}, nil
	}
	if k, ok := s.Proc.(interface{ Kind() string }); ok && k.Kind() == "tui" {
		// claude's own terminal UI takes no control request: the name is
		// the editor's (its /rename names it in claude's store).
		return desk.Outcome{Done: true, Message: fmt.Sprintf("session %d is now %q here", s.ID, s.Name())}, nil
	}
	r.d.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "rename_session", map[string]any{"title": name}); err != nil {
			r.d.Notify("warn", fmt.Sprintf("session %d is %q here, but claude did not take the name: %v", s.ID, name, err))
			r.d.Log.Info("rename refused", "session", s.ID, "old", old, "err", err)
		}
	})
	return desk.Outcome{Done: true, Message: fmt.Sprintf("session %d is now %q", s.ID, s.Name())}, nil
}

// Forget removes exited sessions from the list (id 0: every exited one).
// It returns how many it removed.
func (r *Room) Forget(id int) (int, error) {
	var ids []int
	if id == 0 {
		for _, s := range r.d.Sessions.All() {
			if s.State() == session.StateExited {
				ids = append(ids, s.ID)
			}
		}
	} else {
		s, ok := r.d.Sessions.Get(id)
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
		if !r.d.Sessions.Remove(sid) {
			continue
		}
		n++
		r.forgotten(sid)
		r.d.UI.Send(ui.EvSessionRemoved, map[string]any{"session": sid})
	}
	return n, nil
}

// Resumable is a stored session of a folder, for the resume picker.
type Resumable struct {
	store.Summary
	Name string `json:"name"`
	Ago  string `json:"ago"`
	// Worktree names the worktree of this folder the session worked in
	// (claude keeps such a session under the worktree's folder; resumed
	// from here, it goes back there).
	Worktree string `json:"worktree,omitempty"`
}

// ResumableList is what the resume picker shows.
type ResumableList struct {
	Sessions []Resumable `json:"sessions"`
	// Note explains a list that could not be read as expected.
	Note string `json:"note,omitempty"`
}

// Resumable lists the sessions claude stored for cwd, most recent first.
func (r *Room) Resumable(cwd string) (ResumableList, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return ResumableList{}, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	list, err := store.List(store.Dir(r.configDir(), cwd))
	if err != nil {
		return ResumableList{}, err
	}
	where := map[string]string{} // session id -> its worktree
	for _, wt := range worktreesOf(cwd) {
		more, err := store.List(store.Dir(r.configDir(), filepath.Join(cwd, ".claude", "worktrees", wt)))
		if err != nil {
			continue
		}
		for _, s := range more {
			where[s.ID] = wt
		}
		list = append(list, more...)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Updated > list[j].Updated })
	out := ResumableList{Sessions: make([]Resumable, 0, len(list))}
	unknown := 0
	now := time.Now()
	for _, s := range list {
		if !s.Known {
			unknown++
		}
		r := Resumable{Summary: s, Name: sanitize.Line(s.Name()), Ago: Ago(now.Sub(time.Unix(s.Updated, 0))), Worktree: sanitize.Line(where[s.ID])}
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

// ResumedWorktree records, for a session resumed in its folder, the
// worktree of that folder claude kept it under (claude goes back there):
// the session moves in once claude is up, as one started there does.
func (r *Room) ResumedWorktree(s *session.Session, claudeID string) {
	if !store.ValidID(claudeID) {
		return
	}
	for _, name := range worktreesOf(s.Cwd()) {
		wt := filepath.Join(s.Cwd(), ".claude", "worktrees", name)
		if _, err := os.Stat(filepath.Join(store.Dir(r.configDir(), wt), claudeID+".jsonl")); err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		branch := worktree.BranchOf(ctx, wt)
		cancel()
		s.World.SetWorktree(&world.Worktree{Path: wt, Branch: branch, Root: s.Root()})
		return
	}
}

// worktreesOf names the worktrees claude made in folder dir
// (.claude/worktrees/NAME) that are still there.
func worktreesOf(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(dir, ".claude", "worktrees"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
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

// History shows the earlier conversation of a resumed session (claude does
// not replay it), marked as history, before anything live.
func (r *Room) History(s *session.Session, claudeID string) {
	path, err := store.Find(r.configDir(), s.Cwd(), claudeID)
	if err != nil {
		r.d.Note(s, "Resumed session "+claudeID+": its earlier conversation is not in claude's session store here.")
		return
	}
	sum, err := store.Summarize(path)
	r.d.Log.Debug("resumed session summary", "session", s.ID, "title", sum.Title != "", "first_prompt", sum.FirstPrompt != "", "err", err)
	if err == nil {
		s.SetTitle(sum.Title)
		if sum.FirstPrompt != "" {
			s.Prompted(sum.FirstPrompt)
		}
		r.d.UI.Send(ui.EvSession, s)
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
					mark = checkpoint.Mark(n, e.Time.Local())
				}
			}
			ops = append(ops, tr.PromptMarked(e.Prompt, mark)...)
		case e.Note != "":
			ops = append(ops, tr.Note(e.Note)...)
		case e.Notified != "":
			ops = append(ops, tr.Notified(e.Notified, e.Status)...)
		case e.Parent != "":
			ops = append(ops, tr.ApplyIn(e.Parent, stored(e))...)
		default:
			m := stored(e)
			if path, orig, ok := claude.FileChangeOf(claude.ToolResultsOf(m), s.Cwd()); ok {
				// An earlier change: rewind can restore it, but what
				// the session left of it is not known here.
				s.Turns.Changed(path, checkpoint.Was(orig))
			}
			ops = append(ops, tr.Apply(m)...)
		}
		if len(ops) > 512 {
			r.d.Transcript(s, ops)
			ops = nil
		}
		return nil
	})
	if err != nil {
		ops = append(ops, tr.Note(fmt.Sprintf("The rest of the earlier conversation could not be read (%v).", err))...)
	}
	ops = append(ops, tr.EndHistory()...)
	r.d.Transcript(s, ops)
}

// stored decodes a message of claude's session store: the same shape as on
// its stdout.
func stored(e store.Entry) claude.Message {
	m, err := claude.ParseLine(e.Message)
	if err != nil || m.Type != e.Type {
		return claude.Message{Type: e.Type, Raw: e.Message}
	}
	return m
}
