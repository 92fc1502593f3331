package e2e

import (
	"strings"
	"testing"
	"time"
)

// commentPlan opens the plan of a new session in plan mode and leaves two
// line comments on it through the comment key (the second on a visual
// selection of two lines); it returns the plan's buffer.
func commentPlan(e *Env, seq string) int {
	e.t.Helper()
	e.ScriptUI(nil, []string{"why beta and not gamma?", "say which tests run"})
	e.newSession("--plan " + seq)
	p := e.WaitPending(1)[0]
	var buf int
	e.Eventually(10*time.Second, "plan buffer", func() bool { buf = e.PlanBuf(p.ID); return buf != 0 })
	e.WaitGraceOver()
	focusBuf(e, buf)
	e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {3, 0})")
	e.Input(`\c`)
	e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {4, 0})")
	e.Input(`Vj\c`)
	e.Eventually(5*time.Second, "two comments", func() bool { return strings.Contains(e.winbar(), "2 comments") })
	return buf
}

const commentedPlan = "# The plan\n\n1. change alpha to beta\n2. run the tests\n3. say so"

// wantComments are the two comments as the model must read them: each
// with its text and its lines quoted, the commented ones marked.
var wantComments = []string{
	"The user left 2 comments on lines of the plan.",
	"### Comment 1, plan line 3",
	"> 3 | 1. change alpha to beta",
	"why beta and not gamma?",
	"### Comment 2, plan lines 4-5",
	"> 4 | 2. run the tests",
	"> 5 | 3. say so",
	"say which tests run",
}

func TestPlanCommentsReachTheModel(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		t.Run("approved", func(t *testing.T) {
			e := NewEnv(t, v, Options{})
			path := e.WriteFile("plan.txt", "alpha\n")
			commentPlan(e, Seq(Step("ExitPlanMode", map[string]any{"plan": commentedPlan}),
				Step("Edit", map[string]any{"file_path": path, "old_string": "alpha", "new_string": "beta"})))
			e.Input(`\a`)
			if r := e.WaitToolResult("toolu_s0"); r.IsError {
				t.Fatalf("plan tool result %+v", r)
			}
			// The request after the approval holds the comments beside the
			// plan's result (the plan itself is saved unchanged).
			req := e.requestWith("toolu_s0")
			for _, want := range append([]string{"PostToolUse:ExitPlanMode hook additional context: The user left 2"}, wantComments...) {
				if !strings.Contains(req, want) {
					t.Errorf("the model's request lacks %q:\n%s", want, req)
				}
			}
			e.Eventually(20*time.Second, "the edit after approval", func() bool { return e.ReadFile("plan.txt") == "beta\n" })
			if !strings.Contains(e.Transcript(1), "Plan approved with your 2 comments; mode: acceptEdits") {
				t.Errorf("transcript:\n%s", e.Transcript(1))
			}
		})
		t.Run("keep planning", func(t *testing.T) {
			e := NewEnv(t, v, Options{})
			buf := commentPlan(e, Seq(Step("ExitPlanMode", map[string]any{"plan": commentedPlan})))
			e.Lua(nil, `vim.api.nvim_buf_set_lines(..., -1, -1, false, {"4. and keep a backup"})`, buf)
			e.ScriptUI(nil, []string{"not yet"})
			e.Input(`\n`)
			r := e.WaitToolResult("toolu_s0")
			if !r.IsError {
				t.Fatalf("keep planning answered allow: %+v", r)
			}
			for _, want := range append([]string{"not yet", "4. and keep a backup"}, wantComments...) {
				if !strings.Contains(r.Content, want) {
					t.Errorf("the model's tool result lacks %q:\n%s", want, r.Content)
				}
			}
		})
	})
}
