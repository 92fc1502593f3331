package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// A rewind restores what this session changed since a prompt, never
// another session's or the user's later work unasked (checkpoint.PlanRewind):
// the host writes the files itself. claude's own rewind_files restores
// every file it tracked to its snapshot, whoever changed it since (checked
// on 2.1.328: it undid another session's applied edit); it is used only for
// a turn whose contents the host no longer keeps, and says so.

// CheckpointView is one prompt of a session and what rewinding to before
// it would restore.
type CheckpointView struct {
	ID         string   `json:"id"`
	N          int      `json:"n"`
	Session    int      `json:"session"`
	Prompt     string   `json:"prompt"`
	Time       int64    `json:"time"` // Unix seconds
	Files      []string `json:"files"`
	Insertions int      `json:"insertions"`
	Deletions  int      `json:"deletions"`
	Error      string   `json:"error,omitempty"` // why it cannot be rewound
	// Others are later changes by someone else to the files: kept by
	// default (their lines stay, the session's own around them are
	// restored); Kept marks those that sit on the session's own lines.
	Others []OtherChange `json:"others"`
	// Untracked files changed before this process saw the session (a
	// resumed session): restored as they were, later changes by anyone go.
	Untracked []string `json:"untracked"`
	// ByClaude: the host no longer keeps this turn's contents; claude's
	// own rewind restores every file it tracked, later changes included.
	ByClaude bool `json:"by_claude,omitempty"`
}

// OtherChange is a later change by someone else to a file the session
// changed.
type OtherChange struct {
	Path string `json:"path"`
	Rel  string `json:"rel"`
	Who  string `json:"who"`   // "session 2 (“fix greet”, 14:02)", "you"
	Kept string `json:"kept"`  // lines where it sits on the session's own ("" when it does not)
	Lost string `json:"lines"` // lines of the file now that restoring everything would undo
}

// RewindParams rewind a session's files to before prompt ID. UndoOthers
// also undoes later changes by someone else on the session's lines (the
// user's explicit choice; the others are told).
type RewindParams struct {
	Later
	UndoOthers bool `json:"undo_others"`
}

type rewindResult struct {
	CanRewind    bool     `json:"canRewind"`
	Error        string   `json:"error"`
	FilesChanged []string `json:"filesChanged"`
	Insertions   int      `json:"insertions"`
	Deletions    int      `json:"deletions"`
	SkippedLinks int      `json:"skippedLinks"`
}

// checkpointSession resolves the session of a rewind call and checks it
// can rewind at all.
func (a *App) checkpointSession(id int) (*session.Session, error) {
	s, err := a.desk.Session(id)
	if err != nil {
		return nil, err
	}
	if !s.Checkpoints {
		return nil, fmt.Errorf("session %d was started with checkpoints = false: its files cannot be rewound (set checkpoints = true and start a new session)", s.ID)
	}
	if s.State() == session.StateExited {
		return nil, fmt.Errorf("session %d has exited: resume it to rewind its files", s.ID)
	}
	return s, nil
}

func dryRun(ctx context.Context, s *session.Session, id string) (rewindResult, error) {
	raw, err := s.Proc.Control(ctx, "rewind_files", map[string]any{"user_message_id": id, "dry_run": true})
	if err != nil {
		return rewindResult{}, err
	}
	var r rewindResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return rewindResult{}, fmt.Errorf("rewind_files: %w", err)
	}
	return r, nil
}

// rewindError says why claude cannot rewind to a prompt, in the user's words.
func rewindError(msg string) string {
	if strings.Contains(msg, "No file checkpoint") {
		return "claude has no checkpoint for this prompt (a prompt sent while Claude was working joins that turn and gets none)"
	}
	return msg
}

// rewindPlan plans rewinding session s to before turn t: the files it
// changed since, each with what the rewind writes (nil, ErrForgotten when
// the host no longer keeps the contents).
func (a *App) rewindPlan(s *session.Session, t checkpoint.Turn) ([]checkpoint.FilePlan, error) {
	files, err := s.Turns.Since(t.ID)
	if err != nil {
		return nil, err
	}
	return checkpoint.PlanRewind(files, s.Turns.LeftOf, proposal.ReadNow)
}

// view is what a rewind to before t does, for the picker and the
// confirmation.
func (a *App) rewindView(s *session.Session, t checkpoint.Turn, plans []checkpoint.FilePlan) CheckpointView {
	v := CheckpointView{ID: t.ID, N: t.N, Session: s.ID, Prompt: t.Prompt, Time: t.Time.Unix(),
		Files: []string{}, Others: []OtherChange{}, Untracked: []string{}}
	for _, p := range plans {
		rel := approval.RelPath(p.Path, s.Cwd())
		if p.Restores() {
			v.Files = append(v.Files, p.Path)
			add, del := diff.Stat(p.Now, p.Result)
			v.Insertions, v.Deletions = v.Insertions+add, v.Deletions+del
		}
		if p.Untracked {
			v.Untracked = append(v.Untracked, rel)
		}
		if p.Others {
			v.Others = append(v.Others, a.otherChange(s, p, rel))
		}
	}
	return v
}

