package diff

import (
	"reflect"
	"strings"
	"testing"
)

// Every marker line a merge wrote is found when it is left alone, wherever
// the user's edits put it; a "=======" the file holds itself (a setext
// heading, a reStructuredText rule) never is.
func TestMarkersLeft(t *testing.T) {
	// A markdown file with a heading; both sides changed the body line.
	const (
		base   = "Title\n=======\n\nbody\nend\n"
		ours   = "Title\n=======\n\nmine\nend\n"
		theirs = "Title\n=======\n\ntheirs\nend\n"
	)
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	tests := []struct {
		name               string
		base, ours, theirs string
		saved              func(merged string) string
		want               []int
	}{
		{"as merged: all four", base, ours, theirs, func(m string) string { return m }, []int{4, 6, 8, 10}},
		{"resolved for the branch", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "theirs", "end") }, nil},
		{"resolved for yours", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "mine", "end") }, nil},
		{"only <<<<<<< left", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "<<<<<<< yours", "theirs", "end") }, []int{4}},
		{"only ||||||| left", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "mine", "||||||| base", "end") }, []int{5}},
		{"only ======= left", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "=======", "theirs", "end") }, []int{4}},
		{"only ======= left, between both sides", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "mine", "=======", "theirs", "end") }, []int{5}},
		{"only >>>>>>> left (<<<<<<< through ======= deleted)", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "theirs", ">>>>>>> theirs", "end") }, []int{5}},
		{"the heading's own ======= deleted, ours kept", base, ours, theirs,
			func(string) string { return lines("Title", "", "=======", "theirs", "end") }, []int{3}},
		{"a marker with CRLF line ends", strings.ReplaceAll(base, "\n", "\r\n"), strings.ReplaceAll(ours, "\n", "\r\n"),
			strings.ReplaceAll(theirs, "\n", "\r\n"),
			func(string) string { return "Title\r\n=======\r\n\r\ntheirs\r\n>>>>>>> theirs\r\nend\r\n" }, []int{5}},
		{"a heading the user adds elsewhere", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "theirs", "end", "", "More", "=======") }, nil},
		{"a marker pasted elsewhere", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "theirs", "end", ">>>>>>> theirs") }, []int{6}},
		{"a marker text with other labels is text", base, ours, theirs,
			func(string) string { return lines("Title", "=======", "", "<<<<<<< HEAD", "theirs", "end") }, nil},
		// Both sides hold a heading in the conflict: the resolution keeps
		// one, its underline is the file's.
		{"a heading in both sides, one kept", "a\n", "Mine\n=======\n", "Theirs\n=======\n",
			func(string) string { return lines("Theirs", "=======") }, nil},
		{"a heading in both sides, its ======= and ours kept", "a\n", "Mine\n=======\n", "Theirs\n=======\n",
			func(string) string { return lines("Mine", "=======", "=======", "Theirs", "=======") }, []int{3}},
		// The file itself holds lines that read as our markers: text.
		{"the file's own marker lines", "x\n>>>>>>> theirs\n=======\ny\n", "X\n>>>>>>> theirs\n=======\ny\n", "x2\n>>>>>>> theirs\n=======\ny\n",
			func(string) string { return lines("X2", ">>>>>>> theirs", "=======", "y") }, nil},
		{"no conflict: nothing to find", "a\n", "a\n", "b\n",
			func(string) string { return lines("<<<<<<< yours", "b") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Merge3(tt.base, tt.ours, tt.theirs, testLabels)
			if got := MarkersLeft(m.Text, m.Markers, tt.saved(m.Text), testLabels); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("MarkersLeft = %v, want %v\nmerged:\n%s", got, tt.want, m.Text)
			}
		})
	}
}

// Merge3 says where it wrote each marker line.
func TestMerge3Markers(t *testing.T) {
	m := Merge3("a\nb\nc\n", "A\nb\nC\n", "a2\nb\nc2\n", testLabels)
	want := []int{1, 3, 5, 7, 9, 11, 13, 15}
	if !reflect.DeepEqual(m.Markers, want) {
		t.Fatalf("markers %v, want %v\n%s", m.Markers, want, m.Text)
	}
	ls := SplitLines(m.Text)
	for _, n := range m.Markers {
		l := strings.TrimSuffix(ls[n-1], "\n")
		if !strings.HasPrefix(l, "<<<<<<< ") && !strings.HasPrefix(l, "||||||| ") && l != "=======" && !strings.HasPrefix(l, ">>>>>>> ") {
			t.Fatalf("line %d %q is no marker", n, l)
		}
	}
}
