package review

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// kinds renders the blame of text as one letter per line: y(ou), c(laude),
// a(mended).
func kinds(b *Blame, lines []int) string {
	var out strings.Builder
	for _, i := range lines {
		out.WriteByte(string(b.Authors[i].Kind)[0])
	}
	return out.String()
}

func ptr(s string) *string { return &s }

func TestBlameLand(t *testing.T) {
	by := Author{Session: 1, Turn: 2, Prompt: "fix it", Time: 100}
	tests := []struct {
		name     string
		known    string // the file as last known ("" : nothing known)
		before   string
		after    string
		proposed *string
		want     string // per line of after
	}{
		{name: "a new file is Claude's", before: "", after: "a\nb\n", want: "cc"},
		{name: "an edit in the middle", known: "a\nb\nc\n", before: "a\nb\nc\n", after: "a\nB\nc\n", want: "ycy"},
		{name: "an insertion", known: "a\nc\n", before: "a\nc\n", after: "a\nb1\nb2\nc\n", want: "yccy"},
		{name: "a deletion leaves no line", known: "a\nb\nc\n", before: "a\nb\nc\n", after: "a\nc\n", want: "yy"},
		{name: "hand edits since are yours", known: "a\nb\nc\n", before: "a\nX\nc\n", after: "a\nX\nc\nd\n", want: "yyyc"},
		{name: "an amended line", known: "a\nb\nc\nd\n", before: "a\nb\nc\nd\n", after: "a\nB\nC2\nd\n",
			proposed: ptr("a\nB\nC\nd\n"), want: "ycay"},
		{name: "a line the user added outside Claude's", known: "a\nb\nc\n", before: "a\nb\nc\n", after: "mine\na\nB\nc\n",
			proposed: ptr("a\nB\nc\n"), want: "yycy"},
		{name: "a hunk the user rejected keeps its old author", known: "a\nb\nc\n", before: "a\nb\nc\n", after: "a\nb\nC\n",
			proposed: ptr("a\nB\nC\n"), want: "yyc"},
		{name: "an unamended proposal", known: "a\n", before: "a\n", after: "a\nb\n", proposed: ptr("a\nb\n"), want: "yc"},
		{name: "CRLF and no final newline", known: "a\r\nb", before: "a\r\nb", after: "a\r\nB", want: "yc"},
		{name: "emptied", known: "a\n", before: "a\n", after: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBlame("/p/f", tc.known)
			b.Land(tc.before, tc.after, by, tc.proposed)
			if got := kinds(b, b.Lines()); got != tc.want {
				t.Fatalf("kinds = %q, want %q", got, tc.want)
			}
			if b.Content != tc.after || b.Authors[0].Kind != You {
				t.Fatalf("content %q, authors %+v", b.Content, b.Authors)
			}
			for _, i := range b.Lines() {
				if a := b.Authors[i]; a.Kind != You && (a.Turn != 2 || a.Prompt != "fix it" || a.Session != 1) {
					t.Fatalf("author %+v", a)
				}
			}
		})
	}
}

func TestBlameTwoTurnsAndHandEdits(t *testing.T) {
	b := NewBlame("/p/f", "one\ntwo\nthree\n")
	b.Land("one\ntwo\nthree\n", "one\nTWO\nthree\n", Author{Turn: 1}, nil)
	b.Land("one\nTWO\nthree\n", "one\nTWO\nthree\nfour\n", Author{Turn: 2}, nil)
	lines := b.Lines()
	if got := kinds(b, lines); got != "ycyc" || b.Authors[lines[1]].Turn != 1 || b.Authors[lines[3]].Turn != 2 {
		t.Fatalf("kinds %q, authors %+v", got, b.Authors)
	}
	// The buffer has a hand edit of Claude's line 2 (not saved): it reads
	// as yours there, and nothing is known of it yet.
	if got := kinds(b, b.View("one\nmine\nthree\nfour\n")); got != "yyyc" {
		t.Fatalf("view %q", got)
	}
	if got := kinds(b, b.Lines()); got != "ycyc" {
		t.Fatalf("a view changed the blame: %q", got)
	}
	// Saved and then Claude changes the file again: the hand edit stays yours.
	b.Land("one\nmine\nthree\nfour\n", "zero\none\nmine\nthree\nfour\n", Author{Turn: 3}, nil)
	if got := kinds(b, b.Lines()); got != "cyyyc" {
		t.Fatalf("kinds %q", got)
	}
	if len(b.Authors) != 3 { // you, turn 2, turn 3: turn 1's line is gone
		t.Fatalf("authors not compacted: %+v", b.Authors)
	}
	if c := b.Counts(b.Lines()); c[Claude] != 2 || c[You] != 3 {
		t.Fatalf("counts %v", c)
	}
}

