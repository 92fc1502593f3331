package checkpoint

import (
	"testing"
	"time"
)

func TestPlanRewind(t *testing.T) {
	type disk struct {
		content string
		exists  bool
	}
	for _, tc := range []struct {
		name      string
		before    Before
		left      *Left // nil: untracked
		now       disk
		result    string
		exists    bool
		others    bool
		kept      int
		restores  bool
		untracked bool
	}{
		{"nobody else: a plain restore", Before{Content: "a\nb\n", Existed: true}, &Left{"a\nB\n", true}, disk{"a\nB\n", true}, "a\nb\n", true, false, 0, true, false},
		{"another session changed other lines: theirs stay", Before{Content: "1\n2\n3\n4\n5\n", Existed: true}, &Left{"1\nTWO\n3\n4\n5\n", true},
			disk{"1\nTWO\n3\n4\nFIVE by session 2\n", true}, "1\n2\n3\n4\nFIVE by session 2\n", true, true, 0, true, false},
		{"another session changed the same line: theirs kept, named", Before{Content: "a\nb\nc\n", Existed: true}, &Left{"a\nB\nc\n", true},
			disk{"a\nB, then session 2\nc\n", true}, "a\nB, then session 2\nc\n", true, true, 1, false, false},
		{"the session created it, nobody else touched it: removed", Before{Content: "", Existed: false}, &Left{"new\n", true}, disk{"new\n", true}, "", false, false, 0, true, false},
		{"the session created it, someone added to it: kept whole, named", Before{Content: "", Existed: false}, &Left{"new\n", true},
			disk{"new\nmore by you\n", true}, "new\nmore by you\n", true, true, 1, false, false},
		{"the session created it, someone changed it further down: theirs stay", Before{Content: "", Existed: false}, &Left{"1\n2\n3\n4\n5\n", true},
			disk{"1\n2\n3\n4\n5\n6 by you\n", true}, "1\n2\n3\n4\n5\n6 by you\n", true, true, 1, false, false},
		{"someone removed it since: stays removed", Before{Content: "a\n", Existed: true}, &Left{"b\n", true}, disk{"", false}, "", false, true, 0, false, false},
		{"untracked (a resumed session): claude's restore", Before{Content: "a\n", Existed: true}, nil, disk{"z\n", true}, "a\n", true, false, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := []FileBefore{{Path: "/p/f", Before: tc.before}}
			left := func(string) (Left, bool) {
				if tc.left == nil {
					return Left{}, false
				}
				return *tc.left, true
			}
			now := func(string) (string, bool, error) { return tc.now.content, tc.now.exists, nil }
			plans, err := PlanRewind(files, left, now)
			if err != nil {
				t.Fatal(err)
			}
			p := plans[0]
			if p.Result != tc.result || p.ResultExists != tc.exists || p.Others != tc.others || len(p.Kept) != tc.kept ||
				p.Restores() != tc.restores || p.Untracked != tc.untracked {
				t.Fatalf("plan %+v", p)
			}
		})
	}
}

func at() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func TestSinceAndLeft(t *testing.T) {
	l := NewLog(1 << 20)
	str := func(s string) *string { return &s }
	l.Begin("t1", "one", at())
	l.Changed("/p/a", Was(str("a0\n")))
	l.Landed("/p/a", "a1\n", true)
	l.Begin("t2", "two", at())
	l.Begin("t3", "three", at())
	l.Changed("/p/a", Was(str("a1\n")))
	l.Changed("/p/b", Was(nil))
	l.Landed("/p/a", "a3\n", true)
	l.Landed("/p/b", "b3\n", true)
	for _, tc := range []struct {
		id    string
		files []string
		first string
	}{{"t1", []string{"/p/a", "/p/b"}, "a0\n"}, {"t2", []string{"/p/a", "/p/b"}, "a1\n"}, {"t3", []string{"/p/a", "/p/b"}, "a1\n"}} {
		fs, err := l.Since(tc.id)
		if err != nil || len(fs) != len(tc.files) || fs[0].Content != tc.first || fs[1].Existed {
			t.Fatalf("Since(%s) = %+v, %v", tc.id, fs, err)
		}
	}
	if lf, ok := l.LeftOf("/p/a"); !ok || lf.Content != "a3\n" {
		t.Fatalf("left %+v", lf)
	}
	if _, err := l.Since("nope"); err == nil {
		t.Fatal("no error for an unknown turn")
	}
}
