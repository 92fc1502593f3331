package diff

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// checkText fails unless Text(a, b) is the script Lines gives for the whole
// texts, and its A and B return the lines the changes name.
func checkText(t *testing.T, a, b string) {
	t.Helper()
	la, lb := SplitLines(a), SplitLines(b)
	want := Lines(la, lb)
	s := Text(a, b)
	if len(want) == 0 {
		want = nil
	}
	if !reflect.DeepEqual(s.Changes, want) {
		t.Fatalf("Text changes %+v, Lines %+v\na=%q\nb=%q", s.Changes, want, a, b)
	}
	for _, c := range s.Changes {
		if got := s.A(c.A, c.A+c.Del); !reflect.DeepEqual(got, la[c.A:c.A+c.Del]) && (len(got) != 0 || c.Del != 0) {
			t.Fatalf("A(%d, %d) = %q, want %q", c.A, c.A+c.Del, got, la[c.A:c.A+c.Del])
		}
		if got := s.B(c.B, c.B+c.Ins); !reflect.DeepEqual(got, lb[c.B:c.B+c.Ins]) && (len(got) != 0 || c.Ins != 0) {
			t.Fatalf("B(%d, %d) = %q, want %q", c.B, c.B+c.Ins, got, lb[c.B:c.B+c.Ins])
		}
	}
	del, ins := s.Count()
	wd, wi := count(want)
	if del != wd || ins != wi {
		t.Fatalf("Count -%d +%d, want -%d +%d", del, ins, wd, wi)
	}
}

func TestText(t *testing.T) {
	long := strings.Repeat("same line\n", 50)
	blank := strings.Repeat("\n", 20)
	for _, tc := range []struct{ name, a, b string }{
		{"equal", "a\nb\n", "a\nb\n"},
		{"empty to text", "", "a\n"},
		{"text to empty", "a\nb", ""},
		{"one line changed in the middle", long + "old\n" + long, long + "new\n" + long},
		{"insert at the start", "x\n" + long, long},
		{"append", long, long + "x\n"},
		{"no final newline added", long + "x", long + "x\n"},
		{"no final newline removed", long + "x\n", long + "x"},
		{"final line without newline changed", long + "x", long + "y"},
		{"shared bytes are not a shared line", "ab\n", "b\n"},
		{"shared bytes inside a line", long + "abc\n" + long, long + "abd\n" + long},
		// An insertion among equal lines slides: the whole texts decide
		// where it goes.
		{"insert among blank lines", long + blank + long, long + blank + "\n" + long},
		{"delete among repeated lines", long + long, long + strings.Repeat("same line\n", 49)},
		{"crlf", strings.ReplaceAll(long, "\n", "\r\n") + "a\r\n", strings.ReplaceAll(long, "\n", "\r\n") + "b\r\n"},
		{"changes at both ends", "first\n" + long + "last\n", "FIRST\n" + long + "LAST\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkText(t, tc.a, tc.b) })
	}
}

// The point of Text: an edit in the middle of a long file splits only the
// lines around it; a change that may slide along the shared lines falls
// back to the whole texts (checkText shows the script is the same).
func TestTextSplitsAroundTheChange(t *testing.T) {
	long := strings.Repeat("same line\n", 500)
	s := Text(long+"old\n"+long, long+"new\n"+long)
	if len(s.a) != 2*textMargin+1 || len(s.b) != 2*textMargin+1 || s.off != 500-textMargin {
		t.Fatalf("split %d and %d lines from line %d, want %d from %d", len(s.a), len(s.b), s.off, 2*textMargin+1, 500-textMargin)
	}
}

func TestTextRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fast, whole := 0, 0
	for i := range 4000 {
		alphabet := []string{"a\n", "b\n", "\n", "c\n", "dd\n", "a", "b"}[:2+i%6]
		a := randomText(r, alphabet, 5+i%120)
		b := mutate(r, a, alphabet)
		checkText(t, a, b)
		switch s := Text(a, b); {
		case s.whole:
			whole++
		case s.off > 0:
			fast++
		}
	}
	// Both ways were taken, many times.
	if fast < 500 || whole < 20 {
		t.Fatalf("%d scripts split around the change, %d the whole texts", fast, whole)
	}
}

func FuzzText(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\n")
	f.Add("", "x")
	f.Add("ab\n", "b\n")
	f.Add("a\na\na\nb\n", "b\na\na\na\n")
	f.Add("x\n\n\n\n\n\ny\n", "x\n\n\n\n\n\n\ny\n")
	f.Fuzz(func(t *testing.T, a, b string) { checkText(t, a, b) })
}

func benchText(b *testing.B, lines int) {
	x, _ := genPair(lines, 0, 3)
	k := strings.Index(x, "\n"+strings.SplitN(x[len(x)/2:], "\n", 3)[1]+"\n")
	y := x[:k+1] + "changed\n" + x[k+1:]
	b.SetBytes(int64(len(x) + len(y)))
	b.ResetTimer()
	for b.Loop() {
		Text(x, y)
	}
}

// One line inserted in the middle of a file: what a proposal of an Edit
// diffs.
func BenchmarkText10kOneEdit(b *testing.B)  { benchText(b, 10000) }
func BenchmarkText100kOneEdit(b *testing.B) { benchText(b, 100000) }

func BenchmarkLines100kOneEdit(b *testing.B) {
	x, _ := genPair(100000, 0, 3)
	k := strings.Index(x, "\n"+strings.SplitN(x[len(x)/2:], "\n", 3)[1]+"\n")
	y := x[:k+1] + "changed\n" + x[k+1:]
	b.ResetTimer()
	for b.Loop() {
		Lines(SplitLines(x), SplitLines(y))
	}
}
