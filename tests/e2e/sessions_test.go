package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sessionRow matches a session's row in the sidebar tree: a fold marker
// (or none when it has no request), its number and name.
var sessionRow = regexp.MustCompile(`^(?:[▾▸] |  )\d+ · `)

const appLua = "local a = 1\nlocal b = 2\nlocal THIRD = 3\nlocal FOURTH = 4\nlocal FIFTH = 5\nlocal sixth = 6\n"

// waitRequest waits until a model request contains every want, and returns it.
func (e *Env) waitRequest(want ...string) string {
	e.t.Helper()
	var got string
	e.Eventually(30*time.Second, "a model request with "+strings.Join(want, ", "), func() bool {
		for _, r := range e.Model.RequestTexts() {
			ok := true
			for _, w := range want {
				if !strings.Contains(r, w) {
					ok = false
					break
				}
			}
			if ok {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

// :3,5ClaudeNova send explain: the model gets the prompt, the path with the
// range and exactly those lines.
func TestSendSelection(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("src/app.lua", appLua)
		e.Cmd("edit src/app.lua")
		e.Cmd("3,5ClaudeNova send explain")
		req := e.waitRequest("explain", "@src/app.lua#L3-5", "```lua\nlocal THIRD = 3\nlocal FOURTH = 4\nlocal FIFTH = 5\n```")
		if strings.Contains(req, "local b = 2") || strings.Contains(req, "local sixth") {
			t.Fatalf("lines outside the range were sent:\n%s", req)
		}
		// The same from the prompt input: the lines are in it, the prompt goes first.
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		e.Cmd("2,2ClaudeNova send")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if len(lines) < 4 || lines[0] != "" || lines[2] != "@src/app.lua#L2" {
			t.Fatalf("prompt input: %q", lines)
		}
		e.Input("what is b?<C-s>")
		e.waitRequest("what is b?\n\n@src/app.lua#L2\n```lua\nlocal b = 2\n```")
	})
}

// A buffer with unsaved changes, referenced with add: the model gets its
// text in the editor, told it is unsaved, and never the disk copy.
func TestAddUnsavedBuffer(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("src/app.lua", "local DISK_ONLY = 1\n")
		e.WriteFile("notes.md", "# notes on DISK\n")
		e.Cmd("edit src/app.lua")
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'local UNSAVED_EDIT = 2' })")
		e.Cmd("ClaudeNova add")
		e.Cmd("ClaudeNova add notes.md")
		if !e.NoteContaining("added @notes.md for the next prompt (2 queued)") {
			t.Fatalf("notes: %v", e.Notes())
		}
		// The prompt input shows both references; the unsaved one is marked.
		e.Cmd("ClaudeNova send")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if strings.Join(lines, "|") != "||@src/app.lua|@notes.md" {
			t.Fatalf("prompt input: %q", lines)
		}
		var marked int
		e.Lua(&marked, "return #vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_get_namespaces().claudenova_prompt, 0, -1, {})")
		if marked != 1 {
			t.Fatalf("%d lines marked unsaved, want 1", marked)
		}
		e.Input("look at these<C-s>")
		req := e.waitRequest("look at these", "UNSAVED_EDIT", "unsaved in the editor", "# notes on DISK")
		for _, r := range e.Model.RequestTexts() {
			if strings.Contains(r, "DISK_ONLY") {
				t.Fatalf("the disk copy of the unsaved buffer reached the model:\n%s", r)
			}
		}
		if !strings.Contains(req, "src/app.lua (unsaved") {
			t.Fatalf("the prompt does not say the text is unsaved:\n%s", req)
		}
	})
}

// typeText types s as a person does: one key at a time, keyPause apart.
func (e *Env) typeText(s string) {
	e.t.Helper()
	for _, r := range s {
		k := string(r)
		if r == '<' {
			k = "<lt>"
		}
		e.Input(k)
		time.Sleep(keyPause)
	}
}

