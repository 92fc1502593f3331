package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// told keeps the notifications the room sends.
type told struct {
	mu   sync.Mutex
	msgs []string
}

func (s *told) Send(ev string, payload any) {
	if ev != ui.EvNotify {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, payload.(map[string]any)["msg"].(string))
}

func (s *told) containing(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.msgs {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

// A notes ref that cannot be read (it names a blob, not a notes tree) or
// written (locked): the commit gets no note and the user is told, once per
// repository, with the fix; once a note is written again, a new failure
// is told again.
func TestANotesRefThatFailsIsToldOnceWithTheFix(t *testing.T) {
	f := newFixture(t, true)
	sink := &told{}
	f.room.d = desk.New(sink, session.NewManager(), nil)
	blob := git(t, f.top, "hash-object", "-w", filepath.Join(f.top, "a.txt"))
	git(t, f.top, "update-ref", gitai.Ref, blob)
	f.commit(map[string]string{"a.txt": "one\nC:two\n"}, "-m", "w")
	f.check()
	f.commit(map[string]string{"a.txt": "one\nC:two\nC:three\n"}, "-m", "w2")
	f.check()
	fix := "Fix, in " + f.top + ": git update-ref refs/notes/ai-unreadable refs/notes/ai && git update-ref -d refs/notes/ai"
	if sink.containing("refs/notes/ai cannot be read") != 1 || sink.containing(fix) != 1 {
		t.Fatalf("told %q; want the unreadable ref told once with %q", sink.msgs, fix)
	}
	// The fix as told: a note is written again.
	git(t, f.top, "update-ref", "refs/notes/ai-unreadable", gitai.Ref)
	git(t, f.top, "update-ref", "-d", gitai.Ref)
	sha := f.commit(map[string]string{"a.txt": "one\nC:two\nC:three\nC:four\n"}, "-m", "w3")
	f.noted(sha, "a.txt\n  claude 4")
	// Locked: told (again: a note was written in between), with the lock.
	lock := filepath.Join(f.top, ".git", "refs", "notes", "ai.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.commit(map[string]string{"a.txt": "one\nC:five\n"}, "-m", "w4")
	f.check()
	f.commit(map[string]string{"a.txt": "one\nC:six\n"}, "-m", "w5")
	f.check()
	if sink.containing("refs/notes/ai is locked") != 1 || sink.containing("remove "+lock+" and commit again") != 1 {
		t.Fatalf("told %q; want the lock told once, naming %s", sink.msgs, lock)
	}
}

// A repository a session ran in (its last HEAD kept in storage) is watched
// again when the host starts, with no session: an amend there keeps its
// note.
func TestAnAmendWithNoSessionKeepsItsNote(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "one\nC:two\n"}, "-m", "w")
	f.check()
	f.room.saveHead(f.top, sha) // as a session's watch left it
	f.noted(sha, "a.txt\n  claude 2")
	// A new host: a new room on the same storage, no session.
	again := New(desk.New(nowhere{}, session.NewManager(), nil), f.room.deps)
	defer again.Close()
	again.Resume()
	amended := f.commit(nil, "--amend", "-m", "w, reworded")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, found := f.note(amended); found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the amended commit got no note with no session running")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Where git blame aligns a commit's lines otherwise than the live record
// (a line added beside its twin: git calls the first "}" new, the record
// the second), the note names the lines git blame gives the commit, with
// as many of Claude's lines: blame from the notes (here, after a restart,
// in a fresh clone) reads the same lines as Claude's.
func TestTheNoteNamesTheLinesGitBlameGivesTheCommit(t *testing.T) {
	f := newFixture(t, false)
	f.commit(map[string]string{"a.txt": "}\n}\nb\n"}, "-m", "init")
	f.rp.head = git(t, f.top, "rev-parse", "HEAD")
	// The record, by this plugin's diff: lines 3, 4 and 6 are Claude's.
	f.room.deps.Authors = func(path, text string) []review.Author {
		out := make([]review.Author, 7)
		for i := range out {
			out[i] = review.Author{Kind: review.You}
		}
		for _, l := range []int{3, 4, 6} {
			out[l] = review.Author{Kind: review.Claude, ClaudeID: "sess", Model: "m", Turn: 1}
		}
		return out
	}
	sha := f.commit(map[string]string{"a.txt": "}\n}\n\n}\nb\n\n"}, "-m", "twins")
	f.noted(sha, "a.txt\n  claude 2-3,6")
	authors := f.room.Committed(filepath.Join(f.top, "a.txt"), "}\n}\n\n}\nb\n\n")
	kinds := ""
	for _, a := range authors[1:] {
		kinds += map[review.Kind]string{"": "-", review.You: "y", review.Claude: "c"}[a.Kind]
	}
	if kinds != "yccyyc" {
		t.Fatalf("blame from the notes %q, want yccyyc", kinds)
	}
}

// With git's notes.rewriteRef, git copies the note to the amended commit
// as it was (base_commit_sha naming the replaced commit); the host makes
// it name the commit it is on, lines and fields kept.
func TestANoteGitCopiedNamesItsNewCommit(t *testing.T) {
	f := newFixture(t, true)
	git(t, f.top, "config", "notes.rewriteRef", gitai.Ref)
	sha := f.commit(map[string]string{"a.txt": "one\nC:two\n"}, "-m", "w")
	f.check()
	amended := f.commit(nil, "--amend", "-m", "w, reworded")
	copied, _ := f.note(amended)
	if !strings.Contains(copied, `"base_commit_sha": "`+sha+`"`) {
		t.Fatalf("git did not copy the note as it was:\n%s", copied)
	}
	f.check()
	text, _ := f.note(amended)
	if want := strings.Replace(copied, sha, amended, 1); text != want {
		t.Fatalf("the copied note:\n%s\nwant:\n%s", text, want)
	}
}
