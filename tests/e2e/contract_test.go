package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

var testkitReadLog = testkit.ReadLog

// The CLI's consent contract, to the letter (issue 20): its hints obeyed,
// session rules by its own matcher, rules where it reads them, notebooks
// reviewed. Real claude 2.1.328, Neovim 0.10 and 0.12.

// safetyCheck is a command claude asks about with a safety check
// (decision_reason_type safetyCheck, classifier_approvable false,
// suppress_always_allow_rule true, no suggestions); the bad option makes rm
// refuse before it touches anything.
const safetyCheck = "rm -rf ~ --x"

// decideAPI calls require('claudenova').decide and returns its two results.
func (e *Env) decideAPI(id string, decision any) (bool, string) {
	e.t.Helper()
	var res []any
	e.Lua(&res, "return { require('claudenova').decide(...) }", id, decision)
	ok, _ := res[0].(bool)
	why := ""
	if len(res) > 1 {
		why, _ = res[1].(string)
	}
	return ok, why
}

// selectSidebarRows opens the sidebar and selects (linewise visual) every
// request row.
// selectSidebarRows opens the sidebar and selects every row, typed as a
// person does (without a pause long enough for a surface to take the
// cursor).
func (e *Env) selectSidebarRows() {
	e.t.Helper()
	e.WaitGraceOver()
	e.Input(":ClaudeNova sidebar<CR>")
	e.Eventually(5*time.Second, "sidebar focused", func() bool { return e.curBufFiletype() == "claudenova-sidebar" })
	// A panel that waited for the user to pause opens over the sidebar
	// when they do (the sidebar does not hold it back), and the keys typed
	// next go to it: as a person would, wait until nothing more waits to
	// open, and go back to the sidebar (under load the pause came between
	// the focus and the "V" below, and "a" then waited in the panel for a
	// text object).
	e.Eventually(20*time.Second, "nothing waits to open", func() bool {
		var n int
		e.Lua(&n, "return #require('claudenova.services.scheduler').waiting")
		return n == 0
	})
	if e.curBufFiletype() != "claudenova-sidebar" {
		// Back to the sidebar's window (":ClaudeNova sidebar" again would close it).
		e.Lua(nil, "vim.api.nvim_set_current_win(vim.fn.bufwinid(require('claudenova.surfaces.sidebar').buf))")
		e.Eventually(5*time.Second, "sidebar focused again", func() bool { return e.curBufFiletype() == "claudenova-sidebar" })
	}
	var first, last int
	e.Lua(&first, `local m; for lnum in pairs(require('claudenova.surfaces.sidebar').rows) do m = math.min(m or lnum, lnum) end return m`)
	e.Lua(&last, `local m = 0; for lnum in pairs(require('claudenova.surfaces.sidebar').rows) do m = math.max(m, lnum) end return m`)
	e.Lua(nil, "vim.api.nvim_win_set_cursor(0, { ..., 0 })", first)
	e.Type("V")
	if last > first {
		e.Type(itoa(last-first) + "j")
	}
}

func (e *Env) pendingFor(sid int) (Pending, bool) {
	for _, p := range e.Pending() {
		if p.Session == sid {
			return p, true
		}
	}
	return Pending{}, false
}

