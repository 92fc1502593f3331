package diff

import (
	"strconv"
	"strings"
)

// Conflict markers written by Merge3 (diff3 style: ours, base, theirs).
const (
	MarkerOurs   = "<<<<<<< "
	MarkerBase   = "||||||| "
	MarkerSplit  = "======="
	MarkerTheirs = ">>>>>>> "
)

// MergeLabels name the three sides in the conflict markers.
type MergeLabels struct {
	Ours, Base, Theirs string
}

// MergeResult is a three-way merge.
type MergeResult struct {
	// Text is the merged text; conflicting regions are wrapped in markers.
	Text string
	// Conflicts holds the 1-based line of each conflict's first marker.
	Conflicts []int
	// Markers holds the 1-based line of every marker line written (four a
	// conflict): the lines MarkersLeft looks for.
	Markers []int
}

// Merge3 merges the changes that turned base into ours and base into
// theirs (texts split with SplitLines, so line ends, "\r" included, are
// kept). Regions changed on one side only take that side; regions changed
// the same way on both sides are taken once; overlapping different changes
// are a conflict, written diff3 style:
//
//	<<<<<<< ours label
//	…ours…
//	||||||| base label
//	…base…
//	=======
//	…theirs…
//	>>>>>>> theirs label
//
// Marker lines end like the text's lines (CRLF when most of them do). A
// region side whose last line has no line end gets one before a marker
// follows it.
func Merge3(base, ours, theirs string, labels MergeLabels) MergeResult {
	eol := lineEnd(base, ours, theirs)
	var conflicts, markers []int
	text := merge3(base, ours, theirs, func(out, oPart, bPart, tPart []string) []string {
		conflicts = append(conflicts, len(out)+1)
		mark := func(l string) {
			out = append(out, l+eol)
			markers = append(markers, len(out))
		}
		mark(MarkerOurs + labels.Ours)
		out = append(out, terminated(oPart, eol)...)
		mark(MarkerBase + labels.Base)
		out = append(out, terminated(bPart, eol)...)
		mark(MarkerSplit)
		out = append(out, terminated(tPart, eol)...)
		mark(MarkerTheirs + labels.Theirs)
		return out
	})
	return MergeResult{Text: text, Conflicts: conflicts, Markers: markers}
}

// Kept is a conflict Merge3Ours settled for ours: lines [From, To] of the
// result (1-based; To < From for a conflict where ours removed lines).
type Kept struct{ From, To int }

// Merge3Ours merges like Merge3, but settles each conflict for ours, with
// no markers, and says where: the changes that turned base into theirs
// apply wherever ours did not change the same lines.
func Merge3Ours(base, ours, theirs string) (string, []Kept) {
	var kept []Kept
	text := merge3(base, ours, theirs, func(out, oPart, _, _ []string) []string {
		kept = append(kept, Kept{From: len(out) + 1, To: len(out) + len(oPart)})
		return append(out, oPart...)
	})
	return text, kept
}

// merge3 is the three-way merge of Merge3; conflict writes a conflict's
// region after out and returns out.
func merge3(base, ours, theirs string, conflict func(out, oPart, bPart, tPart []string) []string) string {
	b, o, t := SplitLines(base), SplitLines(ours), SplitLines(theirs)
	co, ct := Lines(b, o), Lines(b, t)

	var out []string
	add := func(ls ...string) { out = append(out, ls...) }
	// off* map a base position to the other side before the current group.
	offO, offT := 0, 0
	pos := 0 // next base line to copy
	i, j := 0, 0
	for i < len(co) || j < len(ct) {
		// The earliest hunk starts a group; overlapping hunks of either
		// side join it.
		lo := 0
		if j >= len(ct) || (i < len(co) && co[i].A <= ct[j].A) {
			lo = co[i].A
		} else {
			lo = ct[j].A
		}
		hi := lo
		gi, gj := i, j
		for {
			grew := false
			if gi < len(co) && touches(co[gi], lo, hi) {
				hi = max(hi, co[gi].A+co[gi].Del)
				gi++
				grew = true
			}
			if gj < len(ct) && touches(ct[gj], lo, hi) {
				hi = max(hi, ct[gj].A+ct[gj].Del)
				gj++
				grew = true
			}
			if !grew {
				break
			}
		}
		add(b[pos:lo]...)
		dO, dT := 0, 0
		for _, c := range co[i:gi] {
			dO += c.Ins - c.Del
		}
		for _, c := range ct[j:gj] {
			dT += c.Ins - c.Del
		}
		oPart := o[lo+offO : hi+offO+dO]
		tPart := t[lo+offT : hi+offT+dT]
		switch {
		case gj == j: // ours only
			add(oPart...)
		case gi == i: // theirs only
			add(tPart...)
		case equal(oPart, tPart):
			add(oPart...)
		default:
			out = conflict(out, oPart, b[lo:hi], tPart)
		}
		offO += dO
		offT += dT
		pos = hi
		i, j = gi, gj
	}
	add(b[pos:]...)
	return strings.Join(out, "")
}