// otherChange names who changed p's file after session s, and where.
func (a *App) otherChange(s *session.Session, p checkpoint.FilePlan, rel string) OtherChange {
	oc := OtherChange{Path: p.Path, Rel: rel, Who: "someone (the file changed after this session)"}
	var kept []string
	for _, k := range p.Kept {
		kept = append(kept, lineRange(k.From, k.To))
	}
	oc.Kept = strings.Join(kept, ", ")
	left, _ := s.Turns.LeftOf(p.Path)
	if who := a.rounds.AuthorsOf(s, p.Path, left.Content, p.Now); len(who) > 0 {
		oc.Who = strings.Join(who, " and ")
	}
	var lost []string
	for _, h := range checkpoint.Hunks(left.Content, p.Now) {
		lost = append(lost, lineRange(h.B, h.B+h.Ins-1))
	}
	oc.Lost = strings.Join(lost, ", ")
	return oc
}

func lineRange(from, to int) string {
	switch {
	case to < from:
		return fmt.Sprintf("at line %d", from)
	case to == from:
		return fmt.Sprintf("line %d", from)
	}
	return fmt.Sprintf("lines %d–%d", from, to)
}

// Checkpoints lists the session's prompts, oldest first, each with what
// rewinding to before it would restore. The answer comes as a reply event.
func (a *App) Checkpoints(p Later) error {
	s, err := a.checkpointSession(p.Session)
	if err != nil {
		return err
	}
	a.desk.ReplyLater(p.Token, func(ctx context.Context) (any, error) {
		out := []CheckpointView{}
		for _, t := range s.Turns.Turns() {
			out = append(out, a.checkpointView(ctx, s, t))
		}
		return out, nil
	})
	return nil
}

func (a *App) checkpointView(ctx context.Context, s *session.Session, t checkpoint.Turn) CheckpointView {
	plans, err := a.rewindPlan(s, t)
	if err == nil {
		return a.rewindView(s, t, plans)
	}
	v := CheckpointView{ID: t.ID, N: t.N, Session: s.ID, Prompt: t.Prompt, Time: t.Time.Unix(),
		Files: []string{}, Others: []OtherChange{}, Untracked: []string{}}
	if !errors.Is(err, checkpoint.ErrForgotten) {
		v.Error = err.Error()
		return v
	}
	// The host dropped this turn's contents: claude's dry run says what
	// its own rewind would restore.
	r, err := dryRun(ctx, s, t.ID)
	switch {
	case err != nil:
		v.Error = err.Error()
	case !r.CanRewind:
		v.Error = rewindError(r.Error)
	default:
		v.ByClaude = true
		v.Files, v.Insertions, v.Deletions = r.FilesChanged, r.Insertions, r.Deletions
		if v.Files == nil {
			v.Files = []string{}
		}
	}
	return v
}

// turnOf finds the session whose prompt is id (p.Session 0: any session).
func (a *App) turnOf(p Later) (*session.Session, checkpoint.Turn, error) {
	if p.ID == "" {
		return nil, checkpoint.Turn{}, errors.New("which checkpoint? (an id from checkpoints())")
	}
	// A resumed session shares its earlier prompts with the exited one it
	// continues: the live one can rewind.
	var found *session.Session
	var turn checkpoint.Turn
	for _, s := range a.sessions.All() {
		if p.Session != 0 && s.ID != p.Session {
			continue
		}
		if t, ok := s.Turns.Find(p.ID); ok && t.ID == p.ID {
			if found == nil || found.State() == session.StateExited {
				found, turn = s, t
			}
		}
	}
	if found == nil {
		return nil, checkpoint.Turn{}, fmt.Errorf("no checkpoint %q in this editor's sessions", p.ID)
	}
	return found, turn, nil
}

