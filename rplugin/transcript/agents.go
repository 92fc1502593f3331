package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
)

// Agents in the transcript. A Task (or Agent) call is one line that names
// its agent ("▸ Task probe sub · general-purpose · running 12 s"); what the
// agent says and does is nested beneath it, one detail prefix deeper per
// level, so it folds with the call and never reads as Claude's own text.
// claude sends a subagent's messages with parent_tool_use_id set to the
// call that started it (checked on 2.1.328, depth 2 too with
// forwardSubagentText). A background shell's Bash line says it runs in the
// background until its task ends. A turn claude starts by itself when a
// task ends is headed by what started it ("## Claude · after probe sub
// finished").

// nest is the prefix of lines n levels deep inside agent blocks.
func nest(n int) string { return strings.Repeat(detailFolded, n) }

// isAgentTool reports whether tool starts a subagent.
// A Workflow runs agents of its own in the background: its call line is
// an agent's (its task's state on it, its launch metadata replaced).
func isAgentTool(tool string) bool { return tool == "Task" || tool == "Agent" || tool == "Workflow" }

// end is the line after tc's block (its line and every line beneath).
func (tc *toolCall) end() int { return tc.line + 1 + tc.details }

// grow records n more lines in tc's block and in each block around it.
func (tc *toolCall) grow(n int) {
	for c := tc; c != nil; c = c.parent {
		c.details += n
	}
}

// insertIn puts lines at the end of tc's block (at the end of the
// transcript when the block has left memory) and returns where.
func (nst *agentNest) insertIn(t *Transcript, tc *toolCall, lines []string) (int, []Op) {
	at := tc.end()
	if at < t.page.base || at > t.page.count(t) {
		at = t.page.count(t)
	}
	ops := t.put(at, 0, lines, nil)
	tc.grow(len(lines))
	return at, ops
}

func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}

// agentInput is what a Task call says about its agent.
type agentInput = claude.ToolFields

// agentSummary is a Task call's line without its outcome: who the agent
// is ("▸ Task probe sub · general-purpose").
func agentSummary(tool string, in agentInput) string {
	s := toolPrefix + sanitize.Line(tool)
	if d := sanitize.Truncate(sanitize.Line(in.Description), 80); d != "" {
		s += " " + d
	}
	if typ := sanitize.Line(in.SubagentType); typ != "" {
		s += " · " + typ
	}
	return s
}

// callLabel is how a heading names what a call started: a Task's
// description, a shell's description or command.
func callLabel(tool string, input json.RawMessage) string {
	in, _ := claude.FieldsOf(input)
	for _, s := range []string{in.Description, in.Command} {
		if s = sanitize.Truncate(sanitize.Line(s), 60); s != "" {
			return s
		}
	}
	return sanitize.Line(tool)
}

// agentCall is the call whose agent sent a message: the Task line, or (when
// it is unknown: long gone, or a store without it) a line made for it.
func (nst *agentNest) agentCall(t *Transcript, parent, agentID, subagentType, description string) (*toolCall, []Op) {
	if agentID != "" {
		if len(nst.agentCalls) >= maxTools {
			nst.agentCalls = map[string]string{} // the oldest agents are long gone
		}
		nst.agentCalls[agentID] = parent
	}
	if tc, ok := t.calling.tools[parent]; ok {
		return tc, nil
	}
	summary := agentSummary("Agent", agentInput{Description: description, SubagentType: subagentType})
	tc := &toolCall{summary: summary, name: "Agent", agent: true, label: sanitize.Line(description), started: t.now()}
	t.speaker, t.last = "", "tool"
	lines := []string{summary + " …"}
	if t.page.count(t) > 0 {
		lines = append([]string{""}, lines...)
	}
	tc.line = t.page.count(t) + len(lines) - 1
	ops := t.add(lines...)
	t.calling.remember(t, parent, tc)
	return tc, ops
}

// nestedAssistant shows a subagent's message beneath its call.
func (nst *agentNest) nestedAssistant(t *Transcript, parent, agentID, subagentType, description string, blocks []contentBlock) []Op {
	ac, ops := nst.agentCall(t, parent, agentID, subagentType, description)
	d := ac.depth + 1
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			_, o := nst.insertIn(t, ac, prefixed(nest(d), sanitize.Lines(b.Text)))
			ops = append(ops, o...)
		case "thinking":
			lines := []string{nest(d) + notePrefix + "_thought_"}
			lines = append(lines, prefixed(nest(d+1), sanitize.Lines(b.Thinking))...)
			_, o := nst.insertIn(t, ac, lines)
			ops = append(ops, o...)
		case "tool_use":
			ops = append(ops, nst.nestedToolUse(t, ac, b)...)
		}
	}
	return ops
}