func TestSafetyCheckIsAnsweredOnlyOnceAndByHand(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI(nil, []string{""}) // the deny message: none
		s1 := e.startIdle("")
		e.sendLua(s1, Seq(bash(safetyCheck, "remove everything")))
		p := e.waitPanel()
		text := e.panelText()
		if !strings.Contains(text, "Dangerous rm operation") || !strings.Contains(text, "a safety check only you can approve") {
			t.Fatalf("the reason is not shown:\n%s", text)
		}
		for _, bad := range []string{"Always", "this session", "every Bash"} {
			if strings.Contains(text, bad) {
				t.Fatalf("the panel offers %q:\n%s", bad, text)
			}
		}
		// The keys of what is not offered do nothing but say why.
		e.Input("A")
		e.Input("s")
		if ft := e.curBufFiletype(); ft == "claudenova-always" {
			t.Fatal("Always… opened")
		}
		for _, d := range []any{
			map[string]any{"behavior": "allow", "rules": []string{"Bash(rm:*)"}, "destination": "localSettings"},
			"allow_session",
			"allow_tool",
		} {
			ok, why := e.decideAPI(p.ID, d)
			if ok || why == "" {
				t.Fatalf("decide(%v) = %v, %q", d, ok, why)
			}
		}
		if _, err := os.Stat(filepath.Join(e.Project, ".claude", "settings.local.json")); err == nil {
			t.Fatal("a rule was written")
		}
		// A batch allow over it and a harmless request allows only the
		// harmless one, and says why the other was skipped.
		s2 := e.startIdle("")
		e.sendLua(s2, Seq(bash("touch harmless.txt", "harmless")))
		e.WaitPending(2)
		e.selectSidebarRows()
		e.Input("a")
		e.Eventually(30*time.Second, "the harmless one ran", func() bool {
			_, err := os.Stat(filepath.Join(e.Project, "harmless.txt"))
			return err == nil
		})
		// The note comes with the batch's answer, which may land after the
		// command ran.
		e.Eventually(10*time.Second, "the batch says what it skipped", func() bool {
			return e.NoteContaining("allowed 1 request; 1 skipped: a safety check only you can approve")
		})
		if q, ok := e.pendingFor(s1); !ok || q.ID != p.ID {
			t.Fatalf("the safety check is no longer pending: %+v", e.Pending())
		}
		// Deny works.
		e.Lua(nil, "require('claudenova.frontend').present(...)", p.ID)
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.Input("d")
		e.Eventually(30*time.Second, "denied", func() bool {
			for _, ev := range e.Events() {
				if ev.Kind == "ClaudeNovaRequestDecided" && ev.ID == p.ID {
					return ev.Outcome == "denied"
				}
			}
			return false
		})
		if len(e.Pending()) != 0 {
			t.Fatalf("pending %+v", e.Pending())
		}
	})
}

// A session deny rule is claude's to enforce: the compound forms the
// plugin's own matcher missed are refused without a request; a rule taken
// back in :ClaudeNova rules is asked again.
func TestSessionDenyRuleByClaudesMatcher(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("x.txt", "x\n")
		e.WriteFile("y", "y\n")
		sid := e.startIdle("")
		e.sendLua(sid, Seq(bash("rm x.txt", "x")))
		e.waitPanel()
		e.always("Bash(rm:*)", true, "1")
		e.WaitToolResult("toolu_s0")
		e.WaitIdle(sid)
		forms := []string{"ls && rm -rf y", "FOO=1 rm y", "(rm y)", "echo $(rm y)"}
		var steps [][2]any
		for _, f := range forms {
			steps = append(steps, bash(f, "compound"))
		}
		steps = append(steps, bash("touch t.txt", "touch"))
		e.sendLua(sid, Seq(steps...))
		// touch comes after the four: its request proves they were handled.
		q := e.waitPanel()
		if !strings.Contains(q.Target, "touch t.txt") {
			t.Fatalf("asked %+v, want touch only", q)
		}
		for i := range forms {
			r := e.WaitToolResult("toolu_s" + itoa(1+i))
			if !r.IsError || !strings.Contains(r.Content, "denied") {
				t.Fatalf("%q: %+v", forms[i], r)
			}
		}
		if n := countAdded(e); n != 2 {
			t.Fatalf("%d requests, want rm x.txt and touch only", n)
		}
		if e.ReadFile("y") != "y\n" {
			t.Fatal("y was removed")
		}
		e.Input("a")
		e.WaitToolResult("toolu_s5")
		e.WaitIdle(sid)
		// dd in :ClaudeNova rules takes it back: the next rm is asked.
		e.Cmd("ClaudeNova rules")
		e.Eventually(10*time.Second, "the session rule listed", func() bool { return strings.Contains(e.rulesLines(), "deny   Bash(rm:*)") })
		e.ddOnRule("Bash(rm:*)", "session")
		e.Eventually(10*time.Second, "removed", func() bool { return e.NoteContaining("removed session rule deny Bash(rm:*)") })
		e.Cmd("close")
		e.sendLua(sid, Seq(bash("rm y", "y")))
		r := e.waitPanel()
		if !strings.Contains(r.Target, "rm y") {
			t.Fatalf("asked %+v", r)
		}
	})
}

func countAdded(e *Env) int {
	n := 0
	for _, ev := range e.Events() {
		if ev.Kind == "ClaudeNovaRequestAdded" {
			n++
		}
	}
	return n
}

