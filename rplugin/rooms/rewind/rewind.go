// Package rewind is the room of a session's checkpoints: what each prompt
// changed (the changes view), undoing one hunk of it, and rewinding the
// session's files to before a prompt.
//
// A rewind restores what this session changed since a prompt, never
// another session's or the user's later work unasked (checkpoint.PlanRewind):
// the host writes the files itself. claude's own rewind_files restores
// every file it tracked to its snapshot, whoever changed it since (checked
// on 2.1.328: it undid another session's applied edit); it is used only for
// a turn whose contents the host no longer keeps, and says so.
package rewind

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// Authors is what the room asks of the review's record of who wrote each
// line (rooms/rounds serves it): a rewind and an undo never take another's
// work unasked.
type Authors interface {
	// MarkAuthors names, per hunk of fc, who other than s wrote it.
	MarkAuthors(s *session.Session, fc checkpoint.FileChange) checkpoint.FileChange
	// LineAuthors is the author of each line of now (1-based).
	LineAuthors(s *session.Session, path, now string) []review.Author
	// AuthorsOf names the authors other than s of the lines of now that
	// differ from left.
	AuthorsOf(s *session.Session, path, left, now string) []string
	// RoundFile is path in s's open review round.
	RoundFile(s *session.Session, path string) checkpoint.FileChange
	// Rebase makes the record follow a file a rewind wrote.
	Rebase(s *session.Session, path, content string, exists bool)
}

// Room serves the changes view, hunk undo and rewind.
type Room struct {
	d        *desk.Desk
	authors  Authors
	diagnose func(s *session.Session, files []string)
}

// New returns the rewind room; diagnose tells Claude what the editor's
// language servers say of the files a rewind wrote.
func New(d *desk.Desk, authors Authors, diagnose func(s *session.Session, files []string)) *Room {
	return &Room{d: d, authors: authors, diagnose: diagnose}
}

// ChangesView is what a turn changed.
type ChangesView struct {
	Session int                     `json:"session"`
	Turn    string                  `json:"turn"`
	N       int                     `json:"n"`
	Prompt  string                  `json:"prompt"`
	Time    int64                   `json:"time"`
	Files   []checkpoint.FileChange `json:"files"`
}

// ChangesParams pick a session's turn by id or by number (neither: the
// last turn that changed a file).
type ChangesParams struct {
	Session int    `json:"session"`
	Turn    string `json:"turn"`
	N       int    `json:"n"`
}

// Changes is the files a turn changed, each before the turn and now. It
// reads files only; nothing waits on claude.
func (rw *Room) Changes(p ChangesParams) (ChangesView, error) {
	s, err := rw.d.Session(p.Session)
	if err != nil {
		return ChangesView{}, err
	}
	t, ok := s.Turns.Find(p.Turn)
	if p.N > 0 {
		t, ok = s.Turns.Number(p.N)
		if !ok {
			return ChangesView{}, fmt.Errorf("session %d has no prompt %d", s.ID, p.N)
		}
	}
	if !ok {
		if p.Turn == "" {
			return ChangesView{}, fmt.Errorf("session %d has not changed a file yet", s.ID)
		}
		return ChangesView{}, fmt.Errorf("no turn %q in session %d", p.Turn, s.ID)
	}
	if len(t.Files) == 0 {
		return ChangesView{}, fmt.Errorf("prompt %d of session %d changed no file it could keep", t.N, s.ID)
	}
	v := ChangesView{Session: s.ID, Turn: t.ID, N: t.N, Prompt: t.Prompt, Time: t.Time.Unix(), Files: []checkpoint.FileChange{}}
	for _, f := range t.Files {
		v.Files = append(v.Files, rw.authors.MarkAuthors(s, fileChange(s, t.ID, f)))
	}
	return v, nil
}

func fileChange(s *session.Session, turn, path string) checkpoint.FileChange {
	fc := checkpoint.FileChange{Path: path, Rel: approval.RelPath(path, s.Cwd()), Hunks: []checkpoint.Hunk{}}
	b, err := s.Turns.Before(turn, path)
	if err != nil {
		fc.Error = err.Error()
		return fc
	}
	fc.Before, fc.Existed, fc.By = b.Content, b.Existed, b.By
	data, err := proposal.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fc.With("", false)
	case err != nil:
		fc.Error = err.Error()
		return fc
	}
	return fc.With(string(data), true)
}