// ApplyIn applies a message of the subagent the call parent started (a
// resumed session's history: claude's store keeps a subagent's lines in a
// file of their own, without parent_tool_use_id).
func (t *Transcript) ApplyIn(parent string, m claude.Message) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch m.Type {
	case "assistant":
		if m.Assistant == nil {
			return nil
		}
		blocks := make([]contentBlock, len(m.Assistant.Content))
		for i, b := range m.Assistant.Content {
			blocks[i] = blockOf(b)
		}
		return t.nesting.nestedAssistant(t, parent, "", "", "", blocks)
	case "user":
		return t.calling.toolResults(t, m, parent)
	}
	return nil
}

// nestedToolUse shows a subagent's tool call in its agent's block.
func (nst *agentNest) nestedToolUse(t *Transcript, ac *toolCall, b contentBlock) []Op {
	d := ac.depth + 1
	tc := nst.newCall(t, b, d)
	tc.parent = ac
	details := tc.inputLines
	tc.inputLines = nil
	tc.text = tc.summary + " …"
	at, ops := nst.insertIn(t, ac, append([]string{tc.text}, details...))
	tc.line = at
	t.calling.remember(t, b.ID, tc) // after the insert: lines it inserts do not move it
	return ops
}

// newCall is the toolCall of a tool_use block at depth d, with the lines
// of its input (inputLines) still to be written beneath it.
func (nst *agentNest) newCall(t *Transcript, b contentBlock, d int) *toolCall {
	tc := &toolCall{name: b.Name, depth: d, started: t.now(), label: sanitize.Line(b.Name), subject: subjectOf(b.Name, b.Input)}
	if keepsInput(b.Name) && len(b.Input) <= maxKeptInput {
		tc.input = append(json.RawMessage(nil), b.Input...)
	}
	if b.Name == "Bash" || b.Name == "Monitor" {
		tc.label = callLabel(b.Name, b.Input) // may start a task
	}
	var details []string
	if isAgentTool(b.Name) {
		in, _ := claude.FieldsOf(b.Input)
		if b.Name == "Workflow" {
			// Its name is in the script's meta block; the script is not a
			// prompt to show.
			in = agentInput{Description: approval.Target(b.Name, b.Input, t.cwd), SubagentType: "workflow"}
		}
		tc.agent, tc.typ = true, sanitize.Line(in.SubagentType)
		tc.desc = sanitize.Truncate(sanitize.Line(in.Description), 80)
		if tc.desc != "" {
			tc.label = sanitize.Truncate(tc.desc, 60)
		}
		tc.summary = nest(d) + agentSummary(b.Name, in)
		for i, l := range sanitize.Lines(in.Prompt) {
			if strings.TrimSpace(in.Prompt) == "" {
				break
			}
			if i == previewLines {
				details = append(details, detailFolded+"…")
				break
			}
			details = append(details, detailFolded+l)
		}
	} else {
		tc.summary = nest(d) + toolPrefix + sanitize.Line(toolName(b.Name))
		if target := approval.Target(b.Name, b.Input, t.cwd); target != "" {
			tc.summary += " " + target
		}
		details = inputDetails(b.Name, b.Input)
	}
	tc.inputLines = details
	if d > 0 {
		tc.inputLines = prefixed(nest(d), details)
	}
	tc.details = len(details)
	tc.inputs = len(details)
	return tc
}

// launched is what a tool result says of a task it started: claude's
// tool_use_result (toolUseResult in its session store).
type launched = claude.Launched

// taskResult handles the result of a call that started an agent or a
// background shell: claude's internal metadata is replaced by one status
// line, and the call's line says it runs until its task ends. It reports
// false for every other result.
func (nst *agentNest) taskResult(t *Transcript, b contentBlock, tc *toolCall, l launched) ([]Op, bool) {
	if b.IsError {
		return nil, false
	}
	bg := l.TaskID != ""
	async := l.Status == "async_launched" || strings.HasPrefix(claude.ResultText(b.Content), "Async agent launched successfully")
	if !tc.agent && !bg {
		return nil, false
	}
	var ops []Op
	status := "finished: its report went to Claude"
	switch {
	case bg:
		status = "running in the background · :ClaudeNova tasks shows its output"
		tc.live = true
	case async:
		status = "running in the background"
		tc.live = true
	}
	if tc.task == nil && !tc.done {
		// No task event yet (or none to come: history) says how it runs.
		line := tc.summary + " · running"
		if !tc.live {
			line = tc.summary + " ✓"
			if !t.history {
				line += fmt.Sprintf(" %.1f s", t.now().Sub(tc.started).Seconds())
			}
		} else if t.history {
			line = tc.summary + " · in the background"
		}
		ops = append(ops, t.setLine(tc, line)...)
	}
	tc.finished = true
	_, o := nst.insertIn(t, tc, []string{nest(tc.depth) + detailFolded + status})
	return append(ops, o...), true
}

