package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tools"
)

// Today's tools as a person reads them: the tools claude 2.1.x offers
// besides files and commands. What is known of each is its entry in
// package tools; here the transcript asks it. Their line says what they do
// (approval.Target) and, once they ran, what came of it: when a cron job
// or a wake-up fires, the worktree the session is in now, whether a
// message reached its agent. Their input is shown as words, not JSON.

// keepsInput says the input of a call of tool is read again once its
// result comes (the app reads it with Transcript.ToolCall).
func keepsInput(tool string) bool {
	t, ok := tools.Of(tool)
	return ok && t.KeepInput
}

// maxKeptInput bounds the input kept for such a call.
const maxKeptInput = 64 << 10

// todayDetails is the input of a today's tool for a person (false for the
// others: inputDetails shows them).
func todayDetails(tool string, in map[string]any) ([]string, bool) {
	t, ok := tools.Of(tool)
	if !ok || t.Details == nil {
		return nil, false
	}
	var out []string
	add := func(prefix, v string) {
		for i, l := range sanitize.Lines(v) {
			if len(out) >= previewLines {
				out = append(out, detailFolded+"…")
				return
			}
			if i == 0 {
				out = append(out, detailFolded+prefix+l)
			} else {
				out = append(out, detailFolded+strings.Repeat(" ", len([]rune(prefix)))+l)
			}
		}
	}
	t.Details(tools.Input(in), add)
	return out, true
}

// todayQuiet says a today's tool's successful result is not worth its
// lines: its line says it all, or the text is instructions for Claude.
func todayQuiet(tc *toolCall, isError bool) bool {
	t, ok := tools.Of(tc.name)
	return !isError && ok && t.Quiet
}

// todayHeadline sums up a today's tool's result on its line ("" when there
// is nothing to say): from claude's tool_use_result.
func todayHeadline(tc *toolCall, result json.RawMessage, isError bool, now time.Time) string {
	t, ok := tools.Of(tc.name)
	if isError || !ok || t.Headline == nil {
		return ""
	}
	return t.Headline(tools.Result(result), now)
}

// Checklist puts the session's checklist under tool call id (after a
// TodoWrite, TaskCreate or TaskUpdate changed it): the transcript shows
// the list as it is at that point.
func (t *Transcript) Checklist(id string, todos []tools.Todo) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	tc, ok := t.calling.tools[id]
	if !ok || tc.name == "TodoWrite" || len(todos) == 0 {
		return nil // TodoWrite's input is the list: its details show it
	}
	lines := []string{fmt.Sprintf("checklist · %d/%d done", tools.Done(todos), len(todos))}
	for _, l := range tools.Checklist(todos) {
		lines = append(lines, "  "+l)
	}
	_, ops := t.nesting.insertIn(t, tc, prefixed(nest(tc.depth)+detailFolded, lines))
	return ops
}
