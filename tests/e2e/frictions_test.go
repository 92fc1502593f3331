package e2e

import (
	"strings"
	"testing"
	"time"
)

// helpFloat presses g? and returns the lines of the key list it opens,
// after checking its title names the surface; q closes it again.
func (e *Env) helpFloat(title string) string {
	e.t.Helper()
	e.Input("g?")
	var lines []string
	e.Eventually(10*time.Second, "the key list of the "+title, func() bool {
		e.Lua(&lines, `if vim.b.claudenova_surface ~= 'help' then return {} end
			local t = vim.api.nvim_win_get_config(0).title
			return vim.list_extend({ t and t[1] and t[1][1] or '' }, vim.api.nvim_buf_get_lines(0, 0, -1, false))`)
		return len(lines) > 0
	})
	if !strings.Contains(lines[0], title+" keys") {
		e.t.Fatalf("the key list is titled %q, want %q", lines[0], title+" keys")
	}
	e.Input("q")
	e.Eventually(5*time.Second, "the key list closed", func() bool {
		var s string
		e.Lua(&s, "return vim.b.claudenova_surface or ''")
		return s != "help"
	})
	return strings.Join(lines[1:], "\n")
}

// g? on every surface lists its keys, from the same table as :help's
// claudenova-keys (the keys the user set).
func TestHelpKeyOnEverySurface(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"keymaps": map[string]any{"panel": map[string]any{"deny": "D"}}}})
		e.ScriptUI(nil, nil)
		want := func(text, surface string, keys ...string) {
			t.Helper()
			for _, k := range keys {
				if !strings.Contains(text, k) {
					t.Errorf("the %s's key list lacks %q:\n%s", surface, k, text)
				}
			}
		}
		// The panel (with the user's own deny key), then the proposal.
		path := e.WriteFile("h.txt", "one\n")
		sid := e.newSession(Seq(bash("echo hi > hi.txt", "write hi"), Step("Read", map[string]any{"file_path": path}),
			Step("Edit", map[string]any{"file_path": path, "old_string": "one", "new_string": "ONE"}),
			Step("Bash", map[string]any{"command": "sleep 3; echo slept", "description": "nap", "run_in_background": true})))
		e.Eventually(30*time.Second, "panel", func() bool { return e.PanelID() != "" })
		e.WaitGraceOver()
		want(e.helpFloat("action panel"), "panel", "D  ", "Deny with an optional message", "Allow once")
		e.Lua(nil, "vim.api.nvim_set_current_win(require('claudenova.surfaces.panel').current.win)")
		e.Input("a")
		_, buf := e.WaitProposalOf("toolu_s2")
		focusBuf(e, buf)
		want(e.helpFloat("proposal"), "proposal", ":w", ":q!", `\r`, "Put the original's lines back")
		focusBuf(e, buf)
		e.Cmd("write")
		e.WaitToolResult("toolu_s2")
		// The task's output.
		tk := e.allowTask(sid, "nap", started)
		e.Lua(nil, "require('claudenova.surfaces.tasks').open(...)", tk.ID)
		want(e.helpFloat("task output"), "task output", "X", "Stop the task")
		e.Input("q")
		e.WaitIdle(sid)
		// The transcript, the prompt input, the changes view, the rules, the usage.
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", sid)
		want(e.helpFloat("transcript"), "transcript", "i ", "Open the prompt input", "<CR>", "gf")
		e.Cmd("ClaudeNova prompt")
		e.WaitMode("i")
		e.Input("<Esc>")
		e.WaitMode("n")
		want(e.helpFloat("prompt input"), "prompt input", "<C-s>", "kept as a draft")
		e.Input("q")
		// The turn changed h.txt and, by its first command, hi.txt: the
		// view asks which.
		e.ScriptUI([]string{"h.txt"}, nil)
		e.Cmd("ClaudeNova changes")
		e.Eventually(10*time.Second, "changes view", func() bool {
			var s string
			e.Lua(&s, "return vim.b.claudenova_surface or ''")
			return s == "changes"
		})
		want(e.helpFloat("changes"), "changes", `\u`, "Undo the hunk")
		e.Cmd("ClaudeNova rules")
		want(e.helpFloat("rules"), "rules", "dd", "Take back the rule")
		e.Input("q")
		e.Cmd("ClaudeNova usage")
		e.Eventually(20*time.Second, "usage float", func() bool {
			var s string
			e.Lua(&s, "return vim.b.claudenova_surface or ''")
			return s == "usage"
		})
		want(e.helpFloat("usage"), "usage", "Close the usage")
		e.Input("q")
		// The sidebar, then a plan.
		e.Cmd("ClaudeNova")
		want(e.helpFloat("sidebar"), "sidebar", "X", "Stop what is under the cursor", "q ")
		e.Cmd("wincmd p")
		e.newSession("--plan " + Seq(Step("ExitPlanMode", map[string]any{"plan": "# Plan\n\n1. nothing"})))
		var pbuf int
		e.Eventually(30*time.Second, "plan", func() bool {
			for _, r := range e.Pending() {
				if r.Surface == "plan" {
					pbuf = e.PlanBuf(r.ID)
				}
			}
			return pbuf != 0
		})
		e.WaitGraceOver()
		focusBuf(e, pbuf)
		want(e.helpFloat("plan"), "plan", `\n`, "Keep planning")
	})
}

