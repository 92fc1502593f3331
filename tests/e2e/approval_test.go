package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

// PanelID is the id of the request in the open action panel ("" if none).
func (e *Env) PanelID() string {
	var id string
	e.Lua(&id, `local p = require('claudenova.surfaces.panel').current
		if p and vim.api.nvim_win_is_valid(p.win) then return p.id end
		return ""`)
	return id
}

// Input types keys as the user would.
func (e *Env) Input(keys string) {
	e.t.Helper()
	if _, err := e.V.Input(keys); err != nil {
		e.t.Fatalf("input %q: %v", keys, err)
	}
}

// WaitToolResult waits until the model server got the tool_result for id.
func (e *Env) WaitToolResult(id string) fakemodel.ToolResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := e.Model.WaitToolResult(ctx, id)
	if err != nil {
		e.t.Fatalf("tool result %s: %v; notes: %v", id, err, e.Notes())
	}
	return r
}

type testEvent struct {
	Kind      string `msgpack:"kind"`
	ID        string `msgpack:"id"`
	Outcome   string `msgpack:"outcome"`
	PanelOpen bool   `msgpack:"panel_open"`
	InState   bool   `msgpack:"in_state"`
}

func (e *Env) Events() []testEvent {
	var ev []testEvent
	e.Lua(&ev, "return _G.claudenova_test.events")
	return ev
}

func bash(cmd, desc string) [2]any {
	return Step("Bash", map[string]any{"command": cmd, "description": desc})
}

func TestBashAllowFromPanel(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) { bashAllowFromPanel(t, v, Options{}) })
}

// bashAllowFromPanel is TestBashAllowFromPanel with options o (the jobstart smoke set runs it too).
func bashAllowFromPanel(t *testing.T, v nvimVersion, o Options) {
	e := NewEnv(t, v, o)
	e.Cmd("ClaudeNova")
	e.Cmd("wincmd p") // back to the user's window: the panel opens there
	id := e.newSession(Seq(bash("echo hi > allowed.txt", "write allowed.txt")))
	p := e.WaitPending(1)[0]
	if p.Tool != "Bash" || p.Surface != "panel" || p.Session != id {
		t.Fatalf("pending %+v", p)
	}
	e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
	e.WaitGraceOver()
	ev := e.Events()
	if len(ev) == 0 || ev[0].Kind != "ClaudeNovaRequestAdded" || !ev[0].InState || ev[0].PanelOpen {
		t.Fatalf("row must be registered before the panel opens: %+v", ev)
	}
	// The sidebar shows the row.
	var sidebar []string
	e.Lua(&sidebar, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.sidebar').buf, 0, -1, false)")
	if !strings.Contains(strings.Join(sidebar, "\n"), "Bash `echo hi > allowed.txt`") {
		t.Errorf("sidebar lacks the row:\n%s", strings.Join(sidebar, "\n"))
	}
	var status string
	e.Lua(&status, "return require('claudenova').status()")
	if !strings.HasSuffix(status, ": 1 pending") {
		t.Errorf("status() = %q, want \"<session name>: 1 pending\"", status)
	}
	if !e.NoteContaining("Bash `echo hi > allowed.txt`") {
		t.Errorf("no notification naming the request: %v", e.Notes())
	}
	e.Input("a")
	e.Eventually(30*time.Second, "command ran", func() bool { return e.ReadFile("allowed.txt") == "hi\n" })
	e.Eventually(5*time.Second, "status empty", func() bool {
		e.Lua(&status, "return require('claudenova').status()")
		return status == ""
	})
	if r := e.WaitToolResult("toolu_s0"); r.IsError {
		t.Errorf("tool result is an error: %+v", r)
	}
	e.Eventually(5*time.Second, "row gone", func() bool { return len(e.Pending()) == 0 && e.PanelID() == "" })
	e.WaitGraceOver()
}

func TestBashDenyWithMessage(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.newSession(Seq(bash("echo no > denied.txt", "write denied.txt")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Input("d")
		e.Input("use printf instead<CR>")
		r := e.WaitToolResult("toolu_s0")
		if !r.IsError || !strings.Contains(r.Content, "use printf instead") {
			t.Fatalf("tool result %+v, want an error with the message", r)
		}
		if e.ReadFile("denied.txt") != "" {
			t.Fatal("denied command ran")
		}
	})
}

func TestAllowForSession(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.newSession(Seq(bash("echo 1 > one.txt", "one"), bash("echo 2 > two.txt", "two")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Input("t") // every Bash call this session: the explicit, wide choice
		e.Eventually(30*time.Second, "both commands ran", func() bool {
			return e.ReadFile("one.txt") == "1\n" && e.ReadFile("two.txt") == "2\n"
		})
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestAdded" && ev.ID != p.ID {
				t.Fatalf("the second Bash call prompted: %+v", ev)
			}
		}
		// Another session still asks.
		e.newSession(Seq(bash("echo 3 > three.txt", "three")))
		p2 := e.WaitPending(1)[0]
		if p2.Session == p.Session {
			t.Fatalf("pending from the wrong session: %+v", p2)
		}
	})
}

