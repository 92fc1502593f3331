package e2e

import (
	"strings"
	"testing"
	"time"
)

// The editor's MCP server "nvim" serves the TUI as it serves a stream-json
// session: a buffer inside the project is read without asking; one outside
// asks in the panel (the same boundary) and, denied, is never read.
func TestTUIEditorTools(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{HomeFiles: map[string]string{"notes/todo.txt": todoText}})
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

// The editor's context typed into the TUI: :ClaudeNova add on a range types
// @file#L2-3 into its input (the user goes on writing); [range]send types
// the reference and the prompt and submits it. claude reads the lines.
func TestTUIAddAndSendReferences(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		e.WriteFile("a.lua", "local one = 1\nlocal two = 2\nlocal three = 3\n")
		e.Cmd("edit a.lua")
		id, job := e.startTUI()
		e.Eventually(60*time.Second, "the TUI's input", func() bool { return strings.Contains(e.tuiScreen(id), "for shortcuts") })
		e.Cmd("wincmd p")
		e.Cmd("2,3ClaudeNova add")
		e.Eventually(20*time.Second, "the reference in the TUI's input", func() bool { return strings.Contains(e.tuiScreen(id), "@a.lua#L2-3") })
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("the TUI's screen:\n%s", e.tuiScreen(id))
			}
		})
		e.Lua(nil, "vim.fn.chansend(..., 'explain these')", job)
		e.Eventually(20*time.Second, "the prompt typed", func() bool { return strings.Contains(e.tuiScreen(id), "explain these") })
		e.Lua(nil, "vim.fn.chansend(..., '\\r')", job)
		e.Eventually(60*time.Second, "the model read lines 2-3", func() bool { return e.modelGot("explain these", "local two = 2") })
		e.Eventually(60*time.Second, "the TUI's reply", func() bool { return strings.Contains(e.tuiScreen(id), "You said") })
		e.Cmd("1ClaudeNova send and this one")
		e.Eventually(60*time.Second, "the model got the prompt and line 1", func() bool { return e.modelGot("and this one", "local one = 1") })
	})
}

// modelGot says whether one request to the model holds every text.
func (e *Env) modelGot(texts ...string) bool {
	for _, req := range e.Model.RequestTexts() {
		all := true
		for _, s := range texts {
			all = all && strings.Contains(req, s)
		}
		if all {
			return true
		}
	}
	return false
}
