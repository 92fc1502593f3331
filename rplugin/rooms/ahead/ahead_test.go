package ahead

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

type bed struct {
	t       *testing.T
	dir     string // the project
	storage string
	review  string // the review option in effect ("proposal" or "panel")
	lock    *sync.Mutex
	room    *Room

	mu   sync.Mutex
	sent []string // "event id" of what the room sent the front end
}

func newBed(t *testing.T) *bed {
	t.Helper()
	b := &bed{t: t, dir: t.TempDir(), storage: t.TempDir(), review: "proposal", lock: &sync.Mutex{}}
	b.room = New(nil, b.lock, proposal.ReadFile, func(ev string, data any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.sent = append(b.sent, ev+" "+data.(map[string]string)["id"])
	}, func() (string, string) { return b.storage, b.review })
	t.Cleanup(b.room.Settle)
	return b
}

func (b *bed) events() []string {
	b.room.Settle()
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.sent...)
}

func (b *bed) write(name, content string) string {
	b.t.Helper()
	p := filepath.Join(b.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
	return p
}

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	r, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// name names one tool call in an assistant message and waits until it is
// made.
func (b *bed) name(session int, mode, review, toolUse, tool string, input any) {
	b.t.Helper()
	a := &claude.Assistant{Content: []claude.Block{{Type: "tool_use", ID: toolUse, Name: tool, Input: raw(b.t, input)}}}
	b.review = review
	b.room.Named(session, b.dir, mode, a)
	b.room.Settle()
}

// ask is claude asking for tool call toolUse.
func (b *bed) ask(session int, toolUse, tool string, input any) *Taken {
	b.t.Helper()
	in := raw(b.t, input)
	pr := claude.PermissionRequest{RequestID: "req-" + toolUse, ToolName: tool, Input: in, In: toolcall.Decode(in), ToolUseID: toolUse}
	t := b.room.Take(session, pr, b.dir, proposal.ReadFile)
	b.lock.Unlock() // Take returns holding it
	return t
}

// staged lists the folders under <storage>/proposed.
func (b *bed) staged() []string {
	b.t.Helper()
	b.room.Settle()
	es, err := os.ReadDir(filepath.Join(b.storage, "proposed"))
	if err != nil && !os.IsNotExist(err) {
		b.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A call claude named and then asks for unchanged is taken as it was made:
// staged once, under the tool call's id.
func TestTakenAsMade(t *testing.T) {
	b := newBed(t)
	path := b.write("a.txt", "one\ntwo\nthree\n")
	edit := map[string]any{"file_path": path, "old_string": "two", "new_string": "TWO"}
	b.name(1, "default", "proposal", "toolu_1", "Edit", edit)
	if got := b.staged(); len(got) != 1 {
		t.Fatalf("staged ahead: %v", got)
	}
	// claude's own order of the input's keys differs from the message's.
	tk := b.ask(1, "toolu_1", "Edit", map[string]any{"new_string": "TWO", "old_string": "two", "file_path": path})
	if tk.Err != nil || tk.Staged == "" || tk.StageKey != "toolu_1" {
		t.Fatalf("not taken as made: %+v", tk)
	}
	if got := readFile(t, tk.Staged); got != "one\nTWO\nthree\n" {
		t.Fatalf("staged %q", got)
	}
	if s := tk.Summary(); s == nil || s.Added != 1 || s.Removed != 1 {
		t.Fatalf("summary %+v", s)
	}
	if got := b.staged(); len(got) != 1 {
		t.Fatalf("staged again: %v", got)
	}
	if b.room.Pending() != 0 {
		t.Fatalf("%d calls left", b.room.Pending())
	}
}

// What is asked for is made anew, and what was made ahead removed, when
// it is not what claude asks for: the file changed meanwhile (a session
// still writing it, a user saving it), another input, tool or folder.
func TestMadeAnewWhenNotWhatIsAsked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		between func(b *bed, path string)
		tool    string
		input   func(path string) map[string]any
		want    string
		session int
	}{
		{name: "the file changed", between: func(b *bed, path string) { b.write("a.txt", "one\ntwo\nthree\nfour\n") },
			want: "one\nTWO\nthree\nfour\n"},
		{name: "the file changed, same size", between: func(b *bed, path string) { b.write("a.txt", "one\ntwo\nthre3\n") },
			want: "one\nTWO\nthre3\n"},
		{name: "the file removed", between: func(b *bed, path string) { os.Remove(path) }, want: ""},
		{name: "the file replaced by a FIFO", between: func(b *bed, path string) {
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				b.t.Skip("no FIFO here:", err)
			}
		}, want: ""},
		{name: "another input", input: func(path string) map[string]any {
			return map[string]any{"file_path": path, "old_string": "two", "new_string": "2"}
		}, want: "one\n2\nthree\n"},
		{name: "another tool", tool: "Write", input: func(path string) map[string]any {
			return map[string]any{"file_path": path, "content": "written\n"}
		}, want: "written\n"},
		{name: "another session's call of the same id", session: 2, want: "one\nTWO\nthree\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBed(t)
			path := b.write("a.txt", "one\ntwo\nthree\n")
			edit := map[string]any{"file_path": path, "old_string": "two", "new_string": "TWO"}
			b.name(1, "default", "proposal", "toolu_1", "Edit", edit)
			if tc.between != nil {
				tc.between(b, path)
			}
			tool, input, session := "Edit", edit, 1
			if tc.tool != "" {
				tool = tc.tool
			}
			if tc.input != nil {
				input = tc.input(path)
			}
			if tc.session != 0 {
				session = tc.session
			}
			tk := b.ask(session, "toolu_1", tool, input)
			if tk.Staged != "" {
				t.Fatalf("taken as made ahead: %+v", tk)
			}
			if tc.want == "" {
				if tk.Err == nil {
					t.Fatalf("made a change of a removed file: %+v", tk.Change)
				}
			} else if tk.Err != nil || tk.Change == nil || string(tk.Change.Proposed) != tc.want {
				t.Fatalf("made anew: %+v, want %q", tk, tc.want)
			}
			if tc.session == 0 {
				if got := b.staged(); len(got) != 0 {
					t.Fatalf("the stale one is kept: %v", got)
				}
			}
		})
	}
}

