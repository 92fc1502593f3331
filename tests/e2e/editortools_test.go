package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// nvimTool is a scripted call of one of the editor's tools.
func nvimTool(name string, input map[string]any) [2]any {
	if input == nil {
		input = map[string]any{}
	}
	return Step("mcp__nvim__"+name, input)
}

// toolText is the text of the tool_result for id (as the model got it).
func (e *Env) toolText(id string) string {
	e.t.Helper()
	r := e.WaitToolResult(id)
	if r.IsError {
		e.t.Fatalf("tool %s failed: %s", id, r.Content)
	}
	return r.Content
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Fatalf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// requestAdded reports whether any permission request reached the UI.
func (e *Env) requestAdded() bool {
	for _, ev := range e.Events() {
		if ev.Kind == "ClaudeNovaRequestAdded" {
			return true
		}
	}
	return false
}

// An unsaved buffer with a diagnostic and a visual selection: Claude reads
// all of it from the live editor, nothing asks the user, and every call is
// a line in the transcript.
func TestEditorToolsReadTheEditor(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.lua", "local x = 1\nreturn x\n")
		e.Cmd("edit a.lua")
		// Unsaved: the disk still has the two lines above.
		e.Lua(nil, `vim.api.nvim_buf_set_lines(0, 0, -1, false, { "local x = 1", "local y = x + 1", "return y + z" })
			local ns = vim.api.nvim_create_namespace("editortools_test")
			vim.diagnostic.set(ns, 0, {
				{ lnum = 2, col = 11, severity = vim.diagnostic.severity.ERROR, message = "undefined global 'z'", source = "lua_ls" },
				{ lnum = 1, col = 6, severity = vim.diagnostic.severity.WARN, message = "unused local 'y'", source = "lua_ls" },
			})`)
		// A language server of its own (in-process) that serves hover only.
		e.Lua(nil, `local function server(dispatchers)
				local closing, n = false, 0
				local function later(cb, err, res) vim.schedule(function() cb(err, res) end) end
				return {
					request = function(method, params, cb)
						n = n + 1
						if method == "initialize" then
							later(cb, nil, { capabilities = { hoverProvider = true } })
						elseif method == "textDocument/hover" then
							later(cb, nil, { contents = { kind = "markdown", value = ("hover at %d:%d"):format(params.position.line, params.position.character) } })
						else
							later(cb, nil, vim.NIL)
						end
						return true, n
					end,
					notify = function(method)
						if method == "exit" then dispatchers.on_exit(0, 15) end
						return true
					end,
					is_closing = function() return closing end,
					terminate = function() closing = true end,
				}
			end
			vim.lsp.start({ name = "hoverls", cmd = server, root_dir = vim.fn.getcwd() }, { bufnr = 0 })`)
		e.Eventually(10*time.Second, "hoverls attached", func() bool {
			var n int
			e.Lua(&n, `return #vim.lsp.get_clients({ bufnr = 0, method = "textDocument/hover" })`)
			return n > 0
		})
		e.WriteFile("notes.txt", "no server for this one\n")
		// A linewise visual selection of lines 2-3, then back to normal mode.
		e.Input("2GVj<Esc>")
		e.WaitMode("n")
		id := e.newSession(Seq(
			nvimTool("open_buffers", nil),
			nvimTool("diagnostics", map[string]any{"path": "a.lua"}),
			nvimTool("buffer_text", map[string]any{"path": "{{cwd}}/a.lua"}),
			nvimTool("selection", nil),
			nvimTool("diagnostics", nil),
			nvimTool("lsp_hover", map[string]any{"path": "a.lua", "line": 2, "column": 7}),
			nvimTool("lsp_definition", map[string]any{"path": "a.lua", "line": 2, "column": 7}),
			nvimTool("document_symbols", map[string]any{"path": "notes.txt"}),
		))
		// A claude that names no MCP server in its requests (2.1.263) gets
		// the user asked for each call (the host cannot tell its server
		// from another named nvim): allowed here, and said in the log.
		var asked bool
		e.Eventually(60*time.Second, "the first result or a request", func() bool {
			_, done := e.Model.ToolResult("toolu_s0")
			asked = !done && len(e.Pending()) > 0
			return done || asked
		})
		if asked {
			if !strings.Contains(e.LogText(), "claude names no MCP server in its permission request") {
				t.Fatalf("an editor tool asked the user, and not because claude named no server: %+v", e.Pending())
			}
			e.allowAll("every editor tool answered", func() bool { _, ok := e.Model.ToolResult("toolu_s7"); return ok })
		}
		bufs := e.toolText("toolu_s0")
		mustContain(t, "open_buffers", bufs, "a.lua (lua, 3 lines): modified (unsaved changes", "visible in a window")
		diags := e.toolText("toolu_s1")
		mustContain(t, "diagnostics", diags, "a.lua: 1 error, 1 warning",
			"a.lua:3:12: error: undefined global 'z' [lua_ls]", "a.lua:2:7: warning: unused local 'y' [lua_ls]")
		text := e.toolText("toolu_s2")
		mustContain(t, "buffer_text", text, "unsaved changes: this text differs from the file on disk",
			"     2\tlocal y = x + 1", "     3\treturn y + z")
		sel := e.toolText("toolu_s3")
		mustContain(t, "selection", sel, "in a.lua, lines 2-3 (whole lines)", "     2\tlocal y = x + 1", "     3\treturn y + z")
		all := e.toolText("toolu_s4")
		mustContain(t, "diagnostics of every buffer", all, "All loaded buffers: 1 error, 1 warning")
		hover := e.toolText("toolu_s5")
		mustContain(t, "lsp_hover", hover, "Hover at a.lua:2:7 (hoverls):\nhover at 1:6")
		def := e.toolText("toolu_s6")
		mustContain(t, "lsp_definition from a server that does not serve it", def,
			"The language servers attached to a.lua (hoverls) do not serve textDocument/definition")
		syms := e.toolText("toolu_s7")
		mustContain(t, "document_symbols of a file no server serves", syms, "No language server is attached to notes.txt in the editor")
		e.WaitIdle(id)
		// Nothing asked the user: every result came back without a gesture,
		// and no request ever reached the sidebar.
		if e.requestAdded() && !asked {
			t.Fatalf("a permission request reached the UI: %+v", e.Events())
		}
		tr := e.Transcript(id)
		if os.Getenv("EDITORTOOLS_DEBUG") != "" {
			t.Logf("transcript:\n%s\n%s\n%s\n%s\n%s\n%s", tr, bufs, diags, text, sel, all)
		}
		for _, re := range []string{
			`▸ nvim open_buffers · 1 buffer, 1 modified ✓`,
			`▸ nvim diagnostics a\.lua · 1 error, 1 warning ✓`,
			`▸ nvim buffer_text a\.lua · 3 lines, unsaved ✓`,
			`▸ nvim selection · a\.lua:2-3 ✓`,
			`▸ nvim lsp_hover a\.lua:2:7 · hover ✓`,
			`▸ nvim lsp_definition a\.lua:2:7 · no server ✓`,
		} {
			if !regexp.MustCompile(re).MatchString(tr) {
				t.Fatalf("transcript lacks %s:\n%s", re, tr)
			}
		}
		// The file on disk was never touched.
		if got := e.ReadFile("a.lua"); got != "local x = 1\nreturn x\n" {
			t.Fatalf("a.lua on disk: %q", got)
		}
	})
}

