package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
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

// FileChange is one file a turn changed: before the turn and now.
type FileChange = checkpoint.FileChange

// turnMark is how a prompt's heading names its checkpoint.
func turnMark(n int, at time.Time) string {
	return fmt.Sprintf("checkpoint %d · %s", n, at.Format("15:04"))
}
