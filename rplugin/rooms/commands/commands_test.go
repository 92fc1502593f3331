package commands

import (
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/snapshot"
)

func TestDescribe(t *testing.T) {
	text := "x"
	for _, tc := range []struct {
		name    string
		cs      []snapshot.Change
		others  []string
		partial bool
		want    string
	}{
		{"one changed, one new", []snapshot.Change{
			{Rel: "a.txt", Status: snapshot.Changed, Before: &text, Added: 1, Removed: 1},
			{Rel: "n.txt", Status: snapshot.Created, Added: 1},
		}, nil, false, "`sed -i x a.txt` changed 2 files +2 −1: a.txt, n.txt (new)"},
		{"ignored and unknown", []snapshot.Change{
			{Rel: "build/", Status: snapshot.Created, Ignored: true, Unknown: true},
			{Rel: "big.bin", Status: snapshot.Changed, Unknown: true, Binary: true},
		}, nil, true, "`sed -i x a.txt` changed 2 files +0 −0: build/ (new) (ignored), big.bin. Not restorable by rewind (its content before is not kept): build/, big.bin. The folder is bigger than a snapshot reads: changes past its limit are not listed"},
		{"only another session's", nil, []string{"b.txt (session 2)"}, false,
			"`sed -i x a.txt` changed no file of its own. Not its changes (another session wrote them meanwhile): b.txt (session 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Describe("sed -i x a.txt", tc.cs, tc.others, tc.partial); got != tc.want {
				t.Errorf("Describe =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestApartKeepsOtherSessionsFiles(t *testing.T) {
	cs := []snapshot.Change{{Rel: "a.txt", Path: "/p/a.txt"}, {Rel: "b.txt", Path: "/p/b.txt"}}
	mine, theirs := apart(cs, map[string]int{"/p/b.txt": 2})
	if len(mine) != 1 || mine[0].Rel != "a.txt" || len(theirs) != 1 || theirs[0] != "b.txt (session 2)" {
		t.Fatalf("mine %+v theirs %v", mine, theirs)
	}
}