// goplsBin is the test bed's gopls (the env file may have been written by
// an older test bed script: the cache path is the fallback).
func goplsBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv("GOPLS")
	if p == "" {
		cache := os.Getenv("CLAUDENOVA_TESTBED")
		if cache == "" {
			base := os.Getenv("XDG_CACHE_HOME")
			if base == "" {
				home, _ := os.UserHomeDir()
				base = filepath.Join(home, ".cache")
			}
			cache = filepath.Join(base, "claudenova-testbed")
		}
		p = filepath.Join(cache, "gopls", "gopls")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CLAUDENOVA_REQUIRE_E2E") != "" {
			t.Fatalf("gopls missing at %s: run `make testbed`", p)
		}
		t.Skip("gopls not installed (make testbed)")
	}
	return p
}

// goModule writes a tiny module (a.go defines Helper, b.go calls it) and
// makes every Go buffer inside it start gopls, as a user's config would.
func (e *Env) goModule(gopls string) {
	e.t.Helper()
	e.WriteFile("go.mod", "module example.com/m\n\ngo 1.22\n")
	e.WriteFile("a.go", "package m\n\n// Helper returns one.\nfunc Helper() int { return 1 }\n")
	e.WriteFile("b.go", "package m\n\nfunc Use() int {\n\treturn Helper() + 1\n}\n")
	e.Lua(nil, `local gopls = ...
		vim.api.nvim_create_autocmd("FileType", { pattern = "go", callback = function(ev)
			local mod = vim.fs.find("go.mod", { upward = true, path = vim.fs.dirname(vim.api.nvim_buf_get_name(ev.buf)) })[1]
			if not mod then return end
			vim.lsp.start({ name = "gopls", cmd = { gopls }, root_dir = vim.fs.dirname(mod),
				cmd_env = { GOPROXY = "off", GOFLAGS = "-mod=mod", GOTOOLCHAIN = "local" } }, { bufnr = ev.buf })
		end })`, gopls)
}

