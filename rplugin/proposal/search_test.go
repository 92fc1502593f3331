package proposal

import (
	"strings"
	"testing"
)

func TestFindUnique(t *testing.T) {
	big := strings.Repeat("line of filler text\n", searchSplit/20+1000)
	mid := len(big) / 2
	at := func(s string, i int, ins string) string { return s[:i] + ins + s[i:] }
	for _, tc := range []struct {
		name, s, sub string
	}{
		{"small, once", "a b c", "b"},
		{"small, twice", "a b b", "b"},
		{"small, none", "a b c", "x"},
		{"large, none", big, "NEEDLE"},
		{"large, once at the start", at(big, 0, "NEEDLE"), "NEEDLE"},
		{"large, once at the end", big + "NEEDLE", "NEEDLE"},
		{"large, once across the middle", at(big, mid-3, "NEEDLE"), "NEEDLE"},
		{"large, twice in one part", at(at(big, 10, "NEEDLE"), 100, "NEEDLE"), "NEEDLE"},
		{"large, twice in two parts", at(at(big, 10, "NEEDLE"), mid+10, "NEEDLE"), "NEEDLE"},
		{"large, overlapping across the middle", at(big, mid-2, "aaaaaa"), "aaaa"},
		{"large, overlapping only", at(big, mid-2, "aaaaa"), "aaaa"},
		{"large, every line", big, "filler"},
		{"large, the last part only", at(big, len(big)-50, "NEEDLE"), "NEEDLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAt, wantAgain := sequential(tc.s, tc.sub)
			gotAt, gotAgain := findUnique(tc.s, tc.sub)
			if gotAt != wantAt || gotAgain != wantAgain {
				t.Fatalf("findUnique = %d, %v; one pass says %d, %v", gotAt, gotAgain, wantAt, wantAgain)
			}
		})
	}
}

// FuzzFindUnique holds the search in parts to the one-pass search, on texts
// made large enough to be split.
func FuzzFindUnique(f *testing.F) {
	f.Add("abc", "b", 3, 7)
	f.Add("aaaa", "aa", 0, 1)
	f.Fuzz(func(t *testing.T, text, sub string, i, j int) {
		if sub == "" || len(sub) > 64 {
			return
		}
		pad := strings.Repeat("x", searchSplit)
		s := pad + text + pad
		for _, k := range []int{i, j} {
			if k < 0 {
				k = -k
			}
			k %= len(s) + 1
			s = s[:k] + sub + s[k:]
		}
		wantAt, wantAgain := sequential(s, sub)
		gotAt, gotAgain := findUnique(s, sub)
		if gotAt != wantAt || gotAgain != wantAgain {
			t.Fatalf("findUnique = %d, %v; one pass says %d, %v", gotAt, gotAgain, wantAt, wantAgain)
		}
	})
}
