package diff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hexops/gotextdiff"
	gtmyers "github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"
)

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{"\n"}},
		{"a", []string{"a"}},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n", "b"}},
		{"a\nb\n", []string{"a\n", "b\n"}},
		{"a\n\n", []string{"a\n", "\n"}},
		{"\n\nx", []string{"\n", "\n", "x"}},
		{"a\r\nb\r\n", []string{"a\r\n", "b\r\n"}},
		{"a\rb", []string{"a\rb"}},
	}
	for _, tt := range tests {
		if got := SplitLines(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

const nonl = "\\ No newline at end of file\n"

var unifiedTests = []struct {
	name    string
	a, b    string
	context int
	want    string // without the "--- a\n+++ b\n" header
	add     int
	rem     int
	hunks   int
}{
	{name: "identical", a: "a\nb\n", b: "a\nb\n"},
	{name: "both empty"},
	{
		name: "trailing newline gives no phantom line",
		a:    "a\nb\n", b: "a\nc\n",
		want: "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", add: 1, rem: 1, hunks: 1,
	},
	{
		name: "new file",
		a:    "", b: "x\ny\nz\n",
		want: "@@ -0,0 +1,3 @@\n+x\n+y\n+z\n", add: 3, hunks: 1,
	},
	{
		name: "new one-line file without newline",
		a:    "", b: "x",
		want: "@@ -0,0 +1 @@\n+x\n" + nonl, add: 1, hunks: 1,
	},
	{
		name: "deleted file",
		a:    "x\ny\n", b: "",
		want: "@@ -1,2 +0,0 @@\n-x\n-y\n", rem: 2, hunks: 1,
	},
	{
		name: "no final newline in old file",
		a:    "a\nb", b: "a\nb\n",
		want: "@@ -1,2 +1,2 @@\n a\n-b\n" + nonl + "+b\n", add: 1, rem: 1, hunks: 1,
	},
	{
		name: "no final newline in new file",
		a:    "a\nb\n", b: "a\nb",
		want: "@@ -1,2 +1,2 @@\n a\n-b\n+b\n" + nonl, add: 1, rem: 1, hunks: 1,
	},
	{
		name: "no final newline in both, last line changed",
		a:    "a\nb", b: "a\nc",
		want: "@@ -1,2 +1,2 @@\n a\n-b\n" + nonl + "+c\n" + nonl, add: 1, rem: 1, hunks: 1,
	},
	{
		name: "no final newline in both, last line is context",
		a:    "a\nb\nc", b: "x\nb\nc",
		want: "@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n" + nonl, add: 1, rem: 1, hunks: 1,
	},
	{
		name: "no final newline in both, far from the change",
		a:    "a\n1\n2\n3\n4\n5", b: "x\n1\n2\n3\n4\n5",
		want: "@@ -1,4 +1,4 @@\n-a\n+x\n 1\n 2\n 3\n", add: 1, rem: 1, hunks: 1,
	},
	{
		name: "crlf is content",
		a:    "a\r\nb\r\nc\r\n", b: "a\r\nB\r\nc\r\n",
		want: "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n", add: 1, rem: 1, hunks: 1,
	},
	{
		name: "crlf versus lf",
		a:    "a\r\n", b: "a\n",
		want: "@@ -1 +1 @@\n-a\r\n+a\n", add: 1, rem: 1, hunks: 1,
	},
	{
		name: "changes 6 lines apart share a hunk",
		a:    "a\n1\n2\n3\n4\n5\n6\nb\n", b: "A\n1\n2\n3\n4\n5\n6\nB\n",
		want: "@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n", add: 2, rem: 2, hunks: 1,
	},
	{
		name: "changes 7 lines apart get two hunks",
		a:    "a\n1\n2\n3\n4\n5\n6\n7\nb\n", b: "A\n1\n2\n3\n4\n5\n6\n7\nB\n",
		want: "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n",
		add:  2, rem: 2, hunks: 2,
	},
	{
		name: "no context", context: -1,
		a: "a\nb\nc\nd\n", b: "a\nx\nb\nd\n",
		want: "@@ -1,0 +2 @@\n+x\n@@ -3 +3,0 @@\n-c\n", add: 1, rem: 1, hunks: 2,
	},
	{
		name: "one line of context", context: 1,
		a: "1\n2\n3\n4\n5\n", b: "1\n2\nX\n4\n5\n",
		want: "@@ -2,3 +2,3 @@\n 2\n-3\n+X\n 4\n", add: 1, rem: 1, hunks: 1,
	},
	{
		name: "insertion at the start",
		a:    "a\nb\nc\nd\ne\n", b: "x\na\nb\nc\nd\ne\n",
		want: "@@ -1,3 +1,4 @@\n+x\n a\n b\n c\n", add: 1, hunks: 1,
	},
	{
		name: "deletion at the end",
		a:    "a\nb\nc\nd\ne\n", b: "a\nb\nc\nd\n",
		want: "@@ -2,4 +2,3 @@\n b\n c\n d\n-e\n", rem: 1, hunks: 1,
	},
	{
		name: "deletion slides to the end of a run",
		a:    "a\nx\nx\nx\nb\n", b: "a\nx\nx\nb\n",
		want: "@@ -1,5 +1,4 @@\n a\n x\n x\n-x\n b\n", rem: 1, hunks: 1,
	},
}

func TestUnified(t *testing.T) {
	for _, tt := range unifiedTests {
		t.Run(tt.name, func(t *testing.T) {
			res := Unified("a", "b", tt.a, tt.b, Options{Context: tt.context})
			want := ""
			if tt.want != "" {
				want = "--- a\n+++ b\n" + tt.want
			}
			if res.Text != want {
				t.Errorf("text:\n%s\nwant:\n%s", res.Text, want)
			}
			if res.Added != tt.add || res.Removed != tt.rem || res.Hunks != tt.hunks || res.Truncated != 0 {
				t.Errorf("got +%d -%d hunks %d truncated %d, want +%d -%d hunks %d",
					res.Added, res.Removed, res.Hunks, res.Truncated, tt.add, tt.rem, tt.hunks)
			}
			if add, rem := Stat(tt.a, tt.b); add != tt.add || rem != tt.rem {
				t.Errorf("Stat = +%d -%d, want +%d -%d", add, rem, tt.add, tt.rem)
			}
			checkApply(t, tt.a, tt.b, res)
		})
	}
}

// TestUnifiedMatchesGNU compares the table cases byte for byte with GNU
// diff -u, when it is installed.
func TestUnifiedMatchesGNU(t *testing.T) {
	gnu, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("diff not installed")
	}
	dir := t.TempDir()
	for _, tt := range unifiedTests {
		fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := os.WriteFile(fa, []byte(tt.a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fb, []byte(tt.b), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := tt.context
		if ctx == 0 {
			ctx = 3
		} else if ctx < 0 {
			ctx = 0
		}
		out, _ := exec.Command(gnu, "-U"+strconv.Itoa(ctx), "--label", "a", "--label", "b", fa, fb).Output()
		if !bytes.Contains(out, []byte("--- a")) && len(out) > 0 {
			t.Skipf("unexpected diff output: %q", out)
		}
		res := Unified("a", "b", tt.a, tt.b, Options{Context: tt.context})
		if res.Text != string(out) {
			t.Errorf("%s: ours:\n%s\nGNU diff:\n%s", tt.name, res.Text, out)
		}
	}
}

func TestUnifiedCap(t *testing.T) {
	var a, b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	full := Unified("a", "b", a.String(), b.String(), Options{})
	total := strings.Count(full.Text, "\n") // 2 headers + 1 hunk header + 40
	if total != 43 || full.Truncated != 0 {
		t.Fatalf("full diff has %d lines, truncated %d", total, full.Truncated)
	}
	for _, max := range []int{1, 5, 42} {
		res := Unified("a", "b", a.String(), b.String(), Options{MaxLines: max})
		lines := SplitLines(res.Text)
		if len(lines) != max+1 {
			t.Fatalf("MaxLines %d: got %d lines", max, len(lines))
		}
		if got := strings.Join(lines[:max], ""); !strings.HasPrefix(full.Text, got) {
			t.Errorf("MaxLines %d: capped text is not a prefix of the full text", max)
		}
		wantMsg := fmt.Sprintf("... %d more lines not shown\n", total-max)
		if lines[max] != wantMsg || res.Truncated != total-max {
			t.Errorf("MaxLines %d: last line %q truncated %d, want %q", max, lines[max], res.Truncated, wantMsg)
		}
		if res.Added != 20 || res.Removed != 20 || res.Hunks != 1 {
			t.Errorf("MaxLines %d: counts +%d -%d hunks %d", max, res.Added, res.Removed, res.Hunks)
		}
	}
	for _, max := range []int{43, 44, 1000} {
		if res := Unified("a", "b", a.String(), b.String(), Options{MaxLines: max}); res != full {
			t.Errorf("MaxLines %d: output differs from uncapped", max)
		}
	}
	// A "\ No newline" marker counts as a line of its own.
	res := Unified("a", "b", "x", "y", Options{MaxLines: 4})
	want := "--- a\n+++ b\n@@ -1 +1 @@\n-x\n... 3 more lines not shown\n"
	if res.Text != want || res.Truncated != 3 {
		t.Errorf("got %q (truncated %d), want %q", res.Text, res.Truncated, want)
	}
	if res := Unified("a", "b", "x\n", "x\n", Options{MaxLines: 1}); res != (Result{}) {
		t.Errorf("identical inputs: %+v", res)
	}
}

// applyUnified applies a unified diff produced by Unified to a. It checks
// the hunk headers, the context and deleted lines strictly.
func applyUnified(a, text string) (string, error) {
	if text == "" {
		return a, nil
	}
	lines := SplitLines(text)
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("bad headers")
	}
	src := SplitLines(a)
	var out strings.Builder
	pos, outLines := 0, 0
	parseRange := func(s string) (start0, count int, err error) {
		l, c, ok := strings.Cut(s, ",")
		n, err := strconv.Atoi(l)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return n - 1, 1, nil
		}
		count, err = strconv.Atoi(c)
		if err != nil {
			return 0, 0, err
		}
		if count == 0 {
			return n, 0, nil
		}
		return n - 1, count, nil
	}
	for i := 2; i < len(lines); {
		var ra, rb string
		if _, err := fmt.Sscanf(lines[i], "@@ -%s +%s @@\n", &ra, &rb); err != nil {
			return "", fmt.Errorf("line %d: bad hunk header %q", i+1, lines[i])
		}
		i++
		a0, na, err := parseRange(ra)
		if err != nil {
			return "", err
		}
		b0, nb, err := parseRange(rb)
		if err != nil {
			return "", err
		}
		if a0 < pos || a0 > len(src) {
			return "", fmt.Errorf("hunk at %d overlaps or is out of range", a0)
		}
		for ; pos < a0; pos++ {
			out.WriteString(src[pos])
			outLines++
		}
		if outLines != b0 {
			return "", fmt.Errorf("hunk +%d but output is at line %d", b0, outLines)
		}
		for na > 0 || nb > 0 {
			if i >= len(lines) || len(lines[i]) < 2 {
				return "", fmt.Errorf("hunk body too short")
			}
			kind, content := lines[i][0], lines[i][1:]
			i++
			if i < len(lines) && lines[i] == nonl {
				content = strings.TrimSuffix(content, "\n")
				i++
			} else if !strings.HasSuffix(content, "\n") {
				return "", fmt.Errorf("unterminated line")
			}
			switch kind {
			case ' ', '-':
				if pos >= len(src) || src[pos] != content {
					return "", fmt.Errorf("line %d of a does not match %q", pos+1, lines[i-1])
				}
				pos++
				na--
				if kind == ' ' {
					out.WriteString(content)
					outLines++
					nb--
				}
			case '+':
				out.WriteString(content)
				outLines++
				nb--
			default:
				return "", fmt.Errorf("bad line %q", lines[i-1])
			}
			if na < 0 || nb < 0 {
				return "", fmt.Errorf("hunk longer than its header")
			}
		}
	}
	for ; pos < len(src); pos++ {
		out.WriteString(src[pos])
	}
	return out.String(), nil
}

// checkApply verifies that res is a well-formed diff from a to b.
func checkApply(t *testing.T, a, b string, res Result) {
	t.Helper()
	if (res.Text == "") != (a == b) {
		t.Fatalf("empty text %v for a==b %v", res.Text == "", a == b)
	}
	got, err := applyUnified(a, res.Text)
	if err != nil {
		t.Fatalf("applying diff: %v\na=%q\nb=%q\n%s", err, a, b, res.Text)
	}
	if got != b {
		t.Fatalf("applying diff gives %q, want %q\n%s", got, b, res.Text)
	}
	add, rem := 0, 0
	for _, l := range SplitLines(res.Text)[min(2, len(SplitLines(res.Text))):] {
		switch l[0] {
		case '+':
			add++
		case '-':
			rem++
		}
	}
	if add != res.Added || rem != res.Removed {
		t.Fatalf("body has +%d -%d, result says +%d -%d", add, rem, res.Added, res.Removed)
	}
}

// lcs is the length of a longest common subsequence (O(nm) reference).
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// gotextCounts runs gotextdiff's Myers and returns its added and removed
// line counts, and whether its edits actually turn a into b.
func gotextCounts(a, b string) (added, removed int, valid bool) {
	edits := gtmyers.ComputeEdits(span.URIFromPath("a"), a, b)
	valid = gotextdiff.ApplyEdits(a, edits) == b
	u := gotextdiff.ToUnified("a", "b", a, edits)
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case gotextdiff.Insert:
				added++
			case gotextdiff.Delete:
				removed++
			}
		}
	}
	return added, removed, valid
}