// touches reports whether hunk c overlaps the base range [lo, hi) of a
// group, counting a hunk that starts or ends at the range's edge (two
// insertions at one place, or an insertion next to a change, conflict).
func touches(c Change, lo, hi int) bool {
	return c.A <= hi && c.A+c.Del >= lo
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// terminated returns ls with a line end added to its last line if it has
// none (a marker line follows it).
func terminated(ls []string, eol string) []string {
	if n := len(ls); n > 0 && !strings.HasSuffix(ls[n-1], "\n") {
		out := append([]string(nil), ls...)
		out[n-1] += eol
		return out
	}
	return ls
}

// lineEnd is "\r\n" when most line ends of the texts are CRLF.
func lineEnd(texts ...string) string {
	crlf, lf := 0, 0
	for _, s := range texts {
		n := strings.Count(s, "\n")
		c := strings.Count(s, "\r\n")
		crlf += c
		lf += n - c
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// HasMarkers returns the 1-based lines of text that start a conflict block
// written by Merge3 with these labels (its "<<<<<<< ours" line).
func HasMarkers(text string, labels MergeLabels) []int {
	var out []int
	want := MarkerOurs + labels.Ours
	for i, l := range SplitLines(text) {
		if strings.TrimRight(l, "\r\n") == want {
			out = append(out, i+1)
		}
	}
	return out
}

// MarkersLeft returns the 1-based lines of saved (merged as the user saved
// it) that are marker lines Merge3 wrote into merged (markers: their
// 1-based lines there, MergeResult.Markers), in order.
//
// saved is diffed against merged with its marker lines made unmatchable, so
// that a line of saved that merged's own text has (the file, either side
// of a conflict) is matched to that line: it is text. A line that is new in
// saved counts when it reads as a marker with these labels ("<<<<<<< ours",
// "||||||| base", ">>>>>>> theirs"), and a bare "=======" when it stands
// where a marker line was (its block of the diff replaced one). So a
// setext heading's underline or a reStructuredText rule the file held is
// never taken for a marker; a "=======" left of a conflict is.
func MarkersLeft(merged string, markers []int, saved string, labels MergeLabels) []int {
	labelled := map[string]bool{MarkerOurs + labels.Ours: true, MarkerBase + labels.Base: true, MarkerTheirs + labels.Theirs: true}
	kind := func(l string) (marker, named bool) {
		l = strings.TrimRight(l, "\r\n")
		return l == MarkerSplit || labelled[l], labelled[l]
	}
	b := SplitLines(saved)
	found := false
	for _, l := range b {
		if m, _ := kind(l); m {
			found = true
			break
		}
	}
	if !found || len(markers) == 0 {
		return nil
	}
	a := SplitLines(merged)
	ours := make(map[int]bool, len(markers))
	for _, n := range markers {
		if n >= 1 && n <= len(a) {
			ours[n-1] = true
			a[n-1] = "\x00claudenova conflict marker " + strconv.Itoa(n) + "\n" // never a line of saved
		}
	}
	var out []int
	bi := 0
	for _, c := range Text(strings.Join(a, ""), saved).Changes {
		replaced := false
		for k := c.A; k < c.A+c.Del; k++ {
			replaced = replaced || ours[k]
		}
		for bi = c.B; bi < c.B+c.Ins; bi++ {
			if m, named := kind(b[bi]); m && (named || replaced) {
				out = append(out, bi+1)
			}
		}
	}
	return out
}
