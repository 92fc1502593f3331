package e2e

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// ScriptUI replaces vim.ui.select/input with a scripted picker.
func (e *Env) ScriptUI(selects, inputs []string) {
	selects, inputs = append([]string{}, selects...), append([]string{}, inputs...)
	e.Lua(nil, `local t = _G.claudenova_test
		if not t.selects then t.stub_ui() end
		vim.list_extend(t.selects, ...)`, selects)
	e.Lua(nil, `vim.list_extend(_G.claudenova_test.inputs, ...)`, inputs)
}

func question(q, header string, multi bool, labels ...string) map[string]any {
	var opts []any
	for _, l := range labels {
		opts = append(opts, map[string]any{"label": l, "description": "about " + l})
	}
	return map[string]any{"question": q, "header": header, "multiSelect": multi, "options": opts}
}

func TestQuestionSingleSelect(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI([]string{"B — about B"}, nil)
		e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which lib?", "Lib", false, "A", "B")}})))
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Which lib?"="B"`) {
			t.Fatalf("tool result %+v", r)
		}
	})
}

func TestQuestionFloatPicker(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"questions": map[string]any{"ui": "float"}}})
		e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which lib?", "Lib", false, "A", "B")}})))
		e.Eventually(20*time.Second, "picker float", func() bool {
			var cfg map[string]any
			e.Lua(&cfg, "return vim.api.nvim_win_get_config(0)")
			return cfg["relative"] == "editor"
		})
		e.WaitGraceOver() // it took the screen on its own: the first keys are dropped
		e.Input("2")      // the second item: B
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Which lib?"="B"`) {
			t.Fatalf("tool result %+v", r)
		}
	})
}

func TestQuestionMultiSelectAndOther(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI([]string{"[ ] lint", "[ ] tests", "Done", "Other…"}, []string{"my own answer"})
		e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{
			question("Which checks?", "CI", true, "lint", "types", "tests"),
			question("Which name?", "Name", false, "foo", "bar"),
		}})))
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Which checks?"="lint, tests"`) || !strings.Contains(r.Content, `"Which name?"="my own answer"`) {
			t.Fatalf("tool result %+v", r)
		}
	})
}

func TestQuestionCancelKeepsRow(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.ScriptUI([]string{"CANCEL"}, nil)
		e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Pick one", "P", false, "x", "y")}})))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "pending note", func() bool { return e.NoteContaining("left pending") })
		// Not answered: the barrier is the end of the test, where claude's
		// tool result is the pick made later (claude takes the first answer
		// it reads, so an answer from the cancel would be the result).
		if got := e.Pending(); len(got) != 1 || got[0].Surface != "question" {
			t.Fatalf("row gone after cancelling: %+v", got)
		}
		// Sidebar allow on a question row re-presents it instead of answering.
		e.ScriptUI([]string{"y — about y"}, nil)
		e.Cmd("ClaudeNova")
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for lnum, id in pairs(sb.rows) do if id == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, p.ID)
		e.Input("a")
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Pick one"="y"`) {
			t.Fatalf("tool result %+v", r)
		}
	})
}

func planSeq(e *Env, path string) string {
	return Seq(Step("Read", map[string]any{"file_path": path}),
		Step("ExitPlanMode", map[string]any{"plan": "# The plan\n\n1. change alpha to beta"}),
		Step("Edit", map[string]any{"file_path": path, "old_string": "alpha", "new_string": "beta"}))
}

// PlanBuf is the buffer of the open plan of request id (0 if none).
func (e *Env) PlanBuf(id string) int {
	var buf int
	e.Lua(&buf, `local p = require('claudenova.surfaces.plan').open_[...]
		return (p and vim.api.nvim_buf_is_valid(p.buf)) and p.buf or 0`, id)
	return buf
}

