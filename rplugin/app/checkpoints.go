package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rounds"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// checkpointEnv turns claude's file checkpointing on (rewind_files).
const checkpointEnv = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true"

// Later answers a call whose work waits on claude: the call returns at
// once and the result comes as a reply event with the caller's token.
type Later = desk.Later

// recordChanges notes, from a message's tool results, the file a Write,
// Edit or NotebookEdit changed and its content before: the CLI's
// originalFile (null for a new file), or a NotebookEdit's original_file.
// It returns the file ("" when the message changed none).
func (a *App) recordChanges(s *session.Session, tr claude.ToolResults) string {
	path, orig, ok := changeOf(s, tr)
	if !ok {
		return ""
	}
	s.Turns.Changed(path, orig)
	if orig == nil {
		a.fileCreated(path) // a new file: @ completes it at once
	}
	// What the session left: a later difference on disk is someone
	// else's (rewind keeps it).
	after, exists, err := proposal.ReadNow(path)
	if err == nil {
		s.Turns.Landed(path, after, exists)
	}
	a.rounds.Changed(s, path, orig, after, err)
	return path
}

// changeOf reads, from a message's structured tool result, the file a
// Write, Edit or NotebookEdit changed and its content before (nil: a new
// file).
func changeOf(s *session.Session, tr claude.ToolResults) (path string, orig *string, ok bool) {
	if !bytes.Contains(tr.Structured, []byte(`"originalFile"`)) && !bytes.Contains(tr.Structured, []byte(`"original_file"`)) {
		return "", nil, false
	}
	var r struct {
		FilePath     string          `json:"filePath"`
		OriginalFile json.RawMessage `json:"originalFile"`
		NotebookPath string          `json:"notebook_path"`
		NotebookOrig json.RawMessage `json:"original_file"`
		Error        string          `json:"error"`
	}
	if json.Unmarshal(tr.Structured, &r) != nil {
		return "", nil, false
	}
	if r.FilePath == "" && r.NotebookPath != "" && r.Error == "" {
		r.FilePath, r.OriginalFile = r.NotebookPath, r.NotebookOrig
	}
	if r.FilePath == "" || len(r.OriginalFile) == 0 {
		return "", nil, false
	}
	if string(r.OriginalFile) != "null" {
		var text string
		if json.Unmarshal(r.OriginalFile, &text) != nil {
			return "", nil, false
		}
		orig = &text
	}
	path = r.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Cwd(), path)
	}
	return filepath.Clean(path), orig, true
}

// tell gets a note to Claude: at once while a turn runs (the CLI adds it
// to the turn), else with the next prompt. The transcript shows it.
func (a *App) tell(s *session.Session, note string) {
	a.desk.Transcript(s, s.Transcript.Told(note))
	if !a.sendNote(s, note) {
		a.desk.Transcript(s, s.Transcript.Note("Claude reads this note with your next prompt."))
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

// FileChange is one file a turn changed: before the turn and now.
type FileChange = checkpoint.FileChange

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
	s, err := a.desk.Session(p.Session)
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
		v.Files = append(v.Files, a.rounds.MarkAuthors(s, fileChange(s, t.ID, f)))
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
func (a *App) UndoHunk(p UndoParams) (FileChange, error) {
	s, err := a.desk.Session(p.Session)
	if err != nil {
		return FileChange{}, err
	}
	fc := fileChange(s, p.Turn, p.Path)
	if p.Round {
		fc = a.rounds.RoundFile(s, p.Path)
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
	fc = a.rounds.MarkAuthors(s, fc)
	var h checkpoint.Hunk
	var who string
	switch {
	case p.Range != nil:
		h = *p.Range
		who = rounds.WhoWrote(fc, h)
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
		a.lossOf(s, a.rounds.LineAuthors(s, fc.Path, fc.Now), h.B, h.B+h.Ins-1, fc.Rel, told)
	}
	s.Turns.Landed(p.Path, next, !remove)
	a.tell(s, feedback.Undone(fc.Rel, fc.Now, next))
	for id, lost := range told {
		if other, ok := a.sessions.Get(id); ok && other.State() != session.StateExited {
			a.tell(other, feedback.UndoneByOther(s.ID, sanitize.FirstLine(s.Name(), 40), lost))
		}
	}
	a.log.Info("hunk undone", "session", s.ID, "path", fc.Rel, "hunk", p.Hunk, "others", len(told))
	return a.rounds.MarkAuthors(s, fc.With(next, !remove)), nil
}

// turnMark is how a prompt's heading names its checkpoint.
func turnMark(n int, at time.Time) string {
	return fmt.Sprintf("checkpoint %d · %s", n, at.Format("15:04"))
}
