package e2e

import (
	"strings"
	"testing"
)

// A question closed without an answer: a claude that lists
// ask_user_question_unanswered_v1 in system/init (2.1.328) is told how in
// annotations (and the model reads it in the answer's text); one that does
// not gets what it always got (a decline is a deny with its message).
func TestQuestionLeftUnansweredSaysHow(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		for _, c := range []struct {
			name, pick, input string
			want, wantOld     string // in the tool result: with the capability, without
		}{
			{name: "dismissed", pick: "Dismiss: close the questions unanswered",
				want: "The user dismissed the question without answering.", wantOld: "The user dismissed the questions without answering."},
			{name: "replied in chat", pick: "Decline: I'd rather answer in chat", input: "I will say it in chat",
				want: "The user would rather answer in chat. Their message: I will say it in chat", wantOld: "I will say it in chat"},
			{name: "skipped", pick: "Skip this question",
				want: "The user skipped this question.", wantOld: "The user skipped this question."},
		} {
			t.Run(c.name, func(t *testing.T) {
				e := NewEnv(t, v, Options{})
				var inputs []string
				if c.input != "" {
					inputs = []string{c.input}
				}
				e.ScriptUI([]string{c.pick}, inputs)
				e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which lib?", "Lib", false, "A", "B")}})))
				r := e.WaitToolResult("toolu_s0")
				capable := strings.Contains(e.LogText(), "ask_user_question_unanswered_v1")
				want, isErr := c.want, false
				if !capable {
					want, isErr = c.wantOld, c.name != "skipped"
				}
				if r.IsError != isErr || !strings.Contains(r.Content, want) {
					t.Fatalf("claude lists the capability: %v; tool result %+v, want %q (error: %v)", capable, r, want, isErr)
				}
				t.Logf("capability %v; the model read: %s", capable, r.Content)
			})
		}
	})
}
