package diff

import (
	"math/rand"
	"strings"
	"testing"
)

var testLabels = MergeLabels{Ours: "yours", Base: "base", Theirs: "theirs"}

func TestMerge3(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	tests := []struct {
		name, ours, theirs, want string
		conflicts                []int
	}{
		{"ours only", "a\nB\nc\nd\ne\nf\ng\n", base, "a\nB\nc\nd\ne\nf\ng\n", nil},
		{"theirs only", base, "a\nb\nc\nd\nE\nf\ng\n", "a\nb\nc\nd\nE\nf\ng\n", nil},
		{"both, apart", "A\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nG\n", "A\nb\nc\nd\ne\nf\nG\n", nil},
		{"same change", "a\nb\nX\nd\ne\nf\ng\n", "a\nb\nX\nd\ne\nf\ng\n", "a\nb\nX\nd\ne\nf\ng\n", nil},
		{"insertions apart", "a\nnew1\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nnew2\ng\n", "a\nnew1\nb\nc\nd\ne\nf\nnew2\ng\n", nil},
		{"conflict", "a\nb\nOURS\nd\ne\nf\ng\n", "a\nb\nTHEIRS\nd\ne\nf\ng\n",
			"a\nb\n<<<<<<< yours\nOURS\n||||||| base\nc\n=======\nTHEIRS\n>>>>>>> theirs\nd\ne\nf\ng\n", []int{3}},
		{"insert at same place", "a\nX\nb\nc\nd\ne\nf\ng\n", "a\nY\nb\nc\nd\ne\nf\ng\n",
			"a\n<<<<<<< yours\nX\n||||||| base\n=======\nY\n>>>>>>> theirs\nb\nc\nd\ne\nf\ng\n", []int{2}},
		{"theirs deletes, ours edits elsewhere", "a\nb\nc\nd\ne\nf\nG\n", "a\nd\ne\nf\ng\n", "a\nd\ne\nf\nG\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Merge3(base, tt.ours, tt.theirs, testLabels)
			if r.Text != tt.want {
				t.Fatalf("merged\n%q\nwant\n%q", r.Text, tt.want)
			}
			if len(r.Conflicts) != len(tt.conflicts) || (len(tt.conflicts) > 0 && r.Conflicts[0] != tt.conflicts[0]) {
				t.Fatalf("conflicts %v, want %v", r.Conflicts, tt.conflicts)
			}
			if got := HasMarkers(r.Text, testLabels); len(got) != len(tt.conflicts) {
				t.Fatalf("HasMarkers %v, want %v", got, tt.conflicts)
			}
		})
	}
}

func TestMerge3LineEnds(t *testing.T) {
	base := "a\r\nb\r\nc"
	r := Merge3(base, "a\r\nb\r\nOURS", "a\r\nb\r\nTHEIRS", testLabels)
	want := "a\r\nb\r\n<<<<<<< yours\r\nOURS\r\n||||||| base\r\nc\r\n=======\r\nTHEIRS\r\n>>>>>>> theirs\r\n"
	if r.Text != want {
		t.Fatalf("got %q\nwant %q", r.Text, want)
	}
	// No final newline survives a clean merge.
	r = Merge3("a\nb\nc", "A\nb\nc", "a\nb\nC", testLabels)
	if r.Text != "A\nb\nC" || len(r.Conflicts) != 0 {
		t.Fatalf("got %q %v", r.Text, r.Conflicts)
	}
}

// One side unchanged: the merge is the other side, byte for byte.
func TestMerge3OneSidedIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"x\n", "y\n", "z\n", "x\r\n", "w"}
	gen := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			w := words[rng.Intn(len(words))]
			if w == "w" && i != n-1 {
				w = "w\n"
			}
			b.WriteString(w)
		}
		return b.String()
	}
	for i := 0; i < 2000; i++ {
		base, other := gen(rng.Intn(12)), gen(rng.Intn(12))
		if r := Merge3(base, base, other, testLabels); r.Text != other || len(r.Conflicts) > 0 {
			t.Fatalf("ours unchanged: base %q theirs %q -> %q", base, other, r.Text)
		}
		if r := Merge3(base, other, base, testLabels); r.Text != other || len(r.Conflicts) > 0 {
			t.Fatalf("theirs unchanged: base %q ours %q -> %q", base, other, r.Text)
		}
		if r := Merge3(base, other, other, testLabels); r.Text != other || len(r.Conflicts) > 0 {
			t.Fatalf("same change: base %q both %q -> %q", base, other, r.Text)
		}
	}
}

// Merge3Ours settles conflicts for ours, without markers, and says where.
func TestMerge3Ours(t *testing.T) {
	for _, tc := range []struct {
		name, base, ours, theirs, want string
		kept                           []Kept
	}{
		{"theirs apart from ours", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "a\nB\nc\nd\nE\n", nil},
		{"the same line: ours", "a\nb\nc\n", "a\nOURS\nc\n", "a\nTHEIRS\nc\n", "a\nOURS\nc\n", []Kept{{2, 2}}},
		{"ours removed it: removed", "a\nb\nc\n", "a\nc\n", "a\nTHEIRS\nc\n", "a\nc\n", []Kept{{2, 1}}},
		{"one conflict, one clean", "1\n2\n3\n4\n5\n6\n7\n", "1\nX\n3\n4\n5\n6\n7\n", "1\nY\n3\n4\n5\n6\nZ\n", "1\nX\n3\n4\n5\n6\nZ\n", []Kept{{2, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, kept := Merge3Ours(tc.base, tc.ours, tc.theirs)
			if got != tc.want || len(kept) != len(tc.kept) {
				t.Fatalf("got %q %v, want %q %v", got, kept, tc.want, tc.kept)
			}
			for i := range kept {
				if kept[i] != tc.kept[i] {
					t.Fatalf("kept %v, want %v", kept, tc.kept)
				}
			}
		})
	}
}