// UndoParams name one hunk of a turn's change to a file.
type UndoParams struct {
	Session int    `json:"session"`
	Turn    string `json:"turn"`
	Path    string `json:"path"`
	Hunk    int    `json:"hunk"` // 1-based
	Sum     string `json:"sum"`  // of the content the user saw
	// Round: the hunk is of the session's open review round (its baseline
	// stands for the content before the turn).
	Round bool `json:"round"`
	// Others: the user chose to undo a hunk that holds another session's
	// (or their own) later lines; that session is told.
	Others bool `json:"others"`
	// Range is the block to undo as the editor's diff shows it (its own
	// diff options may cut the change into other blocks than the host's);
	// nil: hunk Hunk of the host's.
	Range *checkpoint.Hunk `json:"range"`
}

// UndoHunk puts one hunk of a turn's change back as it was before the turn,
// on disk, and tells Claude. It refuses when the file changed since the
// user saw it. It returns the file as it is now.
func (rw *Room) UndoHunk(p UndoParams) (checkpoint.FileChange, error) {
	s, err := rw.d.Session(p.Session)
	if err != nil {
		return checkpoint.FileChange{}, err
	}
	fc := fileChange(s, p.Turn, p.Path)
	if p.Round {
		fc = rw.authors.RoundFile(s, p.Path)
	}
	if fc.Error != "" {
		return fc, errors.New(fc.Error)
	}
	if fc.Sum != p.Sum {
		return fc, fmt.Errorf("%s changed on disk since you opened it: the view is refreshed, nothing was undone", fc.Rel)
	}
	if !fc.Exists {
		return fc, fmt.Errorf("%s is no longer on disk: nothing to undo", fc.Rel)
	}
	fc = rw.authors.MarkAuthors(s, fc)
	var h checkpoint.Hunk
	var who string
	switch {
	case p.Range != nil:
		h = *p.Range
		who = fc.WhoWrote(h)
	case p.Hunk < 1 || p.Hunk > len(fc.Hunks):
		return fc, fmt.Errorf("there is no hunk %d (the change has %d)", p.Hunk, len(fc.Hunks))
	default:
		h, who = fc.Hunks[p.Hunk-1], fc.Authors[p.Hunk-1]
	}
	if who != "" && !p.Others {
		// Never another's work unasked: the front end asks first.
		return fc, fmt.Errorf("hunk %d of %s was changed by %s: nothing was undone (confirm to undo it too)", p.Hunk, fc.Rel, who)
	}
	next, err := checkpoint.Undo(fc.Before, fc.Now, h)
	if err != nil {
		return fc, err
	}
	remove := !fc.Existed && next == ""
	if err := checkpoint.Restore(p.Path, next, remove); err != nil {
		return fc, err
	}
	told := map[int][]string{}
	if p.Others {
		rw.lossOf(s, rw.authors.LineAuthors(s, fc.Path, fc.Now), h.B, h.B+h.Ins-1, fc.Rel, told)
	}
	s.Turns.Landed(p.Path, next, !remove)
	rw.d.Tell(s, feedback.Undone(fc.Rel, fc.Now, next))
	for id, lost := range told {
		if other, ok := rw.d.Sessions.Get(id); ok && other.State() != session.StateExited {
			rw.d.Tell(other, feedback.UndoneByOther(s.ID, sanitize.FirstLine(s.Name(), 40), lost))
		}
	}
	rw.d.Log.Info("hunk undone", "session", s.ID, "path", fc.Rel, "hunk", p.Hunk, "others", len(told))
	return rw.authors.MarkAuthors(s, fc.With(next, !remove)), nil
}

// rewind restores what this session changed since a prompt, never
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
	// Unkept are files a command changed whose content before was not
	// kept: named, left as they are.
	Unkept     []string `json:"unkept"`
	UnkeptMore int      `json:"unkept_more"` // past those named
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
	desk.Later
	UndoOthers bool `json:"undo_others"`
}

type rewindResult = replies.RewindFiles

