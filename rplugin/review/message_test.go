package review

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func lines(n int, f string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(f, i+1)
	}
	return out
}

func TestMessage(t *testing.T) {
	since := time.Date(2026, 7, 1, 14, 3, 0, 0, time.Local)
	now := since.Add(time.Hour)
	r := Review{Since: since, Now: now, Items: []Item{
		{Rel: "b.txt", From: 2, To: 2, Text: "rename this", Lines: []string{"beta one", "BETA TWO", "beta three"}, Changed: true},
		{Rel: "a.txt", From: 9, To: 10, Text: "simplify\nboth lines", Lines: lines(12, "alpha %d"), Changed: true},
		{Rel: "a.txt", From: 1, To: 1, Text: "not yours", Lines: lines(12, "alpha %d")},
		{Rel: "gone.txt", From: 3, To: 3, Text: "was here", Code: []string{"old line"}, Changed: true},
		{Rel: "code.md", From: 1, To: 1, Text: "fence", Lines: []string{"```go", "x", "```"}, Changed: true, Unsaved: true},
	}}
	msg := r.Message()
	want := []string{
		"Review of your changes since 14:03: 5 comments in 4 files.\n",
		"### 1. a.txt, line 1 (not a line you changed in this round)\n```\n> 1 | alpha 1\n  2 | alpha 2\n  3 | alpha 3\n```\nnot yours\n",
		"### 2. a.txt, lines 9-10\n```\n   7 | alpha 7\n   8 | alpha 8\n>  9 | alpha 9\n> 10 | alpha 10\n  11 | alpha 11\n  12 | alpha 12\n```\nsimplify\nboth lines\n",
		"### 3. b.txt, line 2\n```\n  1 | beta one\n> 2 | BETA TWO\n  3 | beta three\n```\nrename this\n",
		"### 4. code.md, line 1 (quoted from the editor: the user has not saved these edits yet)\n````\n> 1 | ```go\n  2 | x\n  3 | ```\n````\nfence\n",
		"### 5. gone.txt, line 3 (the file could not be read: quoted as it was when the comment was made)\n```\n> 3 | old line\n```\nwas here\n",
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("message lacks\n%s\n--- message:\n%s", w, msg)
		}
	}
	if !strings.HasPrefix(msg, want[0]) {
		t.Fatalf("head:\n%s", msg)
	}
	other := Review{Since: since.AddDate(0, 0, -2), Now: now, Items: r.Items[:1]}
	if h := other.Head(); h != "Review of your changes since Jun 29 14:03: 1 comment in 1 file." {
		t.Fatalf("head %q", h)
	}
}

func TestMessageLongRangeAndEmptyFile(t *testing.T) {
	r := Review{Since: time.Now(), Now: time.Now(), Items: []Item{
		{Rel: "big", From: 10, To: 109, Text: "all of it", Lines: lines(200, "l%d"), Changed: true},
		{Rel: "empty", From: 1, To: 1, Text: "why empty", Lines: []string{}, Changed: true},
	}}
	msg := r.Message()
	if !strings.Contains(msg, "… 64 lines left out …") || !strings.Contains(msg, ">  10 | l10\n") || !strings.Contains(msg, "> 109 | l109\n") {
		t.Fatalf("long range:\n%s", msg)
	}
	if !strings.Contains(msg, "### 2. empty, line 1\n(the file is empty)\nwhy empty\n") {
		t.Fatalf("empty file:\n%s", msg)
	}
}

func TestTouches(t *testing.T) {
	hunks := [][2]int{{5, 2}, {10, 0}} // lines 5-6 are Claude's; a deletion after line 9
	tests := []struct {
		from, to int
		want     bool
	}{
		{5, 5, true}, {6, 6, true}, {7, 7, false}, {1, 4, false}, {4, 5, true},
		{9, 9, true}, {10, 10, true}, {11, 11, false}, {1, 20, true},
	}
	for _, tc := range tests {
		if got := Touches(tc.from, tc.to, hunks); got != tc.want {
			t.Errorf("Touches(%d, %d) = %v", tc.from, tc.to, got)
		}
	}
}

// 200 comments over 20 files of 2,000 lines, in one message.
func BenchmarkMessage200(b *testing.B) {
	files := make([][]string, 20)
	for i := range files {
		files[i] = lines(2000, "func line%d() { return }")
	}
	var items []Item
	for i := 0; i < 200; i++ {
		f := i % 20
		items = append(items, Item{Rel: fmt.Sprintf("pkg/file%02d.go", f), From: 10 + i*7%1900, To: 12 + i*7%1900,
			Text: "please handle the error here", Lines: files[f], Changed: true})
	}
	r := Review{Since: time.Now(), Now: time.Now(), Items: items}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if msg := r.Message(); len(msg) == 0 {
			b.Fatal("empty")
		}
	}
}
