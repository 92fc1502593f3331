package app

import (
	"os"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rewind"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// editResult is the tool result claude prints after an Edit it ran itself
// (acceptEdits), as 2.1.328 writes it.
func editResult(path, original string) map[string]any {
	return map[string]any{
		"type": "user", "session_id": "s", "parent_tool_use_id": nil,
		"message":         map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "updated"}}},
		"tool_use_result": map[string]any{"filePath": path, "oldString": "x", "newString": "y", "originalFile": original, "userModified": false},
	}
}

func userUUIDs(c *claudetest.Conn) []string {
	var out []string
	for _, w := range c.Written() {
		if w.Type == "user" {
			id, _ := w.Value["uuid"].(string)
			out = append(out, id)
		}
	}
	return out
}

func TestPromptsCarryTheirCheckpointID(t *testing.T) {
	m := newMem(t)
	info, c := m.session("first")
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "second"}); err != nil {
		t.Fatal(err)
	}
	ids := userUUIDs(c)
	s, _ := m.app.sessions.Get(info.ID)
	turns := s.Turns.Turns()
	if len(ids) != 2 || ids[0] == "" || ids[0] == ids[1] || len(turns) != 2 || turns[0].ID != ids[0] || turns[1].ID != ids[1] {
		t.Fatalf("prompt ids %q, turns %+v", ids, turns)
	}
	if !s.Checkpoints {
		t.Fatal("checkpoints are on by default")
	}
	if tr := m.rec.transcriptText(info.ID); !strings.Contains(tr, "## You · checkpoint 2 · ") {
		t.Fatalf("the prompt's heading does not name its checkpoint:\n%s", tr)
	}
}

func TestCheckpointsOffSaysSo(t *testing.T) {
	m := newMem(t)
	off := false
	if err := m.app.Configure(Options{Storage: m.dir + "/st", Checkpoints: &off}); err != nil {
		t.Fatal(err)
	}
	info, _ := m.session("hi")
	err := m.app.Rooms().Rewind.Checkpoints(Later{Session: info.ID, ReplyTo: desk.ReplyTo{Token: "t"}})
	if err == nil || !strings.Contains(err.Error(), "checkpoints = false") {
		t.Fatalf("err = %v", err)
	}
}

func TestChangesUndoHunkAndClaudeIsTold(t *testing.T) {
	m := newMem(t)
	before := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"
	after := "l1\nL2\nl3\nl4\nl5\nL6\nl7\nl8\nL9\n"
	path := m.write("f.txt", after)
	info, c := m.session("change three lines")
	c.PushJSON(editResult(path, before))
	c.PushJSON(map[string]any{"type": "result", "subtype": "success", "session_id": "s", "is_error": false})
	m.rec.wait(t, "idle", func([]ui.Event) bool { s, _ := m.app.sessions.Get(info.ID); return s.State() == session.StateIdle })

	v, err := m.app.Rooms().Rewind.Changes(rewind.ChangesParams{Session: info.ID})
	if err != nil || len(v.Files) != 1 || len(v.Files[0].Hunks) != 3 || v.Files[0].Before != before || v.Files[0].Now != after {
		t.Fatalf("changes = %+v, %v", v, err)
	}
	f := v.Files[0]
	if _, err := m.app.Rooms().Rewind.UndoHunk(rewind.UndoParams{Session: info.ID, Turn: v.Turn, Path: path, Hunk: 2, Sum: "stale"}); err == nil || !strings.Contains(err.Error(), "changed on disk since") {
		t.Fatalf("a stale view was not refused: %v", err)
	}
	if _, err := m.app.Rooms().Rewind.UndoHunk(rewind.UndoParams{Session: info.ID, Turn: v.Turn, Path: path, Hunk: 4, Sum: f.Sum}); err == nil || err.Error() != "there is no hunk 4 (the change has 3)" {
		t.Fatalf("hunk 4 of 3: %v", err)
	}
	got, err := m.app.Rooms().Rewind.UndoHunk(rewind.UndoParams{Session: info.ID, Turn: v.Turn, Path: path, Hunk: 2, Sum: f.Sum})
	if err != nil {
		t.Fatal(err)
	}
	disk, _ := os.ReadFile(path)
	if want := "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nL9\n"; string(disk) != want || got.Now != want || len(got.Hunks) != 2 {
		t.Fatalf("disk %q, view %+v", disk, got)
	}
	// The turn is over: the note waits for the next prompt, and goes first in it.
	if n := len(c.UserTexts()); n != 1 {
		t.Fatalf("%d user messages before the next prompt", n)
	}
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "go on"}); err != nil {
		t.Fatal(err)
	}
	texts := c.UserTexts()
	last := texts[len(texts)-1]
	if !strings.Contains(last, "undid part of your change to f.txt") || !strings.Contains(last, "-L6\n+l6") || !strings.HasSuffix(last, "go on") {
		t.Fatalf("next prompt:\n%s", last)
	}
	if tr := m.rec.transcriptText(info.ID); !strings.Contains(tr, "Claude reads this note with your next prompt.") {
		t.Fatalf("transcript:\n%s", tr)
	}
}

func (m *mem) waitReply(t *testing.T, token string) map[string]any {
	t.Helper()
	var got map[string]any
	m.rec.wait(t, "reply "+token, func(evs []ui.Event) bool {
		for _, e := range evs {
			if mk, ok := e.Data.(ui.Mark); ok && e.Name == ui.EvMark && mk.Token == token {
				got = markMap(mk)
				return true
			}
		}
		return false
	})
	return got
}
