package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// Agent is a pending request's agent (pending()[i].agent).
type Agent struct {
	ID          string `msgpack:"id"`
	Type        string `msgpack:"type"`
	Description string `msgpack:"description"`
}

// Task is one of require('claudenova').tasks().
type Task struct {
	ID          string `msgpack:"id"`
	Session     int    `msgpack:"session"`
	Type        string `msgpack:"type"`
	Description string `msgpack:"description"`
	Status      string `msgpack:"status"`
	Started     int64  `msgpack:"started"`
	Ended       int64  `msgpack:"ended"`
	ToolUseID   string `msgpack:"tool_use_id"`
}

func (e *Env) tasks(session int) []Task {
	var ts []Task
	e.Lua(&ts, "return require('claudenova').tasks(...)", session)
	return ts
}

// taskNamed waits for session's task with this description.
func (e *Env) taskNamed(session int, desc string) Task {
	e.t.Helper()
	var found Task
	e.Eventually(60*time.Second, "task "+desc, func() bool {
		for _, t := range e.tasks(session) {
			if t.Description == desc {
				found = t
				return true
			}
		}
		return false
	})
	return found
}

// allowTask answers allow to what is pending until session's task with
// this description is as ok says, and returns it.
func (e *Env) allowTask(session int, desc string, ok func(Task) bool) Task {
	e.t.Helper()
	var found Task
	e.allowAll("task "+desc, func() bool {
		for _, x := range e.tasks(session) {
			if x.Description == desc && ok(x) {
				found = x
				return true
			}
		}
		return false
	})
	return found
}

// started: the task's task_started came (it has its tool call).
func started(t Task) bool { return t.ToolUseID != "" }

// allowAll answers allow to what is pending until cond holds (a real CLI
// asks for some commands and not for others).
func (e *Env) allowAll(what string, cond func() bool) {
	e.t.Helper()
	e.Eventually(60*time.Second, what, func() bool {
		for _, p := range e.Pending() {
			e.Lua(nil, "require('claudenova').decide(..., 'allow')", p.ID)
		}
		return cond()
	})
}

func task(desc, prompt string) [2]any {
	return Step("Task", map[string]any{"description": desc, "prompt": prompt, "subagent_type": "general-purpose"})
}

