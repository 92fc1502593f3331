package e2e

import (
	"strings"
	"testing"
	"time"
)

// A plan the TUI wants approved is our plan approval: the plan (which
// claude strips from the hook's input) is read from the session's
// transcript; edited and approved into acceptEdits, Claude gets the
// user's plan and the next edit runs without asking.
func TestTUIPlanApproval(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		path := e.WriteFile("plan.txt", "alpha\n")
		id, job := e.startTUIWith(map[string]any{"mode": "plan"})
		e.typeIntoTUI(id, job, planSeq(e, path), "SEQ")
		p := e.WaitPending(1)[0]
		if p.Surface != "plan" || p.Session != id {
			t.Fatalf("request %+v", p)
		}
		var buf int
		e.Eventually(20*time.Second, "plan buffer", func() bool { buf = e.PlanBuf(p.ID); return buf != 0 })
		e.approveEditedPlan(p, buf)
		e.Eventually(20*time.Second, "the TUI in accept edits", func() bool { return strings.Contains(e.tuiScreen(id), "accept edits on") })
		if errs := e.ErrorNotes(); len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
	})
}

// A question the TUI would ask is our question picker; the answer reaches
// Claude and the TUI says it was answered.
func TestTUIQuestion(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		e.ScriptUI([]string{"B — about B"}, nil)
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which lib?", "Lib", false, "A", "B")}})), "SEQ")
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Which lib?"="B"`) {
			t.Fatalf("tool result %+v", r)
		}
		e.Eventually(20*time.Second, "the TUI shows the answer", func() bool { return strings.Contains(e.tuiScreen(id), "Which lib? → B") })
		if len(e.Pending()) != 0 {
			t.Fatalf("pending: %+v", e.Pending())
		}
	})
}

// A question arriving while the user types into the TUI (terminal mode)
// never takes the keys: the picker waits, the user is told how to reach
// it; leaving terminal mode opens it, and the answer reaches Claude.
func TestTUIQuestionWaitsWhileTyping(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		e.ScriptUI([]string{"A — about A"}, nil)
		id, _ := e.startTUI()
		e.Input("i")
		e.WaitMode("t")
		e.Eventually(60*time.Second, "the TUI's input", func() bool { return strings.Contains(e.tuiScreen(id), "for shortcuts") })
		e.Input(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which lib?", "Lib", false, "A", "B")}})))
		e.Eventually(20*time.Second, "the prompt typed", func() bool { return strings.Contains(e.tuiScreen(id), "SEQ") })
		e.Input("<CR>")
		p := e.WaitPending(1)[0]
		if p.Surface != "question" {
			t.Fatalf("request %+v", p)
		}
		e.Eventually(20*time.Second, "told how to reach it", func() bool { return e.NoteContaining("opens when you pause") })
		if mode, _ := e.Mode(); mode != "t" {
			t.Fatalf("the question took the keys: mode %q", mode)
		}
		e.Input(`<C-\><C-n>`)
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Which lib?"="A"`) {
			t.Fatalf("tool result %+v", r)
		}
	})
}
