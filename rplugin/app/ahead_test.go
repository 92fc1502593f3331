package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// stagedDirs lists the folders under the storage's proposed/.
func (m *mem) stagedDirs() []string {
	m.t.Helper()
	m.app.ahead.Settle()
	es, err := os.ReadDir(filepath.Join(m.dir, "storage", "proposed"))
	if err != nil && !os.IsNotExist(err) {
		m.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// A file change claude names before it asks is made meanwhile: the
// request takes it (staged under the tool call's id), and it is saved,
// rebased on an outside change and applied like any other.
func TestAProposalMadeWhileClaudeChecksIt(t *testing.T) {
	for _, outside := range []bool{false, true} {
		name := "saved"
		if outside {
			name = "rebased on an outside change, then saved"
		}
		t.Run(name, func(t *testing.T) {
			m := newMem(t)
			path := m.write("a.txt", "one\ntwo\nthree\n")
			_, c := m.session("go")
			edit := map[string]any{"file_path": path, "old_string": "two", "new_string": "TWO"}
			c.Name("toolu_e1", "Edit", edit)
			c.Ask("e1", "Edit", edit, nil)
			p := m.waitPending(1)[0]
			if p.Surface != "proposal" || !strings.HasPrefix(filepath.Base(filepath.Dir(p.Staged)), "toolu_e1-") {
				t.Fatalf("not the proposal made ahead: %+v", p)
			}
			if got, _ := os.ReadFile(p.Staged); string(got) != "one\nTWO\nthree\n" || p.Added != 1 || p.Removed != 1 {
				t.Fatalf("staged %q (+%d -%d)", got, p.Added, p.Removed)
			}
			want := "one\nTWO\nthree, by the user\n"
			save(t, p.Staged, want)
			if outside {
				m.write("a.txt", "zero\none\ntwo\nthree\n")
				if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
					t.Fatal(err)
				}
				if evs := rebaseEvents(m.rec); len(evs) != 1 || len(evs[0].Conflicts) != 0 {
					t.Fatalf("rebase events %+v", evs)
				}
				want = "zero\none\nTWO\nthree, by the user\n"
				if got, _ := os.ReadFile(p.Staged); string(got) != want {
					t.Fatalf("restaged %q", got)
				}
			}
			if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
				t.Fatal(err)
			}
			if got := applyAnswer(t, answer(t, c, "e1"), "Edit", path); got != want {
				t.Fatalf("the CLI would write %q, want %q", got, want)
			}
		})
	}
}

// The file changed between claude naming the edit and asking for it (a
// session still writing it): the proposal is made from the file as it is
// when claude asks, not as it was read ahead.
func TestAFileChangedWhileClaudeChecksIsReadAgain(t *testing.T) {
	m := newMem(t)
	path := m.write("a.txt", "one\ntwo\nthree\n")
	info, c := m.session("go")
	edit := map[string]any{"file_path": path, "old_string": "two", "new_string": "TWO"}
	c.Name("toolu_e1", "Edit", edit)
	m.routed(c, info.ID, "checking") // named, and being made
	m.app.ahead.Settle()
	m.write("a.txt", "one\ntwo\nthree\nand a fourth, written meanwhile\n")
	c.Ask("e1", "Edit", edit, nil)
	p := m.waitPending(1)[0]
	if got, _ := os.ReadFile(p.Staged); string(got) != "one\nTWO\nthree\nand a fourth, written meanwhile\n" {
		t.Fatalf("staged %q", got)
	}
	if dirs := m.stagedDirs(); len(dirs) != 1 || strings.HasPrefix(dirs[0], "toolu_e1-") {
		t.Fatalf("staged folders %v: the stale one must be gone", dirs)
	}
}

// Calls claude names and never asks for leave no staged file: one a rule
// allowed (its result came), and the turn's end for the rest.
func TestNamedAndNeverAskedLeavesNothing(t *testing.T) {
	m := newMem(t)
	path := m.write("a.txt", "one\ntwo\nthree\n")
	info, c := m.session("go")
	c.Name("toolu_a", "Edit", map[string]any{"file_path": path, "old_string": "one", "new_string": "1"})
	c.Name("toolu_b", "Edit", map[string]any{"file_path": path, "old_string": "two", "new_string": "2"})
	c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}}}, "parent_tool_use_id": nil, "session_id": ""})
	m.routed(c, info.ID, "after the result")
	if dirs := m.stagedDirs(); len(dirs) != 1 || !strings.HasPrefix(dirs[0], "toolu_b") {
		t.Fatalf("after toolu_a's result: %v", dirs)
	}
	c.PushJSON(map[string]any{"type": "result", "subtype": "success"})
	m.routed(c, info.ID, "after the turn")
	if dirs := m.stagedDirs(); len(dirs) != 0 {
		t.Fatalf("after the turn: %v", dirs)
	}
}

// routed waits until session id's router handled what was pushed before:
// it pushes a text of its own and waits for it in the transcript.
func (m *mem) routed(c *claudetest.Conn, id int, text string) {
	m.t.Helper()
	c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + text, "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": text}}}, "parent_tool_use_id": nil, "session_id": ""})
	m.rec.wait(m.t, text, func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(id), text) })
}