func randomText(r *rand.Rand, alphabet []string, maxLines int) string {
	var sb strings.Builder
	for range r.IntN(maxLines + 1) {
		sb.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	s := sb.String()
	if s != "" && r.IntN(3) == 0 {
		s = s[:len(s)-1] // no final newline
	}
	return s
}

// mutate applies a few random line edits to s.
func mutate(r *rand.Rand, s string, alphabet []string) string {
	l := SplitLines(s)
	for range r.IntN(5) {
		p := r.IntN(len(l) + 1)
		switch r.IntN(3) {
		case 0:
			l = append(l[:p], append([]string{alphabet[r.IntN(len(alphabet))]}, l[p:]...)...)
		case 1:
			if p < len(l) {
				l = append(l[:p], l[p+1:]...)
			}
		case 2:
			if p < len(l) {
				l[p] = alphabet[r.IntN(len(alphabet))]
			}
		}
	}
	return strings.Join(l, "")
}

// TestAgainstGotextdiff is a property test on random small inputs: our
// counts must equal those of gotextdiff's (minimal) Myers and of an exact
// LCS, and our hunks must turn a into b.
func TestAgainstGotextdiff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a\n", "b\n", "c\n", "d\n"}
	iters := 20000
	if testing.Short() {
		iters = 2000
	}
	invalid := 0
	for i := range iters {
		a := randomText(r, alphabet, 30)
		var b string
		if i%2 == 0 {
			b = randomText(r, alphabet, 30)
		} else {
			b = mutate(r, a, alphabet)
		}
		opts := Options{Context: []int{0, -1, 1, 3}[i%4]}
		res := Unified("a", "b", a, b, opts)
		checkApply(t, a, b, res)
		la, lb := SplitLines(a), SplitLines(b)
		l := lcs(la, lb)
		if res.Removed != len(la)-l || res.Added != len(lb)-l {
			t.Fatalf("not minimal: +%d -%d, LCS %d of %d/%d lines\na=%q\nb=%q", res.Added, res.Removed, l, len(la), len(lb), a, b)
		}
		if add, rem := Stat(a, b); add != res.Added || rem != res.Removed {
			t.Fatalf("Stat +%d -%d, Unified +%d -%d", add, rem, res.Added, res.Removed)
		}
		add, rem, valid := gotextCounts(a, b)
		if !valid {
			// gotextdiff v1.0.3's Myers occasionally returns edits
			// that do not reproduce b; such results are no oracle.
			invalid++
			continue
		}
		if add != res.Added || rem != res.Removed {
			t.Fatalf("gotextdiff +%d -%d, ours +%d -%d\na=%q\nb=%q\n%s", add, rem, res.Added, res.Removed, a, b, res.Text)
		}
	}
	if invalid > iters/10 {
		t.Errorf("gotextdiff was invalid in %d of %d cases", invalid, iters)
	}
	t.Logf("%d cases, gotextdiff invalid in %d", iters, invalid)
}

