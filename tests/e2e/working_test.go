package e2e

import (
	"strings"
	"testing"
	"time"
)

// workingLine is the virtual line under session id's transcript that says
// what Claude is doing ("" when there is none).
func (e *Env) workingLine(id int) string {
	var s string
	e.Lua(&s, `local buf = require('claudenova.ui.transcript').bufs[...]
		if not buf then return "" end
		local ns = vim.api.nvim_get_namespaces().claudenova_working
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
			local vl = m[4].virt_lines
			if vl and vl[1] and vl[1][1] then return vl[1][1][1] end
		end
		return ""`, id)
	return s
}

// Claude at work (issue 42): a prompt to a slow model shows, within a
// second or so, what is happening and for how long, updated each second,
// and the sidebar says it in a word; it is gone when the text arrives.
func TestWorkingLineWhileClaudeThinks(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Cmd("ClaudeNova")
		id := e.newSession("SLOW 4000")
		start := time.Now()
		e.Eventually(10*time.Second, "the working line", func() bool {
			return strings.HasPrefix(e.workingLine(id), "✻ thinking · ")
		})
		if d := time.Since(start); d > 4*time.Second {
			t.Logf("the line came after %s (claude's own start counts)", d)
		}
		first := e.workingLine(id)
		if !strings.HasSuffix(first, " · <C-c> interrupts") {
			t.Fatalf("working line %q", first)
		}
		e.Eventually(5*time.Second, "the count moves", func() bool { return e.workingLine(id) != first })
		var sidebar []string
		e.Lua(&sidebar, "return vim.api.nvim_buf_get_lines(require('claudenova.ui.sidebar').buf, 0, -1, false)")
		if !strings.Contains(strings.Join(sidebar, "\n"), " · thinking") {
			t.Errorf("sidebar:\n%s", strings.Join(sidebar, "\n"))
		}
		e.Eventually(30*time.Second, "the reply", func() bool { return strings.Contains(e.Transcript(id), "slow done") })
		e.Eventually(5*time.Second, "the line gone", func() bool { return e.workingLine(id) == "" })
	})
}

// A task's output follows after a tab change (issue 42): opened, tab left
// while the task prints, tab entered again: every line is there.
func TestTaskOutputFollowsAcrossTabs(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		count := Step("Bash", map[string]any{"command": "for i in 1 2 3 4 5 6; do echo tick $i; sleep 1; done",
			"description": "ticker", "run_in_background": true})
		id := e.newSession(Seq(count))
		var tk Task
		e.allowAll("a shell task", func() bool {
			for _, x := range e.tasks(id) {
				if x.Description == "ticker" && x.ToolUseID != "" {
					tk = x
					return true
				}
			}
			return false
		})
		e.Lua(nil, "table.insert(_G.claudenova_test.selects, 'ticker')")
		e.Cmd("ClaudeNova tasks")
		e.Eventually(10*time.Second, "the output buffer", func() bool { return e.curBufName() == "claudenova://task/"+tk.ID })
		e.Eventually(30*time.Second, "its first line", func() bool { return strings.Contains(e.bufLines(0), "tick 1") })
		e.Cmd("tabnew")
		e.Eventually(60*time.Second, "the task done", func() bool { return e.taskNamed(id, "ticker").Status == "completed" })
		time.Sleep(2500 * time.Millisecond) // the output's last reads
		e.Cmd("tabprevious")
		var lines string
		e.Lua(&lines, "return table.concat(vim.api.nvim_buf_get_lines(require('claudenova.ui.tasks').bufs[...], 0, -1, false), '\\n')", tk.ID)
		if !strings.Contains(lines, "tick 6") {
			t.Fatalf("the output stopped following while in another tab:\n%s", lines)
		}
	})
}

// Opening a task's output and the rules view never squeezes the
// transcript (issue 42: it shrank to one line): each takes half of the
// transcript's window, beside it or below it.
func TestViewsLeaveTheTranscriptReadable(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "vim.o.lines = 24; vim.o.columns = 80")
		id := e.newSession(Seq(Step("Bash", map[string]any{"command": "echo hi; sleep 5", "description": "nap", "run_in_background": true})))
		var tk Task
		e.allowAll("a shell task", func() bool {
			for _, x := range e.tasks(id) {
				if x.Description == "nap" && x.ToolUseID != "" {
					tk = x
					return true
				}
			}
			return false
		})
		e.Cmd("ClaudeNova transcript")
		height := func() int {
			var h int
			e.Lua(&h, `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session then return vim.api.nvim_win_get_height(w) end
			end return 0`)
			return h
		}
		e.Lua(nil, "require('claudenova.ui.tasks').open(...)", tk.ID)
		e.Cmd("ClaudeNova rules")
		e.Eventually(10*time.Second, "the rules view", func() bool { return vim(e, "return vim.bo.filetype") == "claudenova-rules" })
		t.Logf("heights: %s", vim(e, `local o = {} for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do table.insert(o, vim.bo[vim.api.nvim_win_get_buf(w)].filetype .. "=" .. vim.api.nvim_win_get_height(w)) end return table.concat(o, " ") .. " lines=" .. vim.o.lines`))
		if h := height(); h < 5 {
			t.Fatalf("the transcript is %d lines high", h)
		}
	})
}

func vim(e *Env, code string) string {
	var s string
	e.Lua(&s, code)
	return s
}
