package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startIdle starts a session without opening any window (as a user whose
// session runs in the background) and waits for it to be idle.
func (e *Env) startIdle(mode string) int {
	e.t.Helper()
	var id int
	e.Lua(&id, "return require('claudenova').new({ prompt = 'hi', mode = (...) ~= '' and ... or nil }).id", mode)
	e.WaitIdle(id)
	return id
}

// sendLua sends a prompt through the Lua API: it works in any mode, so a
// request can arrive while the user is halfway through typing.
func (e *Env) sendLua(session int, prompt string) {
	e.t.Helper()
	e.Lua(nil, "require('claudenova').send(...)", prompt, session)
}

// WaitGraceOver waits until no surface is in its grace period (keys typed
// before it ends are dropped: a person reads what took the window first).
func (e *Env) WaitGraceOver() {
	e.t.Helper()
	e.Eventually(5*time.Second, "grace period over", func() bool {
		var n int
		e.Lua(&n, `local s = require('claudenova.services.scheduler'); local n = 0
			for b in pairs(s.grace) do if s.in_grace(b) then n = n + 1 end end
			if s.grace_all > vim.uv.now() then n = n + 1 end
			return n`)
		return n == 0
	})
}

// waiting reports whether request id's surface waits for the user.
func (e *Env) waiting(id string) bool {
	var w bool
	e.Lua(&w, "return require('claudenova.services.scheduler').is_waiting(...)", id)
	return w
}

func (e *Env) bufLines(buf int) string {
	var lines []string
	e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf)
	return strings.Join(lines, "\n")
}

func (e *Env) curBufName() string {
	var name string
	e.Lua(&name, "return vim.api.nvim_buf_get_name(0)")
	return name
}

// A request that arrives while the user types never takes their keys: in
// every mode the surface waits, every key lands where the user typed it,
// nothing is answered; back in normal mode the surface opens.
func TestArrivalNeverTakesKeystrokes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		before func(e *Env)        // put the user halfway through something
		mode   string              // the mode they are in when the request arrives
		finish func(e *Env)        // the rest of what they type
		check  func(e *Env, b int) // their buffer (b) afterwards
	}{
		{"insert", func(e *Env) { e.Input("Gotyped: ") }, "i",
			func(e *Env) { e.Input("more keys"); e.Input("<Esc>") },
			func(e *Env, b int) {
				if got := e.bufLines(b); got != "notes\ntyped: more keys" {
					t.Fatalf("the user's buffer is %q", got)
				}
			}},
		{"command line :w", func(e *Env) {
			e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, {'draft by the user'})")
			e.Input(":w")
		}, "c",
			func(e *Env) { e.Input("<CR>") },
			func(e *Env, b int) {
				e.Eventually(5*time.Second, "notes.txt written", func() bool { return e.ReadFile("notes.txt") == "draft by the user\n" })
			}},
		{"visual", func(e *Env) { e.Input("v") }, "v",
			func(e *Env) { e.Input("<Esc>") },
			func(e *Env, b int) {}},
		{"operator pending", func(e *Env) {
			e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, {'one two three'})")
			e.Input("gg0d")
		}, "no",
			func(e *Env) { e.Input("w") },
			func(e *Env, b int) {
				e.Eventually(5*time.Second, "dw done in the user's buffer", func() bool { return e.bufLines(b) == "two three" })
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e := NewEnv(t, v, Options{})
				target := e.WriteFile("a.txt", "alpha\nbeta\n")
				notes := e.WriteFile("notes.txt", "notes\n")
				sid := e.startIdle("")
				e.Cmd("edit " + notes)
				var userBuf int
				e.Lua(&userBuf, "return vim.api.nvim_get_current_buf()")
				c.before(e)
				e.WaitMode(c.mode)
				e.sendLua(sid, readThenEdit(target, "beta", "BETA"))
				p := e.WaitPending(1)[0]
				e.Eventually(10*time.Second, "surface waiting", func() bool { return e.waiting(p.ID) })
				if e.ProposalBuf(p.ID) != 0 {
					t.Fatal("the proposal opened while the user was typing")
				}
				if m, _ := e.Mode(); m != c.mode {
					t.Fatalf("mode changed to %q by the arrival", m)
				}
				if !e.NoteContaining("opens when you pause") {
					t.Errorf("the user was not told the request waits: %v", e.Notes())
				}
				var status string
				e.Lua(&status, "return require('claudenova').status()")
				if !strings.HasSuffix(status, ": 1 pending (1 waiting)") {
					t.Errorf("status() = %q", status)
				}
				c.finish(e)
				var buf int
				e.Eventually(10*time.Second, "proposal opens once the user is idle", func() bool { buf = e.ProposalBuf(p.ID); return buf != 0 })
				c.check(e, userBuf)
				if got := e.bufLines(buf); got != "alpha\nBETA" {
					t.Fatalf("the proposal took keys: %q", got)
				}
				var modified bool
				e.Lua(&modified, "return vim.bo[...].modified", buf)
				if modified {
					t.Fatal("the proposal buffer was modified")
				}
				if len(e.Pending()) != 1 || e.ReadFile("a.txt") != "alpha\nbeta\n" {
					t.Fatal("something was answered or written")
				}
			})
		})
	}
}

