package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello world", "hello world"},
		{"csi color", "\x1b[31mred\x1b[0m", "red"},
		{"osc title bel", "a\x1b]0;evil title\x07b", "ab"},
		{"osc hyperlink st", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"cursor move", "a\x1b[2J\x1b[Hb", "ab"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"lone cr", "a\rb", "a\nb"},
		{"controls shown", "a\x00b\x07c\x08d\x7f", "a^@b^Gc^Hd^?"},
		{"c1 shown, 8-bit csi removed", "a\u0085b\u009b31mc", "a<85>bc"},
		{"8-bit osc removed", "a\u009d0;title\u009cb", "ab"},
		{"bidi shown", "rm -rf x\u202e txt.exe", "rm -rf x<202e> txt.exe"},
		{"zero width shown", "a\u200bb\ufeff", "a<200b>b<feff>"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"tab kept", "a\tb", "a\tb"},
		{"line separator", "a\u2028b", "a\nb"},
		{"unicode kept", "héllo ✓", "héllo ✓"},
		{"esc at end", "a\x1b", "a"},
		{"unterminated csi", "a\x1b[12", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[31mname\x1b[0m.txt", "name.txt"},
		{"a\x00b\x07\u202e\u200bc", "abc"},
		{"a\xffb", "ab"},
		{"\u009b2Jx", "x"},
		{"a\nb\t.txt\r", "ab.txt"},
	}
	for _, tt := range tests {
		if got := Strip(tt.in); got != tt.want {
			t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLinesAndLine(t *testing.T) {
	if got := Lines("a\nb\n"); len(got) != 2 || got[1] != "b" {
		t.Errorf("Lines: %q", got)
	}
	if got := Lines(""); len(got) != 1 || got[0] != "" {
		t.Errorf("Lines empty: %q", got)
	}
	if got := Line("a\nb\tc"); got != "a b c" {
		t.Errorf("Line: %q", got)
	}
	if got := Truncate("abcdef", 4); got != "abc…" {
		t.Errorf("Truncate: %q", got)
	}
}

func FuzzText(f *testing.F) {
	f.Add("\x1b[31mred\x1b]0;t\x07\r\n\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid utf8 out of %q", s)
		}
		if strings.ContainsAny(out, "\x1b\r\x00\x07\u202e\u200b\u009b") {
			t.Fatalf("control left in %q -> %q", s, out)
		}
		if st := Strip(s); strings.ContainsAny(st, "\x1b\r\x00\x07\u202e\u200b\u009b") || !utf8.ValidString(st) {
			t.Fatalf("Strip left a control in %q -> %q", s, st)
		}
	})
}

func TestLastLines(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"one", 1, "one"},
		{"a\nb\nc", 1, "c"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"", 1, ""},
	} {
		if got := LastLines(tt.in, tt.n); got != tt.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"fix the test\nand more", 80, "fix the test"},
		{"abcdef", 4, "abc…"},
		{"", 5, ""},
		{"héllo wörld\n", 6, "héllo…"},
	}
	for _, tc := range tests {
		if got := FirstLine(tc.in, tc.n); got != tc.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestListOf(t *testing.T) {
	abc := []string{"a", "b", "c"}
	for _, tc := range []struct {
		items       []string
		most, total int
		want        string
	}{
		{abc, 8, 3, "a, b, c"},
		{abc, 2, 3, "a, b and 1 more"},
		{abc, 8, 100, "a, b, c and 97 more"},
		{abc, 1, 100, "a and 99 more"},
		{nil, 8, 0, ""},
	} {
		if got := ListOf(tc.items, tc.most, tc.total); got != tc.want {
			t.Errorf("ListOf(%v, %d, %d) = %q, want %q", tc.items, tc.most, tc.total, got, tc.want)
		}
	}
	if got := List(abc, 2); got != "a, b and 1 more" {
		t.Errorf("List = %q", got)
	}
}
