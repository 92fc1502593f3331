package review

import (
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// Kind says who wrote a line.
type Kind string

// The kinds of authors.
const (
	// You: not Claude's: the line was there before Claude changed the file,
	// or you wrote it (in the editor, or in a proposal outside Claude's
	// lines).
	You Kind = "you"
	// Claude: Claude wrote the line, and it reached the file as Claude
	// wrote it.
	Claude Kind = "claude"
	// Amended: Claude's change, which you amended in the proposal before
	// it was applied.
	Amended Kind = "amended"
)

// Author is who wrote a line, and for Claude's lines when and in which
// session and turn. Kind You carries nothing else.
type Author struct {
	Kind     Kind   `json:"kind"`
	Session  int    `json:"session,omitempty"`   // the editor's number of the session then
	Name     string `json:"name,omitempty"`      // the session's name then
	ClaudeID string `json:"claude_id,omitempty"` // claude's session id
	Turn     int    `json:"turn,omitempty"`      // the prompt's number in its session (0: a turn claude started itself)
	Prompt   string `json:"prompt,omitempty"`    // the prompt's text (cut)
	Time     int64  `json:"time,omitempty"`      // Unix seconds the change reached the file
	Model    string `json:"model,omitempty"`     // the session's model then
	// Commit is the commit whose authorship note names the line (a line
	// known from git rather than from the live record).
	Commit string `json:"commit,omitempty"`
}

// you is the author of every line Claude did not write.
var you = Author{Kind: You}

// Blame is who wrote each line of one file, as the file was last known.
type Blame struct {
	Path    string
	Content string   // the file as last known
	Authors []Author // Authors[0] is You
	lines   []int    // per line of Content: an index into Authors
}

// NewBlame is the blame of a file nothing is known of yet: every line of
// content is yours.
func NewBlame(path, content string) *Blame {
	return &Blame{Path: path, Content: content, Authors: []Author{you}, lines: make([]int, len(diff.SplitLines(content)))}
}

// Lines returns, per line of the last known content, an index into
// Authors.
func (b *Blame) Lines() []int { return append([]int(nil), b.lines...) }

// View returns, per line of text (the file as it is now, or a buffer of it
// with unsaved edits), an index into Authors: lines that differ from the
// last known content are yours (you edited them by hand).
func (b *Blame) View(text string) []int {
	if text == b.Content {
		return b.Lines()
	}
	out, _ := Carry(diff.SplitLines(b.Content), diff.SplitLines(text), b.lines)
	return out
}

// Rebase makes text the last known content: lines that differ from what
// was known become yours.
func (b *Blame) Rebase(text string) {
	if text == b.Content {
		return
	}
	b.lines, b.Content = b.View(text), text
	b.compact()
}

// Land records a change Claude made: the file went from before to after.
// The lines after adds are by (its Kind is Claude); when the change came
// from a proposal the user amended, proposed is what Claude proposed and
// after what the user saved: lines of after that Claude wrote as they are
// stay Claude's, lines the user changed within Claude's lines are Amended
// (by, amended), and lines the user added elsewhere are yours. Lines that
// differ between the last known content and before (edited by hand since)
// become yours first.
func (b *Blame) Land(before, after string, by Author, proposed *string) {
	b.Rebase(before)
	bl, al := diff.SplitLines(before), diff.SplitLines(after)
	out, added := Carry(bl, al, b.lines)
	by.Kind = Claude
	claude := b.author(by)
	var user []bool  // per line of after: differs from Claude's proposal
	var amend []bool // per line of after: and replaced some of Claude's lines
	if proposed != nil && *proposed != after {
		pl := diff.SplitLines(*proposed)
		theirs := changedLines(bl, pl).b // Claude's own lines in the proposal
		user, amend = make([]bool, len(al)), make([]bool, len(al))
		for _, c := range diff.Lines(pl, al) {
			touched := false
			for k := c.A; k < c.A+c.Del; k++ {
				touched = touched || theirs[k]
			}
			for k := c.B; k < c.B+c.Ins; k++ {
				user[k], amend[k] = true, touched
			}
		}
	}
	amended := -1
	for j := range al {
		if !added[j] {
			continue
		}
		switch {
		case user == nil || !user[j]:
			out[j] = claude
		case amend[j]:
			if amended < 0 {
				a := by
				a.Kind = Amended
				amended = b.author(a)
			}
			out[j] = amended
		default:
			out[j] = 0
		}
	}
	b.Content, b.lines = after, out
	b.compact()
}

// Adopt records lines brought over from another file (a worktree's branch
// merged into the checkout): the file went from before to after; the lines
// of after that came as they are from source keep the authors from gives
// them (per line of source, 1-based); lines the user wrote in place of
// Claude's lines of source (amended in the merge proposal) are Amended,
// the rest of what changed is yours.
// Lines that differ between the last known content and before become
// yours first.
func (b *Blame) Adopt(before, after, source string, from []Author) {
	b.Rebase(before)
	bl, al, sl := diff.SplitLines(before), diff.SplitLines(after), diff.SplitLines(source)
	out, added := Carry(bl, al, b.lines)
	idx := make([]int, len(sl)) // per line of source: an index into Authors (0: yours)
	for i := range sl {
		if i+1 < len(from) && from[i+1].Kind != You && from[i+1].Kind != "" {
			idx[i] = b.author(from[i+1])
		}
	}
	carried, typed := Carry(sl, al, idx) // typed: not in source
	// Lines the user wrote in the merge proposal (neither the checkout's
	// nor the branch's): where they replaced lines Claude wrote on the
	// branch they are Claude's, amended (as in any proposal); elsewhere
	// yours.
	amended := make([]int, len(al)) // per line of after: 1 + an index into Authors (0: none)
	for _, c := range diff.Lines(sl, al) {
		by := -1
		for k := c.A; k < c.A+c.Del && by < 0; k++ {
			if k+1 < len(from) && (from[k+1].Kind == Claude || from[k+1].Kind == Amended) {
				a := from[k+1]
				a.Kind = Amended
				by = b.author(a) + 1
			}
		}
		for k := c.B; k < c.B+c.Ins && by >= 0; k++ {
			amended[k] = by
		}
	}
	for j := range al {
		switch {
		case !added[j]:
		case typed[j] && amended[j] > 0:
			out[j] = amended[j] - 1
		default:
			out[j] = carried[j]
		}
	}
	b.Content, b.lines = after, out
	b.compact()
}

// author is the index of a in Authors (added when new).
func (b *Blame) author(a Author) int {
	for i, x := range b.Authors {
		if x == a {
			return i
		}
	}
	b.Authors = append(b.Authors, a)
	return len(b.Authors) - 1
}

// compact drops authors no line has any more.
func (b *Blame) compact() {
	if len(b.Authors) == 0 || b.Authors[0] != you {
		b.Authors = append([]Author{you}, b.Authors...)
		for i := range b.lines {
			b.lines[i]++
		}
	}
	used := make([]bool, len(b.Authors))
	used[0] = true
	for _, i := range b.lines {
		used[i] = true
	}
	renum := make([]int, len(b.Authors))
	kept := b.Authors[:0]
	for i, a := range b.Authors {
		if used[i] {
			renum[i] = len(kept)
			kept = append(kept, a)
		}
	}
	b.Authors = kept
	for i, a := range b.lines {
		b.lines[i] = renum[a]
	}
}

// Counts returns how many lines each kind has.
func (b *Blame) Counts(lines []int) map[Kind]int {
	out := map[Kind]int{}
	for _, i := range lines {
		if i >= 0 && i < len(b.Authors) {
			out[b.Authors[i].Kind]++
		}
	}
	return out
}

// Carry returns, per line of b, the value from has for that line in a when
// the diff from a to b keeps it, else 0; and which lines of b the diff adds.
func Carry(a, b []string, from []int) ([]int, []bool) {
	out, added := make([]int, len(b)), make([]bool, len(b))
	i, j := 0, 0
	for _, c := range diff.Lines(a, b) {
		for ; i < c.A; i, j = i+1, j+1 {
			out[j] = from[i]
		}
		for k := c.B; k < c.B+c.Ins; k++ {
			added[k] = true
		}
		i, j = c.A+c.Del, c.B+c.Ins
	}
	for ; i < len(a); i, j = i+1, j+1 {
		out[j] = from[i]
	}
	return out, added
}

// changed marks the lines of a and of b that a diff from a to b changes.
type changed struct{ a, b []bool }

func changedLines(a, b []string) changed {
	c := changed{a: make([]bool, len(a)), b: make([]bool, len(b))}
	for _, d := range diff.Lines(a, b) {
		for k := d.A; k < d.A+d.Del; k++ {
			c.a[k] = true
		}
		for k := d.B; k < d.B+d.Ins; k++ {
			c.b[k] = true
		}
	}
	return c
}
