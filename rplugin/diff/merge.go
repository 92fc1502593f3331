package diff

import "strings"

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
	var conflicts []int
	text := merge3(base, ours, theirs, func(out, oPart, bPart, tPart []string) []string {
		conflicts = append(conflicts, len(out)+1)
		out = append(out, MarkerOurs+labels.Ours+eol)
		out = append(out, terminated(oPart, eol)...)
		out = append(out, MarkerBase+labels.Base+eol)
		out = append(out, terminated(bPart, eol)...)
		out = append(out, MarkerSplit+eol)
		out = append(out, terminated(tPart, eol)...)
		return append(out, MarkerTheirs+labels.Theirs+eol)
	})
	return MergeResult{Text: text, Conflicts: conflicts}
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