// TestLinesDirect exercises the edit script API on larger random inputs
// with duplicated lines, where the cost cutoff is exercised as well.
func TestLinesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, alpha int }{{200, 2}, {2000, 3}, {3000, 50}, {20000, 2}} {
		alphabet := make([]string, tc.alpha)
		for i := range alphabet {
			alphabet[i] = fmt.Sprintf("line %d\n", i)
		}
		var sa, sb strings.Builder
		for range tc.n {
			sa.WriteString(alphabet[r.IntN(tc.alpha)])
			sb.WriteString(alphabet[r.IntN(tc.alpha)])
		}
		a, b := sa.String(), sb.String()
		checkApply(t, a, b, Unified("a", "b", a, b, Options{}))
		if tc.n <= 3000 {
			la, lb := SplitLines(a), SplitLines(b)
			l := lcs(la, lb)
			add, rem := Stat(a, b)
			t.Logf("n=%d alphabet=%d: +%d -%d, minimal +%d -%d", tc.n, tc.alpha, add, rem, len(lb)-l, len(la)-l)
		}
	}
}

// genPair returns a file of n lines and a copy with k scattered changes
// (modified, inserted and deleted lines).
func genPair(n, k int, seed uint64) (string, string) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	line := func(i int) string {
		switch {
		case i%10 == 9:
			return "\n"
		case i%13 == 12:
			return "\t}\n"
		}
		return fmt.Sprintf("\tv%d := compute(%d, %q) // %x\n", i, r.IntN(1000), "field", r.Uint32())
	}
	a := make([]string, n)
	for i := range a {
		a[i] = line(i)
	}
	b := append([]string(nil), a...)
	for range k {
		p := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b[p] = fmt.Sprintf("\tchanged%d = %x\n", p, r.Uint64())
		case 1:
			b = append(b[:p], append([]string{fmt.Sprintf("\tinserted(%x)\n", r.Uint64())}, b[p:]...)...)
		case 2:
			b = append(b[:p], b[p+1:]...)
		}
	}
	return strings.Join(a, ""), strings.Join(b, "")
}