// taskState is the last task event a call's line shows.
type taskState struct {
	status   string
	duration time.Duration
	lastTool string
}

// taskSuffix is the end of a task's call line: "· running 12 s · Bash",
// "✓ 4.2 s", "✗ stopped 4.2 s".
func taskSuffix(st taskState) string {
	secs := st.duration.Seconds()
	switch st.status {
	case tasks.TaskRunning:
		s := fmt.Sprintf(" · running %.0f s", secs)
		if st.lastTool != "" {
			s += " · " + st.lastTool
		}
		return s
	case tasks.TaskCompleted:
		return fmt.Sprintf(" ✓ %.1f s", secs)
	default:
		return fmt.Sprintf(" ✗ %s %.1f s", st.status, secs)
	}
}

// TaskChanged shows a task's state on the line of the call that started it.
func (t *Transcript) TaskChanged(task tasks.Task) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	tc, ok := t.calling.tools[task.ToolUseID]
	if !ok || tc.line < t.page.base {
		return nil
	}
	if tc.agent && tc.typ == "" && task.SubagentType != "" {
		tc.typ = task.SubagentType
		tc.summary += " · " + task.SubagentType
	}
	st := taskState{status: task.Status, duration: task.Duration(t.now()), lastTool: task.LastTool}
	if tc.task != nil && *tc.task == st {
		return nil
	}
	tc.task = &st
	if !task.Running() {
		tc.live, tc.done = false, true
	}
	return t.setLine(tc, tc.summary+taskSuffix(st))
}

// Notified records that the task started by call toolUseID ended with
// status (claude's task_notification, or the notification in a resumed
// session's history): claude's next turn of its own is headed by it. Ends
// of nested agents' tasks, and shells that were stopped (claude starts no
// turn for those, checked on 2.1.328), are not.
func (t *Transcript) Notified(toolUseID, status string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ops []Op
	label, agent := "a background task", false
	if tc, ok := t.calling.tools[toolUseID]; ok {
		if tc.depth > 0 {
			return nil
		}
		label, agent = tc.label, tc.agent
		if tc.task == nil && !tc.done && tc.line >= t.page.base {
			// History: no task events came, this is the end.
			tc.live, tc.done = false, true
			outcome := " ✓"
			if status != tasks.TaskCompleted {
				outcome = " ✗ " + sanitize.Line(status)
			}
			ops = append(ops, t.setLine(tc, tc.summary+outcome)...)
		}
	}
	if status == tasks.TaskStopped && !agent {
		return ops
	}
	verb := map[string]string{tasks.TaskCompleted: "finished", tasks.TaskFailed: "failed", tasks.TaskStopped: "was stopped"}[status]
	if verb == "" {
		verb = "ended"
	}
	t.why = append(t.why, label+" "+verb)
	if len(t.why) > 5 {
		t.why = t.why[len(t.why)-5:]
	}
	if t.history {
		// History has no results: the notification is where a turn ends.
		t.inTurn, t.speaker = false, ""
	}
	return ops
}

// claudeHeading starts a block of Claude's; the first of a turn Claude
// started by itself says what started it.
func (nst *agentNest) claudeHeading(t *Transcript, kind string) []Op {
	mark := ""
	if !t.inTurn {
		t.inTurn = true
		if len(t.why) > 0 {
			mark = "after " + strings.Join(t.why, ", ")
			t.why = nil
			t.speaker = "" // a heading of its own
		}
	}
	return t.saying.headingMarked(t, "claude", "Claude", mark, kind)
}

// AgentOutput is what the agent started by call toolUseID said and did
// (its block in the transcript, as far as it is in memory), at most limit
// lines from the end.
func (t *Transcript) AgentOutput(toolUseID string, limit int) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tc, ok := t.calling.tools[toolUseID]
	if !ok {
		return "", false
	}
	from := max(tc.line+1+tc.inputs, t.page.base)
	to := min(tc.end(), t.page.count(t))
	if to-from > limit {
		from = to - limit
	}
	prefix := nest(tc.depth + 1)
	var out []string
	for i := from; i < to; i++ {
		out = append(out, strings.TrimPrefix(t.page.lines[i-t.page.base], prefix))
	}
	return strings.Join(out, "\n"), true
}

// CallAt is the tool_use_id of the innermost call that started a task
// (an agent, a background shell) whose lines include line (0-based).
func (t *Transcript) CallAt(line int) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	best, depth := "", -1
	for id, tc := range t.calling.tools {
		if (tc.agent || tc.task != nil || tc.live) && line >= tc.line && line < tc.end() && tc.depth > depth {
			best, depth = id, tc.depth
		}
	}
	return best, best != ""
}

// agentNest is where subagents' lines go: each agent's call (agent id ->
// the tool_use_id of its call), its lines nested beneath it.
type agentNest struct {
	agentCalls map[string]string // agent id -> the tool_use_id of its call
}
