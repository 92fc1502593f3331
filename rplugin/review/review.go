// Package review is the pull-request loop over what Claude changed: a
// session's round (the files Claude changed since the review baseline, each
// with its content at the baseline), the user's comments on lines of those
// files (kept per session folder, sent to Claude as one message), and who
// wrote each line of a file (Claude, Claude amended by the user in the
// proposal, or the user).
//
// The model is pure: rounds, comments and blame are values changed by
// methods, and the text sent to Claude is composed from plain data. What is
// kept on disk goes through store.go: one folder per session folder under
// the plugin's storage, every file written atomically and read
// defensively (regular files only, size caps, invariants checked). There
// is no package state.
package review

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// newID is a random id for a comment.
func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return "c" + hex.EncodeToString(b[:])
}

// lineMap maps every line of a (0-based) to where it is in b: an unchanged
// line to its place, a line of a changed block to the first line that
// replaced it (or, for a block that only deleted lines, to the line after
// the deletion). len(result) == len(a).
func lineMap(a, b []string) []int {
	out := make([]int, len(a))
	i, j := 0, 0
	for _, c := range diff.Lines(a, b) {
		for ; i < c.A; i, j = i+1, j+1 {
			out[i] = j
		}
		for k := 0; k < c.Del; k++ {
			out[i+k] = c.B
		}
		i += c.Del
		j = c.B + c.Ins
	}
	for ; i < len(a); i, j = i+1, j+1 {
		out[i] = j
	}
	return out
}