// Plans and questions wait for the user the same way.
func TestPlanAndQuestionWaitForNormalMode(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI(nil, nil) // record pickers, answer none
		notes := e.WriteFile("notes.txt", "notes\n")
		sid := e.startIdle("plan")
		e.Cmd("edit " + notes)
		e.Input("Goplan: ")
		e.WaitMode("i")
		e.sendLua(sid, Seq(Step("ExitPlanMode", map[string]any{"plan": "# Plan\n\n1. nothing"})))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "plan waiting", func() bool { return e.waiting(p.ID) })
		e.Input("typed<Esc>")
		e.Eventually(10*time.Second, "plan opens", func() bool { return e.PlanBuf(p.ID) != 0 })
		e.WaitGraceOver()
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)", notes)
		if strings.Join(lines, "\n") != "notes\nplan: typed" {
			t.Fatalf("user's buffer %q", lines)
		}
		// Keep planning closes it; now a question arrives while typing.
		e.Lua(nil, "require('claudenova.channel.host').request('plan', { id = ..., approve = false, feedback = 'later' })", p.ID)
		e.WaitToolResult("toolu_s0")
		e.Eventually(5*time.Second, "plan closed", func() bool { return e.PlanBuf(p.ID) == 0 })
		e.Cmd("buffer " + notes)
		e.Input("Goq: ")
		e.WaitMode("i")
		e.sendLua(sid, Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which?", "W", false, "x", "y")}})))
		var q Pending
		e.Eventually(60*time.Second, "question pending", func() bool {
			for _, r := range e.Pending() {
				if r.Surface == "question" {
					q = r
					return true
				}
			}
			return false
		})
		e.Eventually(10*time.Second, "question waiting", func() bool { return e.waiting(q.ID) })
		var prompts []string
		e.Lua(&prompts, "return _G.claudenova_test.prompts")
		if len(prompts) != 0 {
			t.Fatalf("a picker opened while typing: %v", prompts)
		}
		e.Input("asked<Esc>")
		e.Eventually(10*time.Second, "picker opens", func() bool {
			e.Lua(&prompts, "return _G.claudenova_test.prompts")
			return len(prompts) == 1 && strings.Contains(prompts[0], "Which?")
		})
	})
}