// A session claude has started is ready until its first prompt, a resumed
// one too (it read "starting" for as long as nothing was sent).
func TestSessionReadyUntilTheFirstPrompt(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		var sid int
		e.Lua(&sid, "return require('claudenova').new({}).id")
		e.Eventually(30*time.Second, "ready", func() bool { st, _ := e.SessionState(sid); return st == "ready" })
		e.Cmd("ClaudeNova")
		// The default mode is not named (only another one is).
		if side := strings.Join(e.sidebarLines(), "\n"); !strings.Contains(side, "1 · project · ready\n") && !strings.HasSuffix(side, "1 · project · ready") {
			t.Fatalf("the sidebar does not say ready:\n%s", side)
		}
		e.sendLua(sid, "hello")
		e.WaitIdle(sid)
		var claudeID string
		e.Lua(&claudeID, "return require('claudenova.store.state').sessions[...].claude_id", sid)
		e.Lua(nil, "require('claudenova').stop(...)", sid)
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(sid); return st == "exited" })
		var again int
		e.Lua(&again, "return require('claudenova').resume(...).id", claudeID)
		e.Eventually(30*time.Second, "the resumed session ready", func() bool { st, _ := e.SessionState(again); return st == "ready" })
		e.sendLua(again, "once more")
		e.WaitIdle(again)
	})
}

// An interrupt is one line in the transcript (not ours and claude's both).
func TestInterruptIsOneLine(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.sendLua(sid, "STREAMD 200 100")
		e.Eventually(30*time.Second, "streaming", func() bool { return strings.Contains(e.Transcript(sid), "chunk 000002") })
		e.Lua(nil, "require('claudenova').interrupt(...)", sid)
		e.WaitIdle(sid)
		e.Eventually(10*time.Second, "the interrupt noted", func() bool { return strings.Contains(e.Transcript(sid), "Interrupted by you.") })
		// Barrier: a prompt after it, answered; every line of the interrupt is in by then.
		e.sendLua(sid, "after")
		e.Eventually(30*time.Second, "answered", func() bool { return strings.Contains(e.Transcript(sid), "You said: after") })
		tr := e.Transcript(sid)
		if n := strings.Count(tr, "nterrupted by"); n != 1 || strings.Contains(tr, "[Request interrupted") {
			t.Fatalf("the interrupt is noted %d times:\n%s", n, tr)
		}
	})
}