func TestLineMap(t *testing.T) {
	tests := []struct {
		a, b string
		want []int
	}{
		{"a\nb\nc\n", "a\nb\nc\n", []int{0, 1, 2}},
		{"a\nb\nc\n", "x\na\nb\nc\n", []int{1, 2, 3}},
		{"a\nb\nc\n", "a\nc\n", []int{0, 1, 1}},
		{"a\nb\nc\n", "a\nB\nB2\nc\n", []int{0, 1, 3}},
	}
	for _, tc := range tests {
		got := lineMap(split(tc.a), split(tc.b))
		if len(got) != len(tc.want) {
			t.Fatalf("lineMap(%q, %q) = %v", tc.a, tc.b, got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("lineMap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		}
	}
}

func split(s string) []string { return diff.SplitLines(s) }

// Lines merged in from a worktree's file keep their authors there; the
// merge's own lines (a conflict resolved by hand) are yours.
func TestAdoptCarriesTheAuthorsOfAMergedFile(t *testing.T) {
	by := Author{Kind: Claude, Session: 2, Turn: 1}
	src := "ONE\ntwo\nNEW\n"
	from := []Author{{}, by, {Kind: You}, by} // per line of src, 1-based
	b := NewBlame("/repo/a.txt", "one\ntwo\n")
	b.Adopt("one\ntwo\n", "ONE\ntwo\nNEW\nmine\n", src, from)
	var got []Kind
	for _, i := range b.Lines() {
		got = append(got, b.Authors[i].Kind)
	}
	if want := []Kind{Claude, You, Claude, You}; !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
}

// A line the user amended inside a merge proposal is the user's amendment
// of Claude's line, as in any proposal: where the user's text replaced
// lines Claude wrote on the branch it is Amended (naming Claude's session);
// where it replaced none (an insertion, or a line of the user's own
// side) it is yours; the merged lines stay Claude's.
func TestAdoptMarksLinesAmendedInTheMergeProposal(t *testing.T) {
	by := Author{Kind: Claude, Session: 2, Turn: 1, ClaudeID: "sid"}
	src := "ONE\ntwo\nNEW\n\nLAST\n"
	from := []Author{{}, by, {Kind: You}, by, by, by}
	for _, tc := range []struct{ name, before, after, want string }{
		{"amended", "one\ntwo\n", "ONE\ntwo\nNEW, amended\n\nLAST\n", "cyacc"},
		{"added by hand", "one\ntwo\n", "ONE\ntwo\nNEW\nmine\n\nLAST\n", "cycycc"},
		{"two amended", "one\ntwo\n", "ONE\ntwo\nnew\n\nlast\n", "cyaca"},
		{"the user's side edited", "one\ntwo\n", "ONE\nTWO\nNEW\n\nLAST\n", "cyccc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBlame("/repo/a.txt", tc.before)
			b.Adopt(tc.before, tc.after, src, from)
			if got := kinds(b, b.Lines()); got != tc.want {
				t.Fatalf("kinds %q, want %q", got, tc.want)
			}
			for _, i := range b.Lines() {
				if a := b.Authors[i]; a.Kind == Amended && (a.Session != 2 || a.ClaudeID != "sid") {
					t.Fatalf("amended by %+v", a)
				}
			}
		})
	}
}
