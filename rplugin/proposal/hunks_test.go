package proposal

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// Summarize is one diff giving what Hunks and diff.Stat give separately.
func TestSummarizeAgreesWithHunksAndStat(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString("line\n")
		}
		return b.String()
	}
	every := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				b.WriteString("changed\n")
			} else {
				b.WriteString("line\n")
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, a, b string
		ok         bool
	}{
		{"same", "a\nb\n", "a\nb\n", true},
		{"one line", "a\nb\nc\n", "a\nB\nc\n", true},
		{"added and removed", "a\nb\nc\n", "x\na\nc\nd\ne\n", true},
		{"a new file", "", "new\nfile\n", true},
		{"a byte order mark kept", bom + "a\nb\n", bom + "a\nc\n", true},
		{"more hunks than reviewed one by one", many(2*MaxHunks + 4), every(2*MaxHunks + 4), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Change{Original: []byte(tc.a), Proposed: []byte(tc.b)}
			sum := Summarize(c)
			hunks, ok := Hunks(c)
			added, removed := diff.Stat(tc.a, tc.b)
			if sum.Added != added || sum.Removed != removed {
				t.Errorf("counts +%d −%d, want +%d −%d", sum.Added, sum.Removed, added, removed)
			}
			if sum.HunksOK != ok || ok != tc.ok || !reflect.DeepEqual(sum.Hunks, hunks) {
				t.Errorf("hunks %v %v, want %v %v", sum.Hunks, sum.HunksOK, hunks, ok)
			}
		})
	}
}

// A save is refused while a marker line the merge wrote is left, and the
// refusal names each line.
func TestMarkersLeftNamesTheLines(t *testing.T) {
	labels := diff.MergeLabels{Ours: "your checkout", Base: "where worktree-mk started", Theirs: "worktree-mk"}
	m := diff.Merge3("keep\n", "my keep\n", "claude's keep\n", labels)
	marks := MarksOf(m, labels)
	many := diff.Merge3("a\nb\nc\n", "A\nb\nC\n", "a2\nb\nc2\n", labels)
	tests := []struct {
		name  string
		marks *Marks
		saved string
		want  string // "" = applies
	}{
		{"as merged", marks, m.Text, `(line 1: "<<<<<<< your checkout"; line 3: "||||||| where worktree-mk started"; line 5: "======="; line 7: ">>>>>>> worktree-mk")`},
		{">>>>>>> left", marks, "claude's keep\n>>>>>>> worktree-mk\n", `(line 2: ">>>>>>> worktree-mk")`},
		{"resolved", marks, "my keep, and claude's\n", ""},
		{"no merge markers written", nil, m.Text, ""},
		{"more than four", MarksOf(many, labels), many.Text, "; and 4 more)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MarkersLeft([]byte(tt.saved), "c.txt", tt.marks)
			if tt.want == "" {
				if got != "" {
					t.Fatalf("refused: %s", got)
				}
				return
			}
			if !strings.HasPrefix(got, "conflict markers remain in c.txt (") || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want it to hold %q", got, tt.want)
			}
		})
	}
	if MarksOf(diff.Merge3("a\n", "a\n", "b\n", labels), labels) != nil {
		t.Fatal("marks of a merge without a conflict")
	}
}
