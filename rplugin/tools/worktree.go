package tools

import (
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// EnterWorktree and ExitWorktree: Claude moves the session into a git
// worktree, or back to the folder it came from. Proposals, the editor
// tools' boundary and rules follow the session's folder.

type worktreeResult struct {
	WorktreePath string `json:"worktreePath"`
	Branch       string `json:"worktreeBranch"`
	OriginalCwd  string `json:"originalCwd"`
}

var enterWorktree = Tool{
	Target: func(in Input) string {
		if p := in.Str("path"); p != "" {
			return p
		}
		return in.Str("name")
	},
	Details: none,
	Headline: func(r Result, _ time.Time) string {
		var w worktreeResult
		if !r.Decode(&w) {
			return ""
		}
		p := sanitize.Line(w.WorktreePath)
		if p == "" {
			return ""
		}
		if b := sanitize.Line(w.Branch); b != "" {
			return "now in " + p + " (" + b + ")"
		}
		return "now in " + p
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		var w worktreeResult
		c.Result.Decode(&w)
		return Effect{MoveTo: &Move{Dir: w.WorktreePath, Branch: w.Branch}}
	},
}

var exitWorktree = Tool{
	Target: func(in Input) string {
		switch t := in.Str("action"); t {
		case "remove":
			return "and remove it"
		case "keep":
			return "and keep it"
		default:
			return t
		}
	},
	Details: none,
	Headline: func(r Result, _ time.Time) string {
		var w worktreeResult
		if !r.Decode(&w) {
			return ""
		}
		if p := sanitize.Line(w.OriginalCwd); p != "" {
			return "back in " + p
		}
		return ""
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		var w worktreeResult
		c.Result.Decode(&w)
		return Effect{MoveTo: &Move{Dir: w.OriginalCwd}}
	},
}
