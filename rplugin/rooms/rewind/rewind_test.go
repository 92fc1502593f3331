package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
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

func TestUndoHunkRefusesAFileThatMoved(t *testing.T) {
	dir := t.TempDir()
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, dir, "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
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