// waitDiagnostics waits until the buffer of path has a diagnostic whose
// message contains want ("" : until gopls serves definitions there).
func (e *Env) waitGopls(path string) {
	e.t.Helper()
	e.Eventually(60*time.Second, "gopls attached to "+path, func() bool {
		var n int
		e.Lua(&n, `local b = vim.fn.bufnr(...)
			return #vim.lsp.get_clients({ bufnr = b, method = "textDocument/definition" })`, path)
		return n > 0
	})
}

// With gopls attached: definition and references come from the user's own
// language server, and an Edit that breaks the build, applied with :w, is
// reported to the model (undefined: …) with the tool's result, before its
// next request.
func TestEditorToolsLanguageServer(t *testing.T) {
	gopls := goplsBin(t)
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"feedback": map[string]any{"diagnostics_wait": 20000}}})
		e.goModule(gopls)
		b := filepath.Join(e.Project, "b.go")
		e.Cmd("edit b.go")
		e.waitGopls(b)
		id := e.newSession(Seq(
			// Helper in `return Helper() + 1`, line 4 column 9 (a tab counts one).
			nvimTool("lsp_definition", map[string]any{"path": "b.go", "line": 4, "column": 9}),
			// a.go is not open: it is loaded so that gopls serves it.
			nvimTool("lsp_references", map[string]any{"path": "a.go", "line": 4, "column": 6}),
			Step("Read", map[string]any{"file_path": b}),
			Step("Edit", map[string]any{"file_path": b, "old_string": "Helper()", "new_string": "Helperx()"}),
			nvimTool("diagnostics", map[string]any{"path": "b.go"}),
		))
		def := e.toolText("toolu_s0")
		mustContain(t, "lsp_definition", def, "(gopls)", "a.go:4:6: func Helper() int { return 1 }")
		refs := e.toolText("toolu_s1")
		mustContain(t, "lsp_references", refs, "b.go:4:9:", "return Helper() + 1")
		// The edit is a proposal; the user applies it unchanged.
		_, buf := e.WaitProposalOf("toolu_s3")
		focusBuf(e, buf)
		e.Cmd("write")
		if r := e.WaitToolResult("toolu_s3"); r.IsError {
			t.Fatalf("edit failed: %s", r.Content)
		}
		// The request that carries the edit's result tells the model.
		req := e.requestWith("toolu_s3")
		mustContain(t, "the model's request after the edit", req,
			"After your change to b.go, the editor's language server (gopls) reports 1 new error:",
			"b.go:4:9: error: undefined: Helperx")
		diags := e.toolText("toolu_s4")
		mustContain(t, "diagnostics after the edit", diags, "undefined: Helperx")
		e.WaitIdle(id)
		tr := e.Transcript(id)
		if os.Getenv("EDITORTOOLS_DEBUG") != "" {
			t.Logf("transcript:\n%s\nrequest:\n%s", tr, tail(req, 1500))
		}
		mustContain(t, "transcript", tr, "▸ nvim lsp_definition b.go:4:9 · a.go:4 ✓", "▸ nvim lsp_references a.go:4:6 · ",
			"**The editor told Claude:** After your change to b.go")
		// The Edit's proposal was the only request the user saw.
		added := 0
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestAdded" {
				added++
			}
		}
		if added != 1 {
			t.Fatalf("%d requests reached the UI, want 1 (the edit): %+v", added, e.Events())
		}
		// Nothing the tools did was worth a message (no deprecation
		// warning of an LSP API, no error).
		var msgs string
		e.Lua(&msgs, "return vim.fn.execute('messages')")
		for _, n := range append(e.Notes(), msgs) {
			if strings.Contains(n, "deprecated") || strings.Contains(strings.ToLower(n), "error") {
				t.Fatalf("a message: %s", n)
			}
		}
		// :checkhealth names the tools and what gopls serves for b.go.
		e.Cmd("checkhealth claudenova")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		mustContain(t, "checkhealth", strings.Join(lines, "\n"), "offered to Claude as mcp__nvim__<tool>: open_buffers, buffer_text",
			"b.go: gopls serves definition, references, hover, documentSymbol, symbol")
	})
}