// checkpointSession resolves the session of a rewind call and checks it
// can rewind at all.
func (rw *Room) checkpointSession(id int) (*session.Session, error) {
	s, err := rw.d.Session(id)
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
	return replies.DecodeRewindFiles(raw)
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
func (rw *Room) rewindPlan(s *session.Session, t checkpoint.Turn) ([]checkpoint.FilePlan, error) {
	files, err := s.Turns.Since(t.ID)
	if err != nil {
		return nil, err
	}
	return checkpoint.PlanRewind(files, s.Turns.LeftOf, proposal.ReadNow)
}

// view is what a rewind to before t does, for the picker and the
// confirmation.
func (rw *Room) rewindView(s *session.Session, t checkpoint.Turn, plans []checkpoint.FilePlan) CheckpointView {
	v := CheckpointView{ID: t.ID, N: t.N, Session: s.ID, Prompt: t.Prompt, Time: t.Time.Unix(),
		Files: []string{}, Others: []OtherChange{}, Untracked: []string{}, Unkept: []string{}}
	v.Unkept, v.UnkeptMore = append(v.Unkept, t.Unkept...), t.UnkeptMore
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
			v.Others = append(v.Others, rw.otherChange(s, p, rel))
		}
	}
	return v
}

// otherChange names who changed p's file after session s, and where.
func (rw *Room) otherChange(s *session.Session, p checkpoint.FilePlan, rel string) OtherChange {
	oc := OtherChange{Path: p.Path, Rel: rel, Who: "someone (the file changed after this session)"}
	var kept []string
	for _, k := range p.Kept {
		kept = append(kept, lineRange(k.From, k.To))
	}
	oc.Kept = strings.Join(kept, ", ")
	left, _ := s.Turns.LeftOf(p.Path)
	if who := rw.authors.AuthorsOf(s, p.Path, left.Content, p.Now); len(who) > 0 {
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
func (rw *Room) Checkpoints(p desk.Later) error {
	s, err := rw.checkpointSession(p.Session)
	if err != nil {
		return err
	}
	rw.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		out := []CheckpointView{}
		for _, t := range s.Turns.Turns() {
			out = append(out, rw.checkpointView(ctx, s, t))
		}
		return out, nil
	})
	return nil
}