// X on a session's row stops it: at once when idle, after a yes while a
// turn runs ("Keep it running" keeps it).
func TestSidebarStopKey(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI([]string{"Keep it running", "Stop it"}, nil)
		idle := e.startIdle("")
		busy := e.startIdle("")
		e.sendLua(busy, "SLOW 60000")
		e.Eventually(20*time.Second, "running", func() bool { st, _ := e.SessionState(busy); return st == "running" })
		e.Cmd("ClaudeNova")
		onRow := func(sid int) {
			e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
				for lnum, id in pairs(sb.session_rows) do if id == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, sid)
		}
		onRow(idle)
		e.Input("X")
		e.Eventually(20*time.Second, "the idle session stopped", func() bool { st, _ := e.SessionState(idle); return st == "exited" })
		onRow(busy)
		e.Input("X")
		e.Eventually(5*time.Second, "asked", func() bool {
			var prompts []string
			e.Lua(&prompts, "return _G.claudenova_test.prompts")
			return len(prompts) == 1 && strings.Contains(prompts[0], "is running: stop it?")
		})
		e.KeysDone()
		if st, _ := e.SessionState(busy); st != "running" {
			t.Fatalf("kept, but %s", st)
		}
		onRow(busy)
		e.Input("X")
		e.Eventually(20*time.Second, "the running session stopped", func() bool { st, _ := e.SessionState(busy); return st == "exited" })
		// On a request row X says what it stops.
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {1, 0})")
		e.Input("X")
		e.Eventually(5*time.Second, "told", func() bool { return e.NoteContaining("no task or session on this line") })
	})
}

// A prompt sent after the current session exited starts a new one, says so,
// and its transcript replaces the old one in the window.
func TestSendAfterExitAnnouncesTheNewSession(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		old := e.startIdle("")
		e.Lua(nil, "require('claudenova.frontend').open_transcript(...)", old)
		e.Lua(nil, "require('claudenova').stop(...)", old)
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(old); return st == "exited" })
		e.Cmd("ClaudeNova send are you there?")
		var cur int
		e.Lua(&cur, "return require('claudenova.store.state').current")
		if cur == old {
			t.Fatal("no new session")
		}
		e.Eventually(10*time.Second, "told", func() bool {
			return e.NoteContaining("new session "+itoa(cur)+" · ") && e.NoteContaining("had exited")
		})
		var shown int
		e.Lua(&shown, `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				local s = vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session
				if s then return s end
			end
			return 0`)
		if shown != cur {
			t.Fatalf("the window shows session %d's transcript, want %d", shown, cur)
		}
		e.Eventually(60*time.Second, "answered", func() bool { return strings.Contains(e.Transcript(cur), "You said: are you there?") })
		// From the old transcript's own prompt input as well.
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", old)
		e.Input("i")
		e.WaitMode("i")
		e.Input("still there?<C-s>")
		e.Eventually(10*time.Second, "a third session", func() bool {
			var n int
			e.Lua(&n, "return require('claudenova.store.state').current")
			return n != cur && n != old
		})
		if strings.Contains(e.Transcript(old), "still there?") {
			t.Fatal("the prompt went to the exited session")
		}
	})
}

// <CR> in the transcript off a tool line does not open the prompt input:
// an Enter pressed to dismiss a message, then a command, runs the command.
func TestTranscriptEnterKeepsTheKeys(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", sid)
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {1, 0})") // "## You"
		e.Type("<CR>")
		e.Type(":ClaudeNova mode acceptEdits<CR>")
		e.Eventually(20*time.Second, "the command ran", func() bool { _, m := e.SessionState(sid); return m == "acceptEdits" })
		if strings.HasPrefix(e.curBufName(), "claudenova://prompt/") {
			t.Fatal("<CR> opened the prompt input")
		}
		if !e.NoteContaining("i writes a prompt") {
			t.Errorf("not told how to write a prompt: %v", e.Notes())
		}
		e.Type("i")
		e.Eventually(5*time.Second, "i opens the input", func() bool { return strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
	})
}

