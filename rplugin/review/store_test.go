package review

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

func TestFolderDir(t *testing.T) {
	a, b := FolderDir("/st", "/home/u/proj"), FolderDir("/st", "/home/u/proj/")
	if a != b || !strings.HasPrefix(a, "/st/review/proj-") || FolderDir("/st", "/other/proj") == a {
		t.Fatalf("dirs %s %s", a, b)
	}
	if d := FolderDir("/st", "/"); !strings.HasPrefix(d, "/st/review/_-") && !strings.HasPrefix(d, "/st/review/root-") {
		t.Fatalf("root: %s", d)
	}
	if d := FolderDir("/st", "/x/a b/../c;rm"); strings.ContainsAny(filepath.Base(d), " ;") {
		t.Fatalf("unsafe name %s", d)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "review", "p")
	cs := &Comments{}
	c, _ := NewComment("/p/a.txt", 2, 3, "a comment", []string{"x", "y"}, 1, time.Unix(5, 0))
	_ = cs.Add(c)
	if err := SaveComments(dir, "/p", cs); err != nil {
		t.Fatal(err)
	}
	got, err := LoadComments(dir)
	if err != nil || len(got.Unsent()) != 1 || got.Unsent()[0].Text != "a comment" || got.Unsent()[0].Code[1] != "y" {
		t.Fatalf("comments %+v, %v", got, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", fi.Mode())
	}

	r := NewRound(3, time.Unix(77, 0))
	r.Changed("/p/a.txt", ptr("before"))
	r.Changed("/p/new.txt", nil)
	r = r.Next(time.Unix(88, 0), []string{"/p/a.txt"}, func(string) (string, bool, error) { return "at send", true, nil })
	r.Changed("/p/b.txt", ptr("b0"))
	if err := SaveRound(dir, "sess-1", r); err != nil {
		t.Fatal(err)
	}
	back, err := LoadRound(dir, "sess-1")
	if err != nil || back.N != 4 || back.Since.Unix() != 88 || strings.Join(back.Files(), ",") != "/p/b.txt" || len(back.Tracked()) != 1 {
		t.Fatalf("round %+v, %v", back, err)
	}
	if none, err := LoadRound(dir, "other"); none != nil || err != nil {
		t.Fatalf("missing round: %v %v", none, err)
	}
	if _, err := LoadRound(dir, "../escape"); err == nil {
		t.Fatal("a bad id names a file")
	}

	b := NewBlame("/p/a.txt", "one\ntwo\n")
	b.Land("one\ntwo\n", "one\nTWO\nthree\n", Author{Session: 1, Turn: 1, Prompt: "p", Time: 9}, nil)
	if err := SaveBlame(dir, b); err != nil {
		t.Fatal(err)
	}
	if !HasBlame(dir, "/p/a.txt") || HasBlame(dir, "/p/b.txt") {
		t.Fatal("HasBlame")
	}
	bb, err := LoadBlame(dir, "/p/a.txt")
	if err != nil || kinds(bb, bb.Lines()) != "ycc" || bb.Authors[bb.Lines()[1]].Prompt != "p" {
		t.Fatalf("blame %+v, %v", bb, err)
	}
	if none, err := LoadBlame(dir, "/p/none"); none != nil || err != nil {
		t.Fatalf("missing blame: %v %v", none, err)
	}
}

func TestStoreReadsDefensively(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "comments.json")
	// A FIFO named like the file: refused at once, never waited on.
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := LoadComments(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
	os.Remove(p)
	// A link is not followed.
	target := filepath.Join(dir, "elsewhere.json")
	_ = os.WriteFile(target, []byte(`{"version":1,"comments":[]}`), 0o600)
	_ = os.Symlink(target, p)
	if _, err := LoadComments(dir); err == nil {
		t.Fatal("a link was read")
	}
	os.Remove(p)
	// Too large.
	f, _ := os.Create(p)
	_ = f.Truncate(MaxCommentsFile + 1)
	f.Close()
	if _, err := LoadComments(dir); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("large: %v", err)
	}
	// Malformed entries are left out, the good ones kept, and said so.
	_ = os.WriteFile(p, []byte(`{"version":1,"comments":[{"id":"a","path":"/p","from":1,"to":1,"text":"ok"},
		{"id":"b","path":"rel","from":1,"to":1,"text":"relative"},{"id":"c","path":"/p","from":3,"to":2,"text":"backwards"},
		{"id":"a","path":"/p","from":1,"to":1,"text":"twice"},{"id":"d","path":"/p","from":1,"to":1,"text":"  "}]}`), 0o600)
	cs, err := LoadComments(dir)
	if err == nil || !strings.Contains(err.Error(), "4 comment(s) left out") || len(cs.All()) != 1 {
		t.Fatalf("malformed: %+v %v", cs.All(), err)
	}
	for _, bad := range []string{`nope`, `{"version":2}`} {
		if _, err := DecodeComments([]byte(bad)); err == nil {
			t.Fatalf("%s decoded", bad)
		}
	}
	for _, bad := range []string{
		`{"version":1,"path":"/p","content":"a\n","authors":[{"kind":"you"}],"runs":[[0,2]]}`,
		`{"version":1,"path":"/p","content":"a\n","authors":[{"kind":"you"}],"runs":[[1,1]]}`,
		`{"version":1,"path":"/p","content":"a\nb\n","authors":[{"kind":"you"}],"runs":[[0,1]]}`,
		`{"version":1,"path":"/p","content":"a\n","authors":[{"kind":"claude"}],"runs":[[0,1]]}`,
		`{"version":1,"path":"/p","content":"a\n","authors":[{"kind":"you"},{"kind":"robot"}],"runs":[[1,1]]}`,
		`{"version":1,"path":"p","content":"","authors":[{"kind":"you"}],"runs":[]}`,
	} {
		if _, err := DecodeBlame([]byte(bad)); err == nil {
			t.Fatalf("%s decoded", bad)
		}
	}
}

