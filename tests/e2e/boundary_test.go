package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const todoText = "buy milk\nsecret-token-42\n"

// openOutside opens ~/notes/todo.txt (with a diagnostic of its own), then a
// project file, as a user with notes open beside their work.
func (e *Env) openOutside() string {
	e.t.Helper()
	todo := filepath.Join(e.Home, "notes", "todo.txt")
	e.Cmd("edit " + todo)
	e.Lua(nil, `local ns = vim.api.nvim_create_namespace("boundary_test")
		vim.diagnostic.set(ns, 0, { { lnum = 1, col = 0, severity = vim.diagnostic.severity.ERROR, message = "outside-diag-77" } })`)
	e.WriteFile("a.lua", "local inside = 1\n")
	e.Cmd("edit a.lua")
	return todo
}

// With ~/notes/todo.txt open in a buffer and a broad mcp__nvim allow rule in
// the user's settings (so claude asks nothing), Claude's read of it waits
// for the user: denied, the model never gets its text; through a symlink in
// the project, allowed once, it does. Its diagnostic is left out of
// diagnostics {}, a project file answers without a prompt, and
// open_buffers names the outside buffer without its facts.
func TestEditorToolsKeepTheBoundary(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{HomeFiles: map[string]string{
			"notes/todo.txt":        todoText,
			".claude/settings.json": `{"permissions":{"allow":["mcp__nvim"]}}`,
		}})
		todo := e.openOutside()
		if err := os.Symlink(todo, filepath.Join(e.Project, "link.txt")); err != nil {
			t.Fatal(err)
		}
		id := e.newSession(Seq(
			nvimTool("buffer_text", map[string]any{"path": todo}),
			nvimTool("buffer_text", map[string]any{"path": "link.txt"}),
			nvimTool("diagnostics", nil),
			nvimTool("buffer_text", map[string]any{"path": "a.lua"}),
			nvimTool("open_buffers", nil),
			nvimTool("buffer_text", map[string]any{"path": "../home/notes/todo.txt"}),
		))
		p := e.waitPanel()
		if p.Tool != "mcp__nvim__buffer_text" || p.Target != "~/notes/todo.txt" {
			t.Fatalf("the request: %+v", p)
		}
		if os.Getenv("EDITORTOOLS_DEBUG") != "" {
			t.Logf("panel:\n%s", e.panelText())
		}
		mustContain(t, "the panel", e.panelText(), "Claude wants the text of ~/notes/todo.txt (open in your editor)",
			"Allow once", "Allow ~/notes/todo.txt for this session", "Allow everything in ~/notes/ for this session", "Deny")
		if strings.Contains(e.panelText(), "Always…") {
			t.Fatalf("Always… offered:\n%s", e.panelText())
		}
		// Deny, with a word for Claude.
		e.ScriptUI(nil, []string{"those are my private notes"})
		e.Input("d")
		r := e.WaitToolResult("toolu_s0")
		if !r.IsError || strings.Contains(r.Content, "secret-token-42") || !strings.Contains(r.Content, "those are my private notes") {
			t.Fatalf("denied: %+v", r)
		}
		// The same file through a link in the project: asked again, allowed once.
		p = e.waitPanel()
		if p.Target != "~/notes/todo.txt" {
			t.Fatalf("through the link: %+v", p)
		}
		e.Input("a")
		mustContain(t, "allowed through the link", e.toolText("toolu_s1"), "secret-token-42")
		diags := e.toolText("toolu_s2")
		if strings.Contains(diags, "outside-diag-77") || strings.Contains(diags, "todo") {
			t.Fatalf("diagnostics {} told the outside one:\n%s", diags)
		}
		mustContain(t, "diagnostics {}", diags, "(And 1 diagnostic in 1 file outside the project, not shown")
		mustContain(t, "a project file", e.toolText("toolu_s3"), "local inside = 1")
		mustContain(t, "open_buffers", e.toolText("toolu_s4"), "- ~/notes/todo.txt: outside the project: reading asks the user")
		// Allowed once is once: the next read asks again.
		p = e.waitPanel()
		e.Input("a")
		mustContain(t, "asked again", e.toolText("toolu_s5"), "secret-token-42")
		e.WaitIdle(id)
		// Before the user allowed it, no request to the model held the text.
		for _, txt := range e.Model.RequestTexts() {
			if strings.Contains(txt, "[tool_result toolu_s1]") {
				break
			}
			if strings.Contains(txt, "secret-token-42") || strings.Contains(txt, "outside-diag-77") {
				t.Fatalf("the model got outside text before the allow:\n%s", tail(txt, 800))
			}
		}
		if os.Getenv("EDITORTOOLS_DEBUG") != "" {
			t.Logf("transcript:\n%s", e.Transcript(id))
		}
		mustContain(t, "transcript", e.Transcript(id), "outside the project · denied by you", "allowed once by you")
	})
}

// With --add-dir ~/notes the notes are inside: no prompt. A project file
// outside the boundary's reach that claude's own Read deny rule covers is
// refused without asking, and the editor never reads it.
func TestAddedFolderIsInside(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{
			HomeFiles: map[string]string{"notes/todo.txt": todoText},
			Files:     map[string]string{".env": "API_KEY=hunter2\n", ".claude/settings.local.json": `{"permissions":{"deny":["Read(./.env)"]}}`},
			Setup:     map[string]any{"args": []string{"--add-dir", "{{home}}/notes"}},
		})
		todo := e.openOutside()
		e.Cmd("edit .env")
		e.Cmd("edit a.lua")
		id := e.newSession(Seq(
			nvimTool("buffer_text", map[string]any{"path": todo}),
			nvimTool("diagnostics", nil),
			nvimTool("buffer_text", map[string]any{"path": ".env"}),
		))
		mustContain(t, "an added folder", e.toolText("toolu_s0"), "secret-token-42")
		mustContain(t, "its diagnostics", e.toolText("toolu_s1"), "outside-diag-77")
		r := e.WaitToolResult("toolu_s2")
		if !r.IsError || strings.Contains(r.Content, "hunter2") || !strings.Contains(r.Content, "Read(./.env)") {
			t.Fatalf("a denied file: %+v", r)
		}
		e.WaitIdle(id)
		if e.requestAdded() {
			t.Fatalf("something asked: %+v", e.Events())
		}
		// :checkhealth states the boundary.
		e.Cmd("checkhealth claudenova")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		mustContain(t, "checkhealth", strings.Join(lines, "\n"), "counted as inside: ", "~/notes", "Read deny rules obeyed: Read(./.env)")
		_ = time.Second
	})
}

// An interrupt while the user has not answered withdraws the request: no
// row stays, and the tool never answers with the text.
func TestInterruptWithdrawsAnOutsideAsk(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{HomeFiles: map[string]string{"notes/todo.txt": todoText}})
		todo := e.openOutside()
		id := e.newSession(Seq(nvimTool("buffer_text", map[string]any{"path": todo})))
		e.waitPanel()
		e.Cmd("ClaudeNova interrupt")
		e.Eventually(10*time.Second, "the request withdrawn", func() bool { return len(e.Pending()) == 0 })
		e.WaitIdle(id)
		for _, txt := range e.Model.RequestTexts() {
			if strings.Contains(txt, "secret-token-42") {
				t.Fatalf("the model got the text:\n%s", tail(txt, 800))
			}
		}
		if e.PanelID() != "" {
			t.Fatalf("the panel stayed open")
		}
	})
}
