package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tuiEnv is an Env whose claude's TUI asks no first-run question.
func tuiEnv(t *testing.T, v nvimVersion, o Options) *Env {
	t.Helper()
	e := NewEnv(t, v, o)
	e.trustForTUI()
	return e
}

// trustForTUI pre-answers what claude's terminal UI asks in a fresh HOME
// (onboarding, the custom API key, trusting the project folder), in the
// config file it reads: the test never types through those dialogs.
func (e *Env) trustForTUI() {
	e.t.Helper()
	projects := map[string]any{}
	for _, p := range []string{e.Project, realPath(e.Project)} {
		projects[p] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}
	}
	b, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{"test"}, "rejected": []string{}},
		"projects":              projects,
	})
	if err := os.WriteFile(filepath.Join(e.Home, ".claude.json"), b, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// startTUI runs :ClaudeNova tui's Lua call and returns the session and
// its terminal's job.
func (e *Env) startTUI() (id, job int) {
	e.t.Helper()
	return e.startTUIWith(map[string]any{})
}

// startTUIWith is startTUI with tui()'s options.
func (e *Env) startTUIWith(opts map[string]any) (id, job int) {
	e.t.Helper()
	e.Lua(&id, "return require('claudenova').tui(...)", opts)
	e.Lua(&job, "return vim.b[require('claudenova.frontend.tui').bufs[...]].terminal_job_id", id)
	return id, job
}

// tuiScreen is the text of session id's terminal.
func (e *Env) tuiScreen(id int) string {
	var lines []string
	e.Lua(&lines, "return vim.api.nvim_buf_get_lines(require('claudenova.frontend.tui').bufs[...], 0, -1, false)", id)
	return strings.Join(lines, "\n")
}

// typeIntoTUI types text into the TUI's input once it shows one, then
// Enter (sent apart: together they would be one paste).
func (e *Env) typeIntoTUI(id, job int, text, shows string) {
	e.t.Helper()
	e.Eventually(60*time.Second, "the TUI's input", func() bool {
		s := e.tuiScreen(id)
		return strings.Contains(s, "for shortcuts") || strings.Contains(s, "shift+tab to cycle")
	})
	e.Lua(nil, "local job, text = ...; vim.fn.chansend(job, text)", job, text)
	e.Eventually(20*time.Second, "the prompt typed", func() bool { return strings.Contains(e.tuiScreen(id), shows) })
	e.Lua(nil, "vim.fn.chansend(..., '\\r')", job)
}

// The TUI in a terminal: a file it writes is an editable proposal (the
// file holds the user's text once saved), a command goes to the panel and
// is denied there (it never runs), the session is kind "tui", stop ends it.
func TestTUIPermissionsDecidedInTheEditor(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, job := e.startTUI()
		var kind string
		e.Lua(&kind, "for _, s in ipairs(require('claudenova').sessions()) do if s.id == ... then return s.kind end end", id)
		if kind != "tui" {
			t.Fatalf("sessions() says kind %q", kind)
		}
		e.typeIntoTUI(id, job, Seq(
			Step("Write", map[string]any{"file_path": "{{cwd}}/a.txt", "content": "from claude\n"}),
			Step("Bash", map[string]any{"command": "echo no > denied.txt", "description": "write denied.txt"}),
		), "SEQ")
		p, buf := e.WaitProposal()
		if p.Session != id || p.Tool != "Write" {
			t.Fatalf("request %+v", p)
		}
		// In the sidebar as any session: named after its first prompt,
		// waiting for the user.
		var name string
		e.Lua(&name, "return require('claudenova.store.state').sessions[...].name", id)
		if state, _ := e.SessionState(id); !strings.HasPrefix(name, "SEQ [") || state != "waiting" {
			t.Errorf("session %q is %s", name, state)
		}
		e.SetLineAndWrite(buf, 1, "from the user")
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("the Write failed: %+v", r)
		}
		if got := e.ReadFile("a.txt"); got != "from the user\n" {
			t.Fatalf("a.txt holds %q", got)
		}
		// Claude is told what the user changed, beside the tool's result
		// (our PostToolUse hook), as in a stream-json session.
		if req := e.requestWith("toolu_s0"); !strings.Contains(req, "PostToolUse:Write hook additional context: [claude-nova] The user changed") {
			t.Fatalf("the model was not told of the user's change:\n%s", tail(req, 2000))
		}
		// The command: in the panel, pending; denied, it never runs.
		b := e.WaitPending(1)[0]
		if b.Tool != "Bash" || b.Surface != "panel" || b.Session != id {
			t.Fatalf("request %+v", b)
		}
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == b.ID })
		if ok, why := e.decideAPI(b.ID, "deny"); !ok {
			t.Fatalf("deny: %s", why)
		}
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError {
			t.Fatalf("the denied command's result %+v", r)
		}
		if e.fileExists("denied.txt") {
			t.Fatal("the denied command ran")
		}
		e.Eventually(20*time.Second, "the TUI says it was denied", func() bool {
			return strings.Contains(e.tuiScreen(id), "Denied by PermissionRequest hook")
		})
		if errs := e.ErrorNotes(); len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
		// The sidebar says which sessions are claude's terminal UI.
		e.Lua(nil, "require('claudenova.frontend').toggle_sidebar()")
		var sidebar []string
		e.Lua(&sidebar, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.sidebar').buf, 0, -1, false)")
		if !strings.Contains(strings.Join(sidebar, "\n"), "claude's terminal UI") {
			t.Errorf("the sidebar does not say it is the TUI:\n%s", strings.Join(sidebar, "\n"))
		}
		e.Lua(nil, "require('claudenova').stop(...)", id)
		e.Eventually(20*time.Second, "session exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
	})
}