// Calls claude never asks for leave nothing behind: their results came (a
// rule allowed them), the turn or the session ended.
func TestNeverAskedIsRemoved(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(r *Room)
	}{
		{"its result came", func(r *Room) { r.Finished(1, []claude.ToolResult{{ToolUseID: "toolu_1"}}) }},
		{"the turn ended", func(r *Room) { r.Forget(1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBed(t)
			path := b.write("a.txt", "one\ntwo\n")
			b.name(1, "default", "proposal", "toolu_1", "Edit", map[string]any{"file_path": path, "old_string": "two", "new_string": "2"})
			b.name(1, "default", "proposal", "toolu_2", "Edit", map[string]any{"file_path": path, "old_string": "one", "new_string": "1"})
			b.name(2, "default", "proposal", "toolu_1", "Edit", map[string]any{"file_path": path, "old_string": "one", "new_string": "1"})
			if got := b.staged(); len(got) != 3 {
				t.Fatalf("staged ahead: %v", got)
			}
			tc.end(b.room)
			want := 2 // session 1's other call, session 2's
			if tc.name == "the turn ended" {
				want = 1
			}
			if got := b.staged(); len(got) != want {
				t.Fatalf("left %v, want %d", got, want)
			}
		})
	}
}

// A call dropped while it is still being made stages nothing, or has what
// it staged removed.
func TestDroppedWhileMaking(t *testing.T) {
	b := newBed(t)
	path := b.write("a.txt", strings.Repeat("a line of the file\n", 50000)+"last\n")
	a := &claude.Assistant{Content: []claude.Block{{Type: "tool_use", ID: "toolu_1", Name: "Edit",
		Input: raw(t, map[string]any{"file_path": path, "old_string": "last", "new_string": "LAST"})}}}
	b.room.Named(1, b.dir, "default", a)
	b.room.Forget(1)
	if got := b.staged(); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
}