// With acceptEdits, a Write of a file that was not open: it is loaded (not
// listed), its server attaches, and Claude hears of the error it wrote
// before its next request. The user's buffer list stays as it was.
func TestDiagnosticsAfterAcceptedWrite(t *testing.T) {
	gopls := goplsBin(t)
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"feedback": map[string]any{"diagnostics_wait": 20000}}})
		e.goModule(gopls)
		e.Cmd("edit b.go")
		e.waitGopls(filepath.Join(e.Project, "b.go"))
		c := filepath.Join(e.Project, "c.go")
		e.Lua(nil, "require('claudenova').new({ prompt = ..., mode = 'acceptEdits' })", Seq(
			Step("Write", map[string]any{"file_path": c, "content": "package m\n\nfunc C() int {\n\treturn missing + 1\n}\n"}),
			nvimTool("open_buffers", nil),
		))
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("write failed: %s", r.Content)
		}
		req := e.requestWith("toolu_s0")
		mustContain(t, "the model's request after the write", req,
			"After your change to c.go, the editor's language server (gopls) reports 1 error (the file was not open in the editor before",
			"c.go:4:9: error: undefined: missing")
		bufs := e.toolText("toolu_s1")
		if strings.Contains(bufs, "c.go") {
			t.Fatalf("the loaded c.go was listed:\n%s", bufs)
		}
		if e.requestAdded() {
			t.Fatalf("acceptEdits asked: %+v", e.Events())
		}
	})
}

// editor_tools.ask = true: each call asks like any other tool; with the
// tools off, claude does not know them at all.
func TestEditorToolsAskAndOff(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"editor_tools": map[string]any{"ask": true}}})
		e.Lua(nil, "vim.g.maplocalleader = ','")
		e.newSession(Seq(nvimTool("open_buffers", nil)))
		p := e.waitPanel()
		if p.Tool != "mcp__nvim__open_buffers" {
			t.Fatalf("panel for %+v", p)
		}
		e.WaitGraceOver()
		e.Input("a")
		mustContain(t, "open_buffers after allow", e.toolText("toolu_s0"), "No file buffers are open")

		off := NewEnv(t, v, Options{Setup: map[string]any{"editor_tools": map[string]any{"enabled": false}}})
		off.newSession(Seq(nvimTool("open_buffers", nil)))
		r := off.WaitToolResult("toolu_s0")
		if !r.IsError || !strings.Contains(r.Content, "No such tool") {
			t.Fatalf("with the tools off: %+v", r)
		}
	})
}