func TestScatteredChanges(t *testing.T) {
	a, b := genPair(10000, 300, 7)
	res := Unified("a", "b", a, b, Options{})
	checkApply(t, a, b, res)
	t.Logf("+%d -%d in %d hunks", res.Added, res.Removed, res.Hunks)
}

func TestPathological(t *testing.T) {
	// Fully rewritten file and a single long line.
	a, _ := genPair(5000, 0, 1)
	b, _ := genPair(5000, 0, 2)
	checkApply(t, a, b, Unified("a", "b", a, b, Options{}))
	long := strings.Repeat("x", 1<<20)
	la := long
	lb := long[:len(long)/2] + "y" + long[len(long)/2+1:]
	res := Unified("a", "b", la, lb, Options{})
	if res.Added != 1 || res.Removed != 1 {
		t.Fatalf("long line: +%d -%d", res.Added, res.Removed)
	}
	checkApply(t, la, lb, res)
}

// applyChanges applies an edit script to a.
func applyChanges(a, b []string, cs []Change) ([]string, error) {
	var out []string
	pos := 0
	for i, c := range cs {
		if c.A < pos || c.Del+c.Ins == 0 || c.A+c.Del > len(a) || c.B < 0 || c.B+c.Ins > len(b) {
			return nil, fmt.Errorf("bad change %d: %+v", i, c)
		}
		if i > 0 && c.A == pos {
			return nil, fmt.Errorf("change %d is adjacent to the previous one", i)
		}
		out = append(out, a[pos:c.A]...)
		if len(out) != c.B {
			return nil, fmt.Errorf("change %d: B = %d but output has %d lines", i, c.B, len(out))
		}
		out = append(out, b[c.B:c.B+c.Ins]...)
		pos = c.A + c.Del
	}
	return append(out, a[pos:]...), nil
}