// promptLine is the prompt input's current line.
func (e *Env) promptLine() string {
	var l string
	e.Lua(&l, "return vim.api.nvim_get_current_line()")
	return l
}

// menu is what the completion menu offers ("" items when it is closed).
func (e *Env) menu() []string {
	var words []string
	e.Lua(&words, `if vim.fn.pumvisible() == 0 then return {} end
		local out = {}
		for _, it in ipairs(vim.fn.complete_info({ 'items' }).items) do table.insert(out, it.word) end
		return out`)
	return words
}

// The prompt input never writes for you: with each Neovim's default
// 'completeopt', @ at the start of a word opens a menu of the folder's files
// (ranked by a fuzzy match in the host) and / at the start of the prompt one
// of claude's commands, while the line stays exactly what was typed; a /
// inside a sentence opens nothing; <C-n><C-y> takes a choice. The user's own
// 'completeopt' is untouched.
func TestPromptCompletion(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("src/app.lua", appLua)
		e.WriteFile("src/other.txt", "x\n")
		e.WriteFile("README.md", "x\n")
		var before string
		e.Lua(&before, "return vim.o.completeopt")
		id := e.startIdle("")
		e.Lua(nil, "require('claudenova.frontend').prompt(...)", id)
		e.WaitMode("i")
		e.typeText("explain @")
		e.Eventually(10*time.Second, "the file menu", func() bool { return len(e.menu()) >= 3 })
		if l := e.promptLine(); l != "explain @" {
			t.Fatalf("the line is %q after typing %q", l, "explain @")
		}
		e.typeText("sapp")
		e.Eventually(10*time.Second, "the narrowed menu", func() bool { m := e.menu(); return len(m) > 0 && m[0] == "src/app.lua" })
		if l := e.promptLine(); l != "explain @sapp" {
			t.Fatalf("the line is %q", l)
		}
		e.Input("<C-n><C-y>")
		e.Eventually(5*time.Second, "the choice taken", func() bool { return e.promptLine() == "explain @src/app.lua" })
		// A / inside a sentence is text.
		e.typeText(" see /etc/hosts")
		if l := e.promptLine(); l != "explain @src/app.lua see /etc/hosts" {
			t.Fatalf("the line is %q", l)
		}
		if m := e.menu(); len(m) != 0 {
			t.Fatalf("a / inside a sentence opened %q", m)
		}
		// / at the start of the prompt: claude's commands, nothing inserted.
		e.Input("<Esc>")
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })")
		e.Input("i")
		e.WaitMode("i")
		e.typeText("/co")
		e.Eventually(10*time.Second, "the command menu", func() bool {
			for _, w := range e.menu() {
				if w == "compact" {
					return true
				}
			}
			return false
		})
		if l := e.promptLine(); l != "/co" {
			t.Fatalf("the line is %q after typing /co", l)
		}
		// Out of the input, the user's own option is as it was.
		e.Input("<Esc>q")
		e.Eventually(5*time.Second, "the input closed", func() bool { return !strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
		var after string
		e.Lua(&after, "return vim.go.completeopt .. '|' .. vim.o.completeopt")
		if after != before+"|"+before {
			t.Fatalf("the user's completeopt changed: %q -> %q", before, after)
		}
	})
}

func (e *Env) sidebarLines() []string {
	var lines []string
	e.Lua(&lines, "local sb = require('claudenova.surfaces.sidebar'); if not sb.buf then return {} end; return vim.api.nvim_buf_get_lines(sb.buf, 0, -1, false)")
	return lines
}