func TestClosedPanelKeepsRow(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Cmd("ClaudeNova")
		e.Cmd("wincmd p")
		e.newSession(Seq(bash("echo later > later.txt", "later")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Input("q")
		e.Eventually(5*time.Second, "panel closed", func() bool { return e.PanelID() == "" })
		e.WaitGraceOver()
		if got := e.Pending(); len(got) != 1 {
			t.Fatalf("row gone after closing the panel: %+v", got)
		}
		// <CR> on the row in the sidebar re-opens the panel.
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			vim.api.nvim_set_current_win(sb.win())
			for lnum, id in pairs(sb.rows) do if id == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, p.ID)
		e.Input("<CR>")
		e.Eventually(10*time.Second, "panel re-opened", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Input("a")
		e.Eventually(30*time.Second, "command ran", func() bool { return e.ReadFile("later.txt") == "later\n" })
	})
}

func TestInterruptWithdrawsPending(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.newSession(Seq(bash("touch never.txt", "touch")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Cmd("ClaudeNova interrupt")
		e.Eventually(15*time.Second, "row and panel withdrawn", func() bool { return len(e.Pending()) == 0 && e.PanelID() == "" })
		e.WaitGraceOver()
		var outcome string
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestDecided" && ev.ID == p.ID {
				outcome = ev.Outcome
			}
		}
		if !strings.HasPrefix(outcome, "withdrawn") {
			t.Errorf("outcome %q, want withdrawn", outcome)
		}
		// Barrier: a later request's answer reached claude and the log.
		e.realAnswerBarrier(p.Session)
		if e.answeredInLog(p.ID) {
			t.Error("a withdrawn request was answered")
		}
		if _, err := os.Stat(filepath.Join(e.Project, "never.txt")); err == nil {
			t.Error("the command ran")
		}
	})
}

func TestTwoSessionsAnsweredInReverse(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.newSession(Seq(bash("echo a > a.txt", "a")))
		e.WaitPending(1)
		e.newSession(Seq(bash("echo b > b.txt", "b")))
		ps := e.WaitPending(2)
		// Newest first.
		e.Lua(nil, "require('claudenova').decide(..., 'allow')", ps[1].ID)
		e.Eventually(30*time.Second, "b ran", func() bool { return e.ReadFile("b.txt") == "b\n" })
		if e.ReadFile("a.txt") != "" {
			t.Fatal("a ran before it was allowed")
		}
		e.Lua(nil, "require('claudenova').decide(..., 'allow')", ps[0].ID)
		e.Eventually(30*time.Second, "a ran", func() bool { return e.ReadFile("a.txt") == "a\n" })
	})
}

func TestQuitDeniesPending(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		log := filepath.Join(t.TempDir(), "fake.log")
		script := writeScript(t, `{"ask":{"tool_name":"Bash","input":{"command":"rm -rf /tmp/x","description":"x"}}}`)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true,
			ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script, "FAKECLAUDE_LOG": log}})
		e.newSession("go")
		e.WaitPending(1)
		_ = e.CmdErr("qa!")
		e.Eventually(10*time.Second, "deny answer in the fake claude log", func() bool {
			b, _ := os.ReadFile(log)
			return strings.Contains(string(b), `"t":"answer"`) && strings.Contains(string(b), `"behavior":"deny"`)
		})
	})
}

func TestSidebarKeepsCursorAndFocus(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _ := faultEnv(t, v, func(string) []string {
			return []string{
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-a","input":{"command":"echo a"}}}`,
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-b","input":{"command":"echo b"}}}`,
				`{"wait_stdin_line_matching":"req-a"}`,
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-c","input":{"command":"echo c"}}}`,
			}
		})
		e.newSession("go")
		e.WaitPending(2)
		e.WaitGraceOver()
		e.Input(":ClaudeNova<CR>") // focus is in the sidebar now
		e.Eventually(5*time.Second, "sidebar focused", func() bool { return e.curBufFiletype() == "claudenova-sidebar" })
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for lnum, id in pairs(sb.rows) do if id == "1:req-b" then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`)
		// The user keeps working in the sidebar (a key every 80 ms that
		// leaves the cursor's line alone): surfaces wait for a pause.
		stop := make(chan struct{})
		typing := make(chan struct{})
		go func() { defer close(typing); e.typeWhile(stop, "0") }()
		defer func() { close(stop); <-typing }()
		// Answer req-a from elsewhere: its row goes, req-c arrives; the cursor stays on req-b.
		e.Lua(nil, "require('claudenova').decide('1:req-a', 'deny')")
		e.Eventually(10*time.Second, "req-c arrived", func() bool {
			for _, p := range e.Pending() {
				if p.ID == "1:req-c" {
					return true
				}
			}
			return false
		})
		var under string
		e.Lua(&under, "return require('claudenova.surfaces.sidebar').id_under_cursor() or ''")
		if under != "1:req-b" {
			t.Fatalf("cursor on %q after re-render, want 1:req-b", under)
		}
		var ft string
		e.Lua(&ft, "return vim.bo.filetype")
		if ft != "claudenova-sidebar" {
			t.Fatalf("focus moved to %q when a request arrived", ft)
		}
	})
}
