package e2e

import (
	"strings"
	"testing"
)

// The editor's MCP server "nvim" serves the TUI as it serves a stream-json
// session: a buffer inside the project is read without asking; one outside
// asks in the panel (the same boundary) and, denied, is never read.
func TestTUIEditorTools(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{HomeFiles: map[string]string{"notes/todo.txt": todoText}})
		e.trustForTUI()
		todo := e.openOutside()
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(
			nvimTool("buffer_text", map[string]any{"path": "a.lua"}),
			nvimTool("buffer_text", map[string]any{"path": todo}),
		), "SEQ")
		mustContain(t, "buffer_text inside", e.toolText("toolu_s0"), "local inside = 1")
		p := e.waitPanel()
		if p.Tool != "mcp__nvim__buffer_text" || p.Target != "~/notes/todo.txt" || p.Session != id {
			t.Fatalf("the request: %+v", p)
		}
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestAdded" && ev.ID != p.ID {
				t.Fatalf("the read inside the project asked: %+v", ev)
			}
		}
		e.ScriptUI(nil, []string{"those are my private notes"})
		e.Input("d")
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || strings.Contains(r.Content, "secret-token-42") || !strings.Contains(r.Content, "those are my private notes") {
			t.Fatalf("denied: %+v", r)
		}
	})
}
