package diff

import "strings"

// Script is the line diff of two texts (see Text). Its changes index the
// texts' lines as SplitLines gives them; only the lines around the changes
// are split, and A and B return them.
type Script struct {
	Changes []Change
	a, b    []string // the lines of a and b from line off on
	off     int      // the lines both texts begin with that were not split
	whole   bool     // a change reached the margin: the whole texts were diffed
}

// A returns the lines [from, to) of a: lines of a change (to at most the
// end of the last change, plus the margin kept around the changes).
func (s Script) A(from, to int) []string { return s.a[from-s.off : to-s.off] }

// B returns the lines [from, to) of b, as A does for a.
func (s Script) B(from, to int) []string { return s.b[from-s.off : to-s.off] }

// Count returns the number of lines removed from a and inserted from b.
func (s Script) Count() (removed, added int) { return count(s.Changes) }

// textMargin is how many of the lines the texts share at either end are
// diffed with the lines between (see Text).
const textMargin = 3

// Text is Lines(SplitLines(a), SplitLines(b)), the same script, without
// splitting the lines the two texts begin and end with in common: an edit
// of one line in a 100,000-line file splits a few lines, not 200,000. The
// shared ends are found by comparing bytes; a margin of them is diffed with
// the rest, and when a change reaches the edge of that margin (sliding
// along equal lines could take it further) the whole texts are diffed.
func Text(a, b string) Script {
	if a == b {
		return Script{}
	}
	pre := sharedLinesPrefix(a, b)
	suf := sharedLinesSuffix(a[pre:], b[pre:])
	// Give back a margin of the shared lines at either end.
	off := strings.Count(a[:pre], "\n")
	lo, back := pre, 0
	for back < textMargin && lo > 0 {
		lo = strings.LastIndexByte(a[:lo-1], '\n') + 1
		back++
	}
	off -= back
	hiA, hiB, fwd := len(a)-suf, len(b)-suf, 0
	for fwd < textMargin && hiA < len(a) {
		k := strings.IndexByte(a[hiA:], '\n')
		if k < 0 {
			k = len(a) - hiA - 1
		}
		hiA += k + 1
		hiB += k + 1
		fwd++
	}
	s := Script{a: SplitLines(a[lo:hiA]), b: SplitLines(b[lo:hiB]), off: off}
	s.Changes = Lines(s.a, s.b)
	if !s.withinMargin(lo > 0, hiA < len(a)) {
		s = Script{a: SplitLines(a), b: SplitLines(b), whole: true}
		s.Changes = Lines(s.a, s.b)
		return s
	}
	for i := range s.Changes {
		s.Changes[i].A += off
		s.Changes[i].B += off
	}
	return s
}

// withinMargin reports whether no change touches the first line of the
// split part (when lines before it were not split) or its last line (when
// lines after it were not).
func (s Script) withinMargin(before, after bool) bool {
	if len(s.Changes) == 0 {
		return true
	}
	first, last := s.Changes[0], s.Changes[len(s.Changes)-1]
	if before && (first.A == 0 || first.B == 0) {
		return false
	}
	if after && (last.A+last.Del == len(s.a) || last.B+last.Ins == len(s.b)) {
		return false
	}
	return true
}

// sharedLinesPrefix returns the length in bytes of the whole lines a and b
// begin with in common.
func sharedLinesPrefix(a, b string) int {
	n := commonPrefix(a, b)
	if n == len(a) && n == len(b) {
		return n
	}
	return strings.LastIndexByte(a[:n], '\n') + 1
}

// sharedLinesSuffix returns the length in bytes of the whole lines a and b
// end with in common (a line starts at the start of its text or after a
// "\n").
func sharedLinesSuffix(a, b string) int {
	n := commonSuffix(a, b)
	if n == 0 {
		return 0
	}
	pa, pb := len(a)-n, len(b)-n
	if (pa == 0 || a[pa-1] == '\n') && (pb == 0 || b[pb-1] == '\n') {
		return n
	}
	// The first line start inside the shared bytes (the same in both).
	k := strings.IndexByte(a[pa:], '\n')
	if k < 0 {
		return 0
	}
	return n - (k + 1)
}

// chunk is how many bytes commonPrefix and commonSuffix compare at once.
const chunk = 64

func commonPrefix(a, b string) int {
	lim := min(len(a), len(b))
	n := 0
	for n+chunk <= lim && a[n:n+chunk] == b[n:n+chunk] {
		n += chunk
	}
	for n < lim && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	lim := min(len(a), len(b))
	n := 0
	for n+chunk <= lim && a[len(a)-n-chunk:len(a)-n] == b[len(b)-n-chunk:len(b)-n] {
		n += chunk
	}
	for n < lim && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