// A Task subagent's request names its agent everywhere; after it runs, its
// work is nested under the Task line (folded with it, depth 2 in its own
// calls) and never top-level; no launch metadata shows; the turn claude
// starts when it ends names it. The agent is a task of type agent.
func TestSubagentAttribution(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, `_G.claudenova_test.agents = {}
			vim.api.nvim_create_autocmd("User", { pattern = "ClaudeNovaRequestAdded", callback = function(ev)
				table.insert(_G.claudenova_test.agents, ev.data.agent and ev.data.agent.description or "")
			end })`)
		e.Cmd("ClaudeNova sidebar")
		e.Cmd("wincmd p") // the user works elsewhere: surfaces open there
		sub := Seq(bash("touch "+e.Project+"/from-sub", "make a file"), bash("echo hello from sub", "say hello"))
		id := e.newSession(Seq(task("probe sub", sub)))
		p := e.WaitPending(1)[0]
		var agent Agent
		e.Lua(&agent, "return require('claudenova').pending()[1].agent")
		if agent.ID == "" || agent.Type != "general-purpose" || agent.Description != "probe sub" || p.Tool != "Bash" {
			t.Fatalf("pending %+v agent %+v", p, agent)
		}
		var added []string
		e.Lua(&added, "return _G.claudenova_test.agents")
		if len(added) != 1 || added[0] != "probe sub" {
			t.Fatalf("ClaudeNovaRequestAdded agents %v", added)
		}
		e.Eventually(10*time.Second, "the sidebar row names the agent", func() bool {
			return strings.Contains(strings.Join(e.sidebarLines(), "\n"), "probe sub › Bash `touch ")
		})
		e.Eventually(10*time.Second, "the panel", func() bool { return e.PanelID() == p.ID })
		var panel []string
		e.Lua(&panel, `local pn = require('claudenova.surfaces.panel').current
			return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(pn.win), 0, -1, false)`)
		if !strings.Contains(strings.Join(panel, "\n"), "probe sub (general-purpose)") {
			t.Fatalf("the panel does not name the agent:\n%s", strings.Join(panel, "\n"))
		}
		if !e.NoteContaining("probe sub › Bash `touch ") {
			t.Fatalf("the announcement does not name the agent: %v", e.Notes())
		}
		// The agent is a task of the session while it works.
		if ts := e.tasks(id); len(ts) != 1 || ts[0].Type != "agent" || ts[0].ID != agent.ID || ts[0].Description != "probe sub" || ts[0].Status != "running" {
			t.Fatalf("tasks %+v", ts)
		}
		e.Lua(nil, "require('claudenova').decide(..., 'allow')", p.ID)
		e.allowAll("claude's own turn after the agent", func() bool {
			return strings.Contains(e.Transcript(id), "## Claude · after probe sub finished")
		})
		e.WaitIdle(id)
		if _, err := os.Stat(e.Project + "/from-sub"); err != nil {
			t.Fatal("the subagent's command did not run")
		}
		tr := e.Transcript(id)
		lines := strings.Split(tr, "\n")
		taskLine, footer, heading := -1, -1, -1
		for i, l := range lines {
			switch {
			case strings.HasPrefix(l, "▸ Task probe sub · general-purpose") && taskLine < 0:
				taskLine = i
			case strings.HasPrefix(l, "*done") && footer < 0:
				footer = i
			case strings.HasPrefix(l, "## Claude · after probe sub finished"):
				heading = i
			}
		}
		if taskLine < 0 || footer < taskLine || heading < footer {
			t.Fatalf("task line %d, first footer %d, heading %d:\n%s", taskLine, footer, heading, tr)
		}
		block := strings.Join(lines[taskLine:footer], "\n")
		for _, want := range []string{"  │ ▸ Bash `touch ", "  │   │ $ touch ", "  │ ▸ Bash `echo hello from sub` · unasked: read-only ✓", "  │   │ hello from sub", "  │ subagent done"} {
			if !strings.Contains(block, want) {
				t.Fatalf("the Task block lacks %q:\n%s", want, tr)
			}
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "▸ Bash") || l == "subagent done" || l == "hello from sub" {
				t.Fatalf("subagent line at the top level %q:\n%s", l, tr)
			}
		}
		if strings.Contains(tr, "internal metadata") || strings.Contains(tr, "agentId") {
			t.Fatalf("launch metadata shown:\n%s", tr)
		}
		if ts := e.tasks(id); len(ts) != 1 || ts[0].Status != "completed" || ts[0].Ended == 0 {
			t.Fatalf("tasks after %+v", ts)
		}
		// Folded with the Task line: its nested calls' details one deeper.
		e.Cmd("ClaudeNova transcript")
		var levels []int
		e.Lua(&levels, `local out = {}
			for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
				for _, p in ipairs({ ... }) do
					if vim.startswith(l, p) then
						table.insert(out, vim.fn.foldlevel(i))
					end
				end
			end
			return out`, "▸ Task", "  │ ▸ Bash `echo", "  │   │ hello from sub")
		if len(levels) != 3 || levels[0] != 0 || levels[1] != 1 || levels[2] != 2 {
			t.Fatalf("fold levels %v", levels)
		}
		// gf on the Task line opens the agent's output.
		e.Lua(nil, `for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
			if vim.startswith(l, "▸ Task") then vim.api.nvim_win_set_cursor(0, { i, 0 }) break end end`)
		e.Input("gf")
		e.Eventually(10*time.Second, "the agent's output", func() bool {
			return e.curBufName() == "claudenova://task/"+agent.ID && strings.Contains(e.bufLines(0), "hello from sub")
		})
	})
}

// A subagent's file change opens as a proposal whose winbar names the
// agent; :w applies it.
func TestSubagentProposalNamesItsAgent(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sub := Seq(Step("Write", map[string]any{"file_path": e.Project + "/notes.txt", "content": "from the agent\n"}))
		id := e.newSession(Seq(task("note writer", sub)))
		p, buf := e.WaitProposal()
		var agent Agent
		e.Lua(&agent, "return require('claudenova').pending()[1].agent")
		if agent.Description != "note writer" {
			t.Fatalf("pending %+v agent %+v", p, agent)
		}
		focusBuf(e, buf)
		if bar := e.winbar(); !strings.HasPrefix(bar, "Proposal · note writer › Write notes.txt") {
			t.Fatalf("winbar %q", bar)
		}
		e.Cmd("write")
		e.Eventually(60*time.Second, "written", func() bool { return e.ReadFile("notes.txt") != "" })
		e.Eventually(60*time.Second, "claude's own turn", func() bool {
			return strings.Contains(e.Transcript(id), "## Claude · after note writer finished")
		})
		if tr := e.Transcript(id); !strings.Contains(tr, "  │ ▸ Write notes.txt ✓") {
			t.Fatalf("transcript:\n%s", tr)
		}
	})
}

