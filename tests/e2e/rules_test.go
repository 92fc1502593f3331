package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// always answers the request in the open panel with "Always…": the rule
// typed over the suggestion, deny when asked, and the scope's number.
func (e *Env) always(rule string, deny bool, scope string) {
	e.t.Helper()
	e.Input("A")
	e.Eventually(5*time.Second, "always form", func() bool { return e.curBufFiletype() == "claudenova-always" })
	if rule != "" {
		e.Input("C" + rule + "<Esc>")
	}
	if deny {
		e.Input("<Tab>")
	}
	e.Input(scope + "<CR>")
}

func (e *Env) panelText() string {
	var lines []string
	e.Lua(&lines, "local c = require('claudenova.surfaces.panel').current; return c and vim.api.nvim_buf_get_lines(c.buf, 0, -1, false) or {}")
	return strings.Join(lines, "\n")
}

func (e *Env) curBufFiletype() string {
	var ft string
	e.Lua(&ft, "return vim.bo.filetype")
	return ft
}

func (e *Env) waitPanel() Pending {
	e.t.Helper()
	p := e.WaitPending(1)[0]
	e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
	e.WaitGraceOver()
	return p
}

func TestAlwaysAllowLocalRule(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		local := e.WriteFile(".claude/settings.local.json", `{"env":{"KEEP":"1"}}`)
		e.newSession(Seq(bash("touch a.txt", "a")))
		p := e.waitPanel()
		// The panel says what each choice allows.
		var panel []string
		e.Lua(&panel, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.panel').current.buf, 0, -1, false)")
		text := strings.Join(panel, "\n")
		for _, w := range []string{"Allow once", "Allow Bash(touch a.txt) this session", "Allow every Bash call this session", "Always…"} {
			if !strings.Contains(text, w) {
				t.Fatalf("panel lacks %q:\n%s", w, text)
			}
		}
		e.always("Bash(touch:*)", false, "2")
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		e.Eventually(10*time.Second, "rule saved by claude", func() bool { return strings.Contains(read(t, local), `"Bash(touch:*)"`) })
		if s := read(t, local); !strings.Contains(s, `"KEEP": "1"`) {
			t.Fatalf("other keys lost:\n%s", s)
		}
		_ = p
		// A new session: touch runs without asking, mkdir is asked.
		e.newSession(Seq(bash("touch b.txt", "b"), bash("mkdir c", "c")))
		q := e.waitPanel()
		if !strings.Contains(q.Target, "mkdir") {
			t.Fatalf("asked %+v, want mkdir only", q)
		}
		if e.ReadFile("b.txt") == "" {
			if _, err := os.Stat(filepath.Join(e.Project, "b.txt")); err != nil {
				t.Fatal("touch b.txt did not run")
			}
		}
	})
}

func TestAlwaysScopes(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		// Project, shared: written to .claude/settings.json.
		e.newSession(Seq(bash("touch p.txt", "p")))
		e.waitPanel()
		e.always("Bash(touch p.txt)", false, "3")
		e.WaitToolResult("toolu_s0")
		e.Eventually(10*time.Second, "project settings written", func() bool {
			return strings.Contains(e.ReadFile(".claude/settings.json"), `"Bash(touch p.txt)"`)
		})
		// Session: no file; the same session is not asked again, another is.
		before := e.ReadFile(".claude/settings.local.json")
		e.newSession(Seq(bash("mkdir s1", "s1"), bash("mkdir s2", "s2")))
		e.waitPanel()
		e.always("Bash(mkdir:*)", false, "1")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("second mkdir %+v", r)
		}
		if e.ReadFile(".claude/settings.local.json") != before {
			t.Fatal("a session rule was written to a file")
		}
		e.newSession(Seq(bash("mkdir s3", "s3")))
		if q := e.waitPanel(); !strings.Contains(q.Target, "mkdir s3") {
			t.Fatalf("asked %+v", q)
		}
	})
}