// Two sessions with different first prompts are told apart in the sidebar,
// the picker, notifications and the winbar; rename shows everywhere and in
// claude's own store.
func TestSessionsToldApart(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		var a int
		e.Lua(&a, `local info = require('claudenova').new({ prompt = "fix the flaky login test\nwith details" })
			require('claudenova.frontend').open_transcript(info.id)
			return info.id`)
		e.WaitIdle(a)
		b := e.newSession(Seq(bash("echo hi > out.txt", "write out.txt")))
		e.Cmd("ClaudeNova")
		e.Cmd("wincmd p")
		e.WaitPending(1)
		side := strings.Join(e.sidebarLines(), "\n")
		if !strings.Contains(side, "1 · fix the flaky login test · idle") || !strings.Contains(side, "2 · SEQ") {
			t.Fatalf("sidebar:\n%s", side)
		}
		// The announcement follows the row (it is measured against the screen
		// the surface opens on).
		e.Eventually(10*time.Second, "the notification names the session", func() bool { return e.NoteContaining("(2 · SEQ") })
		var picker []string
		e.Lua(&picker, `local ui = require('claudenova.frontend')
			return vim.tbl_map(ui.session_line, require('claudenova').sessions())`)
		if len(picker) != 2 || !strings.HasPrefix(picker[0], "1 · fix the flaky login test · ") {
			t.Fatalf("picker: %q", picker)
		}
		var status string
		e.Lua(&status, "return require('claudenova').status()")
		if !strings.HasPrefix(status, "SEQ") || !strings.HasSuffix(status, ": 1 pending") {
			t.Fatalf("status() = %q", status)
		}
		e.Lua(nil, "require('claudenova').decide(require('claudenova').pending()[1].id, 'deny')")
		// Rename the session in view: session 1's transcript (session 2 is current).
		e.Lua(nil, `local tr = require('claudenova.surfaces.transcript')
			for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session then
					vim.api.nvim_set_current_win(w)
					vim.api.nvim_win_set_buf(w, tr.bufs[...])
					return
				end
			end
			error('no transcript window')`, a)
		e.Cmd("ClaudeNova rename Login work")
		e.Eventually(10*time.Second, "the name everywhere", func() bool {
			side := strings.Join(e.sidebarLines(), "\n")
			bar := e.winbar()
			return strings.Contains(side, "1 · Login work · ") && strings.Contains(bar, "1 · Login work")
		})
		// claude took the name: its session store has it.
		var claudeID string
		e.Lua(&claudeID, "return require('claudenova.store.state').sessions[...].claude_id", a)
		e.Eventually(10*time.Second, "claude stored the title", func() bool {
			matches, _ := filepath.Glob(filepath.Join(e.Home, ".claude", "projects", "*", claudeID+".jsonl"))
			if len(matches) == 0 {
				return false
			}
			data, _ := os.ReadFile(matches[0])
			return strings.Contains(string(data), `"customTitle":"Login work"`)
		})
		_ = b
	})
}

// Stop a session with two turns and resume it from the picker: the
// transcript shows both turns as history, a new prompt continues claude's
// same session.
func TestResumeFromPickerWithHistory(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		a := e.newSession("first turn here")
		e.WaitIdle(a)
		e.Cmd("ClaudeNova send second turn here")
		e.Eventually(30*time.Second, "second answer", func() bool { return strings.Contains(e.Transcript(a), "You said: second turn here") })
		e.WaitIdle(a)
		var claudeID string
		e.Lua(&claudeID, "return require('claudenova.store.state').sessions[...].claude_id", a)
		e.Cmd("ClaudeNova stop")
		e.Eventually(10*time.Second, "exited", func() bool { st, _ := e.SessionState(a); return st == "exited" })
		e.Lua(nil, "table.insert(_G.claudenova_test.selects, 'first turn here')")
		e.Cmd("ClaudeNova resume")
		var b int
		e.Lua(&b, "return require('claudenova.store.state').current")
		if b == a || b == 0 {
			t.Fatalf("no new session (current %d)", b)
		}
		e.Eventually(30*time.Second, "history", func() bool { return strings.Contains(e.Transcript(b), "live from here") })
		tr := e.Transcript(b)
		for _, want := range []string{"## You · earlier · checkpoint 1 · ", "first turn here", "You said: first turn here", "second turn here", "## Claude · earlier"} {
			if !strings.Contains(tr, want) {
				t.Fatalf("history lacks %q:\n%s", want, tr)
			}
		}
		// The name comes in a session event; the history above may have come
		// first, in the transcript snapshot the front end fetched.
		var name string
		e.Eventually(10*time.Second, "the resumed session named by its first prompt", func() bool {
			e.Lua(&name, "return require('claudenova.store.state').sessions[...].name", b)
			return name == "first turn here"
		})
		e.Cmd("ClaudeNova send third turn")
		e.Eventually(30*time.Second, "third answer", func() bool { return strings.Contains(e.Transcript(b), "You said: third turn") })
		var again string
		e.Lua(&again, "return require('claudenova.store.state').sessions[...].claude_id", b)
		if again != claudeID {
			t.Fatalf("resumed claude session %q, want %q", again, claudeID)
		}
		// The model saw the earlier turns (claude resumed, not restarted).
		e.waitRequest("first turn here", "second turn here", "third turn")
	})
}