// The terminal and the editor never answer twice: a key typed in the TUI's
// own dialog answers first and the editor's surface is withdrawn; a TUI
// stopped while a proposal is open applies nothing.
func TestTUIAllowedInTheTerminal(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(
			Step("Bash", map[string]any{"command": "echo yes > ran.txt", "description": "write ran.txt"}),
			Step("Write", map[string]any{"file_path": "{{cwd}}/b.txt", "content": "never\n"}),
		), "SEQ")
		b := e.WaitPending(1)[0]
		if b.Tool != "Bash" || b.Surface != "panel" {
			t.Fatalf("request %+v", b)
		}
		e.Eventually(20*time.Second, "the TUI's own dialog", func() bool { return strings.Contains(e.tuiScreen(id), "Do you want to proceed?") })
		// "1. Yes", typed in the terminal. The TUI takes no key for a moment
		// after its dialog shows: Enter again while the command's dialog
		// (not the Write's, "Do you want to create b.txt?") is there.
		e.Eventually(30*time.Second, "the command allowed in the terminal", func() bool {
			if e.fileExists("ran.txt") {
				return true
			}
			if strings.Contains(e.tuiScreen(id), "Do you want to proceed?") {
				e.Lua(nil, "vim.fn.chansend(..., '\\r')", job)
			}
			return false
		})
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("the TUI's screen:\n%s", e.tuiScreen(id))
			}
		})
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("the command allowed in the terminal failed: %+v", r)
		}
		if got := e.ReadFile("ran.txt"); got != "yes\n" {
			t.Fatalf("ran.txt holds %q", got)
		}
		// Its panel is gone; the Write that follows is the one request.
		p, _ := e.WaitProposal()
		if p.Tool != "Write" {
			t.Fatalf("request %+v", p)
		}
		if n := len(e.Pending()); n != 1 {
			t.Fatalf("%d requests pending, want the Write alone: %+v", n, e.Pending())
		}
		if state, _ := e.SessionState(id); state != "waiting" {
			t.Errorf("session state %q while the Write waits", state)
		}
		e.Lua(nil, "require('claudenova').stop(...)", id)
		e.Eventually(20*time.Second, "session exited, its proposal withdrawn", func() bool {
			st, _ := e.SessionState(id)
			return st == "exited" && len(e.Pending()) == 0 && e.ProposalBuf(p.ID) == 0
		})
		if e.fileExists("b.txt") {
			t.Fatal("the withdrawn Write was applied")
		}
	})
}

