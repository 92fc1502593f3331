package rounds

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// events records what the room sends to the front end.
type events struct {
	mu    sync.Mutex
	names []string
}

func (e *events) Send(name string, _ any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.names = append(e.names, name)
}

func (e *events) count(name string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, x := range e.names {
		if x == name {
			n++
		}
	}
	return n
}

// room is a rounds room on a temp storage, with one session in dir; sent
// collects the prompts it sends.
func room(t *testing.T) (*Room, *session.Session, string, *events, *[]string) {
	t.Helper()
	dir, storage, home := t.TempDir(), t.TempDir(), t.TempDir()
	ev := &events{}
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, dir, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	sent := &[]string{}
	r := New(desk.New(ev, mgr, nil), Deps{
		Storage: func() string { return storage },
		Home:    func() string { return home },
		Policy: func(s *session.Session, cwd string) boundary.Policy {
			if s != nil {
				cwd = s.Cwd()
			}
			return boundary.Policy{Cwd: cwd, Folders: boundary.NewFolders(cwd, home)}
		},
		Send: func(_ *session.Session, prompt string) error {
			*sent = append(*sent, prompt)
			return nil
		},
	})
	return r, s, dir, ev, sent
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAddCommentRefusesWithAReason(t *testing.T) {
	r, s, dir, _, _ := room(t)
	f := filepath.Join(dir, "a.go")
	write(t, f, "one\ntwo\n")
	outside := filepath.Join(t.TempDir(), "b.go")
	write(t, outside, "x\n")
	for _, tc := range []struct {
		name string
		p    CommentParams
		want string
	}{
		{"empty text", CommentParams{Path: f, From: 1, To: 1, Text: "  "}, ":ClaudeNova comment {text}"},
		{"no such lines", CommentParams{Path: f, From: 2, To: 1, Text: "x"}, "no line 2-1"},
		{"past the end", CommentParams{Path: f, From: 9, To: 9, Text: "x"}, "has 2 lines: no line 9"},
		{"outside the folder", CommentParams{Path: outside, From: 1, To: 1, Text: "x"}, "outside the session's folder"},
		{"not a file", CommentParams{Path: "term://sh", From: 1, To: 1, Text: "x"}, "this buffer is not a file"},
		{"a folder", CommentParams{Path: dir, From: 1, To: 1, Text: "x"}, "is a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.Session = s.ID
			_, err := r.AddComment(tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestAChangeJoinsTheRoundTheBlameAndTheReview(t *testing.T) {
	r, s, dir, ev, sent := room(t)
	f := filepath.Join(dir, "a.go")
	before := "one\ntwo\nthree\n"
	write(t, f, before)
	// Claude proposed two lines; the user amended the second before :w.
	proposed := "one\nTWO\nTHREE\n"
	saved := "one\nTWO\nThree, amended\n"
	r.ExpectAmended(f, []byte(proposed), []byte(saved))
	write(t, f, saved)
	r.Changed(s, f, &before, "", saved, nil)
	if ev.count(ui.EvReview) != 1 {
		t.Fatalf("review events %d, want 1", ev.count(ui.EvReview))
	}

	rv, err := r.Round(Arg{Session: s.ID})
	if err != nil || len(rv.Files) != 1 || rv.Files[0].Path != f || len(rv.Files[0].Hunks) != 1 {
		t.Fatalf("round %+v, %v: want a.go with one hunk", rv, err)
	}
	bv, err := r.Blame(BlameParams{Arg: Arg{Session: s.ID}, Path: f})
	if err != nil {
		t.Fatal(err)
	}
	if !bv.Known || bv.Claude != 1 || bv.Amended != 1 || bv.Yours != 1 {
		t.Fatalf("blame %+v: want 1 line Claude's, 1 amended, 1 yours", bv)
	}
	if got := bv.Authors[bv.Lines[1]].Label; !strings.HasPrefix(got, "Claude · session 1") {
		t.Fatalf("line 2 is %q, want Claude's in session 1", got)
	}

	added, err := r.AddComment(CommentParams{Arg: Arg{Session: s.ID}, Path: f, From: 2, To: 2, Text: "why upper case?"})
	if err != nil || !strings.Contains(added.Message, "comment 1 kept on a.go:2") {
		t.Fatalf("added %+v, %v", added, err)
	}
	out, err := r.Send(SendParams{Session: s.ID})
	if err != nil || !strings.Contains(out.Message, "round 2 begins") {
		t.Fatalf("send %+v, %v", out, err)
	}
	if len(*sent) != 1 || !strings.Contains((*sent)[0], "why upper case?") || !strings.Contains((*sent)[0], "TWO") {
		t.Fatalf("sent %q: want the comment with the line it is on", *sent)
	}
	if _, err := r.Send(SendParams{Session: s.ID}); err == nil || !strings.Contains(err.Error(), "no comments to send") {
		t.Fatalf("a second send: %v, want 'no comments to send'", err)
	}
	cv, err := r.Comments(Arg{Session: s.ID})
	if err != nil || cv.Round != 2 || len(cv.Comments) != 0 {
		t.Fatalf("comments after the send %+v, %v: want round 2 and none unsent", cv, err)
	}
}

func TestAnotherSessionsLinesAreNamed(t *testing.T) {
	r, s, dir, _, _ := room(t)
	f := filepath.Join(dir, "a.go")
	before := "one\ntwo\n"
	write(t, f, before)
	other := session.New(7, dir, "", nil)
	after := "one\ntwo\nthree\n"
	write(t, f, after)
	r.Changed(other, f, &before, "", after, nil)
	who := r.AuthorsOf(s, f, before, after)
	if len(who) != 1 || !strings.HasPrefix(who[0], "session 7 at ") {
		t.Fatalf("authors %q, want session 7", who)
	}
	if got := r.AuthorsOf(other, f, before, after); len(got) != 0 {
		t.Fatalf("its own lines named %q", got)
	}
}

// A file a merge brought into the checkout joins the session's round with
// what the merge changed; who wrote its lines is left to Adopt.
func TestAMergedFileJoinsTheRound(t *testing.T) {
	r, s, dir, ev, _ := room(t)
	f := filepath.Join(dir, "m.go")
	before := "one\n"
	write(t, f, "one\nTWO\n")
	r.Merged(s, f, &before)
	if ev.count(ui.EvReview) != 1 {
		t.Fatalf("review events %d, want 1", ev.count(ui.EvReview))
	}
	rv, err := r.Round(Arg{Session: s.ID})
	if err != nil || len(rv.Files) != 1 || rv.Files[0].Path != f || len(rv.Files[0].Hunks) != 1 || rv.Files[0].Hunks[0].Ins != 1 {
		t.Fatalf("round %+v, %v: want m.go with the merged line", rv, err)
	}
}