// Rules land where claude reads them: with CLAUDE_CONFIG_DIR, "all my
// projects" is that folder's settings.json; a symlinked
// settings.local.json stays a symlink and its target gets the rule.
func TestRulesWhereClaudeReadsThem(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		cfg := filepath.Join(t.TempDir(), "claude-config")
		e := NewEnv(t, v, Options{ClaudeEnv: map[string]string{"CLAUDE_CONFIG_DIR": cfg}})
		e.WriteFile("x.txt", "x\n")
		e.WriteFile("y.txt", "y\n")
		e.WriteFile("z.txt", "z\n")
		s1 := e.startIdle("")
		e.sendLua(s1, Seq(bash("rm x.txt", "x")))
		e.waitPanel()
		if !strings.Contains(e.panelText(), "Always") {
			t.Fatalf("panel:\n%s", e.panelText())
		}
		e.Input("A")
		e.Eventually(5*time.Second, "always form", func() bool { return e.curBufFiletype() == "claudenova-always" })
		var form []string
		e.Lua(&form, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if !strings.Contains(strings.Join(form, "\n"), filepath.Base(cfg)+"/settings.json") {
			t.Fatalf("the form does not name claude's config folder:\n%s", strings.Join(form, "\n"))
		}
		e.Input("CBash(rm:*)<Esc>")
		e.Input("<Tab>")
		e.Input("4<CR>")
		e.WaitToolResult("toolu_s0")
		if s := read(t, filepath.Join(cfg, "settings.json")); !strings.Contains(s, `"Bash(rm:*)"`) {
			t.Fatalf("user settings:\n%s", s)
		}
		if _, err := os.Stat(filepath.Join(e.Home, ".claude", "settings.json")); err == nil {
			t.Fatal("written to ~/.claude although CLAUDE_CONFIG_DIR is set")
		}
		// A new session refuses without asking.
		s2 := e.startIdle("")
		e.sendLua(s2, Seq(Step("Read", map[string]any{"file_path": filepath.Join(e.Project, "y.txt")}), bash("rm y.txt", "y")))
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "Permission to use Bash with command rm y.txt has been denied") {
			t.Fatalf("tool result %+v", r)
		}
		if len(e.Pending()) != 0 || e.ReadFile("y.txt") != "y\n" {
			t.Fatal("asked, or y.txt removed")
		}
		// A symlinked settings.local.json (dotfiles) stays a symlink.
		dots := filepath.Join(filepath.Dir(e.Project), "dotfiles", "local.json")
		if err := os.MkdirAll(filepath.Dir(dots), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dots, []byte("{\n    \"env\": {\n        \"KEEP\": \"1\"\n    }\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(e.Project, ".claude", "settings.local.json")
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(dots, link); err != nil {
			t.Fatal(err)
		}
		e.sendLua(s2, Seq(bash("git clean -fdx", "z")))
		e.waitPanel()
		e.always("Bash(git clean:*)", true, "2")
		e.Eventually(30*time.Second, "denied", func() bool { return len(e.Pending()) == 0 })
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("settings.local.json is no longer a symlink (%v)", err)
		}
		s := read(t, dots)
		var got struct {
			Env         map[string]string   `json:"env"`
			Permissions map[string][]string `json:"permissions"`
		}
		if err := json.Unmarshal([]byte(s), &got); err != nil || got.Env["KEEP"] != "1" || len(got.Permissions["deny"]) != 1 || got.Permissions["deny"][0] != "Bash(git clean:*)" {
			t.Fatalf("the target:\n%s", s)
		}
		if !strings.Contains(s, "\n    \"permissions\": {\n        \"deny\"") {
			t.Fatalf("the file's indentation was not kept:\n%s", s)
		}
	})
}

