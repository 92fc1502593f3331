package feedback

import (
	"strings"
	"testing"
)

func TestMessage(t *testing.T) {
	tests := []struct {
		name string
		a    Amendment
		want []string // substrings, in order
		none bool     // no message at all
	}{
		{name: "nothing changed, no notes", a: Amendment{Path: "a.txt", Proposed: "x\n", Applied: "x\n"}, none: true},
		{name: "edited", a: Amendment{Path: "src/a.txt", Proposed: "one\nTWO\nthree\n", Applied: "one\nTWO\nthree, by you\n"},
			want: []string{Marker + " The user changed your edit of src/a.txt", "```diff", "-three", "+three, by you", "```"}},
		{name: "rejected and noted", a: Amendment{Path: "a.txt", Proposed: "A\nb\nC\n", Applied: "A\nb\nc\n",
			Review: Review{Rejected: []Range{{Hunk: 2, From: 3, To: 3}}, Notes: []Note{{Range{Hunk: 1, From: 1, To: 1}, "keep the\ncapital"}}}},
			want: []string{"-C", "+c", "rejected these hunks", "- hunk 2 (line 3 of your proposal)", "The user's notes:", "- on hunk 1 (line 1 of your proposal): keep the capital"}},
		{name: "notes only", a: Amendment{Path: "a.txt", Proposed: "x\n", Applied: "x\n", Review: Review{Notes: []Note{{Text: "fine"}}}},
			want: []string{"applied your edit of a.txt as you proposed it", "- fine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.a.Message()
			if tt.none {
				if m != "" {
					t.Fatalf("message %q", m)
				}
				return
			}
			rest := m
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("message lacks %q (in order):\n%s", w, m)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestMessageCapsTheDiff(t *testing.T) {
	var p, q strings.Builder
	for i := 0; i < 1000; i++ {
		p.WriteString("line\n")
		q.WriteString("LINE\n")
	}
	m := Amendment{Path: "big.txt", Proposed: p.String(), Applied: q.String()}.Message()
	if n := strings.Count(m, "\n"); n > MaxDiffLines+20 {
		t.Fatalf("%d lines", n)
	}
	if !strings.Contains(m, "The diff was cut") {
		t.Fatal("the cut is not said")
	}
}

func TestRejection(t *testing.T) {
	m := Rejection("a.txt", Review{Notes: []Note{{Range{Hunk: 1, From: 2, To: 1}, "no"}}})
	if !strings.HasPrefix(m, "The user rejected all changes to a.txt") || !strings.Contains(m, "a deletion before line 2") || !strings.Contains(m, ": no") {
		t.Fatalf("%q", m)
	}
}

func TestRewoundAndUndone(t *testing.T) {
	msg := Rewound("fix the login test\nand more", []string{"/p/a.txt", "/p/b.txt"}, 1, "Changes made by commands (Bash) were not restored.")
	for _, want := range []string{Marker, `"fix the login test"`, "- /p/a.txt\n- /p/b.txt", "1 linked file(s)", "(Bash) were not restored"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Rewound lacks %q:\n%s", want, msg)
		}
	}
	msg = Undone("a.txt", "l1\nL2\nl3\n", "l1\nl2\nl3\n")
	for _, want := range []string{Marker, "undid part of your change to a.txt", "-L2\n+l2\n", "```diff"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Undone lacks %q:\n%s", want, msg)
		}
	}
}

func TestRewrite(t *testing.T) {
	tests := []struct{ name, content, fence, tail string }{
		{"plain", "a\nb\n", "```\n", "b\n```"},
		{"fence inside", "x\n```\ny\n", "````\n", "y\n````"},
		{"no final newline", "a", "```\n", "a\n```\n(The content does not end with a newline.)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Rewrite("w.txt", tt.content)
			if !strings.HasPrefix(m, Marker) || !strings.Contains(m, "Read w.txt again") || !strings.Contains(m, tt.fence+tt.content) || !strings.HasSuffix(m, tt.tail) {
				t.Fatalf("message:\n%s", m)
			}
		})
	}
}