// Nothing is made for a session that will not ask (its mode lets edits
// through), one that reviews edits in the panel, a notebook's cell, an
// input too large, or what is not a file change.
func TestNotMadeAhead(t *testing.T) {
	for _, tc := range []struct {
		name, mode, review, tool string
		input                    func(path string) map[string]any
	}{
		{name: "acceptEdits", mode: "acceptEdits"},
		{name: "bypassPermissions", mode: "bypassPermissions"},
		{name: "dontAsk", mode: "dontAsk"},
		{name: "reviewed in the panel", review: "panel"},
		{name: "a notebook", tool: "NotebookEdit", input: func(path string) map[string]any {
			return map[string]any{"notebook_path": path, "new_source": "x"}
		}},
		{name: "Bash", tool: "Bash", input: func(string) map[string]any { return map[string]any{"command": "ls"} }},
		{name: "a Write over the limit", tool: "Write", input: func(path string) map[string]any {
			return map[string]any{"file_path": path, "content": strings.Repeat("x", MaxInput)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBed(t)
			path := b.write("a.txt", "one\ntwo\n")
			mode, review, tool := "default", "proposal", "Edit"
			input := map[string]any{"file_path": path, "old_string": "two", "new_string": "2"}
			if tc.mode != "" {
				mode = tc.mode
			}
			if tc.review != "" {
				review = tc.review
			}
			if tc.tool != "" {
				tool, input = tc.tool, tc.input(path)
			}
			b.name(1, mode, review, "toolu_1", tool, input)
			if got := b.staged(); len(got) != 0 || b.room.Pending() != 0 {
				t.Fatalf("made ahead: %v (%d calls)", got, b.room.Pending())
			}
		})
	}
}

// The sweep of stale proposals keeps what is made ahead, and a new file
// (a Write) is taken while it is still missing.
func TestKeptBySweepAndNewFile(t *testing.T) {
	b := newBed(t)
	path := filepath.Join(b.dir, "new.txt")
	write := map[string]any{"file_path": path, "content": "new\n"}
	b.name(1, "default", "proposal", "toolu_1", "Write", write)
	keep := map[string]bool{}
	b.lock.Lock()
	b.room.Keep(keep, func(staged string) string { return filepath.Base(filepath.Dir(staged)) })
	n, err := proposal.CleanStale(b.storage, keep)
	b.lock.Unlock()
	if err != nil || n != 0 {
		t.Fatalf("the sweep removed %d (%v)", n, err)
	}
	tk := b.ask(1, "toolu_1", "Write", write)
	if tk.Staged == "" || readFile(t, tk.Staged) != "new\n" {
		t.Fatalf("not taken: %+v", tk)
	}
	// The same Write named again, the file created meanwhile: made anew.
	b.name(1, "default", "proposal", "toolu_2", "Write", write)
	b.write("new.txt", "someone else's\n")
	if tk := b.ask(1, "toolu_2", "Write", write); tk.Staged != "" {
		t.Fatalf("taken over a file created meanwhile: %+v", tk)
	}
}

// At most maxCalls calls wait at once; what is over is made when asked.
func TestBounded(t *testing.T) {
	b := newBed(t)
	path := b.write("a.txt", "one\ntwo\n")
	for i := range maxCalls + 3 {
		b.name(1, "default", "proposal", "toolu_"+strings.Repeat("x", i+1), "Edit",
			map[string]any{"file_path": path, "old_string": "two", "new_string": "2"})
	}
	if n := b.room.Pending(); n != maxCalls {
		t.Fatalf("%d calls wait", n)
	}
	b.room.Forget(1)
	if got := b.staged(); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
}

// A large file's original is read by the editor too while the change is
// made (as when claude asks for one nothing made); the request that takes
// the change names it, and one never taken tells the editor to drop it.
func TestALargeOriginalIsReadAheadByTheEditor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int
		taken bool
		want  []string
	}{
		{"a small file", PrepareSize - 1, true, nil},
		{"a large file, taken", PrepareSize, true, []string{"proposal_prepare ahead:1:toolu_1"}},
		{"a large file, never asked for", PrepareSize, false,
			[]string{"proposal_prepare ahead:1:toolu_1", "proposal_unprepare ahead:1:toolu_1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBed(t)
			path := b.write("big.txt", "first line\n"+strings.Repeat("x", tc.size-len("first line\n")))
			edit := map[string]any{"file_path": path, "old_string": "first line", "new_string": "FIRST LINE"}
			b.name(1, "default", "proposal", "toolu_1", "Edit", edit)
			if tc.taken {
				tk := b.ask(1, "toolu_1", "Edit", edit)
				if tk.Staged == "" {
					t.Fatalf("not taken: %+v", tk.Err)
				}
				if want := strings.TrimPrefix(strings.Join(tc.want, ""), "proposal_prepare "); tk.Prepared != want {
					t.Fatalf("the request names %q as read ahead, want %q", tk.Prepared, want)
				}
			} else {
				b.room.Finished(1, []claude.ToolResult{{ToolUseID: "toolu_1"}})
			}
			if got := b.events(); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("sent %q, want %q", got, tc.want)
			}
		})
	}
}

