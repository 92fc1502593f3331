package diff

import (
	"strconv"
	"strings"
)

// DefaultContext is the number of context lines used when
// Options.Context is 0, as for diff -u.
const DefaultContext = 3

// Options controls Unified.
type Options struct {
	// Context is the number of unchanged lines shown around changes.
	// 0 means DefaultContext (3); a negative value means no context
	// at all (like diff -U0).
	Context int
	// MaxLines caps the number of output lines (every line counts:
	// the two file headers, hunk headers, content lines and
	// "\ No newline at end of file" markers). 0 or negative means no
	// cap. When the diff is longer, the first MaxLines lines are kept
	// and one extra line "... N more lines not shown\n" is appended,
	// where N (also in Result.Truncated) is the number of lines cut.
	MaxLines int
}

// Result is the outcome of Unified.
type Result struct {
	// Text is the unified diff; "" when the inputs are identical.
	// Every line, including the cap message, ends in "\n".
	Text string
	// Added and Removed count the "+" and "-" lines of the complete
	// diff, and Hunks its "@@" hunks, regardless of MaxLines.
	Added, Removed int
	Hunks          int
	// Truncated is the number of output lines cut by MaxLines.
	Truncated int
}

const noNewline = "\\ No newline at end of file\n"

// Unified returns the unified diff turning a into b in the format of GNU
// diff -u, with "--- fromName" and "+++ toName" headers (no timestamps).
// Lines are split on "\n" only; a "\r" is part of the line's content.
// A last line without "\n" is followed by a "\ No newline at end of file"
// marker line, exactly as GNU diff prints it.
func Unified(fromName, toName, a, b string, opts Options) Result {
	if a == b {
		return Result{}
	}
	la, lb := SplitLines(a), SplitLines(b)
	cs := Lines(la, lb)
	if len(cs) == 0 {
		return Result{}
	}
	ctx := opts.Context
	if ctx == 0 {
		ctx = DefaultContext
	} else if ctx < 0 {
		ctx = 0
	}

	var res Result
	res.Removed, res.Added = count(cs)

	// Group changes into hunks: changes separated by at most 2*ctx
	// unchanged lines share one hunk.
	type hunk struct{ first, last int } // indices into cs
	var hunks []hunk
	for i := 0; i < len(cs); {
		j := i
		for j+1 < len(cs) && cs[j+1].A-(cs[j].A+cs[j].Del) <= 2*ctx {
			j++
		}
		hunks = append(hunks, hunk{i, j})
		i = j + 1
	}
	res.Hunks = len(hunks)

	e := emitter{max: opts.MaxLines}
	if e.max <= 0 {
		// Uncapped: size the buffer up front.
		size := len(fromName) + len(toName) + 10
		for _, h := range hunks {
			a0, a1, _, _ := hunkRange(cs, h.first, h.last, ctx, len(la))
			size += 40 + (a1 - a0)
			for _, l := range la[a0:a1] {
				size += len(l)
			}
			for _, c := range cs[h.first : h.last+1] {
				for _, l := range lb[c.B : c.B+c.Ins] {
					size += len(l) + 1
				}
			}
		}
		e.sb.Grow(size + 2*len(noNewline))
	}

	e.text("--- ", fromName)
	e.text("+++ ", toName)
	var num []byte
	for _, h := range hunks {
		a0, a1, b0, b1 := hunkRange(cs, h.first, h.last, ctx, len(la))
		num = append(num[:0], "@@ -"...)
		num = appendRange(num, a0, a1-a0)
		num = append(num, " +"...)
		num = appendRange(num, b0, b1-b0)
		num = append(num, " @@"...)
		e.text(string(num), "")
		x := a0
		for _, c := range cs[h.first : h.last+1] {
			for _, l := range la[x:c.A] {
				e.content(' ', l)
			}
			for _, l := range la[c.A : c.A+c.Del] {
				e.content('-', l)
			}
			for _, l := range lb[c.B : c.B+c.Ins] {
				e.content('+', l)
			}
			x = c.A + c.Del
		}
		for _, l := range la[x:a1] {
			e.content(' ', l)
		}
	}
	if e.max > 0 && e.n > e.max {
		res.Truncated = e.n - e.max
		e.sb.WriteString("... ")
		e.sb.WriteString(strconv.Itoa(res.Truncated))
		e.sb.WriteString(" more lines not shown\n")
	}
	res.Text = e.sb.String()
	return res
}

// Stat returns the number of lines added and removed by the diff from a to
// b (the "+" and "-" lines of Unified) without rendering it.
func Stat(a, b string) (added, removed int) {
	removed, added = Text(a, b).Count()
	return added, removed
}

// hunkRange returns the line ranges [a0,a1) and [b0,b1) covered by the
// hunk made of cs[first..last] with ctx lines of context.
func hunkRange(cs []Change, first, last, ctx, n int) (a0, a1, b0, b1 int) {
	f, l := cs[first], cs[last]
	a0 = max(f.A-ctx, 0)
	b0 = f.B - (f.A - a0)
	a1 = min(l.A+l.Del+ctx, n)
	b1 = l.B + l.Ins + (a1 - (l.A + l.Del))
	return a0, a1, b0, b1
}

// appendRange formats a hunk range like GNU diff: "start,count", or just
// "start" for one line; an empty range names the line before it.
func appendRange(dst []byte, start, count int) []byte {
	switch count {
	case 0:
		dst = strconv.AppendInt(dst, int64(start), 10)
		return append(dst, ",0"...)
	case 1:
		return strconv.AppendInt(dst, int64(start+1), 10)
	}
	dst = strconv.AppendInt(dst, int64(start+1), 10)
	dst = append(dst, ',')
	return strconv.AppendInt(dst, int64(count), 10)
}

// emitter writes output lines, counting them and dropping those beyond
// max (when max > 0).
type emitter struct {
	sb  strings.Builder
	max int
	n   int
}

func (e *emitter) full() bool { return e.max > 0 && e.n > e.max }

// text writes one line made of prefix+s and a newline.
func (e *emitter) text(prefix, s string) {
	e.n++
	if e.full() {
		return
	}
	e.sb.WriteString(prefix)
	e.sb.WriteString(s)
	e.sb.WriteByte('\n')
}

// content writes a diff body line; a line lacking its "\n" gets one plus
// the "\ No newline at end of file" marker line.
func (e *emitter) content(prefix byte, l string) {
	e.n++
	if !e.full() {
		e.sb.WriteByte(prefix)
		e.sb.WriteString(l)
	}
	if strings.HasSuffix(l, "\n") {
		return
	}
	if !e.full() {
		e.sb.WriteByte('\n')
	}
	e.n++
	if !e.full() {
		e.sb.WriteString(noNewline)
	}
}