// Commands act on the request in view: the proposal under the cursor, else
// the only one pending, else the user picks.
func TestCommandsActOnTheRequestInView(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI(nil, nil)
		one := e.WriteFile("one.txt", "first\n")
		two := e.WriteFile("two.txt", "second\n")
		s1 := e.startIdle("")
		s2 := e.startIdle("")
		e.sendLua(s1, readThenEdit(one, "first", "FIRST"))
		e.WaitPending(1)
		e.sendLua(s2, readThenEdit(two, "second", "SECOND"))
		ps := e.WaitPending(2)
		var p2 Pending
		for _, p := range ps {
			if p.Session == s2 {
				p2 = p
			}
		}
		// The user opens session 2's proposal from the sidebar (its own
		// opens the moment the user is idle in session 1's; both proposals
		// stay open) and edits it.
		var buf int
		e.Eventually(10*time.Second, "session 1's proposal open", func() bool { return e.ProposalBuf(findSession(ps, s1).ID) != 0 })
		e.Lua(nil, "require('claudenova.frontend').present(...)", p2.ID) // as <CR> on its row does
		e.Eventually(10*time.Second, "session 2's proposal under the cursor", func() bool {
			var cur int
			e.Lua(&cur, "return vim.api.nvim_get_current_buf()")
			buf = e.ProposalBuf(p2.ID)
			return buf != 0 && cur == buf
		})
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, {'SECOND, amended'})")
		e.Cmd("ClaudeNova allow")
		e.Eventually(60*time.Second, "two.txt written with the user's edit", func() bool { return e.ReadFile("two.txt") == "SECOND, amended\n" })
		left := e.Pending()
		if len(left) != 1 || left[0].Session != s1 || e.ReadFile("one.txt") != "first\n" {
			t.Fatalf("session 1's request was touched: %+v", left)
		}
		// In a plain buffer with two pending, the user picks. (A prompt sent
		// before the turn ends joins it, and the scripted model reads only
		// prompts of their own.)
		e.WaitIdle(s2)
		e.sendLua(s2, Seq(bash("echo x > x.txt", "x")))
		e.WaitPending(2)
		// Out of the surfaces, the panel opens; the user hides it.
		e.Cmd("tabnew")
		e.Eventually(10*time.Second, "panel", func() bool { return e.PanelID() != "" })
		e.WaitGraceOver()
		e.Input("q")
		e.Eventually(5*time.Second, "panel hidden", func() bool { return e.PanelID() == "" })
		e.WaitGraceOver()
		e.Cmd("ClaudeNova deny")
		var prompts []string
		e.Eventually(5*time.Second, "picker offered", func() bool {
			e.Lua(&prompts, "return _G.claudenova_test.prompts")
			return len(prompts) > 0 && strings.Contains(prompts[len(prompts)-1], "which request")
		})
		var items []string
		e.Lua(&items, `local w = _G.claudenova_test.waiting_select
			local out = {}
			for _, it in ipairs(w.items) do table.insert(out, w.opts.format_item(it)) end
			return out`)
		if len(items) != 2 || !strings.Contains(strings.Join(items, "\n"), "Bash `echo x > x.txt`") || !strings.Contains(strings.Join(items, "\n"), "Edit one.txt") {
			t.Fatalf("picker items %q", items)
		}
		e.Lua(nil, "local w = _G.claudenova_test.waiting_select; w.cb(nil, nil)") // cancelled
		if len(e.Pending()) != 2 {
			t.Fatal("a cancelled picker decided something")
		}
		// With one pending, the command decides it.
		e.Lua(nil, "require('claudenova').decide(..., 'deny')", findSession(e.Pending(), s1).ID)
		e.Cmd("ClaudeNova deny")
		e.Eventually(10*time.Second, "the last one denied", func() bool { return len(e.Pending()) == 0 })
		if e.ReadFile("x.txt") != "" {
			t.Fatal("the denied command ran")
		}
	})
}

func findSession(ps []Pending, sid int) Pending {
	for _, p := range ps {
		if p.Session == sid {
			return p
		}
	}
	return Pending{}
}

// pending() and decide() agree at once; a second decide says why; a list is
// answered in order, each exactly once.
func TestDecideAndPendingAgree(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, log := faultEnv(t, v, func(string) []string {
			return append([]string{
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-a","input":{"command":"echo a"}}}`,
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-b","input":{"command":"echo b"}}}`,
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-c","input":{"command":"echo c"}}}`,
			}, sentinelSteps()...)
		})
		sid := e.newSession("go")
		e.WaitPending(3)
		var res struct {
			OK      bool     `msgpack:"ok"`
			Left    []string `msgpack:"left"`
			Again   bool     `msgpack:"again"`
			Why     string   `msgpack:"why"`
			ListOK  bool     `msgpack:"list_ok"`
			Pending int      `msgpack:"pending"`
		}
		e.Lua(&res, `local nova = require('claudenova')
			local ok = nova.decide('1:req-a', 'allow')
			local left = {}
			for _, r in ipairs(nova.pending()) do table.insert(left, r.id) end
			local again, why = nova.decide('1:req-a', 'deny')
			local list_ok = nova.decide({ '1:req-b', '1:req-c' }, 'deny')
			return { ok = ok, left = left, again = again, why = why, list_ok = list_ok, pending = #nova.pending() }`)
		if !res.OK || len(res.Left) != 2 || res.Again || res.Why != "that request is no longer pending" || !res.ListOK || res.Pending != 0 {
			t.Fatalf("%+v", res)
		}
		e.fakeAnswerBarrier(sid, log) // no fourth answer on its way
		as := userAnswers(log)
		if len(as) != 3 || as[0].RequestID != "req-a" || as[0].Behavior != "allow" || as[1].RequestID != "req-b" || as[2].RequestID != "req-c" || as[2].Behavior != "deny" {
			t.Fatalf("answers %+v", as)
		}
		// A loop over pending() terminates.
		for _, n := range e.ErrorNotes() {
			t.Errorf("error shown: %s", n)
		}
	})
}