// A background shell is a task: listed with its description while it
// runs, its output readable and followed while it runs, the session not
// idle meanwhile; then completed. A long one is stopped by stop_task.
func TestBackgroundShellTask(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		e.Cmd("ClaudeNova sidebar")
		e.Cmd("wincmd p")
		count := Step("Bash", map[string]any{"command": "for i in 1 2 3 4 5 6 7 8; do echo line $i; sleep 1; done",
			"description": "count slowly", "run_in_background": true})
		id := e.newSession(Seq(count))
		tk := e.allowTask(id, "count slowly", started)
		if tk.Type != "shell" || tk.ToolUseID == "" {
			t.Fatalf("task %+v", tk)
		}
		// Its first line while it runs.
		var out string
		e.Eventually(30*time.Second, "the first line of its output", func() bool {
			e.Lua(&out, "return require('claudenova').task_output(...)", tk.ID)
			return strings.Contains(out, "line 1")
		})
		if st := e.taskNamed(id, "count slowly").Status; st != "running" || strings.Contains(out, "line 8") {
			t.Fatalf("status %s with output %q", st, out)
		}
		// The turn is over; the session is not idle while its task runs.
		e.Eventually(30*time.Second, "the turn's footer", func() bool { return strings.Contains(e.Transcript(id), "*done") })
		if st, _ := e.SessionState(id); st != "running" || e.taskNamed(id, "count slowly").Status != "running" {
			t.Fatalf("session %s while its task runs", st)
		}
		if side := strings.Join(e.sidebarLines(), "\n"); !strings.Contains(side, "shell count slowly · running") {
			t.Fatalf("the sidebar does not list the task:\n%s", side)
		}
		var status string
		e.Lua(&status, "return require('claudenova').status()")
		if !strings.Contains(status, "1 task") {
			t.Fatalf("status() = %q", status)
		}
		// <CR> on its sidebar row opens its output; q closes it.
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			vim.api.nvim_set_current_win(sb.win())
			for l, t in pairs(sb.task_rows) do vim.api.nvim_win_set_cursor(0, { l, 0 }) end`)
		e.Input("<CR>")
		e.Eventually(10*time.Second, "the output buffer from the sidebar", func() bool { return e.curBufName() == "claudenova://task/"+tk.ID })
		e.Input("q")
		e.Eventually(10*time.Second, "closed", func() bool { return e.curBufName() != "claudenova://task/"+tk.ID })
		e.Cmd("wincmd p")
		// :ClaudeNova tasks picks it; its output buffer follows.
		e.Lua(nil, "table.insert(_G.claudenova_test.selects, 'count slowly')")
		e.Cmd("ClaudeNova tasks")
		e.Eventually(10*time.Second, "the output buffer", func() bool { return e.curBufName() == "claudenova://task/"+tk.ID })
		e.Eventually(30*time.Second, "the output followed", func() bool {
			return strings.Contains(e.bufLines(0), "line 3")
		})
		e.Eventually(60*time.Second, "completed", func() bool { return e.taskNamed(id, "count slowly").Status == "completed" })
		e.WaitIdle(id)
		e.Eventually(30*time.Second, "the whole output", func() bool {
			return strings.Contains(e.bufLines(0), "line 8")
		})
		// stop_task on a long one.
		e.Lua(nil, "vim.cmd('wincmd p')")
		long := Step("Bash", map[string]any{"command": "echo started; sleep 30", "description": "wait a long time", "run_in_background": true})
		e.sendLua(id, Seq(long))
		sleepy := e.allowTask(id, "wait a long time", func(Task) bool { return true })
		var res []any
		e.Lua(&res, "return { require('claudenova').stop_task(...) }", sleepy.ID)
		if len(res) != 1 || res[0] != true {
			t.Fatalf("stop_task = %v", res)
		}
		// stopped, not completed: it did not run its 30 s.
		e.Eventually(20*time.Second, "stopped", func() bool { return e.taskNamed(id, "wait a long time").Status != "running" })
		if st := e.taskNamed(id, "wait a long time").Status; st != "stopped" {
			t.Fatalf("status after stop_task: %s", st)
		}
		var again []any
		e.Lua(&again, "return { require('claudenova').stop_task(...) }", sleepy.ID)
		if len(again) != 2 || again[0] != false || !strings.Contains(again[1].(string), "already stopped") {
			t.Fatalf("stop_task again = %v", again)
		}
		// The transcript's events come from the outbox's goroutine: they may
		// follow stop_task()'s reply.
		e.Eventually(10*time.Second, "the stopped shell in the transcript", func() bool {
			return strings.Contains(e.Transcript(id), "▸ Bash `echo started; sleep 30` ✗ stopped")
		})
	})
}

// An overloaded API: the retry shows with its attempt before the reply,
// and the reply once.
func TestOverloadedRetryShown(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		id := e.newSession("OVERLOAD 2 hello")
		e.WaitIdle(id)
		tr := e.Transcript(id)
		retry := strings.Index(tr, "> retrying · attempt 2/10 · overloaded · in ")
		reply := strings.Index(tr, "recovered: hello")
		if retry < 0 || reply < retry || strings.Count(tr, "recovered: hello") != 1 || strings.Count(tr, "retrying") != 1 {
			t.Fatalf("transcript:\n%s", tr)
		}
		var log []map[string]any
		b, _ := json.Marshal(e.Model.RequestLog())
		_ = json.Unmarshal(b, &log)
		n := 0
		for _, r := range log {
			if r["kind"] == "overloaded" {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("%d overloaded answers", n)
		}
	})
}