// :ClaudeNova tui while one runs goes to its terminal (no second claude);
// the sidebar's way to a session (open_transcript) shows the terminal too;
// :ClaudeNova stop in the terminal ends that session.
func TestTUICommand(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		e.Cmd("ClaudeNova tui")
		var id int
		e.Lua(&id, "return vim.b.claudenova_tui or 0")
		if id == 0 {
			t.Fatal("the cursor is not in the TUI's terminal")
		}
		back := func() {
			e.Lua(nil, `vim.cmd('stopinsert')
				for _, w in ipairs(vim.api.nvim_list_wins()) do
					if not vim.b[vim.api.nvim_win_get_buf(w)].claudenova_tui then vim.api.nvim_set_current_win(w) return end
				end`)
		}
		inTUI := func() bool {
			var cur int
			e.Lua(&cur, "return vim.b.claudenova_tui or 0")
			return cur == id
		}
		back()
		e.Cmd("ClaudeNova tui")
		if !inTUI() {
			t.Fatal(":ClaudeNova tui did not go to the running TUI")
		}
		var n int
		e.Lua(&n, "return #require('claudenova').sessions()")
		if n != 1 {
			t.Fatalf("%d sessions, want the one TUI", n)
		}
		back()
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", id)
		if !inTUI() {
			t.Fatal("open_transcript did not show the TUI's terminal")
		}
		e.Cmd("ClaudeNova stop")
		e.Eventually(20*time.Second, "session exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
	})
}

// "No" in the TUI's own dialog (Esc) withdraws the editor's surface too:
// the TUI interrupts the turn and ends our waiting hook.
func TestTUIRejectedInTheTerminal(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(Step("Bash", map[string]any{"command": "echo no > no.txt", "description": "write no.txt"})), "SEQ")
		b := e.WaitPending(1)[0]
		if b.Tool != "Bash" || b.Session != id {
			t.Fatalf("request %+v", b)
		}
		// Esc in the TUI's dialog (again while it shows: it takes no key
		// for a moment after it opens).
		e.Eventually(30*time.Second, "the request withdrawn", func() bool {
			if len(e.Pending()) == 0 {
				return true
			}
			if strings.Contains(e.tuiScreen(id), "Do you want to proceed?") {
				e.Lua(nil, "vim.fn.chansend(..., '\\27')", job)
			}
			return false
		})
		if e.fileExists("no.txt") {
			t.Fatal("the command rejected in the terminal ran")
		}
		if e.PanelID() != "" {
			t.Fatal("its panel is still open")
		}
	})
}

// An Always… answer in the panel is a rule the TUI keeps: the second
// command of the session runs without asking.
func TestTUIAllowForSession(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(bash("echo 1 > one.txt", "one"), bash("echo 2 > two.txt", "two")), "SEQ")
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Input("t") // every Bash call this session
		e.Eventually(30*time.Second, "both commands ran", func() bool {
			return e.ReadFile("one.txt") == "1\n" && e.ReadFile("two.txt") == "2\n"
		})
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestAdded" && ev.ID != p.ID {
				t.Fatalf("the second Bash call asked: %+v", ev)
			}
		}
		if errs := e.ErrorNotes(); len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
	})
}

// Typed as a person does, in terminal mode: while the user types into the
// TUI a request never takes the keys (its surface waits, the user is told
// how to reach it); leaving terminal mode opens it.
func TestTUITypingKeepsTheKeys(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, _ := e.startTUI()
		e.Input("i")
		e.WaitMode("t")
		e.Eventually(60*time.Second, "the TUI's input", func() bool { return strings.Contains(e.tuiScreen(id), "for shortcuts") })
		e.Input(Seq(Step("Write", map[string]any{"file_path": "{{cwd}}/c.txt", "content": "typed\n"})))
		e.Eventually(20*time.Second, "the prompt typed", func() bool { return strings.Contains(e.tuiScreen(id), "SEQ") })
		e.Input("<CR>")
		p := e.WaitPending(1)[0]
		e.Eventually(20*time.Second, "told how to reach it", func() bool { return e.NoteContaining("opens when you pause") })
		if mode, _ := e.Mode(); mode != "t" || e.ProposalBuf(p.ID) != 0 {
			t.Fatalf("a request took the keys: mode %q, proposal %d", mode, e.ProposalBuf(p.ID))
		}
		e.Input(`<C-\><C-n>`)
		e.Eventually(20*time.Second, "the proposal opens", func() bool { return e.ProposalBuf(p.ID) != 0 })
		e.Lua(nil, "require('claudenova').stop(...)", id)
		e.Eventually(20*time.Second, "session exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
		if e.fileExists("c.txt") {
			t.Fatal("the withdrawn Write was applied")
		}
	})
}