// NotebookEdit is reviewed as an editable proposal of the cell.
func TestNotebookEditProposal(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		nb := e.WriteFile("n.ipynb", `{
 "cells": [
  {"cell_type": "code", "id": "c1", "metadata": {}, "source": ["x = 1\n", "print(x)"], "outputs": [], "execution_count": null},
  {"cell_type": "markdown", "id": "c2", "metadata": {}, "source": ["# Title\n", "text"]}
 ],
 "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}, "language_info": {"name": "python"}},
 "nbformat": 4, "nbformat_minor": 5
}
`)
		sid := e.startIdle("")
		e.sendLua(sid, Seq(Step("Read", map[string]any{"file_path": nb}),
			Step("NotebookEdit", map[string]any{"notebook_path": nb, "cell_id": "c1", "new_source": "x = 2\nprint(x)"})))
		p, buf := e.WaitProposal()
		if got := e.bufLines(buf); got != "x = 2\nprint(x)" {
			t.Fatalf("the proposal shows %q", got)
		}
		var orig struct {
			Lines []string `msgpack:"lines"`
			Ft    string   `msgpack:"ft"`
			Name  string   `msgpack:"name"`
		}
		e.Lua(&orig, `local p = require('claudenova.surfaces.proposal').open_[...]
			return { lines = vim.api.nvim_buf_get_lines(p.orig, 0, -1, false), ft = vim.bo[p.buf].filetype, name = vim.api.nvim_buf_get_name(p.buf) }`, p.ID)
		if strings.Join(orig.Lines, "\n") != "x = 1\nprint(x)" || orig.Ft != "python" || filepath.Base(orig.Name) != "n.c1.py" {
			t.Fatalf("original side %+v", orig)
		}
		var diffOn bool
		e.Lua(&diffOn, "return vim.wo[vim.fn.bufwinid(...)].diff", buf)
		if !diffOn {
			t.Fatal("not in diff mode")
		}
		e.SetLineAndWrite(buf, 1, "x = 42")
		r := e.WaitToolResult("toolu_s1")
		if r.IsError || !strings.Contains(r.Content, "Updated cell c1") {
			t.Fatalf("tool result %+v", r)
		}
		var after struct {
			Cells []struct {
				ID     string          `json:"id"`
				Source json.RawMessage `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal([]byte(e.ReadFile("n.ipynb")), &after); err != nil || len(after.Cells) != 2 {
			t.Fatalf("notebook: %v\n%s", err, e.ReadFile("n.ipynb"))
		}
		var c1 string
		if err := json.Unmarshal(after.Cells[0].Source, &c1); err != nil || c1 != "x = 42\nprint(x)" {
			t.Fatalf("c1 = %s", after.Cells[0].Source)
		}
		if string(after.Cells[1].Source) != `["# Title\n","text"]` && !strings.Contains(string(after.Cells[1].Source), `"# Title\n",`) {
			t.Fatalf("c2 changed: %s", after.Cells[1].Source)
		}
		// The write is a change of the turn, like Write and Edit.
		e.WaitIdle(sid)
		var files []string
		e.Lua(&files, `local v = require('claudenova.channel.host').request('changes', { session = ... })
			local out = {} for _, f in ipairs(v.files) do table.insert(out, f.rel) end return out`, sid)
		if len(files) != 1 || files[0] != "n.ipynb" {
			t.Fatalf("changes %v", files)
		}
	})
}

// default_to_no (from the fake claude: the real one sends it only in
// terminal-style asks): the panel opens on Deny, one key does not approve,
// the same key twice or <CR> on the Allow line does.
func TestDefaultToNoNeedsADeliberateAnswer(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, log := faultEnv(t, v, func(string) []string {
			return []string{
				`{"ask_nowait":{"tool_name":"Bash","request_id":"req-n","input":{"command":"touch n"},"default_to_no":true,"description":"touch n"}}`,
				`{"expect_answers":1}`,
			}
		})
		e.newSession("go")
		p := e.waitPanel()
		var line string
		e.Lua(&line, "return vim.api.nvim_get_current_line()")
		if !strings.Contains(line, "Deny") {
			t.Fatalf("the panel opens on %q, want Deny:\n%s", line, e.panelText())
		}
		e.Input("a")
		e.Eventually(5*time.Second, "the key was taken", func() bool { return e.NoteContaining("press a again") })
		if len(e.Pending()) != 1 || len(fakeAnswers(log)) != 0 {
			t.Fatal("one key approved it")
		}
		// Up to the Allow line, then <CR>.
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		var cur int
		e.Lua(&cur, "return vim.api.nvim_win_get_cursor(0)[1]")
		allow := 0
		for i, l := range lines {
			if strings.Contains(l, "Allow once") {
				allow = i + 1
			}
		}
		if allow == 0 || allow >= cur {
			t.Fatalf("no Allow line above the cursor:\n%s", strings.Join(lines, "\n"))
		}
		e.Input(itoa(cur-allow) + "k")
		e.Input("<CR>")
		e.Eventually(10*time.Second, "answered", func() bool { return len(fakeAnswers(log)) == 1 })
		if a := answersFor(log, "req-n"); a != 1 || fakeAnswers(log)[0].Behavior != "allow" {
			t.Fatalf("answers %+v", fakeAnswers(log))
		}
		_ = p
	})
}

// elicitResponse is the fake claude's record of the answer to an
// elicitation (nil until there is one).
func elicitResponse(log, requestID string) map[string]any {
	for _, ev := range testkitReadLog(log) {
		if ev["t"] != "recv" || ev["type"] != "control_response" {
			continue
		}
		line, _ := ev["line"].(string)
		if !strings.Contains(line, `"request_id":"`+requestID+`"`) {
			continue
		}
		var cr struct {
			Response struct {
				Subtype  string         `json:"subtype"`
				Response map[string]any `json:"response"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(line), &cr) == nil {
			cr.Response.Response["subtype"] = cr.Response.Subtype
			return cr.Response.Response
		}
	}
	return nil
}

