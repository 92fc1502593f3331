// Package diff implements a fast line-oriented diff engine that renders
// GNU "diff -u" compatible unified diffs.
//
// The core algorithm is Myers' O(ND) difference algorithm in its
// linear-space divide-and-conquer form, preceded by three cheap reductions
// that do not change the size of the result:
//
//  1. the common prefix and suffix of the two files are trimmed;
//  2. the remaining lines are interned to small integers through a
//     hash table (exact: hash hits are confirmed by string comparison);
//  3. lines that occur only in one of the files can never be part of a
//     longest common subsequence, so they are marked changed up front and
//     removed from the sequences handed to Myers.
//
// Myers then runs on the (usually much shorter) remaining sequences. To
// bound the worst case, a search for a middle snake that exceeds a cost
// cutoff (like GNU diff's "too expensive" heuristic: at least 4096 edit
// steps) gives up on minimality for that sub-problem and splits at the
// furthest point reached; once the total search work exceeds a budget
// proportional to the input (about 2^24 + 32*(lines) diagonal steps) the
// cutoff drops to 128 steps, so that inputs with a huge number of
// differences among frequently repeated lines still finish quickly. The
// script always stays correct; with a cutoff it may be slightly longer
// than minimal. Finally change groups are slid along runs of identical
// lines (as GNU diff does) so that they merge and line up with changes in
// the other file, which gives the familiar diff -u output.
package diff

import "strings"

// SplitLines splits s into lines, each keeping its terminating "\n".
// A trailing newline does not produce an empty last element, and a final
// line without a newline is returned without one. "" yields nil.
// A "\r" before the "\n" is part of the line.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	n := strings.Count(s, "\n")
	if s[len(s)-1] != '\n' {
		n++
	}
	lines := make([]string, 0, n)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}
