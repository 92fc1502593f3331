package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// checkpointEnv turns claude's file checkpointing on (rewind_files).
const checkpointEnv = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true"

// Later answers a call whose work waits on claude: the call returns at
// once and the result comes as a reply event with the caller's token.
type Later struct {
	Token   string `json:"token"`
	Session int    `json:"session"`
	ID      string `json:"id"`
}

// replyLater runs fn in the background and sends its outcome as EvReply.
func (a *App) replyLater(token string, fn func(ctx context.Context) (any, error)) {
	a.background(func(ctx context.Context) {
		res, err := fn(ctx)
		r := map[string]any{"token": token, "ok": err == nil}
		if err != nil {
			r["error"] = err.Error()
		} else {
			r["result"] = res
		}
		a.ui.Send(ui.EvReply, r)
	})
}

// recordChanges notes, from a tool result, the file a Write, Edit or
// NotebookEdit changed and its content before: the CLI's originalFile
// (null for a new file), or a NotebookEdit's original_file. It returns the
// file ("" when the message changed none).
func (a *App) recordChanges(s *session.Session, m claude.Message) string {
	if !bytes.Contains(m.Raw, []byte(`"originalFile"`)) && !bytes.Contains(m.Raw, []byte(`"original_file"`)) {
		return ""
	}
	var msg struct {
		Result json.RawMessage `json:"tool_use_result"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		return ""
	}
	var r struct {
		FilePath     string          `json:"filePath"`
		OriginalFile json.RawMessage `json:"originalFile"`
		NotebookPath string          `json:"notebook_path"`
		NotebookOrig json.RawMessage `json:"original_file"`
		Error        string          `json:"error"`
	}
	if json.Unmarshal(msg.Result, &r) != nil {
		return ""
	}
	if r.FilePath == "" && r.NotebookPath != "" && r.Error == "" {
		r.FilePath, r.OriginalFile = r.NotebookPath, r.NotebookOrig
	}
	if r.FilePath == "" || len(r.OriginalFile) == 0 {
		return ""
	}
	var orig *string
	if string(r.OriginalFile) != "null" {
		var text string
		if json.Unmarshal(r.OriginalFile, &text) != nil {
			return ""
		}
		orig = &text
	}
	path := r.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Cwd(), path)
	}
	path = filepath.Clean(path)
	s.Turns.Changed(path, orig)
	a.reviewChanged(s, path, orig)
	return path
}

// tell gets a note to Claude: at once while a turn runs (the CLI adds it
// to the turn), else with the next prompt. The transcript shows it.
func (a *App) tell(s *session.Session, note string) {
	a.transcript(s, s.Transcript.Told(note))
	if !a.sendNote(s, note) {
		a.transcript(s, s.Transcript.Note("Claude reads this note with your next prompt."))
	}
}

// sendNote is tell without the transcript: true when it went at once.
func (a *App) sendNote(s *session.Session, note string) bool {
	switch s.State() {
	case session.StateRunning, session.StateWaiting:
		if err := s.Proc.SendUser("", note); err == nil {
			return true
		}
	}
	s.Tell(note)
	return false
}

// CheckpointView is one prompt of a session and what rewinding to before
// it would restore (claude's dry run).
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
	s, err := a.session(id)
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

// Checkpoints lists the session's prompts, oldest first, each with what
// rewinding to before it would restore. The answer comes as a reply event.
func (a *App) Checkpoints(p Later) error {
	s, err := a.checkpointSession(p.Session)
	if err != nil {
		return err
	}
	a.replyLater(p.Token, func(ctx context.Context) (any, error) {
		var out []CheckpointView
		for _, t := range s.Turns.Turns() {
			v := CheckpointView{ID: t.ID, N: t.N, Session: s.ID, Prompt: t.Prompt, Time: t.Time.Unix(), Files: []string{}}
			r, err := dryRun(ctx, s, t.ID)
			switch {
			case err != nil:
				v.Error = err.Error()
			case !r.CanRewind:
				v.Error = rewindError(r.Error)
			default:
				v.Files, v.Insertions, v.Deletions = r.FilesChanged, r.Insertions, r.Deletions
				if v.Files == nil {
					v.Files = []string{}
				}
			}
			out = append(out, v)
		}
		if out == nil {
			out = []CheckpointView{}
		}
		return out, nil
	})
	return nil
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

// Rewind restores the files claude checkpointed to their state before
// prompt p.ID, then tells Claude. The answer ({files, skipped}) comes as a
// reply event; the front end has rescued unsaved buffers of those files
// before it asked.
func (a *App) Rewind(p Later) error {
	s, t, err := a.turnOf(p)
	if err != nil {
		return err
	}
	if _, err := a.checkpointSession(s.ID); err != nil {
		return err
	}
	a.replyLater(p.Token, func(ctx context.Context) (any, error) {
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
			what = strings.Join(rel, ", ") + " restored"
		}
		a.transcript(s, s.Transcript.Note(fmt.Sprintf("Rewound to before prompt %d (%q): %s. Changes made by commands (Bash) were not restored.", t.N, sanitize.FirstLine(t.Prompt, 50), what)))
		if len(files) > 0 {
			a.tell(s, feedback.Rewound(t.Prompt, rel, r.SkippedLinks))
			a.diagnoseRewound(s, files)
		}
		a.log.Info("rewound", "session", s.ID, "turn", t.N, "files", len(files), "skipped", r.SkippedLinks)
		return map[string]any{"files": files, "skipped": r.SkippedLinks}, nil
	})
	return nil
}

// FileChange is one file a turn changed: before the turn and now.
type FileChange struct {
	Path    string            `json:"path"`
	Rel     string            `json:"rel"`
	Before  string            `json:"before"`
	Now     string            `json:"now"`
	Sum     string            `json:"sum"` // of Now: an undo checks the disk still holds it
	Existed bool              `json:"existed"`
	Exists  bool              `json:"exists"`
	Hunks   []checkpoint.Hunk `json:"hunks"`
	Error   string            `json:"error,omitempty"`
}

// ChangesView is what a turn changed.
type ChangesView struct {
	Session int          `json:"session"`
	Turn    string       `json:"turn"`
	N       int          `json:"n"`
	Prompt  string       `json:"prompt"`
	Time    int64        `json:"time"`
	Files   []FileChange `json:"files"`
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
func (a *App) Changes(p ChangesParams) (ChangesView, error) {
	s, err := a.session(p.Session)
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
			return ChangesView{}, fmt.Errorf("session %d has not changed a file yet (changes made by commands are not tracked)", s.ID)
		}
		return ChangesView{}, fmt.Errorf("no turn %q in session %d", p.Turn, s.ID)
	}
	if len(t.Files) == 0 {
		return ChangesView{}, fmt.Errorf("prompt %d of session %d changed no file with Write, Edit or NotebookEdit (changes made by commands are not tracked)", t.N, s.ID)
	}
	v := ChangesView{Session: s.ID, Turn: t.ID, N: t.N, Prompt: t.Prompt, Time: t.Time.Unix(), Files: []FileChange{}}
	for _, f := range t.Files {
		v.Files = append(v.Files, fileChange(s, t.ID, f))
	}
	return v, nil
}

func fileChange(s *session.Session, turn, path string) FileChange {
	fc := FileChange{Path: path, Rel: approval.RelPath(path, s.Cwd()), Hunks: []checkpoint.Hunk{}}
	b, err := s.Turns.Before(turn, path)
	if err != nil {
		fc.Error = err.Error()
		return fc
	}
	fc.Before, fc.Existed = b.Content, b.Existed
	data, err := proposal.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fc.with("", false)
	case err != nil:
		fc.Error = err.Error()
		return fc
	}
	return fc.with(string(data), true)
}

// with is fc with the file as it is now (exists false: not on disk).
func (fc FileChange) with(now string, exists bool) FileChange {
	fc.Now, fc.Exists = now, exists
	sum := sha256.Sum256([]byte(now))
	fc.Sum = hex.EncodeToString(sum[:])
	fc.Hunks = checkpoint.Hunks(fc.Before, now)
	return fc
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
}

// UndoHunk puts one hunk of a turn's change back as it was before the turn,
// on disk, and tells Claude. It refuses when the file changed since the
// user saw it. It returns the file as it is now.
func (a *App) UndoHunk(p UndoParams) (FileChange, error) {
	s, err := a.session(p.Session)
	if err != nil {
		return FileChange{}, err
	}
	fc := fileChange(s, p.Turn, p.Path)
	if p.Round {
		fc = a.roundFileChange(s, p.Path)
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
	if p.Hunk < 1 || p.Hunk > len(fc.Hunks) {
		return fc, fmt.Errorf("there is no hunk %d (the change has %d)", p.Hunk, len(fc.Hunks))
	}
	next, err := checkpoint.Undo(fc.Before, fc.Now, fc.Hunks[p.Hunk-1])
	if err != nil {
		return fc, err
	}
	remove := !fc.Existed && next == ""
	if err := checkpoint.Restore(p.Path, next, remove); err != nil {
		return fc, err
	}
	a.tell(s, feedback.Undone(fc.Rel, fc.Now, next))
	a.log.Info("hunk undone", "session", s.ID, "path", fc.Rel, "hunk", p.Hunk)
	return fc.with(next, !remove), nil
}

// turnMark is how a prompt's heading names its checkpoint.
func turnMark(n int, at time.Time) string {
	return fmt.Sprintf("checkpoint %d · %s", n, at.Format("15:04"))
}