// approveEditedPlan checks that plan p's buffer shows planSeq's plan, adds
// a line to it and approves it into acceptEdits: Claude gets the user's
// plan, and planSeq's edit then applies without asking.
func (e *Env) approveEditedPlan(p Pending, buf int) {
	e.t.Helper()
	var lines []string
	e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf)
	if !strings.Contains(strings.Join(lines, "\n"), "1. change alpha to beta") {
		e.t.Fatalf("plan buffer %q", lines)
	}
	e.WaitGraceOver()
	e.Lua(nil, `vim.api.nvim_buf_set_lines(..., -1, -1, false, {"2. and keep a backup"})`, buf)
	focusBuf(e, buf)
	e.Input(`\a`)
	r := e.WaitToolResult("toolu_s1")
	if r.IsError || !strings.Contains(r.Content, "2. and keep a backup") {
		e.t.Fatalf("plan tool result %+v", r)
	}
	e.Eventually(30*time.Second, "edit applied without a prompt", func() bool { return e.ReadFile("plan.txt") == "beta\n" })
	for _, ev := range e.Events() {
		if ev.Kind == "ClaudeNovaRequestAdded" && ev.ID != p.ID {
			e.t.Fatalf("the Edit after approval prompted: %+v", ev)
		}
	}
}

func TestPlanApproveAcceptEdits(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("plan.txt", "alpha\n")
		id := e.newSession("--plan " + planSeq(e, path))
		if _, mode := e.SessionState(id); mode != "plan" {
			e.Eventually(20*time.Second, "plan mode", func() bool { _, m := e.SessionState(id); return m == "plan" })
		}
		p := e.WaitPending(1)[0]
		if p.Surface != "plan" {
			t.Fatalf("surface %q", p.Surface)
		}
		// Sidebar `a` on a plan row opens the plan and does not answer.
		e.Cmd("ClaudeNova")
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for lnum, id in pairs(sb.rows) do if id == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, p.ID)
		e.Input("a")
		var buf int
		e.Eventually(10*time.Second, "plan buffer", func() bool { buf = e.PlanBuf(p.ID); return buf != 0 })
		e.WaitGraceOver()
		// Not answered: the barrier is the plan's tool result below, which
		// holds the user's later edit (claude takes the first answer it
		// reads: a bare allow from the sidebar would be the result).
		if len(e.Pending()) != 1 {
			t.Fatal("sidebar allow answered the plan")
		}
		e.approveEditedPlan(p, buf)
		if _, mode := e.SessionState(id); mode != "acceptEdits" {
			t.Fatalf("mode %q, want acceptEdits", mode)
		}
		var sb []string
		e.Lua(&sb, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.sidebar').buf, 0, -1, false)")
		if !strings.Contains(strings.Join(sb, "\n"), "acceptEdits") {
			t.Errorf("sidebar does not show the mode:\n%s", strings.Join(sb, "\n"))
		}
	})
}

func TestPlanKeepPlanning(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("plan.txt", "alpha\n")
		e.ScriptUI(nil, []string{"also add tests"})
		id := e.newSession("--plan " + Seq(Step("Read", map[string]any{"file_path": path}),
			Step("ExitPlanMode", map[string]any{"plan": "# The plan\n\n1. change alpha to beta"})))
		p := e.WaitPending(1)[0]
		var buf int
		e.Eventually(10*time.Second, "plan buffer", func() bool { buf = e.PlanBuf(p.ID); return buf != 0 })
		e.WaitGraceOver()
		focusBuf(e, buf)
		if bar := e.winbar(); !strings.Contains(bar, `Plan · \a accept edits · \y approve · \n keep planning`) {
			t.Fatalf("plan winbar %q", bar)
		}
		e.Input(`\n`)
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "also add tests") {
			t.Fatalf("tool result %+v", r)
		}
		e.WaitIdle(id)
		if _, mode := e.SessionState(id); mode != "plan" {
			t.Fatalf("mode %q, want plan", mode)
		}
		if e.ReadFile("plan.txt") != "alpha\n" {
			t.Fatal("file changed while planning")
		}
	})
}

// On a narrow screen the built-in picker prints the question in the
// message area, which wraps inside words: the prompt comes wrapped at
// spaces to the screen's width, every word kept.
func TestQuestionPromptWrapsAtSpaces(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "vim.o.columns = 60")
		e.ScriptUI([]string{"A — about A"}, nil)
		long := "Which of these libraries should the parser of the configuration files use from now on, given the constraints?"
		e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question(long, "Lib", false, "A", "B")}})))
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		var prompts []string
		e.Lua(&prompts, "return _G.claudenova_test.prompts")
		if len(prompts) == 0 {
			t.Fatal("no prompt")
		}
		lines := strings.Split(prompts[0], "\n")
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > 59 {
				t.Errorf("a line of %d cells on a 60-column screen: %q", n, l)
			}
		}
		if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != "[1/1] Lib: "+long {
			t.Fatalf("the prompt lost words: %q", got)
		}
	})
}