// checkTuned runs the algorithm with tiny cost cutoffs, which forces the
// heuristic splits, and checks that the script is still correct.
func checkTuned(t *testing.T, a, b []string, tune tuning) (del, ins int) {
	t.Helper()
	ca, cb := mark(a, b, &tune)
	cs := collect(ca, cb)
	got, err := applyChanges(a, b, cs)
	if err != nil {
		t.Fatalf("tuning %+v: %v", tune, err)
	}
	if !reflect.DeepEqual(got, b) && !(len(got) == 0 && len(b) == 0) {
		t.Fatalf("tuning %+v: script does not reproduce b\na=%q\nb=%q", tune, a, b)
	}
	return count(cs)
}

func TestCutoffStaysCorrect(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tunings := []tuning{{1, 1, 0}, {2, 1, 0}, {3, 2, 50}, {8, 2, 200}, {64, 4, 1000}}
	for i := range 3000 {
		alphabet := []string{"a\n", "b\n", "c\n", "d\n", "e\n", "f\n"}[:2+i%5]
		a := randomText(r, alphabet, 10+i%200)
		b := mutate(r, randomText(r, alphabet, 10+i%200), alphabet)
		if i%3 == 0 {
			b = mutate(r, a, alphabet)
		}
		la, lb := SplitLines(a), SplitLines(b)
		l := lcs(la, lb)
		for _, tune := range tunings {
			del, ins := checkTuned(t, la, lb, tune)
			if del-(len(la)-l) != ins-(len(lb)-l) || del < len(la)-l {
				t.Fatalf("tuning %+v: -%d +%d, minimal -%d +%d", tune, del, ins, len(la)-l, len(lb)-l)
			}
		}
	}
}

