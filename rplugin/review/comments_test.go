package review

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestNewComment(t *testing.T) {
	at := time.Unix(1000, 0)
	tests := []struct {
		name     string
		path     string
		from, to int
		text     string
		err      string
		want     string // the text kept
	}{
		{name: "a line", path: "/p/a.go", from: 3, to: 3, text: "use a constant", want: "use a constant"},
		{name: "a range, trailing blank lines trimmed", path: "/p/a.go", from: 3, to: 5, text: "two\nlines\n\n", want: "two\nlines"},
		{name: "empty", path: "/p/a.go", from: 1, to: 1, text: "", err: ErrEmpty.Error()},
		{name: "blank", path: "/p/a.go", from: 1, to: 1, text: " \n\t ", err: ErrEmpty.Error()},
		{name: "no file", path: "", from: 1, to: 1, text: "x", err: "a comment needs a file"},
		{name: "no line", path: "/p/a.go", from: 0, to: 0, text: "x", err: "no line 0-0"},
		{name: "backwards", path: "/p/a.go", from: 5, to: 4, text: "x", err: "no line 5-4"},
		{name: "too long", path: "/p/a.go", from: 1, to: 1, text: strings.Repeat("x", MaxCommentText+1), err: "is not added"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewComment(tc.path, tc.from, tc.to, tc.text, []string{"code"}, 1, at)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || c.Text != tc.want || c.ID == "" || c.Created != 1000 || c.Code[0] != "code" {
				t.Fatalf("comment %+v, %v", c, err)
			}
		})
	}
	if _, err := NewComment("/p", 1, 1, "", nil, 0, at); !errors.Is(err, ErrEmpty) {
		t.Fatalf("err = %v", err)
	}
}

