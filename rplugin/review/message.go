package review

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Context is how many lines around a comment's lines are quoted.
const Context = 2

// maxQuoted bounds the lines quoted for one comment's range: a longer range
// shows its first and last lines around a line that says how many were
// left out.
const maxQuoted = 40

// Item is one comment as it is sent: where, what, and the file's lines to
// quote from.
type Item struct {
	Rel      string // the file as Claude knows it (relative to the session's folder)
	From, To int
	Text     string
	// Lines are the file's lines now, without their newlines (the editor's
	// buffer when it has unsaved edits); nil when the file cannot be read:
	// Code is quoted instead.
	Lines []string
	Code  []string
	// Unsaved: Lines are a buffer's with edits not written yet.
	Unsaved bool
	// Changed: the lines are part of what Claude changed in this round.
	Changed bool
	// Who wrote the lines when it was not this session ("session 2
	// (“louder”, 14:02)", "the user"): the review says so.
	Who string
}

// Review is what a send puts in one message.
type Review struct {
	Since time.Time // the review baseline
	Now   time.Time
	Items []Item
}

// Head is the message's first line: "Review of your changes since 14:03:
// 2 comments in 2 files."
func (r Review) Head() string {
	files := map[string]bool{}
	for _, it := range r.Items {
		files[it.Rel] = true
	}
	return fmt.Sprintf("Review of your changes since %s: %s in %s.", when(r.Since, r.Now),
		count(len(r.Items), "comment"), count(len(files), "file"))
}

func when(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

func count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// Message is the text sent to Claude: the head, then each comment with its
// file, its line or range, the code it is about (quoted with Context
// lines around it, the commented lines marked ">"), and the comment.
// Comments are grouped by file, in line order.
func (r Review) Message() string {
	items := append([]Item(nil), r.Items...)
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Rel != items[j].Rel {
			return items[i].Rel < items[j].Rel
		}
		return items[i].From < items[j].From
	})
	var b strings.Builder
	b.Grow(256 * (len(items) + 1))
	b.WriteString(r.Head())
	b.WriteString("\nEach comment names a file and lines as they are now; the code it is about is quoted, the commented lines marked \">\". Address every comment; where you disagree, say why.\n")
	for i, it := range items {
		fmt.Fprintf(&b, "\n### %d. %s, %s", i+1, it.Rel, rangeOf(it.From, it.To))
		var notes []string
		switch {
		case it.Who != "":
			notes = append(notes, "written by "+it.Who+", not by you")
		case !it.Changed:
			notes = append(notes, "not a line you changed in this round")
		}
		if it.Unsaved {
			notes = append(notes, "quoted from the editor: the user has not saved these edits yet")
		}
		if it.Lines == nil {
			notes = append(notes, "the file could not be read: quoted as it was when the comment was made")
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteString("\n")
		writeQuote(&b, it)
		b.WriteString(it.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func rangeOf(from, to int) string {
	if to > from {
		return fmt.Sprintf("lines %d-%d", from, to)
	}
	return fmt.Sprintf("line %d", from)
}

type quoted struct {
	n    int // 1-based; 0: the "… lines left out" line
	text string
	mark bool
}

// excerpt picks the lines to quote.
func excerpt(it Item) []quoted {
	var out []quoted
	if it.Lines == nil {
		for i, l := range it.Code {
			out = append(out, quoted{n: it.From + i, text: l, mark: true})
		}
		return cap40(out, it)
	}
	n := len(it.Lines)
	from, to := min(it.From, n), min(it.To, n)
	if from < 1 { // an empty file
		return nil
	}
	for l := max(1, from-Context); l <= min(n, to+Context); l++ {
		out = append(out, quoted{n: l, text: it.Lines[l-1], mark: l >= from && l <= to})
	}
	return cap40(out, it)
}

// cap40 leaves out the middle of a long range.
func cap40(q []quoted, it Item) []quoted {
	if len(q) <= maxQuoted {
		return q
	}
	head, tail := q[:maxQuoted/2], q[len(q)-maxQuoted/2:]
	gap := quoted{text: fmt.Sprintf("… %d lines left out …", len(q)-maxQuoted)}
	return append(append(append([]quoted{}, head...), gap), tail...)
}

func writeQuote(b *strings.Builder, it Item) {
	q := excerpt(it)
	if len(q) == 0 {
		b.WriteString("(the file is empty)\n")
		return
	}
	width := len(fmt.Sprint(q[len(q)-1].n))
	ticks := 3
	for _, l := range q {
		ticks = max(ticks, longestRun(l.text, '`')+1)
	}
	fence := strings.Repeat("`", ticks)
	b.WriteString(fence + "\n")
	for _, l := range q {
		mark := "  "
		if l.mark {
			mark = "> "
		}
		if l.n == 0 {
			fmt.Fprintf(b, "  %*s   %s\n", width, "", l.text)
			continue
		}
		fmt.Fprintf(b, "%s%*d | %s\n", mark, width, l.n, strings.TrimRight(l.text, "\r"))
	}
	b.WriteString(fence + "\n")
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// Touches reports whether lines from-to (1-based, of the file now) meet one
// of the hunks (b, ins: where Claude's lines are now; ins 0 is a deletion
// after line b-1).
func Touches(from, to int, hunks [][2]int) bool {
	for _, h := range hunks {
		b, ins := h[0], h[1]
		if ins == 0 {
			if (b-1 >= from && b-1 <= to) || (b >= from && b <= to) {
				return true
			}
			continue
		}
		if from <= b+ins-1 && to >= b {
			return true
		}
	}
	return false
}