// Whatever a stored file holds, decoding never panics and what it yields
// keeps the invariants the rest relies on.
func FuzzDecode(f *testing.F) {
	b := NewBlame("/p/a", "x\n")
	b.Land("x\n", "x\ny\n", Author{Turn: 1}, nil)
	good, _ := EncodeBlame(b)
	f.Add(good)
	f.Add([]byte(`{"version":1,"comments":[{"id":"a","path":"/p","from":1,"to":1,"text":"ok"}]}`))
	f.Add([]byte(`{"version":1,"n":2,"since":5,"files":{"/p":{"existed":true,"content":"x"}},"order":["/p","/p"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, err := DecodeBlame(data); err == nil {
			if len(b.Lines()) != len(diff.SplitLines(b.Content)) || b.Authors[0].Kind != You {
				t.Fatalf("blame breaks its invariants: %+v", b)
			}
			for _, i := range b.Lines() {
				if i < 0 || i >= len(b.Authors) {
					t.Fatalf("author %d of %d", i, len(b.Authors))
				}
			}
			// Landing a change on what was read still works.
			b.Land(b.Content, b.Content+"z\n", Author{Turn: 2}, nil)
		}
		if cs, _ := DecodeComments(data); cs != nil {
			for _, c := range cs.All() {
				if c.From < 1 || c.To < c.From || !filepath.IsAbs(c.Path) {
					t.Fatalf("comment %+v", c)
				}
			}
		}
		if r, err := DecodeRound(data); err == nil {
			seen := map[string]bool{}
			for _, p := range r.Files() {
				if seen[p] {
					t.Fatalf("%s twice", p)
				}
				seen[p] = true
			}
		}
	})
}

// Whatever the file was, is, and Claude proposed, the blame has one author
// per line, the first author is you, and lines Claude did not touch keep
// theirs.
func FuzzLand(f *testing.F) {
	f.Add("a\nb\n", "a\nB\n", "a\nBB\n", true)
	f.Add("", "x", "", false)
	f.Add("a\r\nb", "a\nb\n", "b\n", true)
	f.Fuzz(func(t *testing.T, before, after, proposed string, amended bool) {
		b := NewBlame("/p", before)
		var prop *string
		if amended {
			prop = &proposed
		}
		b.Land(before, after, Author{Turn: 1}, prop)
		if len(b.Lines()) != len(diff.SplitLines(after)) || b.Authors[0].Kind != You {
			t.Fatalf("blame of %q: %v %+v", after, b.Lines(), b.Authors)
		}
		for _, i := range b.Lines() {
			if i < 0 || i >= len(b.Authors) {
				t.Fatalf("author %d of %d", i, len(b.Authors))
			}
		}
		if v := b.View(before); len(v) != len(diff.SplitLines(before)) {
			t.Fatalf("view %v", v)
		}
		data, err := EncodeBlame(b)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeBlame(data)
		if err != nil || kinds(back, back.Lines()) != kinds(b, b.Lines()) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
