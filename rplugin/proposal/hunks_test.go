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