// The sidebar is a tree: <CR> on a session folds it; exited sessions are
// dimmed and x clears them; ages advance with no other event, and the
// timer stops when the sidebar is hidden. The key hint wraps to fit.
func TestSidebarTree(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a := e.newSession("will exit")
		e.WaitIdle(a)
		e.Cmd("ClaudeNova stop")
		e.Eventually(10*time.Second, "exited", func() bool { st, _ := e.SessionState(a); return st == "exited" })
		b := e.newSession(Seq(bash("echo hi > out.txt", "write out.txt")))
		_ = b
		e.Cmd("ClaudeNova")
		e.Cmd("wincmd p")
		e.WaitPending(1)
		row := func() string {
			for _, l := range e.sidebarLines() {
				if strings.HasPrefix(l, "    Bash") {
					return l
				}
			}
			return ""
		}
		first := row()
		e.Eventually(10*time.Second, "the age advances by itself", func() bool { r := row(); return r != "" && r != first })
		// The key hint wraps: every key visible at width 30.
		e.Cmd("ClaudeNova")
		e.Cmd("ClaudeNova")
		e.Cmd("vertical resize 30")
		lines := e.sidebarLines()
		hint := strings.Join(lines[1:4], " ")
		for _, want := range []string{"<CR> open", "q close", "g? keys"} {
			if !strings.Contains(hint, want) {
				t.Fatalf("hint lacks %q:\n%s", want, strings.Join(lines, "\n"))
			}
		}
		for _, l := range lines[:4] {
			if len([]rune(l)) > 30 {
				t.Fatalf("hint line wider than the window: %q", l)
			}
		}
		// <CR> on the session row folds its requests.
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for l, sid in pairs(sb.session_rows) do if sid == ... then vim.api.nvim_win_set_cursor(0, { l, 0 }) end end`, b)
		e.Input("<CR>")
		e.Eventually(5*time.Second, "folded", func() bool { return row() == "" && strings.Contains(strings.Join(e.sidebarLines(), "\n"), "▸ 2 · ") })
		e.Input("za")
		e.Eventually(5*time.Second, "unfolded", func() bool { return row() != "" })
		// The exited session is dimmed; x on its row clears it.
		var hl string
		e.Lua(&hl, `local sb = require('claudenova.surfaces.sidebar')
			for l, sid in pairs(sb.session_rows) do
				if sid == ... then
					vim.api.nvim_win_set_cursor(0, { l, 0 })
					local m = vim.api.nvim_buf_get_extmarks(sb.buf, vim.api.nvim_get_namespaces().claudenova_sidebar, { l - 1, 0 }, { l - 1, -1 }, { details = true })
					return m[1] and m[1][4].hl_group or ''
				end
			end
			return ''`, a)
		if hl != "ClaudeNovaSessionExited" {
			t.Fatalf("exited session row highlight %q", hl)
		}
		e.Input("x")
		e.Eventually(5*time.Second, "cleared", func() bool {
			return !strings.Contains(strings.Join(e.sidebarLines(), "\n"), "1 · will exit")
		})
		var n int
		e.Lua(&n, "return #require('claudenova').sessions()")
		if n != 1 {
			t.Fatalf("%d sessions left", n)
		}
		// Hidden: the timer stops.
		e.Cmd("ClaudeNova")
		e.Eventually(10*time.Second, "timer stopped", func() bool {
			var running bool
			e.Lua(&running, "return require('claudenova.surfaces.sidebar').timer_running()")
			return !running
		})
	})
}

// i in a transcript opens the prompt input; after <C-s> the cursor is back
// in that transcript, in normal mode (not in the user's file beside it).
func TestSendReturnsToTheTranscript(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("notes.md", "mine\n")
		// make demo's layout: the user's file, the sidebar, the transcript.
		e.Cmd("edit notes.md")
		e.Cmd("ClaudeNova")
		e.Cmd("wincmd p")
		id := e.newSession("hi")
		e.WaitIdle(id)
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", id)
		var trWin int
		e.Lua(&trWin, "return vim.api.nvim_get_current_win()")
		e.Input("i")
		e.WaitMode("i")
		e.typeText("second prompt")
		// Meanwhile the layout changes under the input: the transcript's
		// window is closed and the transcript shown again in a new one.
		e.Lua(nil, `local tr = ...
			vim.api.nvim_win_close(tr, true)
			local b = require('claudenova.surfaces.transcript').bufs[select(2, ...)]
			vim.cmd('botright split')
			vim.api.nvim_win_set_buf(0, b)
			vim.cmd('wincmd p')`, trWin, id)
		e.Lua(&trWin, "return vim.fn.win_findbuf(require('claudenova.surfaces.transcript').bufs[...])[1]", id)
		// And the window Neovim goes back to from the input is the user's
		// file now (its "previous window"), as it was in make demo.
		e.Lua(nil, `vim.api.nvim_set_current_win(vim.fn.win_getid(1))
			for _, w in ipairs(vim.api.nvim_list_wins()) do
				if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_surface == 'prompt' then vim.api.nvim_set_current_win(w) end
			end`)
		e.Input("<C-s>")
		e.Eventually(10*time.Second, "sent", func() bool { return strings.Contains(e.Transcript(id), "second prompt") })
		e.Eventually(5*time.Second, "back in the transcript", func() bool {
			var w int
			e.Lua(&w, "return vim.api.nvim_get_current_win()")
			return w == trWin
		})
		if m, _ := e.Mode(); m != "n" {
			t.Fatalf("mode %q after sending", m)
		}
		e.Input("i")
		e.WaitMode("i")
		if !strings.HasPrefix(e.curBufName(), "claudenova://prompt/") {
			t.Fatalf("i typed into %s", e.curBufName())
		}
	})
}

// A file Claude just wrote is offered by @ at once, not when the folder's
// list next expires.
func TestPromptCompletionKnowsAWrittenFile(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("src/app.lua", appLua)
		id := e.startIdle("acceptEdits")
		e.Lua(nil, "require('claudenova.frontend').prompt(...)", id)
		e.WaitMode("i")
		e.typeText("@")
		e.Eventually(10*time.Second, "the file menu", func() bool { return len(e.menu()) >= 1 })
		e.Input("<Esc>")
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })")
		e.sendLua(id, Seq(Step("Write", map[string]any{"file_path": filepath.Join(e.Project, "src", "brandnew.lua"), "content": "return {}\n"})))
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("write failed: %s", r.Content)
		}
		e.Input("i")
		e.WaitMode("i")
		e.typeText("@brandn")
		// Typing starts no new query after this: without the written file
		// in the list, the menu stays empty.
		e.Eventually(5*time.Second, "the written file offered", func() bool {
			m := e.menu()
			return len(m) > 0 && m[0] == "src/brandnew.lua"
		})
	})
}