func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\n", 0)
	f.Add("", "x", 3)
	f.Add("x", "", -1)
	f.Add("a\r\nb", "a\nb\n", 1)
	f.Add("a\na\na\nb\n", "b\na\na\na\n", 0)
	f.Fuzz(func(t *testing.T, a, b string, context int) {
		if context > 10 {
			context %= 10
		}
		res := Unified("from", "to", a, b, Options{Context: context})
		checkApply(t, a, b, res)
		if add, rem := Stat(a, b); add != res.Added || rem != res.Removed {
			t.Fatalf("Stat +%d -%d, Unified +%d -%d", add, rem, res.Added, res.Removed)
		}
		checkTuned(t, SplitLines(a), SplitLines(b), tuning{cutoff: 2, cheap: 1, budget: 10})
		capped := Unified("from", "to", a, b, Options{Context: context, MaxLines: 3})
		if capped.Added != res.Added || capped.Removed != res.Removed ||
			(capped.Truncated == 0) != (capped.Text == res.Text) {
			t.Fatalf("capped result inconsistent: %+v vs %+v", capped, res)
		}
	})
}

func benchmarkDiff(b *testing.B, n, k int) {
	x, y := genPair(n, k, 42)
	b.SetBytes(int64(len(x) + len(y)))
	b.ResetTimer()
	for b.Loop() {
		Unified("a", "b", x, y, Options{})
	}
}

func BenchmarkDiff10kLines100Changes(b *testing.B)   { benchmarkDiff(b, 10000, 100) }
func BenchmarkDiff10kLines1000Changes(b *testing.B)  { benchmarkDiff(b, 10000, 1000) }
func BenchmarkDiff100kLines100Changes(b *testing.B)  { benchmarkDiff(b, 100000, 100) }
func BenchmarkDiff100kLines1000Changes(b *testing.B) { benchmarkDiff(b, 100000, 1000) }

func BenchmarkDiffStat100kLines1000Changes(b *testing.B) {
	x, y := genPair(100000, 1000, 42)
	b.ResetTimer()
	for b.Loop() {
		Stat(x, y)
	}
}

func BenchmarkDiffRewrite5k(b *testing.B) {
	x, _ := genPair(5000, 0, 1)
	y, _ := genPair(5000, 0, 2)
	b.ResetTimer()
	for b.Loop() {
		Unified("a", "b", x, y, Options{})
	}
}