// Errors read like the plugin's own, from a command, the Lua API and a key.
func TestErrorsHaveNoRPCPlumbing(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		clean := func(msg, want string) {
			t.Helper()
			if !strings.HasPrefix(msg, "claude-nova: ") || !strings.Contains(msg, want) {
				t.Errorf("message %q, want 'claude-nova: …%s…'", msg, want)
			}
			for _, bad := range []string{"remote#", "Invoking", "channel", "Vim(", ".lua:", "stack traceback"} {
				if strings.Contains(msg, bad) {
					t.Errorf("message %q carries plumbing (%s)", msg, bad)
				}
			}
		}
		last := func() string { n := e.ErrorNotes(); return n[len(n)-1] }
		// A command.
		e.Cmd("ClaudeNova mode bogus")
		clean(last(), `unknown permission mode "bogus"`)
		// The Lua API raises a clean error.
		var apiErr string
		e.Lua(&apiErr, "local ok, err = pcall(require('claudenova').set_mode, 'bogus'); return tostring(err)")
		clean(apiErr, "unknown permission mode")
		// A key: gf in the transcript off a tool call (a prompt to a session
		// that has exited is no error any more: it starts a new session).
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", sid)
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {1, 0})")
		e.Input("gf")
		e.Eventually(5*time.Second, "key error", func() bool { return strings.Contains(last(), "no cut tool result") })
		clean(last(), "no cut tool result on this line")
		// A bad cmd.
		e.Lua(nil, "require('claudenova').setup({ cmd = '/nonexistent/claude', storage = ... })", e.Storage)
		e.Input("<Esc>")
		e.Cmd("ClaudeNova new hi")
		clean(last(), "/nonexistent/claude")
	})
}

// W10 never appears when the original side is refreshed; staged files run
// no modelines and leave no swap or undo file in storage.
func TestProposalBufferHygiene(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		// A user whose swap and undo files go next to the file edited.
		e.Lua(nil, "vim.o.undofile = true; vim.o.undodir = '.'; vim.o.swapfile = true; vim.o.directory = '.'; vim.o.modeline = true")
		path := e.WriteFile("m.txt", "keep\n")
		e.newSession(Seq(Step("Read", map[string]any{"file_path": path}),
			Step("Edit", map[string]any{"file_path": path, "old_string": "keep", "new_string": "keep\n# vim: set shiftwidth=13 tabstop=13 :"})))
		p, buf := e.WaitProposal()
		var sw int
		e.Lua(&sw, "return vim.bo[...].shiftwidth", buf)
		if sw == 13 {
			t.Fatal("the staged file's modeline ran")
		}
		// Refresh the original side: the file changes on disk, the user saves.
		if err := os.WriteFile(path, []byte("keep\nother\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "rebased", func() bool { return e.NoteContaining("changed on disk") })
		var msgs, warn string
		e.Lua(&msgs, "return vim.fn.execute('messages')")
		e.Lua(&warn, "return vim.v.warningmsg")
		if strings.Contains(msgs, "W10") || strings.Contains(warn, "W10") {
			t.Fatalf("W10 shown: %q %q", msgs, warn)
		}
		e.Lua(&sw, "return vim.bo[...].shiftwidth", buf)
		if sw == 13 {
			t.Fatal("the modeline ran on the reload")
		}
		_ = filepath.Walk(e.Storage, func(path string, info os.FileInfo, err error) error {
			if err == nil && (strings.HasSuffix(path, ".swp") || strings.HasSuffix(path, ".un~")) {
				t.Errorf("swap or undo file in storage: %s", path)
			}
			return nil
		})
		_ = p
	})
}