func TestAllowForSessionIsTheSuggestedRule(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		// claude suggests "git push *" for git push origin main: the session
		// rule covers git push origin dev, not touch.
		e.newSession(Seq(bash("git push origin main", "1"), bash("git push origin dev", "2"), bash("touch f3", "3")))
		p := e.waitPanel()
		if !strings.Contains(e.panelText(), "Allow Bash(git push *) this session") {
			t.Fatalf("panel:\n%s", e.panelText())
		}
		e.Input("s")
		e.WaitToolResult("toolu_s1") // ran (and failed: no repository) without asking
		q := e.waitPanel()
		if q.ID == p.ID || !strings.Contains(q.Target, "touch f3") {
			t.Fatalf("asked %+v", q)
		}
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestAdded" && ev.ID != p.ID && ev.ID != q.ID {
				t.Fatalf("git push origin dev was asked: %+v", ev)
			}
		}
	})
}

func TestDenyRuleRefusedByTheCLI(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("x.txt", "x\n")
		e.WriteFile("y.txt", "y\n")
		e.newSession(Seq(bash("rm x.txt", "x")))
		e.waitPanel()
		e.always("Bash(rm:*)", true, "2")
		if r := e.WaitToolResult("toolu_s0"); !r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		if s := e.ReadFile(".claude/settings.local.json"); !strings.Contains(s, `"deny"`) || !strings.Contains(s, `"Bash(rm:*)"`) {
			t.Fatalf("settings.local.json:\n%s", s)
		}
		// A new session: claude itself refuses rm, without asking.
		e.newSession(Seq(Step("Read", map[string]any{"file_path": filepath.Join(e.Project, "y.txt")}), bash("rm y.txt", "y")))
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "Permission to use Bash with command rm y.txt has been denied") {
			t.Fatalf("tool result %+v", r)
		}
		if len(e.Pending()) != 0 || e.ReadFile("y.txt") != "y\n" {
			t.Fatal("asked, or y.txt removed")
		}
	})
}

func (e *Env) rulesLines() string {
	var lines []string
	e.Lua(&lines, `local b = require('claudenova.surfaces.rules').buf
		if not b or not vim.api.nvim_buf_is_valid(b) then return {} end
		return vim.api.nvim_buf_get_lines(b, 0, -1, false)`)
	return strings.Join(lines, "\n")
}

// ddOnRule types dd on the row of rule (from source, "" for any) in the
// rules view. Claude's own view of the rules arrives when it will and
// redraws the rows, so the cursor is put on the row and the keys typed in
// one step.
func (e *Env) ddOnRule(rule string, source ...string) {
	e.t.Helper()
	var found bool
	src := ""
	if len(source) > 0 {
		src = source[0]
	}
	e.Lua(&found, `local rule, src = ...
		local rv = require('claudenova.surfaces.rules')
		for lnum, r in pairs(rv.rows) do
			if r.rule == rule and (src == '' or r.source == src) then
				vim.api.nvim_win_set_cursor(0, {lnum, 0})
				vim.api.nvim_feedkeys('dd', 'mx', false)
				return true
			end
		end
		return false`, rule, src)
	if !found {
		e.t.Fatalf("no row for %s in the rules view:\n%s", rule, e.rulesLines())
	}
}

