package checkpoint

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewIDIsAVersion4UUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		id := NewID()
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}

func ptr(s string) *string { return &s }

func TestLogKeepsTheFirstChangeOfATurn(t *testing.T) {
	l := NewLog(1 << 20)
	l.Changed("/p/ignored", Was(ptr("no turn yet")))
	l.Begin("u1", "edit a", time.Unix(10, 0))
	l.Changed("/p/a", Was(ptr("a0")))
	l.Changed("/p/a", Was(ptr("a1"))) // second edit of a in the same turn
	l.Changed("/p/new", Was(nil))
	l.Begin("u2", "edit a again", time.Unix(20, 0))
	l.Changed("/p/a", Was(ptr("a2")))
	l.Begin("u3", "just talk", time.Unix(30, 0))

	tests := []struct {
		turn, path string
		want       Before
		err        string
	}{
		{"u1", "/p/a", Before{Content: "a0", Existed: true}, ""},
		{"u1", "/p/new", Before{}, ""},
		{"u2", "/p/a", Before{Content: "a2", Existed: true}, ""},
		{"u2", "/p/new", Before{}, "turn 2 did not change /p/new"},
		{"nope", "/p/a", Before{}, `no turn "nope"`},
	}
	for _, tc := range tests {
		got, err := l.Before(tc.turn, tc.path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Before(%s, %s) error = %v, want %q", tc.turn, tc.path, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Before(%s, %s) = %+v, %v; want %+v", tc.turn, tc.path, got, err, tc.want)
		}
	}
	turns := l.Turns()
	if len(turns) != 3 || turns[0].N != 1 || strings.Join(turns[0].Files, ",") != "/p/a,/p/new" || len(turns[2].Files) != 0 {
		t.Fatalf("turns = %+v", turns)
	}
	if last, ok := l.Find(""); !ok || last.ID != "u2" {
		t.Fatalf(`Find("") = %+v, %v; want the last turn that changed a file (u2)`, last, ok)
	}
	if got, ok := l.Find("u3"); !ok || got.Prompt != "just talk" {
		t.Fatalf("Find(u3) = %+v, %v", got, ok)
	}
}

func TestLogDropsTheOldestContentsFirst(t *testing.T) {
	l := NewLog(10)
	l.Begin("u1", "one", time.Now())
	l.Changed("/a", Was(ptr("123456")))
	l.Begin("u2", "two", time.Now())
	l.Changed("/b", Was(ptr("abcdef"))) // 12 bytes > 10: u1's contents go
	if _, err := l.Before("u1", "/a"); !errors.Is(err, ErrForgotten) {
		t.Fatalf("u1 kept: %v", err)
	}
	if b, err := l.Before("u2", "/b"); err != nil || b.Content != "abcdef" {
		t.Fatalf("u2 = %+v, %v", b, err)
	}
	if turns := l.Turns(); len(turns[0].Files) != 1 {
		t.Fatal("a dropped turn still lists its files")
	}
}

func TestUndo(t *testing.T) {
	before := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"
	now := "l1\nL2\nl3\nl4\nl5\nL6\nl7\nl8\nL9\n" // three hunks
	tests := []struct {
		name, before, now string
		hunk              int
		want              string
	}{
		{"middle hunk of three", before, now, 1, "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nL9\n"},
		{"first", before, now, 0, "l1\nl2\nl3\nl4\nl5\nL6\nl7\nl8\nL9\n"},
		{"last", before, now, 2, "l1\nL2\nl3\nl4\nl5\nL6\nl7\nl8\nl9\n"},
		{"an insertion goes", "a\nb\n", "a\nnew\nb\n", 0, "a\nb\n"},
		{"a deletion comes back", "a\ngone\nb\n", "a\nb\n", 0, "a\ngone\nb\n"},
		{"a created file empties", "", "x\ny\n", 0, ""},
		{"CRLF kept", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 0, "a\r\nb\r\nc\r\n"},
		{"no final newline before", "a\nb", "a\nb\nc\n", 0, "a\nb"},
		{"final line without newline now", "a\nb\nc\n", "a\nb", 0, "a\nb\nc\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Undo(tc.before, tc.now, Hunks(tc.before, tc.now)[tc.hunk])
			if err != nil || got != tc.want {
				t.Fatalf("Undo = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if hs := Hunks(before, now); len(hs) != 3 || hs[1] != (Hunk{A: 6, Del: 1, B: 6, Ins: 1}) {
		t.Fatalf("Hunks = %+v", hs)
	}
	// A hunk that does not fit the contents (a stale view) is refused.
	for _, h := range []Hunk{{A: 9, Del: 2, B: 1, Ins: 0}, {A: 1, Del: 0, B: 10, Ins: 1}, {A: 0, Del: 1, B: 1, Ins: 1}} {
		if _, err := Undo(before, now, h); err == nil || !strings.Contains(err.Error(), "lies outside the file") {
			t.Errorf("Undo(%+v) error = %v", h, err)
		}
	}
}

// Undoing every hunk, in any order, gives the content before the turn.
func FuzzUndoAllRestoresBefore(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\nd")
	f.Add("", "x")
	f.Add("x\r\ny", "")
	f.Fuzz(func(t *testing.T, before, now string) {
		cur := now
		for hs := Hunks(before, cur); len(hs) > 0; hs = Hunks(before, cur) {
			n := len(hs)
			next, err := Undo(before, cur, hs[n-1])
			if err != nil {
				t.Fatal(err)
			}
			if len(Hunks(before, next)) >= n {
				t.Fatalf("undo did not remove a hunk: %q → %q", cur, next)
			}
			cur = next
		}
		if cur != before {
			t.Fatalf("undoing everything gave %q, want %q", cur, before)
		}
	})
}

// A command that writes 100k files: the turn names the first ones it could
// not keep and counts the rest (a confirmation, a note and checkpoints()
// stay small); a file named twice is counted once.
func TestNotKeptIsBounded(t *testing.T) {
	l := NewLog(1 << 20)
	l.Begin("u1", "generate", time.Now())
	l.Changed("/p/kept", Was(nil))
	l.NotKept("/p/kept") // kept already: not "not kept"
	const n = 100000
	for i := 0; i < n; i++ {
		l.NotKept(fmt.Sprintf("/p/g%06d", i))
	}
	l.NotKept("/p/g000001") // again
	got := l.Turns()[0]
	if len(got.Unkept) != MaxUnkeptNamed || got.UnkeptMore != n-MaxUnkeptNamed {
		t.Fatalf("%d named, %d more; want %d named and %d more", len(got.Unkept), got.UnkeptMore, MaxUnkeptNamed, n-MaxUnkeptNamed)
	}
	if got.Unkept[0] != "/p/g000000" {
		t.Fatalf("the first named is %q", got.Unkept[0])
	}
}
