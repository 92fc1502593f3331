package checkpoint

import (
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// Hunk is one block of a turn's change to a file, in line numbers of the
// file before the turn (A) and now (B), 1-based; a count of 0 is a pure
// insertion or deletion, sitting after line A-1 / B-1.
type Hunk struct {
	A   int `json:"a"`
	Del int `json:"del"`
	B   int `json:"b"`
	Ins int `json:"ins"`
}

// Hunks lists the blocks that turn before into now.
func Hunks(before, now string) []Hunk {
	a, b := diff.SplitLines(before), diff.SplitLines(now)
	cs := diff.Lines(a, b)
	out := make([]Hunk, len(cs))
	for i, c := range cs {
		out[i] = Hunk{A: c.A + 1, Del: c.Del, B: c.B + 1, Ins: c.Ins}
	}
	return out
}

// Undo puts hunk h of the change from before to now (one that Hunks
// listed) back as it was before: the lines of now in that block are
// replaced by before's. Everything else in now is kept byte for byte.
func Undo(before, now string, h Hunk) (string, error) {
	a, b := diff.SplitLines(before), diff.SplitLines(now)
	if h.A < 1 || h.Del < 0 || h.A-1+h.Del > len(a) || h.B < 1 || h.Ins < 0 || h.B-1+h.Ins > len(b) {
		return "", fmt.Errorf("the hunk at line %d lies outside the file", h.B)
	}
	var out strings.Builder
	out.Grow(len(now))
	for _, l := range b[:h.B-1] {
		out.WriteString(l)
	}
	restored := a[h.A-1 : h.A-1+h.Del]
	if len(restored) > 0 && out.Len() > 0 && !strings.HasSuffix(out.String(), "\n") {
		out.WriteString("\n") // now's last line had lost its newline; before's had one
	}
	rest := b[h.B-1+h.Ins:]
	for j, l := range restored {
		// A last line without its newline only stays so at the very end.
		if j == len(restored)-1 && len(rest) > 0 && !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		out.WriteString(l)
	}
	for _, l := range rest {
		out.WriteString(l)
	}
	return out.String(), nil
}