func (rw *Room) checkpointView(ctx context.Context, s *session.Session, t checkpoint.Turn) CheckpointView {
	plans, err := rw.rewindPlan(s, t)
	if err == nil {
		return rw.rewindView(s, t, plans)
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
func (rw *Room) turnOf(p desk.Later) (*session.Session, checkpoint.Turn, error) {
	if p.ID == "" {
		return nil, checkpoint.Turn{}, errors.New("which checkpoint? (an id from checkpoints())")
	}
	// A resumed session shares its earlier prompts with the exited one it
	// continues: the live one can rewind.
	var found *session.Session
	var turn checkpoint.Turn
	for _, s := range rw.d.Sessions.All() {
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
func (rw *Room) Rewind(p RewindParams) error {
	s, t, err := rw.turnOf(p.Later)
	if err != nil {
		return err
	}
	if _, err := rw.checkpointSession(s.ID); err != nil {
		return err
	}
	rw.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		plans, err := rw.rewindPlan(s, t)
		if errors.Is(err, checkpoint.ErrForgotten) {
			return rw.rewindByClaude(ctx, s, t)
		}
		if err != nil {
			return nil, err
		}
		var files, rel, kept []string
		told := map[int][]string{} // other sessions whose changes went
		// The buffers of the files rewound follow the disk (told after
		// claude is, below: a prompt sent the moment they do carries the
		// note; and on an error, of the files written before it).
		landed := func() {
			for _, f := range files {
				rw.d.Landed(f, false)
			}
		}
		for _, pl := range plans {
			r := approval.RelPath(pl.Path, s.Cwd())
			content, exists := pl.Result, pl.ResultExists
			if p.UndoOthers && pl.Others {
				content, exists = pl.Before.Content, pl.Before.Existed
				rw.noteLoss(s, pl, r, told)
			} else if len(pl.Kept) > 0 {
				kept = append(kept, r)
			}
			// The mode before goes back with the content before (a
			// command's chmod, a deleted script); a merge keeps the mode.
			mode := pl.Before.Mode
			if !exists || content != pl.Before.Content {
				mode = 0
			}
			if exists == pl.NowExists && content == pl.Now && !modeDiffers(pl.Path, mode) {
				continue
			}
			if err := writeRewound(pl.Path, content, exists, pl.NowExists, mode); err != nil {
				landed()
				return nil, err
			}
			s.Turns.Landed(pl.Path, content, exists)
			rw.authors.Rebase(s, pl.Path, content, exists)
			files, rel = append(files, pl.Path), append(rel, r)
		}
		what := "nothing differed"
		if len(rel) > 0 {
			what = strings.Join(rel, ", ") + " restored"
		}
		if len(kept) > 0 {
			what += "; later changes by others to " + strings.Join(kept, ", ") + " kept"
		}
		notRestored := ""
		if len(t.Unkept) > 0 {
			unkept := make([]string, len(t.Unkept))
			for i, f := range t.Unkept {
				unkept[i] = approval.RelPath(f, s.Cwd())
			}
			notRestored = "Not restored (a command changed them; their content before was not kept): " +
				sanitize.ListOf(unkept, 8, len(unkept)+t.UnkeptMore) + "."
		}
		rw.d.Note(s, strings.TrimSpace(fmt.Sprintf("Rewound to before prompt %d (%q): %s. %s", t.N, sanitize.FirstLine(t.Prompt, 50), what, notRestored)))
		if len(files) > 0 {
			rw.d.Tell(s, feedback.Rewound(t.Prompt, rel, 0, notRestored))
		}
		for id, lost := range told {
			if other, ok := rw.d.Sessions.Get(id); ok && other.State() != session.StateExited {
				rw.d.Tell(other, feedback.UndoneByOther(s.ID, sanitize.FirstLine(s.Name(), 40), lost))
			}
		}
		landed()
		if len(files) > 0 {
			rw.diagnose(s, files)
		}
		rw.d.Log.Info("rewound", "session", s.ID, "turn", t.N, "files", len(files), "kept", len(kept), "undo_others", p.UndoOthers)
		if files == nil {
			files = []string{}
		}
		return map[string]any{"files": files, "skipped": 0, "kept": kept}, nil
	})
	return nil
}

// noteLoss records, for the sessions whose later lines the user chose to
// undo in pl's file, what they lose.
func (rw *Room) noteLoss(s *session.Session, pl checkpoint.FilePlan, rel string, told map[int][]string) {
	left, _ := s.Turns.LeftOf(pl.Path)
	authors := rw.authors.LineAuthors(s, pl.Path, pl.Now)
	for _, h := range checkpoint.Hunks(left.Content, pl.Now) {
		rw.lossOf(s, authors, h.B, h.B+h.Ins-1, rel, told)
	}
}

// lossOf adds rel to the losses of every other session that wrote a line
// of [from, to].
func (rw *Room) lossOf(s *session.Session, authors []review.Author, from, to int, rel string, told map[int][]string) {
	for i := max(from, 1); i <= to && i < len(authors); i++ {
		au := authors[i]
		if au.Kind == review.You || au.Session == s.ID || slices.Contains(told[au.Session], rel) {
			continue
		}
		told[au.Session] = append(told[au.Session], rel)
	}
}

// modeDiffers says path's permission bits are not mode (0: any will do).
func modeDiffers(path string, mode fs.FileMode) bool {
	if mode == 0 {
		return false
	}
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != mode
}

// writeRewound writes a rewound file (exists false removes it) with mode
// (0: the file's own, 0644 for one brought back).
func writeRewound(path, content string, exists, existed bool, mode fs.FileMode) error {
	switch {
	case !exists && existed:
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rewind: %w", err)
		}
		return nil
	case !exists:
		return nil
	case existed:
		if err := checkpoint.Restore(path, content, false); err != nil {
			return err
		}
		if modeDiffers(path, mode) {
			if err := os.Chmod(path, mode); err != nil {
				return fmt.Errorf("rewind: %w", err)
			}
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if mode == 0 {
		mode = 0o644
	}
	return atomicfile.Write(path, []byte(content), atomicfile.Options{Perm: mode, Prefix: ".claude-nova-restore-"})
}

// rewindByClaude is the rewind of a turn whose contents the host no longer
// keeps: claude's own, which restores every file it tracked (later
// changes by anyone included; the confirmation said so).
func (rw *Room) rewindByClaude(ctx context.Context, s *session.Session, t checkpoint.Turn) (any, error) {
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
	r, _ := replies.DecodeRewindFiles(raw)
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
	// claude's own checkpoints know only its file tools.
	const byCommands = "Changes made by commands (Bash) were not restored."
	rw.d.Note(s, fmt.Sprintf("Rewound to before prompt %d (%q): %s. %s", t.N, sanitize.FirstLine(t.Prompt, 50), what, byCommands))
	if len(files) > 0 {
		rw.d.Tell(s, feedback.Rewound(t.Prompt, rel, r.SkippedLinks, byCommands))
		rw.diagnose(s, files)
	}
	rw.d.Log.Info("rewound by claude", "session", s.ID, "turn", t.N, "files", len(files), "skipped", r.SkippedLinks)
	return map[string]any{"files": files, "skipped": r.SkippedLinks, "kept": []string{}}, nil
}
