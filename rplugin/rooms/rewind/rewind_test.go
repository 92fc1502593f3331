package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

// nobody wrote anything but the session itself.
type nobody struct{}

func (nobody) MarkAuthors(_ *session.Session, fc checkpoint.FileChange) checkpoint.FileChange {
	fc.Authors, fc.Others = make([]string, len(fc.Hunks)), []checkpoint.Span{}
	return fc
}
func (nobody) LineAuthors(*session.Session, string, string) []review.Author { return nil }
func (nobody) AuthorsOf(*session.Session, string, string, string) []string  { return nil }
func (nobody) RoundFile(*session.Session, string) checkpoint.FileChange {
	return checkpoint.FileChange{}
}
func (nobody) Rebase(*session.Session, string, string, bool) {}

func TestChangesSaysWhyThereAreNone(t *testing.T) {
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, t.TempDir(), "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	r := New(desk.New(nowhere{}, mgr, nil), nobody{}, func(*session.Session, []string) {})
	for _, tc := range []struct {
		p    ChangesParams
		want string
	}{
		{ChangesParams{Session: s.ID}, "has not changed a file yet"},
		{ChangesParams{Session: s.ID, N: 4}, "has no prompt 4"},
		{ChangesParams{Session: s.ID, Turn: "u-x"}, `no turn "u-x"`},
		{ChangesParams{Session: 8}, "no session 8"},
	} {
		if _, err := r.Changes(tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Changes(%+v): %v, want %q", tc.p, err, tc.want)
		}
	}
}

// sessionIn is a session working in dir, and the manager that holds it.
func sessionIn(t *testing.T, dir string) (*session.Manager, *session.Session) {
	t.Helper()
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, dir, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	return mgr, s
}

func TestUndoHunkRefusesAFileThatMoved(t *testing.T) {
	dir := t.TempDir()
	mgr, s := sessionIn(t, dir)
	f := filepath.Join(dir, "a.txt")
	before := "one\n"
	s.Turns.Begin("u1", "add a line", s.Started)
	s.Turns.Changed(f, checkpoint.Was(&before))
	if err := os.WriteFile(f, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(desk.New(nowhere{}, mgr, nil), nobody{}, func(*session.Session, []string) {})
	v, err := r.Changes(ChangesParams{Session: s.ID})
	if err != nil || len(v.Files) != 1 || len(v.Files[0].Hunks) != 1 {
		t.Fatalf("changes %+v, %v", v, err)
	}
	if _, err := r.UndoHunk(UndoParams{Session: s.ID, Turn: "u1", Path: f, Hunk: 1, Sum: "stale"}); err == nil || !strings.Contains(err.Error(), "changed on disk since you opened it") {
		t.Fatalf("undo with a stale sum: %v", err)
	}
	if b, _ := os.ReadFile(f); string(b) != "one\ntwo\n" {
		t.Fatalf("the file was touched: %q", b)
	}
	if _, err := r.UndoHunk(UndoParams{Session: s.ID, Turn: "u1", Path: f, Hunk: 3, Sum: v.Files[0].Sum}); err == nil || !strings.Contains(err.Error(), "there is no hunk 3") {
		t.Fatalf("undo of no such hunk: %v", err)
	}
}

// sent records what the room sends the front end.
type sent struct {
	mu     sync.Mutex
	events []string
	marks  []ui.Mark
}

func (s *sent) Send(name string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch name {
	case ui.EvFileWritten:
		s.events = append(s.events, data.(map[string]any)["path"].(string))
	case ui.EvMark:
		s.marks = append(s.marks, data.(ui.Mark))
	}
}

// A rewind that cannot write its second file (its folder was replaced by
// hand with a link to nowhere) has written the first: that file's buffers
// are still told to follow the disk, and the call answers the error.
func TestRewindThatFailsHalfwayTellsTheBuffersOfWhatItWrote(t *testing.T) {
	dir := t.TempDir()
	mgr, s := sessionIn(t, dir)
	s.Checkpoints = true
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "sub", "b.txt")
	aBefore, bBefore := "a\n", "b\n"
	s.Turns.Begin("u1", "change both", s.Started)
	s.Turns.Changed(a, checkpoint.Was(&aBefore))
	s.Turns.Changed(b, checkpoint.Was(&bBefore))
	if err := os.WriteFile(a, []byte("A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// sub is gone, a dangling link in its place: b.txt reads as missing,
	// and its folder cannot be made again.
	if err := os.Symlink(filepath.Join(dir, "nowhere", "x"), filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	out := &sent{}
	d := desk.New(out, mgr, nil)
	r := New(d, nobody{}, func(*session.Session, []string) {})
	if err := r.Rewind(RewindParams{Later: desk.Later{ReplyTo: desk.ReplyTo{Token: "t1", Method: "rewind"}, Session: s.ID, ID: "u1"}}); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	if got, _ := os.ReadFile(a); string(got) != aBefore {
		t.Fatalf("a.txt = %q, want it rewound", got)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if len(out.marks) != 1 || out.marks[0].Reply.Error == "" {
		t.Fatalf("the reply: %+v, want an error", out.marks)
	}
	if len(out.events) != 1 || out.events[0] != a {
		t.Fatalf("buffers told of %v, want a.txt's", out.events)
	}
}