func TestCommentsEditDeleteMoveSend(t *testing.T) {
	cs := &Comments{}
	mk := func(path string, line int, text string) Comment {
		c, err := NewComment(path, line, line, text, nil, 1, time.Unix(1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.Add(c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	b := mk("/p/b.txt", 9, "second file")
	a2 := mk("/p/a.txt", 7, "later line")
	a1 := mk("/p/a.txt", 2, "early line")
	var order []string
	for _, c := range cs.Unsent() {
		order = append(order, c.Text)
	}
	if strings.Join(order, ",") != "early line,later line,second file" {
		t.Fatalf("unsent order %v", order)
	}
	if c, err := cs.Edit(a1.ID, "  "); !errors.Is(err, ErrEmpty) {
		t.Fatalf("edit to blank: %+v %v", c, err)
	}
	if c, err := cs.Edit(a1.ID, "early, edited"); err != nil || c.Text != "early, edited" {
		t.Fatalf("edit %+v %v", c, err)
	}
	if !cs.Move(a2.ID, 8, 9) || cs.Move(a2.ID, 8, 9) || cs.Move(a2.ID, 0, 1) {
		t.Fatal("move")
	}
	if got, _ := cs.Get(a2.ID); got.From != 8 || got.To != 9 || got.Range() != "lines 8-9" {
		t.Fatalf("moved %+v", got)
	}
	if _, err := cs.Delete(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Delete(b.ID); err == nil || !strings.Contains(err.Error(), "no comment") {
		t.Fatalf("second delete: %v", err)
	}
	cs.MarkSent([]string{a1.ID, a2.ID}, time.Unix(50, 0), 1)
	if n := len(cs.Unsent()); n != 0 {
		t.Fatalf("%d unsent after sending", n)
	}
	if _, err := cs.Edit(a1.ID, "too late"); err == nil || !strings.Contains(err.Error(), "sent to Claude already") {
		t.Fatalf("edit of a sent comment: %v", err)
	}
	if all := cs.All(); len(all) != 2 || all[0].Sent != 50 || all[0].Round != 1 {
		t.Fatalf("all %+v", all)
	}
}

func TestCommentsRemapFollowsClaudesEdit(t *testing.T) {
	before := "l1\nl2\nl3\nl4\nl5\n"
	tests := []struct {
		name     string
		after    string
		from, to int
		wantFrom int
		wantTo   int
	}{
		{"lines inserted above", "new\nnew\nl1\nl2\nl3\nl4\nl5\n", 3, 3, 5, 5},
		{"lines deleted above", "l3\nl4\nl5\n", 4, 5, 2, 3},
		{"the line itself replaced", "l1\nl2\nL3\nL3b\nl4\nl5\n", 3, 3, 3, 3},
		{"the line deleted", "l1\nl2\nl4\nl5\n", 3, 3, 3, 3},
		{"below the change", "l1\nl2\nl3\nl4\nl5\nl6\n", 2, 2, 2, 2},
		{"the file emptied", "", 4, 4, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := &Comments{}
			c, _ := NewComment("/p/f", tc.from, tc.to, "x", nil, 0, time.Now())
			other, _ := NewComment("/p/other", tc.from, tc.to, "y", nil, 0, time.Now())
			_ = cs.Add(c)
			_ = cs.Add(other)
			cs.Remap("/p/f", before, tc.after)
			got, _ := cs.Get(c.ID)
			if got.From != tc.wantFrom || got.To != tc.wantTo {
				t.Fatalf("%d-%d moved to %d-%d, want %d-%d", tc.from, tc.to, got.From, got.To, tc.wantFrom, tc.wantTo)
			}
			if o, _ := cs.Get(other.ID); o.From != tc.from {
				t.Fatal("another file's comment moved")
			}
		})
	}
}

func TestCommentsCap(t *testing.T) {
	cs := &Comments{}
	for i := 0; i < MaxComments; i++ {
		cs.list = append(cs.list, Comment{ID: fmt.Sprint(i), Path: "/p", From: 1, To: 1, Text: "x"})
	}
	c, _ := NewComment("/p", 1, 1, "one more", nil, 0, time.Now())
	if err := cs.Add(c); err == nil || !strings.Contains(err.Error(), "send them") {
		t.Fatalf("err = %v", err)
	}
}

func TestRound(t *testing.T) {
	r := NewRound(1, time.Unix(10, 0))
	if !r.Changed("/p/a", ptr("a0")) || r.Changed("/p/a", ptr("a1")) || !r.Changed("/p/new", nil) {
		t.Fatal("first change per file")
	}
	if b, _ := r.Baseline("/p/a"); b.Content != "a0" || !b.Existed {
		t.Fatalf("baseline %+v", b)
	}
	if b, _ := r.Baseline("/p/new"); b.Existed {
		t.Fatalf("new file %+v", b)
	}
	if got := strings.Join(r.Files(), ","); got != "/p/a,/p/new" {
		t.Fatalf("files %s", got)
	}
	disk := map[string]string{"/p/a": "a1", "/p/new": "n1"}
	read := func(p string) (string, bool, error) {
		s, ok := disk[p]
		return s, ok, nil
	}
	n := r.Next(time.Unix(20, 0), r.Files(), read)
	if n.N != 2 || !n.Since.Equal(time.Unix(20, 0)) || len(n.Files()) != 0 || len(n.Tracked()) != 2 {
		t.Fatalf("next round %+v", n)
	}
	// A command changes a tracked file: seen, with its content when the
	// round began; an unchanged one is not.
	if n.Seen("/p/new", "n1", true) || !n.Seen("/p/a", "a2 by bash", true) || n.Seen("/p/a", "again", true) {
		t.Fatal("seen")
	}
	if b, _ := n.Baseline("/p/a"); b.Content != "a1" || !b.Outside {
		t.Fatalf("seen baseline %+v", b)
	}
	// Claude's Edit of a tracked file: the baseline is the file when the
	// round began, not what it was just before the Edit.
	n.Changed("/p/new", ptr("n1 edited by a command"))
	if b, _ := n.Baseline("/p/new"); b.Content != "n1" || b.Outside {
		t.Fatalf("tracked baseline %+v", b)
	}
}

func TestRoundBudget(t *testing.T) {
	r := NewRound(1, time.Now())
	big := strings.Repeat("x", RoundBudget/2+1)
	r.Changed("/p/1", &big)
	r.Changed("/p/2", &big)
	if b, _ := r.Baseline("/p/1"); b.Dropped {
		t.Fatal("first dropped")
	}
	if b, _ := r.Baseline("/p/2"); !b.Dropped || b.Content != "" {
		t.Fatal("second kept past the budget")
	}
}
