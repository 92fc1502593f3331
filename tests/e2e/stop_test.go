package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// X on a session whose turn waits on a request, with more tool calls
// scripted after it: the session reads as stopped at once, nothing of the
// turn runs (not the waiting command, not the Reads after it), its row
// leaves, a queued prompt is dropped and said so, and claude is gone.
func TestStopEndsTheTurn(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "alpha-content\n")
		e.WriteFile("b.txt", "bravo-content\n")
		e.ScriptUI([]string{"Stop it"}, nil)
		id := e.newSession(Seq(
			bash("touch stopped.txt", "make a file"),
			Step("Read", map[string]any{"file_path": "{{cwd}}/a.txt"}),
			Step("Task", map[string]any{"description": "look around", "subagent_type": "general-purpose",
				"prompt": `SEQ [["Read", {"file_path": "{{cwd}}/b.txt"}]]`}),
		))
		e.waitPanel()
		e.sendLua(id, "and then this")
		e.Cmd("ClaudeNova")
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for lnum, sid in pairs(sb.session_rows) do if sid == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, id)
		e.Input("X")
		e.KeysDone()
		// Stopped at once (the host does not wait for claude: the state
		// comes with the stop's own events).
		e.Eventually(10*time.Second, "stopped", func() bool { st, _ := e.SessionState(id); return st == "exited" })
		if n := len(e.Pending()); n != 0 {
			t.Fatalf("%d pending after the stop", n)
		}
		e.Eventually(10*time.Second, "claude gone", func() bool { return len(e.ClaudePids()) == 0 })
		// Every request claude made is in the model's log now: none carried a
		// result of the turn's tools, and the command never ran.
		for _, txt := range e.Model.RequestTexts() {
			for _, id := range []string{"toolu_s0", "toolu_s1", "toolu_s2"} {
				if strings.Contains(txt, "[tool_result "+id+"]") {
					t.Fatalf("a tool of the stopped turn ran (%s):\n%s", id, tail(txt, 600))
				}
			}
			if strings.Contains(txt, "alpha-content") || strings.Contains(txt, "bravo-content") {
				t.Fatalf("a Read of the stopped turn ran:\n%s", tail(txt, 600))
			}
		}
		if _, err := os.Stat(filepath.Join(e.Project, "stopped.txt")); err == nil {
			t.Fatal("the waiting command ran")
		}
		e.Eventually(10*time.Second, "the dropped prompt said", func() bool {
			return strings.Contains(e.Transcript(id), "Dropped 1 queued prompt claude had not read yet: “and then this”")
		})
		e.Eventually(10*time.Second, "the stop noted", func() bool { return strings.Contains(e.Transcript(id), "Session stopped.") })
		mustContain(t, "transcript", e.Transcript(id), "## You · checkpoint 2 · ", " · dropped\n")
	})
}