// An elicitation from one of the user's MCP servers gets a form (one
// picker or input a field), and claude gets the user's answer; a URL one
// is declined.
func TestElicitationGetsAForm(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, log := faultEnv(t, v, func(string) []string {
			return []string{
				`{"unknown_control":"elicitation","request_id":"el-1","wait":true,"request":{"mcp_server_name":"tracker","message":"Which project?","requested_schema":{"type":"object","properties":{"project":{"type":"string","enum":["alpha","beta"],"enumNames":["Alpha","Beta"]},"note":{"type":"string","title":"Note"},"count":{"type":"integer"}},"required":["project"]}}}`,
				`{"unknown_control":"elicitation","request_id":"el-2","wait":true,"request":{"mcp_server_name":"tracker","message":"Sign in","mode":"url","url":"https://example.invalid/auth"}}`,
			}
		})
		e.ScriptUI([]string{"Fill in (3 fields)", "Beta", "Decline"}, []string{"hello there", "7"})
		e.newSession("go")
		e.Eventually(30*time.Second, "the form answered", func() bool { return elicitResponse(log, "el-1") != nil })
		got, _ := json.Marshal(elicitResponse(log, "el-1"))
		if string(got) != `{"action":"accept","content":{"count":7,"note":"hello there","project":"beta"},"subtype":"success"}` {
			t.Fatalf("answer %s", got)
		}
		e.Eventually(30*time.Second, "the url form declined", func() bool { return elicitResponse(log, "el-2") != nil })
		if got, _ := json.Marshal(elicitResponse(log, "el-2")); string(got) != `{"action":"decline","subtype":"success"}` {
			t.Fatalf("answer %s", got)
		}
		var prompts []string
		e.Lua(&prompts, "return _G.claudenova_test.prompts")
		if len(prompts) < 2 || !strings.Contains(prompts[0], "MCP server tracker asks: Which project?") || !strings.Contains(prompts[2], "Note") {
			t.Fatalf("prompts %q", prompts)
		}
		if len(e.Pending()) != 0 {
			t.Fatalf("pending %+v", e.Pending())
		}
	})
}

// An MCP tool's ask shows its server, tool and each argument; Always…
// offers its whole server (mcp__<server>), labelled, and a session rule is
// handed to claude before the answer.
func TestMCPAskOffersTheServer(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, log := faultEnv(t, v, func(string) []string {
			return []string{
				`{"config":{"control":{"apply_flag_settings":{"response":{}}}}}`,
				`{"ask_nowait":{"tool_name":"mcp__tracker__create_issue","request_id":"req-m","input":{"title":"Crash on save","priority":2},"mcp_server":{"name":"tracker","source":"user"}}}`,
				`{"expect_answers":1}`,
			}
		})
		e.newSession("go")
		e.waitPanel()
		text := e.panelText()
		for _, w := range []string{"MCP server: tracker (user)", "Tool: create_issue", "title: Crash on save", "priority: 2"} {
			if !strings.Contains(text, w) {
				t.Fatalf("panel lacks %q:\n%s", w, text)
			}
		}
		e.Input("A")
		e.Eventually(5*time.Second, "always form", func() bool { return e.curBufFiletype() == "claudenova-always" })
		e.Input("<S-Tab>") // from every call of the tool to its whole server
		var form []string
		e.Lua(&form, "return vim.api.nvim_buf_get_lines(0, 0, 2, false)")
		if form[0] != "Rule:   mcp__tracker" || !strings.Contains(form[1], "every tool of MCP server tracker") {
			t.Fatalf("form %q", form)
		}
		e.Input("1<CR>")
		e.Eventually(10*time.Second, "answered", func() bool { return answersFor(log, "req-m") == 1 })
		applied, answered := -1, -1
		for i, ev := range testkitReadLog(log) {
			line, _ := ev["line"].(string)
			switch {
			case ev["t"] != "recv":
			case strings.Contains(line, `"apply_flag_settings"`) && strings.Contains(line, `"allow":["mcp__tracker"]`):
				applied = i
			case strings.Contains(line, `"request_id":"req-m"`):
				answered = i
			}
		}
		if applied < 0 || answered < applied {
			t.Fatalf("the session rule did not reach claude before the answer (%d, %d)", applied, answered)
		}
	})
}
