package app

import (
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
func (r *router) recordChanges(s *session.Session, tr claude.ToolResults) string {
	path, orig, ok := claude.FileChangeOf(tr, s.Cwd())
	if !ok {
		return ""
	}
	r.recordFile(s, path, checkpoint.Was(orig))
	return path
}

// recordFile records that session s changed path (orig: its content
// before, nil when it did not exist), by a tool or a command: the prompt's
// checkpoint, what the session left, the review round and blame. was
// names the command when it was one, and the mode before.
func (r *router) recordFile(s *session.Session, path string, was checkpoint.Before) {
	var orig *string
	if was.Existed {
		orig = &was.Content
	}
	r.commands.Writes(s.ID, path)
	s.Turns.Changed(path, was)
	if orig == nil {
		r.complete.Created(path) // a new file: @ completes it at once
	}
	// What the session left: a later difference on disk is someone
	// else's (rewind keeps it).
	after, exists, err := proposal.ReadNow(path)
	if err == nil {
		s.Turns.Landed(path, after, exists)
	}
	r.rounds.Changed(s, path, orig, was.By, after, err)
}

// FileChange is one file a turn changed: before the turn and now.
type FileChange = checkpoint.FileChange
