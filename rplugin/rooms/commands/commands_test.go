package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/snapshot"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

func TestDescribe(t *testing.T) {
	text := "x"
	for _, tc := range []struct {
		name    string
		cs      []snapshot.Change
		others  []string
		unsure  []snapshot.Change
		partial bool
		want    string
	}{
		{"one changed, one new", []snapshot.Change{
			{Rel: "a.txt", Status: snapshot.Changed, Before: &text, Added: 1, Removed: 1},
			{Rel: "n.txt", Status: snapshot.Created, Added: 1},
		}, nil, nil, false, "`sed -i x a.txt` changed 2 files +2 −1: a.txt, n.txt (new)"},
		{"ignored and unknown", []snapshot.Change{
			{Rel: "build/", Status: snapshot.Created, Ignored: true, Unknown: true},
			{Rel: "big.bin", Status: snapshot.Changed, Unknown: true, Binary: true},
		}, nil, nil, true, "`sed -i x a.txt` changed 2 files +0 −0: build/ (new) (ignored), big.bin. Not restorable by rewind (its content before is not kept): build/, big.bin. The folder is bigger than a snapshot reads: changes past its limit are not listed"},
		{"only another session's", nil, []string{"b.txt (session 2)"}, nil, false,
			"`sed -i x a.txt` changed no file of its own. Not its changes (written meanwhile): b.txt (session 2)"},
		{"one sure, one written while the folder was read", []snapshot.Change{
			{Rel: "a.txt", Status: snapshot.Changed, Before: &text, Added: 1, Removed: 1},
		}, nil, []snapshot.Change{{Rel: "log.txt"}}, false,
			"`sed -i x a.txt` changed 1 file +1 −1: a.txt. Unsure whether it changed (written while the folder was read; not kept for rewind): log.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Describe("sed -i x a.txt", Outcome{Changes: tc.cs, Others: tc.others, Unsure: tc.unsure, Partial: tc.partial}); got != tc.want {
				t.Errorf("Describe =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// What another session or the user wrote meanwhile, and what was written
// while a snapshot was read, is not the command's.
func TestSplitSetsAsideWhatIsNotTheCommands(t *testing.T) {
	cs := []snapshot.Change{{Rel: "a.txt", Path: "/p/a.txt"}, {Rel: "b.txt", Path: "/p/b.txt"}, {Rel: "c.txt", Path: "/p/c.txt", Unsure: true}}
	o := split(cs, map[string]int{"/p/b.txt": 2})
	if len(o.Changes) != 1 || o.Changes[0].Rel != "a.txt" || strings.Join(o.Others, ",") != "b.txt (session 2)" ||
		len(o.Unsure) != 1 || o.Unsure[0].Rel != "c.txt" || o.Unsure[0].Path != "/p/c.txt" {
		t.Fatalf("split = %+v", o)
	}
	if o := split(cs[:1], map[string]int{"/p/a.txt": You}); strings.Join(o.Others, ",") != "a.txt (you)" {
		t.Fatalf("the user's save: %v", o.Others)
	}
}

type sink struct{}

func (sink) Send(string, any) {}

// roomIn is the room with session 1 in a committed repository of a.txt,
// its first prompt sent; recorded counts the files recorded as its.
func roomIn(t *testing.T) (r *Room, s *session.Session, dir string, recorded *int) {
	t.Helper()
	dir = t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "-A")
	run("commit", "-qm", "first")
	storage := t.TempDir()
	d := desk.New(sink{}, session.NewManager(), nil)
	recorded = new(int)
	r = New(d, Deps{Storage: func() string { return filepath.Join(storage, "st") },
		Record: func(*session.Session, string, checkpoint.Before) { *recorded++ }})
	t.Cleanup(r.Close)
	s = session.New(1, dir, "", claude.NewEnded())
	s.Turns.Begin("p1", "make files", time.Now())
	return r, s, dir, recorded
}

// A file the session's own file tool (or proposal) writes while its
// command runs in the background is not the command's.
func TestTheSessionsOwnEditIsNotItsCommands(t *testing.T) {
	r, s, dir, recorded := roomIn(t)
	r.Before(s, "toolu_bg", toolcall.Decode(json.RawMessage(`{"command":"sleep 30","run_in_background":true}`)))
	a := filepath.Join(dir, "a.txt")
	r.Writes(s.ID, a) // an Edit of the same session, meanwhile
	if err := os.WriteFile(a, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := split([]snapshot.Change{{Rel: "a.txt", Path: a}}, r.before[s.ID]["toolu_bg"].others)
	if len(o.Changes) != 0 || len(o.Others) != 0 {
		t.Fatalf("split = %+v", o)
	}
	r.Finished(s, []claude.ToolResult{{ToolUseID: "toolu_bg", IsError: true}}) // ended: compared now
	if *recorded != 0 {
		t.Errorf("%d files recorded as the command's, want none", *recorded)
	}
}

// A command that writes thousands of files: the first maxRecorded are
// recorded as the session's (checkpoint, round, blame), the rest are
// named under the prompt as not kept; the router is not held for each.
func TestACommandThatWritesThousandsOfFiles(t *testing.T) {
	r, s, dir, recorded := roomIn(t)
	r.Before(s, "toolu_1", toolcall.Decode(json.RawMessage(`{"command":"gen"}`)))
	n := maxRecorded + 50
	if v := os.Getenv("COMMANDS_FILES"); v != "" { // COMMANDS_FILES=100000: the 100k files
		n, _ = strconv.Atoi(v)
	}
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("g%05d.txt", i)), []byte("g\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.Finished(s, []claude.ToolResult{{ToolUseID: "toolu_1"}})
	if *recorded != maxRecorded {
		t.Errorf("%d files recorded, want %d", *recorded, maxRecorded)
	}
	turns := s.Turns.Turns()
	named := min(n-maxRecorded, checkpoint.MaxUnkeptNamed)
	if len(turns) != 1 || len(turns[0].Unkept) != named || turns[0].UnkeptMore != n-maxRecorded-named {
		t.Errorf("unkept %d named and %d more, want %d and %d", len(turns[0].Unkept), turns[0].UnkeptMore, named, n-maxRecorded-named)
	}
}
