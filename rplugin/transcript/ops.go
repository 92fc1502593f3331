package transcript

import "github.com/claude-nova/claude-nova.nvim/rplugin/bufops"

// The transcript's output is buffer edits (package bufops), and its lines
// take the forms bufops highlights; these names keep its code short.
type (
	Op      = bufops.Op
	hlState = bufops.HighlightState
)

// The transcript's own line forms (bufops.ToolPrefix…).
const (
	toolPrefix   = bufops.ToolPrefix
	detailFolded = bufops.DetailFolded
	detailOpen   = bufops.DetailOpen
	notePrefix   = bufops.NotePrefix
)