// Rewind restores the files session changed since prompt p.ID (see
// above), then tells Claude, and the other sessions whose changes went
// when the user chose to undo them too. The answer ({files, skipped,
// kept}) comes as a reply event; the front end has rescued unsaved buffers
// of those files before it asked.
func (a *App) Rewind(p RewindParams) error {
	s, t, err := a.turnOf(p.Later)
	if err != nil {
		return err
	}
	if _, err := a.checkpointSession(s.ID); err != nil {
		return err
	}
	a.desk.ReplyLater(p.Token, func(ctx context.Context) (any, error) {
		plans, err := a.rewindPlan(s, t)
		if errors.Is(err, checkpoint.ErrForgotten) {
			return a.rewindByClaude(ctx, s, t)
		}
		if err != nil {
			return nil, err
		}
		var files, rel, kept []string
		told := map[int][]string{} // other sessions whose changes went
		for _, pl := range plans {
			r := approval.RelPath(pl.Path, s.Cwd())
			content, exists := pl.Result, pl.ResultExists
			if p.UndoOthers && pl.Others {
				content, exists = pl.Before.Content, pl.Before.Existed
				a.noteLoss(s, pl, r, told)
			} else if len(pl.Kept) > 0 {
				kept = append(kept, r)
			}
			if exists == pl.NowExists && content == pl.Now {
				continue
			}
			if err := writeRewound(pl.Path, content, exists, pl.NowExists); err != nil {
				return nil, err
			}
			s.Turns.Landed(pl.Path, content, exists)
			a.rounds.Rebase(s, pl.Path, content, exists)
			files, rel = append(files, pl.Path), append(rel, r)
		}
		what := "nothing differed"
		if len(rel) > 0 {
			what = strings.Join(rel, ", ") + " restored"
		}
		if len(kept) > 0 {
			what += "; later changes by others to " + strings.Join(kept, ", ") + " kept"
		}
		a.desk.Note(s, fmt.Sprintf("Rewound to before prompt %d (%q): %s. Changes made by commands (Bash) were not restored.", t.N, sanitize.FirstLine(t.Prompt, 50), what))
		if len(files) > 0 {
			a.tell(s, feedback.Rewound(t.Prompt, rel, 0))
			a.diagnoseRewound(s, files)
		}
		for id, lost := range told {
			if other, ok := a.sessions.Get(id); ok && other.State() != session.StateExited {
				a.tell(other, feedback.UndoneByOther(s.ID, sanitize.FirstLine(s.Name(), 40), lost))
			}
		}
		a.log.Info("rewound", "session", s.ID, "turn", t.N, "files", len(files), "kept", len(kept), "undo_others", p.UndoOthers)
		if files == nil {
			files = []string{}
		}
		return map[string]any{"files": files, "skipped": 0, "kept": kept}, nil
	})
	return nil
}

// noteLoss records, for the sessions whose later lines the user chose to
// undo in pl's file, what they lose.
func (a *App) noteLoss(s *session.Session, pl checkpoint.FilePlan, rel string, told map[int][]string) {
	left, _ := s.Turns.LeftOf(pl.Path)
	authors := a.rounds.LineAuthors(s, pl.Path, pl.Now)
	for _, h := range checkpoint.Hunks(left.Content, pl.Now) {
		a.lossOf(s, authors, h.B, h.B+h.Ins-1, rel, told)
	}
}

// lossOf adds rel to the losses of every other session that wrote a line
// of [from, to].
func (a *App) lossOf(s *session.Session, authors []review.Author, from, to int, rel string, told map[int][]string) {
	for i := max(from, 1); i <= to && i < len(authors); i++ {
		au := authors[i]
		if au.Kind == review.You || au.Session == s.ID || slices.Contains(told[au.Session], rel) {
			continue
		}
		told[au.Session] = append(told[au.Session], rel)
	}
}

// writeRewound writes a rewound file (exists false removes it).
func writeRewound(path, content string, exists, existed bool) error {
	switch {
	case !exists && existed:
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rewind: %w", err)
		}
		return nil
	case !exists:
		return nil
	case existed:
		return checkpoint.Restore(path, content, false)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	return atomicfile.Write(path, []byte(content), atomicfile.Options{Perm: 0o644, Prefix: ".claude-nova-restore-"})
}

// rewindByClaude is the rewind of a turn whose contents the host no longer
// keeps: claude's own, which restores every file it tracked (later
// changes by anyone included; the confirmation said so).
func (a *App) rewindByClaude(ctx context.Context, s *session.Session, t checkpoint.Turn) (any, error) {
	dry, err := dryRun(ctx, s, t.ID)
	if err != nil {
		return nil, err
	}
	if !dry.CanRewind {
		return nil, errors.New(rewindError(dry.Error))
	}
	raw, err := s.Proc.Control(ctx, "rewind_files", map[string]any{"user_message_id": t.ID, "dry_run": false})
	if err != nil {
		var ce *claude.ControlError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("claude did not rewind: %s", rewindError(ce.Message))
		}
		return nil, err
	}
	var r rewindResult
	_ = json.Unmarshal(raw, &r)
	files := dry.FilesChanged
	if files == nil {
		files = []string{}
	}
	rel := make([]string, len(files))
	for i, f := range files {
		rel[i] = approval.RelPath(f, s.Cwd())
	}
	what := "nothing differed"
	if len(rel) > 0 {
		what = strings.Join(rel, ", ") + " restored by claude"
	}
	a.desk.Note(s, fmt.Sprintf("Rewound to before prompt %d (%q): %s. Changes made by commands (Bash) were not restored.", t.N, sanitize.FirstLine(t.Prompt, 50), what))
	if len(files) > 0 {
		a.tell(s, feedback.Rewound(t.Prompt, rel, r.SkippedLinks))
		a.diagnoseRewound(s, files)
	}
	a.log.Info("rewound by claude", "session", s.ID, "turn", t.N, "files", len(files), "skipped", r.SkippedLinks)
	return map[string]any{"files": files, "skipped": r.SkippedLinks, "kept": []string{}}, nil
}
