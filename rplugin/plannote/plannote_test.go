package plannote

import (
	"strings"
	"testing"
)

const plan = "# The plan\n\n1. change alpha to beta\n2. run the tests\n3. write the changelog"

func TestMessageQuotesEachCommentWithItsLines(t *testing.T) {
	got := Message(plan, []Comment{
		{From: 3, To: 3, Text: "use gamma, not beta"},
		{From: 4, To: 5, Text: " and the lint\n"},
	})
	for _, want := range []string{
		"The user left 2 comments on lines of the plan.",
		"### Comment 1, plan line 3\n",
		"> 3 | 1. change alpha to beta\n",
		"  4 | 2. run the tests\n",
		"use gamma, not beta\n",
		"### Comment 2, plan lines 4-5\n",
		"> 4 | 2. run the tests\n> 5 | 3. write the changelog\n",
		"and the lint\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message lacks %q:\n%s", want, got)
		}
	}
	if Message(plan, nil) != "" {
		t.Error("a message without comments")
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		cs   []Comment
		ok   bool
	}{
		{"lines of the plan", []Comment{{From: 1, To: 5, Text: "x"}}, true},
		{"none", nil, true},
		{"empty text", []Comment{{From: 1, To: 1, Text: "  "}}, false},
		{"past the end", []Comment{{From: 5, To: 6, Text: "x"}}, false},
		{"line 0", []Comment{{From: 0, To: 1, Text: "x"}}, false},
		{"upside down", []Comment{{From: 3, To: 2, Text: "x"}}, false},
		{"too many", make([]Comment, maxComments+1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := Check(c.cs, 5); (err == nil) != c.ok {
				t.Fatalf("Check: %v, want ok=%v", err, c.ok)
			}
		})
	}
}

func TestApproved(t *testing.T) {
	for _, c := range []struct {
		edited bool
		n      int
		want   string
	}{
		{false, 0, "Plan approved; mode: default"},
		{true, 0, "Plan approved with your edits; mode: default"},
		{false, 1, "Plan approved with your comment; mode: default"},
		{true, 2, "Plan approved with your edits and your 2 comments; mode: default"},
	} {
		if got := Approved(c.edited, c.n, "default"); got != c.want {
			t.Errorf("Approved(%v, %d) = %q, want %q", c.edited, c.n, got, c.want)
		}
	}
}
