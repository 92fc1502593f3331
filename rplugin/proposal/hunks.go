package proposal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// MaxHunks is the most hunks a proposal is reviewed hunk by hunk; a change
// with more (a rewrite) is reviewed as a whole.
const MaxHunks = 500

// Hunk is one region Claude's change touches, as the editor shows it: the
// original's lines and Claude's, without line ends (Neovim reads "\r\n" of
// a dos file and a byte order mark into options, not into lines).
type Hunk struct {
	OrigStart int      `json:"orig_start"` // 1-based; for an insertion, the line it comes before
	Orig      []string `json:"orig"`
	PropStart int      `json:"prop_start"` // 1-based line in the proposal; for a deletion, the line it comes before
	Prop      []string `json:"prop"`
}

// Hunks returns the hunks of Claude's change (original → proposed), at
// most MaxHunks; ok is false when there are more.
func Hunks(c Change) (hunks []Hunk, ok bool) {
	return hunksOf(diffOf(c))
}

// Summary is what a request shows of a change, from one diff of it: the
// lines added and removed, and its hunks (HunksOK false: more than
// MaxHunks, reviewed as a whole).
type Summary struct {
	Added, Removed int
	Hunks          []Hunk
	HunksOK        bool
}

// Summarize diffs c once for its counts and its hunks: a change of a large
// file is diffed, and its texts copied, once per request.
func Summarize(c Change) Summary {
	s := diffOf(c)
	var sum Summary
	sum.Removed, sum.Added = s.Count()
	sum.Hunks, sum.HunksOK = hunksOf(s)
	return sum
}

// diffOf is the diff of Claude's change as the editor shows it (a byte
// order mark at either side is not a change of the first line).
func diffOf(c Change) diff.Script {
	return diff.Text(strings.TrimPrefix(stringView(c.Original), bom), strings.TrimPrefix(stringView(c.Proposed), bom))
}

func hunksOf(s diff.Script) (hunks []Hunk, ok bool) {
	if len(s.Changes) > MaxHunks {
		return nil, false
	}
	for _, ch := range s.Changes {
		hunks = append(hunks, Hunk{
			OrigStart: ch.A + 1, Orig: bare(s.A(ch.A, ch.A+ch.Del)),
			PropStart: ch.B + 1, Prop: bare(s.B(ch.B, ch.B+ch.Ins)),
		})
	}
	return hunks, true
}

func bare(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	}
	return out
}

// Marks are the conflict markers a three-way merge wrote into a staged
// proposal: the text it staged, the 1-based line of every marker line in it
// and the labels they carry.
type Marks struct {
	Text   string
	Lines  []int
	Labels diff.MergeLabels
}

// MarksOf is the marks of merge m written with labels; nil when it wrote
// none.
func MarksOf(m diff.MergeResult, labels diff.MergeLabels) *Marks {
	if len(m.Markers) == 0 {
		return nil
	}
	return &Marks{Text: m.Text, Lines: m.Markers, Labels: labels}
}

// maxMarkersNamed is how many leftover marker lines a refusal quotes.
const maxMarkersNamed = 4

// MarkersLeft says that a save of target applies nothing while saved still
// holds a marker line the merge of m wrote (any of the four; a bare
// "=======" only where the merge wrote one, not one of the file's own), and
// on which lines ("" when none is left, or m is nil).
func MarkersLeft(saved []byte, target string, m *Marks) string {
	if m == nil {
		return ""
	}
	text := string(saved)
	lines := diff.MarkersLeft(m.Text, m.Lines, text, m.Labels)
	if len(lines) == 0 {
		return ""
	}
	all := diff.SplitLines(text)
	at := make([]string, 0, maxMarkersNamed+1)
	for i, n := range lines {
		if i == maxMarkersNamed {
			at = append(at, fmt.Sprintf("and %d more", len(lines)-i))
			break
		}
		at = append(at, fmt.Sprintf("line %d: %s", n, strconv.Quote(sanitize.Line(strings.TrimRight(all[n-1], "\r\n")))))
	}
	return fmt.Sprintf("conflict markers remain in %s (%s): nothing applied; resolve them, then :w", target, strings.Join(at, "; "))
}