func TestRulesView(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		local := e.WriteFile(".claude/settings.local.json", `{"env":{"KEEP":"x"},"permissions":{"allow":["Bash(touch:*)"],"deny":["Bash(rm:*)"]}}`)
		e.newSession("hello")
		e.WaitIdle(1)
		e.Cmd("ClaudeNova rules")
		e.Eventually(10*time.Second, "claude's view", func() bool { return strings.Contains(e.rulesLines(), "as claude reads them") })
		text := e.rulesLines()
		for _, w := range []string{"This project, just me", "allow  Bash(touch:*)", "deny   Bash(rm:*)"} {
			if !strings.Contains(text, w) {
				t.Fatalf("rules view lacks %q:\n%s", w, text)
			}
		}
		// dd removes a local rule from its file, other keys kept.
		e.ddOnRule("Bash(touch:*)")
		e.Eventually(5*time.Second, "rule removed", func() bool {
			s := read(t, local)
			return !strings.Contains(s, "touch") && strings.Contains(s, `"KEEP": "x"`) && strings.Contains(s, "Bash(rm:*)")
		})
		// The API lists the same rules.
		var rs []struct {
			Rule     string `msgpack:"rule"`
			Behavior string `msgpack:"behavior"`
			Source   string `msgpack:"source"`
		}
		e.Lua(&rs, "return require('claudenova').rules()")
		if len(rs) != 1 || rs[0].Rule != "Bash(rm:*)" || rs[0].Behavior != "deny" || rs[0].Source != "localSettings" {
			t.Fatalf("rules() = %+v", rs)
		}
		// A malformed file is never rewritten, and the user is told. The
		// file goes bad under the view and the user types dd on the row it
		// still shows: in one step, for claude's own view (it comes when it
		// will) would drop the row once claude read the bad file.
		bad := `{"permissions": {"deny": ["Bash(rm:*)",]}}`
		var typed bool
		e.Lua(&typed, `local path, bad = ...
			local f = assert(io.open(path, 'w')); f:write(bad); f:close()
			for lnum, r in pairs(require('claudenova.surfaces.rules').rows) do
				if r.rule == 'Bash(rm:*)' then
					vim.api.nvim_win_set_cursor(0, {lnum, 0})
					vim.api.nvim_feedkeys('dd', 'mx', false)
					return true
				end
			end
			return false`, local, bad)
		if !typed {
			t.Fatalf("no row for Bash(rm:*) in the rules view:\n%s", e.rulesLines())
		}
		e.messageShown("is not valid settings JSON") // told, in the whole message
		e.messageShown("it was left as it is")
		if e.NoteContaining("removed deny rule Bash(rm:*)") {
			t.Fatalf("told the rule was removed: %v", e.Notes())
		}
		if read(t, local) != bad {
			t.Fatal("the malformed file was rewritten")
		}
		e.Input("R")
		e.Eventually(10*time.Second, "the file's error shown", func() bool { return strings.Contains(e.rulesLines(), "! ") })
	})
}

// Visual-select three sidebar rows (two Bash, one question) and deny: the
// two Bash requests are denied exactly once, the question stays.
func TestBatchDenyInTheSidebar(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, log := faultEnv(t, v, func(string) []string {
			return append([]string{
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-a","input":{"command":"echo a"}}}`,
				`{"ask_nowait":{"tool_name":"AskUserQuestion","request_id":"req-q","requires_user_interaction":true,"input":{"questions":[{"question":"Which?","header":"W","multiSelect":false,"options":[{"label":"x"},{"label":"y"}]}]}}}`,
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-b","input":{"command":"echo b"}}}`,
			}, sentinelSteps()...)
		})
		e.ScriptUI([]string{"CANCEL"}, []string{""})
		sid := e.newSession("go")
		e.WaitPending(3)
		e.WaitGraceOver()
		// Typed as a person does: the sidebar opens, the rows are selected
		// and denied without a pause long enough for a surface to open.
		e.Input(":ClaudeNova sidebar<CR>")
		e.Eventually(5*time.Second, "sidebar focused", func() bool { return e.curBufFiletype() == "claudenova-sidebar" })
		var first, last int
		e.Lua(&first, `local m; for lnum in pairs(require('claudenova.surfaces.sidebar').rows) do m = math.min(m or lnum, lnum) end return m`)
		e.Lua(&last, `local m = 0; for lnum in pairs(require('claudenova.surfaces.sidebar').rows) do m = math.max(m, lnum) end return m`)
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, { ..., 0 })", first)
		e.Type("V", itoa(last-first)+"j", "d")
		e.Eventually(10*time.Second, "two answers", func() bool { return len(fakeAnswers(log)) >= 2 })
		e.fakeAnswerBarrier(sid, log) // nothing more on its way for the question
		if answersFor(log, "req-a") != 1 || answersFor(log, "req-b") != 1 || answersFor(log, "req-q") != 0 {
			t.Fatalf("answers %+v", fakeAnswers(log))
		}
		if p := e.Pending(); len(p) != 1 || p[0].Surface != "question" {
			t.Fatalf("pending %+v", p)
		}
		if !e.NoteContaining("skipped") {
			t.Errorf("no note about the skipped question: %v", e.Notes())
		}
	})
}