// At 60 columns no message makes the user press ENTER.
func TestNoHitEnterAtSixtyColumns(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(60, 20)
		path := e.WriteFile("a-file-with-a-rather-long-name-for-the-notification.txt", "one\ntwo\n")
		e.newSession(readThenEdit(path, "two", "TWO"))
		p, buf := e.WaitProposal()
		// Barrier for each: the whole message is in :messages (a cut one
		// gets there once the editor is idle), then noPromptWaits.
		notBlocked := func(what, whole string) {
			t.Helper()
			e.messageShown(whole)
			e.noPromptWaits(what)
		}
		notBlocked("the request notification", "rather-long-name-for-the-notification.txt (1 · SEQ")
		e.LuaAsync("vim.cmd('ClaudeNova mode bogus-mode-with-a-long-name-that-does-not-exist')")
		notBlocked("a host error", "does-not-exist\" (one of default")
		// A conflict: the file changes where the user edited.
		if err := os.WriteFile(path, []byte("one\nTWO from elsewhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 1, 2, false, {'TWO by the user'})", buf)
		focusBuf(e, buf)
		e.LuaAsync("vim.cmd('write')")
		e.Eventually(10*time.Second, "conflict told", func() bool { return e.NoteContaining("nothing applied") || e.NoteContaining("conflict") })
		notBlocked("a conflict message", ":w writes it as it is, :q rejects")
		_ = p
	})
}

// <CR> on a row brings a surface back whole; closing it tidies its tab.
func TestSurfacesComeBackWhole(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("w.txt", "one\n")
		e.newSession(readThenEdit(path, "one", "ONE"))
		p, buf := e.WaitProposal()
		// The user closes the original side.
		e.Lua(nil, `local orig = require('claudenova.surfaces.proposal').open_[...].orig
			for _, w in ipairs(vim.fn.win_findbuf(orig)) do vim.api.nvim_win_close(w, true) end`, p.ID)
		e.Cmd("ClaudeNova")
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for lnum, id in pairs(sb.rows) do if id == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, p.ID)
		e.Input("<CR>")
		e.Eventually(5*time.Second, "diff layout back", func() bool {
			var n int
			e.Lua(&n, `local p = require('claudenova.surfaces.proposal').open_[...]
				if not p or vim.api.nvim_get_current_buf() ~= p.buf then return 0 end
				local n = 0
				for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
					local b = vim.api.nvim_win_get_buf(w)
					if (b == p.buf or b == p.orig) and vim.wo[w].diff then n = n + 1 end
				end
				return n`, p.ID)
			return n == 2
		})
		// The sidebar opened in the proposal's tab; rejecting the proposal
		// closes that tab instead of leaving the sidebar alone in it.
		var tabs int
		e.Lua(&tabs, "return #vim.api.nvim_list_tabpages()")
		e.Cmd("ClaudeNova sidebar")
		focusBuf(e, buf)
		e.Cmd("ClaudeNova sidebar")
		e.Cmd("bwipeout! " + itoa(buf))
		e.Eventually(5*time.Second, "proposal tab closed", func() bool {
			var n int
			e.Lua(&n, "return #vim.api.nvim_list_tabpages()")
			return n == tabs-1
		})
		// q in a sidebar that is the last window of a tab closes the tab.
		e.Cmd("tabnew")
		e.Cmd("ClaudeNova sidebar")
		e.Cmd("only")
		e.Lua(&tabs, "return #vim.api.nvim_list_tabpages()")
		e.Input("q")
		e.Eventually(5*time.Second, "tab closed", func() bool {
			var n int
			e.Lua(&n, "return #vim.api.nvim_list_tabpages()")
			return n == tabs-1
		})
		if strings.HasSuffix(e.curBufName(), "sidebar") {
			t.Fatal("still in the sidebar")
		}
	})
}

// A message right after a pick from the built-in vim.ui.select (whose list
// is still in the message area) does not make the user press ENTER.
func TestNoHitEnterAfterAPick(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true})
		e.AttachUI(60, 20)
		e.LuaAsync(`vim.ui.select({ "greet.py · 1 hunk", "notes/todo.md · 1 hunk · new file" }, { prompt = "Files changed by prompt 1:" }, function(f)
			require("claudenova.setup.notify").info("changes of " .. tostring(f) .. ": ,u undo a hunk, ,k keep it, q close")
		end)`)
		// The list is up: Neovim waits for the pick (0.10: a prompt, mode
		// "rm"; 0.12: the command line, mode "c").
		e.Eventually(10*time.Second, "the list waiting for a pick", func() bool { m, _ := e.Mode(); return m != "n" })
		e.Input("2<CR>")
		e.messageShown("changes of notes/todo.md · 1 hunk · new file: ,u undo a hunk, ,k keep it, q close")
		e.noPromptWaits("a pick and a message")
	})
}