// What calls made ahead hold is bounded: one over the bound is made when
// claude asks, as before; a request never waits for a call that has not
// begun (the makers are busy): it makes the change itself.
func TestHeldAndWaitingAreBounded(t *testing.T) {
	t.Run("over the bytes held", func(t *testing.T) {
		b := newBed(t)
		path := b.write("a.txt", "one\ntwo\nthree\n")
		b.room.maxHeld = 20 // the file before and after: 28 bytes
		edit := map[string]any{"file_path": path, "old_string": "two", "new_string": "TWO"}
		b.name(1, "default", "proposal", "toolu_1", "Edit", edit)
		if got := b.staged(); len(got) != 0 {
			t.Fatalf("made ahead over the bound: %v", got)
		}
		tk := b.ask(1, "toolu_1", "Edit", edit)
		if tk.Staged != "" || tk.Err != nil || string(tk.Change.Proposed) != "one\nTWO\nthree\n" {
			t.Fatalf("made when asked: %+v", tk)
		}
		if b.room.held != 0 {
			t.Fatalf("%d bytes counted as held", b.room.held)
		}
	})
	t.Run("the makers busy", func(t *testing.T) {
		b := newBed(t)
		path := b.write("a.txt", "one\ntwo\nthree\n")
		for range makers {
			b.room.turns <- struct{}{} // every maker busy
		}
		edit := map[string]any{"file_path": path, "old_string": "two", "new_string": "TWO"}
		a := &claude.Assistant{Content: []claude.Block{{Type: "tool_use", ID: "toolu_1", Name: "Edit", Input: raw(t, edit)}}}
		b.room.Named(1, b.dir, "default", a)
		tk := b.ask(1, "toolu_1", "Edit", edit) // would wait forever for its turn
		if tk.Staged != "" || tk.Err != nil || string(tk.Change.Proposed) != "one\nTWO\nthree\n" {
			t.Fatalf("made when asked: %+v", tk)
		}
		for range makers {
			<-b.room.turns
		}
		if got := b.staged(); len(got) != 0 || b.room.Pending() != 0 {
			t.Fatalf("made ahead after all: %v (%d calls)", got, b.room.Pending())
		}
	})
	t.Run("taken and dropped give back what they held", func(t *testing.T) {
		b := newBed(t)
		path := b.write("a.txt", "one\ntwo\nthree\n")
		one := map[string]any{"file_path": path, "old_string": "one", "new_string": "1"}
		two := map[string]any{"file_path": path, "old_string": "two", "new_string": "2"}
		b.name(1, "default", "proposal", "toolu_1", "Edit", one)
		b.name(1, "default", "proposal", "toolu_2", "Edit", two)
		if b.room.held == 0 {
			t.Fatal("nothing counted as held")
		}
		b.ask(1, "toolu_1", "Edit", one)
		b.room.Forget(1)
		b.room.Settle()
		if b.room.held != 0 {
			t.Fatalf("%d bytes still counted as held", b.room.held)
		}
	})
}

func TestNames(t *testing.T) {
	edit := raw(t, map[string]any{"file_path": "/a", "old_string": "a", "new_string": "b"})
	for _, tc := range []struct {
		name   string
		blocks []claude.Block
		want   bool
	}{
		{"text", []claude.Block{{Type: "text"}}, false},
		{"a Bash call", []claude.Block{{Type: "tool_use", ID: "t", Name: "Bash", Input: raw(t, map[string]any{"command": "ls"})}}, false},
		{"an Edit without an id", []claude.Block{{Type: "tool_use", Name: "Edit", Input: edit}}, false},
		{"text and an Edit", []claude.Block{{Type: "text"}, {Type: "tool_use", ID: "t", Name: "Edit", Input: edit}}, true},
	} {
		if got := Names(&claude.Assistant{Content: tc.blocks}); got != tc.want {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
	if Names(nil) {
		t.Error("nil names a call")
	}
}
