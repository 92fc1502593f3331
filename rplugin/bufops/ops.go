// Package bufops is the transcript buffer's edits as the front end applies
// them (frontend/ops.lua): numbered ops that replace lines (Op), their
// highlights (Mark, Code; markdown.go), and a session's batch of them as
// the outbox carries it (Update: sized, split, coalesced).
package bufops

import "encoding/json"

// Op is one change to a transcript buffer: the lines [Index, Index+Count)
// are replaced by Lines (Count 0 inserts, at the end it appends). Marks
// highlight the new lines; Code asks the front end to highlight finished
// fenced code blocks with their language.
type Op struct {
	Op string `json:"op"` // always "set"
	// Prev and Seq number the transcript's versions before and after the
	// op: the front end applies an op whose Prev is the version it has,
	// skips one it has already (Seq not newer, as after a fetch of the
	// whole transcript), and fetches everything again on a gap.
	Prev  int      `json:"prev"`
	Seq   int      `json:"seq"`
	Index int      `json:"index"`
	Count int      `json:"count"`
	Lines []string `json:"lines"`
	Marks []Mark   `json:"marks,omitempty"`
	Code  []Code   `json:"code,omitempty"`
}

// Mark highlights columns [Start, End) of line Line (relative to the op's
// Index) with Group; End -1 is the end of the line. It travels as
// [line, start, end, "group"].
type Mark struct {
	Line, Start, End int
	Group            string
}

// MarshalJSON writes the compact array form.
func (m Mark) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{m.Line, m.Start, m.End, m.Group})
}

// UnmarshalJSON reads the compact array form.
func (m *Mark) UnmarshalJSON(b []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil || len(a) != 4 {
		return err
	}
	_ = json.Unmarshal(a[0], &m.Line)
	_ = json.Unmarshal(a[1], &m.Start)
	_ = json.Unmarshal(a[2], &m.End)
	return json.Unmarshal(a[3], &m.Group)
}

// Code is a finished fenced code block: Count lines from Line (relative to
// the op's Index), in language Lang.
type Code struct {
	Line  int    `json:"line"`
	Count int    `json:"count"`
	Lang  string `json:"lang"`
}

// Set is an op that replaces lines [index, index+count) by lines.
func Set(index, count int, lines []string, marks []Mark, code []Code) Op {
	return Op{Op: "set", Index: index, Count: count, Lines: lines, Marks: marks, Code: code}
}

// Update is a batch of operations on one session's transcript buffer.
type Update struct {
	Session int  `json:"session"`
	Ops     []Op `json:"ops"`
}

// SessionID names the session of the update (ui.SessionScoped).
func (u *Update) SessionID() int { return u.Session }

// LastSeq is the number of the update's last op (ui.Sequenced): what a
// resync that replaces it must bring.
func (u *Update) LastSeq() int {
	n := 0
	for _, op := range u.Ops {
		n = max(n, op.Seq)
	}
	return n
}

// maxUpdateLines bounds a coalesced update, so that no single delivery
// keeps Neovim busy for long.
const maxUpdateLines = 300

// Size is the number of lines the update carries (ui.Sized).
func (u *Update) Size() int {
	n := 0
	for _, op := range u.Ops {
		n += len(op.Lines)
	}
	return n
}

// Split cuts an update carrying more than max lines into several, between
// its ops (ui.Splitter; the transcript never makes an op of more than
// MaxOpLines lines), so a 2000-line message reaches Neovim in steps.
func (u *Update) Split(max int) []any {
	if u.Size() <= max {
		return []any{u}
	}
	var out []any
	cur := &Update{Session: u.Session}
	size := 0
	for _, op := range u.Ops {
		if size > 0 && size+len(op.Lines) > max {
			out = append(out, cur)
			cur, size = &Update{Session: u.Session}, 0
		}
		cur.Ops = append(cur.Ops, op)
		size += len(op.Lines)
	}
	if len(cur.Ops) > 0 {
		out = append(out, cur)
	}
	return out
}

// MaxOpLines bounds the lines of one op the transcript makes.
const MaxOpLines = 256

// Cut splits op after its first n lines: the head replaces op's range, the
// tail inserts the remaining lines after the head's.
func Cut(op Op, n int) (head, tail Op) {
	head = Op{Op: "set", Index: op.Index, Count: op.Count, Lines: op.Lines[:n]}
	tail = Op{Op: "set", Index: op.Index + n, Count: 0, Lines: op.Lines[n:]}
	for _, m := range op.Marks {
		if m.Line < n {
			head.Marks = append(head.Marks, m)
		} else {
			m.Line -= n
			tail.Marks = append(tail.Marks, m)
		}
	}
	for _, c := range op.Code {
		if c.Line+c.Count <= n {
			head.Code = append(head.Code, c)
		} else if c.Line >= n {
			c.Line -= n
			tail.Code = append(tail.Code, c)
		} else {
			// A block cut in two is highlighted once the tail has arrived.
			c.Count = c.Line + c.Count - n
			c.Line = 0
			tail.Code = append(tail.Code, c)
		}
	}
	return head, tail
}

// Coalesce absorbs a later update of the same session (ui.Coalescable): an
// op that continues or rewrites the end of the previous one is merged into
// it, so a burst of streamed text reaches Neovim as one edit.
func (u *Update) Coalesce(next any) bool {
	n, ok := next.(*Update)
	if !ok || n.Session != u.Session || u.Size()+n.Size() > maxUpdateLines {
		return false
	}
	for _, op := range n.Ops {
		last := &u.Ops[len(u.Ops)-1]
		if merged, ok := merge(*last, op); ok {
			*last = merged
			continue
		}
		u.Ops = append(u.Ops, op)
	}
	return true
}

// merge combines a and then b when b only touches lines a wrote (or the
// position right after them).
func merge(a, b Op) (Op, bool) {
	end := a.Index + len(a.Lines)
	if a.Seq != b.Prev || b.Index < a.Index || b.Index > end || b.Index+b.Count > end {
		return Op{}, false
	}
	off := b.Index - a.Index
	out := Op{Op: "set", Prev: a.Prev, Seq: b.Seq, Index: a.Index, Count: a.Count}
	out.Lines = append(append(append([]string(nil), a.Lines[:off]...), b.Lines...), a.Lines[off+b.Count:]...)
	shift := len(b.Lines) - b.Count
	for _, m := range a.Marks {
		switch {
		case m.Line < off:
			out.Marks = append(out.Marks, m)
		case m.Line >= off+b.Count:
			m.Line += shift
			out.Marks = append(out.Marks, m)
		}
	}
	for _, m := range b.Marks {
		m.Line += off
		out.Marks = append(out.Marks, m)
	}
	for _, c := range a.Code {
		if c.Line+c.Count <= off {
			out.Code = append(out.Code, c)
		} else if c.Line >= off+b.Count {
			c.Line += shift
			out.Code = append(out.Code, c)
		}
	}
	for _, c := range b.Code {
		c.Line += off
		out.Code = append(out.Code, c)
	}
	return out, true
}