// A proposal changed by a hunk key names :q! (plain :q stops on E37);
// rejecting it with the deny key tells Claude the user rejected it, with
// the note.
func TestRejectedProposalHintAndMessage(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("r.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
		e.ScriptUI(nil, []string{"not this one"})
		e.newSession(Seq(Step("Read", map[string]any{"file_path": path}),
			Step("Edit", map[string]any{"file_path": path, "old_string": "one\ntwo\nthree\nfour\nfive\nsix\nseven",
				"new_string": "ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN"})))
		p, buf := e.WaitProposal()
		focusBuf(e, buf)
		if bar := e.winbar(); !strings.Contains(bar, ":q reject") {
			t.Fatalf("winbar %q", bar)
		}
		e.cursorTo(7)
		e.Type(`\`, "r", `\`, "c")
		e.Eventually(5*time.Second, "changed", func() bool { return strings.Contains(e.winbar(), ":w apply · :q! reject") })
		if err := e.CmdErr("quit"); err == nil || !strings.Contains(err.Error(), "E37") {
			t.Fatalf(":q on the changed proposal: %v", err)
		}
		focusBuf(e, buf)
		e.Type(`\`, "d")
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "The user rejected") || !strings.Contains(r.Content, "not this one") ||
			strings.Contains(r.Content, "closed the proposed file") {
			t.Fatalf("Claude was told %+v", r)
		}
		if e.ReadFile("r.txt") != "one\ntwo\nthree\nfour\nfive\nsix\nseven\n" {
			t.Fatal("the file changed")
		}
		_ = p
	})
}

// A surface that waits while the user types in insert mode says so where
// it is seen (the mode message covers the message line), once.
func TestWaitingNoticeInInsertMode(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(80, 24)
		sid := e.startIdle("")
		e.Cmd("edit " + e.WriteFile("notes.txt", "notes\n"))
		e.Type("G", "o")
		e.WaitMode("i")
		p := e.typeAcross(func() { e.sendLua(sid, Seq(bash("echo ran > ran.txt", "write ran.txt"))) }, "a", "b", "c")
		if !e.waiting(p.ID) {
			t.Fatal("the panel did not wait")
		}
		screen := strings.Join(e.screenText(), "\n")
		if !strings.Contains(screen, "opens when you pause") {
			t.Fatalf("the waiting notice is not on screen in insert mode:\n%s", screen)
		}
		n := 0
		for _, note := range e.Notes() {
			if strings.Contains(note, "opens when you pause") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("the notice came %d times", n)
		}
		e.Input("<Esc>")
		e.Eventually(10*time.Second, "the panel after a pause", func() bool { return e.PanelID() == p.ID })
		if screen := strings.Join(e.screenText(), "\n"); strings.Contains(screen, "opens when you pause") {
			t.Fatalf("the notice stays after the panel opened:\n%s", screen)
		}
	})
}

// The announcement of a decided request leaves the message line.
func TestDecidedAnnouncementLeavesTheMessageLine(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(200, 24) // nothing is cut: the whole line stays on screen
		e.newSession(Seq(bash("echo ran > ran.txt", "write ran.txt")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel", func() bool { return e.PanelID() == p.ID })
		last := func() string { s := e.screenText(); return s[len(s)-1] }
		if !strings.Contains(last(), "a allow, d deny") {
			t.Fatalf("the message line: %q", last())
		}
		e.WaitGraceOver()
		e.Input("a")
		e.WaitToolResult("toolu_s0")
		e.Eventually(5*time.Second, "the announcement gone", func() bool { return !strings.Contains(last(), "a allow, d deny") })
	})
}

// A file change claude asks while the session plans (no plan approved) says
// so; it is not presented as if a plan were approved.
func TestPlanModeProposalIsMarked(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("pm.txt", "alpha\n")
		e.newSession("--plan " + readThenEdit(path, "alpha", "beta"))
		_, buf := e.WaitProposal()
		if !e.NoteContaining("plan mode, no plan approved") {
			t.Errorf("the announcement does not say so: %v", e.Notes())
		}
		focusBuf(e, buf)
		if bar := e.winbar(); !strings.Contains(bar, "plan mode, no plan approved") {
			t.Fatalf("winbar %q", bar)
		}
	})
}
