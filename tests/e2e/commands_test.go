package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A command's edits are Claude's edits: an allowed Bash that runs sed -i on
// a committed file and creates another has both listed under its prompt in
// checkpoints(), named under the command in the transcript, and rewind
// restores the first and removes the second. Committed, the authorship
// note gives their lines to the session.
func TestACommandsChangesAreSeen(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\n", "keep.txt": "keep\n"})
		a, n := filepath.Join(e.Project, "a.txt"), filepath.Join(e.Project, "n.txt")
		id := e.newSession(Seq(bash("sed -i 's/two/TWO/' a.txt && echo new > n.txt", "edit a.txt, make n.txt")))
		p := e.WaitPending(1)[0]
		var ok bool
		e.Lua(&ok, "return require('claudenova').decide(..., 'allow')", p.ID)
		e.Eventually(60*time.Second, "the command ran", func() bool { return e.ReadFile("n.txt") == "new\n" })
		e.WaitIdle(id)
		if got := e.ReadFile("a.txt"); got != "one\nTWO\n" {
			t.Fatalf("a.txt = %q", got)
		}
		if tr := e.Transcript(id); !strings.Contains(tr, "changed 2 files +2 −1: a.txt, n.txt (new)") {
			t.Fatalf("the transcript does not name what the command changed:\n%s", tr)
		}
		cps := e.checkpoints()
		if len(cps) != 1 || strings.Join(cps[0].Files, ",") != a+","+n {
			t.Fatalf("checkpoints = %+v, want a.txt and n.txt under the prompt", cps)
		}
		// Committed, the authorship note gives both files' lines to the
		// session (before, they were the user's: no note at all).
		e.gitIn(e.Project, "add", "-A")
		e.gitIn(e.Project, "commit", "-qm", "by a command")
		var note string
		e.Eventually(30*time.Second, "the commit's authorship note", func() bool {
			note = e.noteOf(e.Project, "HEAD")
			return note != ""
		})
		if !strings.Contains(note, "a.txt\n  ") || !strings.Contains(note, "n.txt\n  ") {
			t.Fatalf("the note does not give a.txt and n.txt to the session:\n%s", note)
		}
		var res []any
		e.Lua(&res, "return { require('claudenova').rewind(...) }", cps[0].ID)
		if len(res) != 2 || res[0] != true {
			t.Fatalf("rewind = %v", res)
		}
		if got := e.ReadFile("a.txt"); got != "one\ntwo\n" {
			t.Errorf("a.txt after the rewind = %q", got)
		}
		if _, err := os.Stat(n); !os.IsNotExist(err) {
			t.Errorf("n.txt is still there after the rewind (%v)", err)
		}
		if got := e.ReadFile("keep.txt"); got != "keep\n" {
			t.Errorf("keep.txt = %q", got)
		}
	})
}
