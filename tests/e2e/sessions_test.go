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

// @ completes the session folder's files, / claude's slash commands; both
// open by themselves when typed at the start of a word.
func TestPromptCompletion(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("src/app.lua", appLua)
		e.WriteFile("src/other.txt", "x\n")
		e.newSession("")
		// new without a prompt opened the input.
		var surface string
		e.Lua(&surface, "return vim.b.claudenova_surface or ''")
		if surface != "prompt" {
			t.Fatalf("current buffer is %q, not the prompt input", surface)
		}
		complete := func(line string) []string {
			var words []string
			e.Lua(&words, `local line = ...
				vim.api.nvim_set_current_line(line)
				vim.api.nvim_win_set_cursor(0, { vim.fn.line('.'), #line })
				local ctx = require('claudenova.context')
				local start = ctx.omnifunc(1, '')
				if start < 0 then return {} end
				local out = {}
				for _, it in ipairs(ctx.omnifunc(0, line:sub(start + 1))) do table.insert(out, it.word) end
				return out`, line)
			return words
		}
		if w := complete("see @src/a"); len(w) != 1 || w[0] != "src/app.lua" {
			t.Fatalf("@src/a completes to %q", w)
		}
		e.Eventually(20*time.Second, "slash commands", func() bool {
			w := complete("/comp")
			return len(w) > 0 && w[0] == "compact"
		})
		if w := complete("a/b"); len(w) != 0 {
			t.Fatalf("a / inside a word completed: %q", w)
		}
		// Typed: completion opens by itself.
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })")
		e.Input("<Esc>Sfix @src/a")
		e.Eventually(5*time.Second, "omni completion opened", func() bool {
			var mode string
			e.Lua(&mode, "return vim.fn.complete_info({ 'mode' }).mode")
			return mode == "omni"
		})
		e.Input("<Esc>")
	})
}

func (e *Env) sidebarLines() []string {
	var lines []string
	e.Lua(&lines, "local sb = require('claudenova.ui.sidebar'); if not sb.buf then return {} end; return vim.api.nvim_buf_get_lines(sb.buf, 0, -1, false)")
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
			require('claudenova.ui').open_transcript(info.id)
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
		e.Lua(&picker, `local ui = require('claudenova.ui')
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
		e.Lua(nil, `local tr = require('claudenova.ui.transcript')
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
		e.Lua(&claudeID, "return require('claudenova.ui.state').sessions[...].claude_id", a)
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

// A session's snapshot taken before the one shown but delivered after it
// (two of the host's goroutines send theirs in the other order) is dropped:
// a resumed session kept its folder's name over its first prompt that way.
func TestStaleSessionSnapshotIsDropped(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a := e.newSession("hello")
		e.WaitIdle(a)
		var name string
		e.Lua(&name, `local id = ...
			local s = require('claudenova.ui.state').sessions[id]
			local stale = vim.deepcopy(s)
			stale.version, stale.name = s.version - 1, 'project'
			require('claudenova.ui').apply(vim.json.encode({ { event = 'session', data = stale } }))
			return require('claudenova.ui.state').sessions[id].name`, a)
		if name != "hello" {
			t.Fatalf("a stale snapshot replaced the session's name: %q", name)
		}
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
		e.Lua(&claudeID, "return require('claudenova.ui.state').sessions[...].claude_id", a)
		e.Cmd("ClaudeNova stop")
		e.Eventually(10*time.Second, "exited", func() bool { st, _ := e.SessionState(a); return st == "exited" })
		e.Lua(nil, "table.insert(_G.claudenova_test.selects, 'first turn here')")
		e.Cmd("ClaudeNova resume")
		var b int
		e.Lua(&b, "return require('claudenova.ui.state').current")
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
			e.Lua(&name, "return require('claudenova.ui.state').sessions[...].name", b)
			return name == "first turn here"
		})
		e.Cmd("ClaudeNova send third turn")
		e.Eventually(30*time.Second, "third answer", func() bool { return strings.Contains(e.Transcript(b), "You said: third turn") })
		var again string
		e.Lua(&again, "return require('claudenova.ui.state').sessions[...].claude_id", b)
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
		e.Lua(nil, `local sb = require('claudenova.ui.sidebar')
			for l, sid in pairs(sb.session_rows) do if sid == ... then vim.api.nvim_win_set_cursor(0, { l, 0 }) end end`, b)
		e.Input("<CR>")
		e.Eventually(5*time.Second, "folded", func() bool { return row() == "" && strings.Contains(strings.Join(e.sidebarLines(), "\n"), "▸ 2 · ") })
		e.Input("za")
		e.Eventually(5*time.Second, "unfolded", func() bool { return row() != "" })
		// The exited session is dimmed; x on its row clears it.
		var hl string
		e.Lua(&hl, `local sb = require('claudenova.ui.sidebar')
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
			e.Lua(&running, "return require('claudenova.ui.sidebar').timer_running()")
			return !running
		})
	})
}
