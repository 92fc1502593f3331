package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/modes"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rewind"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// cannedEditor answers each editor tool with a fixed JSON result.
type cannedEditor struct {
	mu      sync.Mutex
	results map[string]string
	calls   []string
}

func (c *cannedEditor) Call(_ context.Context, tool string, _ any) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, tool)
	return json.RawMessage(c.results[tool]), nil
}

func boolp(b bool) *bool { return &b }

// configs records the claude.Config of every session started.
func (m *mem) configs() *[]claude.Config {
	var mu sync.Mutex
	var cfgs []claude.Config
	m.app.start = func(cfg claude.Config, _ *slog.Logger) (claude.Conn, error) {
		c := claudetest.New()
		mu.Lock()
		cfgs = append(cfgs, cfg)
		mu.Unlock()
		m.mu.Lock()
		m.conns = append(m.conns, c)
		m.mu.Unlock()
		return c, nil
	}
	return &cfgs
}

func (m *mem) configure(o Options) {
	m.t.Helper()
	o.Storage = filepath.Join(m.dir, "storage")
	if o.Env == nil {
		o.Env = m.env()
	}
	if err := m.app.Configure(o); err != nil {
		m.t.Fatal(err)
	}
}

func TestInitializeDeclaresTheEditor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		tools []string // in the manifest; nil: no server
	}{
		{"defaults", Options{}, []string{"open_buffers", "buffer_text", "selection", "diagnostics", "lsp_definition", "lsp_references",
			"lsp_hover", "document_symbols", "workspace_symbols"}},
		{"a subset", Options{EditorTools: EditorToolsOptions{Tools: []string{"diagnostics", "selection"}}}, []string{"selection", "diagnostics"}},
		{"none", Options{EditorTools: EditorToolsOptions{Tools: []string{}}}, nil},
		{"disabled", Options{EditorTools: EditorToolsOptions{Enabled: boolp(false)}, Feedback: FeedbackOptions{Diagnostics: boolp(false)}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			cfgs := m.configs()
			m.configure(tc.opts)
			m.session("")
			b, _ := json.Marshal((*cfgs)[0].Initialize)
			var init struct {
				Servers   []string `json:"sdkMcpServers"`
				Manifests map[string]struct {
					Init  map[string]any `json:"initializeResult"`
					Tools struct {
						Tools []struct {
							Name string `json:"name"`
						} `json:"tools"`
					} `json:"toolsListResult"`
				} `json:"sdkMcpServerManifests"`
				Hooks map[string][]struct {
					Matcher string   `json:"matcher"`
					IDs     []string `json:"hookCallbackIds"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(b, &init); err != nil {
				t.Fatal(err)
			}
			if tc.tools == nil {
				if len(init.Servers) != 0 || init.Manifests != nil {
					t.Fatalf("an editor server was declared: %s", b)
				}
			} else {
				var names []string
				for _, tl := range init.Manifests["nvim"].Tools.Tools {
					names = append(names, tl.Name)
				}
				if strings.Join(init.Servers, ",") != "nvim" || strings.Join(names, ",") != strings.Join(tc.tools, ",") ||
					init.Manifests["nvim"].Init["protocolVersion"] != "2025-11-25" {
					t.Fatalf("initialize: %s", b)
				}
			}
			// Our hooks do not depend on the editor's options: the mode
			// guard sees every call, the change hook carries what Claude
			// must know with a change's result (a note, diagnostics).
			post, pre := init.Hooks["PostToolUse"], init.Hooks["PreToolUse"]
			if len(post) != 1 || post[0].IDs[0] != changeHook || !strings.Contains(post[0].Matcher, "Edit") {
				t.Fatalf("PostToolUse hook: %s", b)
			}
			if len(pre) != 1 || pre[0].IDs[0] != modes.Hook || pre[0].Matcher != "" {
				t.Fatalf("PreToolUse hook: %s", b)
			}
		})
	}
}

func TestConfigureChecksEditorOptions(t *testing.T) {
	m := newMem(t)
	err := m.app.Configure(Options{Storage: m.dir, EditorTools: EditorToolsOptions{Tools: []string{"selection", "rm"}}})
	if err == nil || !strings.Contains(err.Error(), "'editor_tools.tools' names unknown tools: rm") {
		t.Fatalf("%v", err)
	}
	err = m.app.Configure(Options{Storage: m.dir, Feedback: FeedbackOptions{DiagnosticsWait: -1}})
	if err == nil || !strings.Contains(err.Error(), "feedback.diagnostics_wait") {
		t.Fatalf("%v", err)
	}
}

func mcpMessage(c *claudetest.Conn, id, server string, msg string) {
	c.Push(`{"type":"control_request","request_id":"` + id + `","request":{"subtype":"mcp_message","server_name":"` + server + `","message":` + msg + `}}`)
}

// mcpReply waits for the answer to control request id: its subtype and the
// JSON-RPC reply (success) or the error text.
func mcpReply(t *testing.T, c *claudetest.Conn, id string) (string, map[string]any, string) {
	t.Helper()
	if !c.Wait(10*time.Second, func([]claudetest.Written) bool { return len(c.Answers(id)) > 0 }) {
		t.Fatalf("no answer to %s", id)
	}
	as := c.Answers(id)
	if len(as) != 1 {
		t.Fatalf("%d answers to %s", len(as), id)
	}
	resp := as[0].Value["response"].(map[string]any)
	if as[0].Subtype == "error" {
		return "error", nil, resp["error"].(string)
	}
	inner, _ := resp["response"].(map[string]any)
	rpc, _ := inner["mcp_response"].(map[string]any)
	return "success", rpc, ""
}

func TestMCPMessages(t *testing.T) {
	m := newMem(t)
	ed := &cannedEditor{results: map[string]string{
		"diagnostics": `{"open":true,"diagnostics":{"paths":["` + filepath.Join(m.dir, "a.lua") + `"],"items":[{"file":0,"line":3,"col":1,"severity":1,"message":"boom"}]}}`,
	}}
	m.app.Rooms().Editor.Use(ed)
	info, c := m.session("")
	// The handshake, answered at once.
	mcpMessage(c, "m1", "nvim", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	if st, rpc, _ := mcpReply(t, c, "m1"); st != "success" || rpc["result"].(map[string]any)["serverInfo"].(map[string]any)["name"] != "nvim" {
		t.Fatalf("initialize: %s %v", st, rpc)
	}
	mcpMessage(c, "m2", "nvim", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if st, rpc, _ := mcpReply(t, c, "m2"); st != "success" || rpc["result"] == nil {
		t.Fatalf("notification: %s %v", st, rpc)
	}
	// The model's tool_use shows in the transcript; the call sums it up.
	c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg1", "content": []any{
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "mcp__nvim__diagnostics", "input": map[string]any{"path": "a.lua"}}}}})
	mcpMessage(c, "m3", "nvim", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"diagnostics","arguments":{"path":"a.lua"},"_meta":{"claudecode/toolUseId":"toolu_1"}}}`)
	st, rpc, _ := mcpReply(t, c, "m3")
	text := rpc["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if st != "success" || !strings.Contains(text, "a.lua:3:1: error: boom") {
		t.Fatalf("tools/call: %s %v", st, rpc)
	}
	c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": text}}}}}})
	m.rec.wait(t, "the tool line", func([]ui.Event) bool {
		return strings.Contains(m.rec.transcriptText(info.ID), "▸ nvim diagnostics a.lua · 1 error ✓")
	})
	// Another server, or a message we cannot read: an error, never silence.
	mcpMessage(c, "m4", "github", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if st, _, msg := mcpReply(t, c, "m4"); st != "error" || !strings.Contains(msg, `no MCP server "github"`) {
		t.Fatalf("other server: %s %s", st, msg)
	}
	c.Push(`{"type":"control_request","request_id":"m5","request":{"subtype":"mcp_message"}}`)
	if st, _, msg := mcpReply(t, c, "m5"); st != "error" || !strings.Contains(msg, "could not read") {
		t.Fatalf("malformed: %s %s", st, msg)
	}
}

func TestEditorToolsAnsweredWithoutAsking(t *testing.T) {
	sdk := map[string]any{"mcp_server": map[string]any{"name": "nvim", "source": "sdk"}}
	for _, tc := range []struct {
		name  string
		opts  Options
		tool  string
		extra map[string]any
		asked bool
	}{
		{"our read-only tool", Options{}, "mcp__nvim__selection", sdk, false},
		{"editor_tools.ask", Options{EditorTools: EditorToolsOptions{Ask: true}}, "mcp__nvim__selection", sdk, true},
		{"not from the sdk server", Options{}, "mcp__nvim__selection", map[string]any{"mcp_server": map[string]any{"name": "nvim", "source": "project"}}, true},
		{"no provenance", Options{}, "mcp__nvim__selection", nil, true},
		{"the user's ask rule", Options{}, "mcp__nvim__selection", map[string]any{"mcp_server": sdk["mcp_server"], "matched_ask_rule": map[string]any{"rule": "mcp__nvim__selection"}}, true},
		{"the user's hook asked", Options{}, "mcp__nvim__selection", map[string]any{"mcp_server": sdk["mcp_server"], "decision_reason_type": "hook"}, true},
		{"a tool this session was not offered", Options{EditorTools: EditorToolsOptions{Tools: []string{"diagnostics"}}}, "mcp__nvim__selection", sdk, true},
		{"not one of ours", Options{}, "mcp__nvim__rm", sdk, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			m.configure(tc.opts)
			_, c := m.session("")
			c.Ask("r1", tc.tool, map[string]any{}, tc.extra)
			if tc.asked {
				if p := m.waitPending(1); p[0].Tool != tc.tool {
					t.Fatalf("%+v", p)
				}
				if n := len(c.Answers("r1")); n != 0 {
					t.Fatalf("answered without the user (%d)", n)
				}
				return
			}
			if a := answer(t, c, "r1"); a["behavior"] != "allow" {
				t.Fatalf("answer %v", a)
			}
			if n := len(m.app.Pending()); n != 0 {
				t.Fatalf("%d pending", n)
			}
			for _, ev := range m.rec.names() {
				if ev == ui.EvRequestAdded {
					t.Fatal("the request reached the UI")
				}
			}
		})
	}
}

func hookCallback(c *claudetest.Conn, id, callback, tool, path string) {
	hookCallbackFor(c, id, callback, tool, path, "toolu_9")
}

// hookCallbackFor is claude's PostToolUse hook_callback for tool call
// toolUseID (which the CLI puts in the request and in its input).
func hookCallbackFor(c *claudetest.Conn, id, callback, tool, path, toolUseID string) {
	c.PushJSON(map[string]any{"type": "control_request", "request_id": id, "request": map[string]any{
		"subtype": "hook_callback", "callback_id": callback, "tool_use_id": toolUseID,
		"input": map[string]any{"hook_event_name": "PostToolUse", "tool_name": tool, "tool_use_id": toolUseID,
			"tool_input": map[string]any{"file_path": path}, "tool_response": map[string]any{}},
	}})
}

func hookAnswer(t *testing.T, c *claudetest.Conn, id string) map[string]any {
	t.Helper()
	if !c.Wait(10*time.Second, func([]claudetest.Written) bool { return len(c.Answers(id)) > 0 }) {
		t.Fatalf("no answer to %s", id)
	}
	as := c.Answers(id)
	if len(as) != 1 || as[0].Subtype != "success" {
		t.Fatalf("answers to %s: %+v", id, as)
	}
	r, _ := as[0].Value["response"].(map[string]any)["response"].(map[string]any)
	return r
}

func TestDiagnosticsAfterAChange(t *testing.T) {
	m := newMem(t)
	b := filepath.Join(m.dir, "b.go")
	ed := &cannedEditor{results: map[string]string{"after_change": `{"baseline":true,"clients":["gopls"],
		"after":{"paths":["` + b + `"],"items":[{"file":0,"line":4,"col":9,"severity":1,"source":"compiler","message":"undefined: Helperx"}]}}`}}
	m.app.Rooms().Editor.Use(ed)
	info, c := m.session("")
	hookCallback(c, "h1", changeHook, "Edit", "b.go")
	r := hookAnswer(t, c, "h1")
	out, _ := r["hookSpecificOutput"].(map[string]any)
	ctx, _ := out["additionalContext"].(string)
	if out["hookEventName"] != "PostToolUse" || !strings.Contains(ctx, "After your change to b.go") || !strings.Contains(ctx, "b.go:4:9: error: undefined: Helperx") {
		t.Fatalf("answer %v", r)
	}
	m.rec.wait(t, "the note in the transcript", func([]ui.Event) bool {
		return strings.Contains(m.rec.transcriptText(info.ID), "**The editor told Claude:** After your change to b.go")
	})
	// Someone else's hook: an empty answer, the editor is not asked.
	hookCallback(c, "h2", "other", "Edit", "b.go")
	if r := hookAnswer(t, c, "h2"); len(r) != 0 {
		t.Fatalf("answer %v", r)
	}
	// Nothing new: an empty answer.
	ed.mu.Lock()
	ed.results["after_change"] = `{"baseline":true,"clients":["gopls"],"before":{"paths":[],"items":[]},"after":{"paths":[],"items":[]}}`
	ed.mu.Unlock()
	hookCallback(c, "h3", changeHook, "Write", b)
	if r := hookAnswer(t, c, "h3"); len(r) != 0 {
		t.Fatalf("answer %v", r)
	}
	// Option off: answered at once, the editor is not asked.
	m.configure(Options{Feedback: FeedbackOptions{Diagnostics: boolp(false)}})
	ed.mu.Lock()
	before := len(ed.calls)
	ed.mu.Unlock()
	hookCallback(c, "h4", changeHook, "Edit", b)
	if r := hookAnswer(t, c, "h4"); len(r) != 0 {
		t.Fatalf("answer %v", r)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.calls) != before {
		t.Fatalf("the editor was asked: %v", ed.calls)
	}
}

// After a rewind, Claude hears of the errors the restored files have now.
func TestDiagnosticsAfterARewind(t *testing.T) {
	m := newMem(t)
	a := filepath.Join(m.dir, "a.go")
	m.app.Rooms().Editor.Use(&cannedEditor{results: map[string]string{"after_change": `{"baseline":true,"clients":["gopls"],
		"after":{"paths":["` + a + `"],"items":[{"file":0,"line":2,"col":1,"severity":1,"source":"compiler","message":"undefined: gone"}]}}`}})
	info, c := m.session("edit a")
	s, _ := m.app.sessions.Get(info.ID)
	id := s.Turns.Turns()[0].ID
	m.write("a.go", "package a\n")
	m.claudeWrites(t, c, info.ID, a, "package a\n\nvar x = gone\n")
	if err := m.app.Rooms().Rewind.Rewind(rewind.RewindParams{Later: Later{ReplyTo: desk.ReplyTo{Token: "rw"}, ID: id}}); err != nil {
		t.Fatal(err)
	}
	if !c.Wait(10*time.Second, func([]claudetest.Written) bool {
		for _, u := range c.UserTexts() {
			if strings.Contains(u, "After the user's rewind of a.go, the editor's language server (gopls) reports 1 new error:\n- a.go:2:1: error: undefined: gone") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("Claude was not told: %q", c.UserTexts())
	}
}

// blockedEditor never answers (Neovim is gone or stuck in a prompt); it
// says when it was called, and why its wait ended.
type blockedEditor struct {
	called chan struct{}
	ended  chan error
}

func (b blockedEditor) Call(ctx context.Context, _ string, _ any) (json.RawMessage, error) {
	close(b.called)
	<-ctx.Done()
	b.ended <- ctx.Err()
	return nil, ctx.Err()
}

// Quitting ends a wait for the editor at once: the hook is answered and
// Shutdown does not wait for the diagnostics' deadline.
func TestShutdownEndsEditorWaits(t *testing.T) {
	m := newMem(t)
	m.configure(Options{Feedback: FeedbackOptions{DiagnosticsWait: 60000}})
	ed := blockedEditor{called: make(chan struct{}), ended: make(chan error, 1)}
	m.app.Rooms().Editor.Use(ed)
	_, c := m.session("")
	hookCallback(c, "h1", changeHook, "Edit", filepath.Join(m.dir, "b.go"))
	<-ed.called // the hook waits for the editor now
	done := make(chan struct{})
	go func() { m.app.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Shutdown did not return")
	}
	// The wait was ended by the shutdown, not by a deadline.
	if err := <-ed.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the editor's wait ended with %v, want it cancelled by the shutdown", err)
	}
}
