package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/hooks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Hooks and live times in the transcript. With --include-hook-events
// claude reports each hook as it runs (checked on 2.1.328):
// system/hook_started (hook_id, hook_name "PreToolUse:Bash", hook_event),
// hook_progress (its output so far), hook_response (output, stdout,
// stderr, exit_code, outcome), and, every CLAUDE_CODE_HOOK_HEARTBEAT_
// INTERVAL_MS (30 s by default), a tool_progress heartbeat whose
// parent_tool_use_id is the call the hook runs for. hook_started itself
// names no call: a tool event's hook belongs to the last call of its tool.
//
// A hook running for a call shows on the call's line with its elapsed
// time ("▸ Bash `make` … · PreToolUse hook running 3 s"); one that blocks
// the call (exit code 2) names itself and its stderr as the reason on that
// line; what a hook printed is folded under the line. SessionStart hooks'
// output goes to the head of the transcript; other hooks outside any call
// are the session's (World), and notes when they block.

// hookRun is a hook running for a tool call.
type hookRun struct {
	id, name, event string
	started         time.Time
	cli             int // seconds claude reported (heartbeat)
	shown           int // seconds on the line
}

func (h *hookRun) secs(now time.Time) int {
	return max(h.cli, int(now.Sub(h.started).Seconds()))
}

// Hook shows a hook message: on the line of the call it runs for. It
// reports false when the hook runs for no call (the session's: World).
func (t *Transcript) Hook(h hooks.Event) ([]Op, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hooking.hook(t, h)
}

func (hr *hookRuns) hook(t *Transcript, h hooks.Event) ([]Op, bool) {
	if hr.hooks == nil {
		hr.hooks = map[string]*toolCall{}
	}
	switch h.Subtype {
	case "hook_started":
		if !h.ForCall() {
			return nil, false
		}
		tc := hr.callFor(t, h)
		if tc == nil {
			return nil, false
		}
		tc.hook = &hookRun{id: h.ID, name: h.Name, event: h.Event, started: t.now()}
		hr.hooks[h.ID] = tc
		return t.setLine(tc, tc.text), true
	case "hook_progress":
		_, ok := hr.hooks[h.ID]
		return nil, ok
	case "hook_response":
		tc, ok := hr.hooks[h.ID]
		delete(hr.hooks, h.ID)
		if !ok {
			return hr.sessionHook(t, h), false
		}
		tc.hook = nil
		var ops []Op
		if h.Blocked() {
			why := "blocked by hook " + h.Name
			if w := h.Why(); w != "" {
				why += ": " + w
			}
			tc.headline = why
		}
		ops = append(ops, t.setLine(tc, tc.text)...)
		if lines := hookOutput(h); len(lines) > 0 {
			_, o := t.nesting.insertIn(t, tc, prefixed(nest(tc.depth)+detailFolded, lines))
			ops = append(ops, o...)
		}
		return ops, true
	}
	return nil, false
}

// callFor is the call a tool event's hook runs for: the last call of its
// tool (an unfinished one for PreToolUse and PermissionRequest).
func (hr *hookRuns) callFor(t *Transcript, h hooks.Event) *toolCall {
	_, tool, _ := strings.Cut(h.Name, ":")
	before := h.Event == "PreToolUse" || h.Event == "PermissionRequest"
	for i := len(t.calling.order) - 1; i >= 0; i-- {
		tc := t.calling.tools[t.calling.order[i]]
		if tc == nil || (tool != "" && tc.name != tool) || tc.hook != nil {
			continue
		}
		if before && tc.finished {
			continue
		}
		return tc
	}
	return nil
}

// hookOutput is what a hook printed, as lines under its call ("hook
// PreToolUse:Bash: …"), at most a few.
func hookOutput(h hooks.Event) []string {
	text := strings.TrimSpace(sanitize.Text(h.Output))
	if text == "" {
		text = strings.TrimSpace(sanitize.Text(h.Stdout + h.Stderr))
	}
	head := "hook " + h.Name
	if h.Failed() {
		head += " failed"
		if h.ExitCode != nil {
			head += fmt.Sprintf(" (exit %d)", *h.ExitCode)
		}
	}
	if text == "" {
		if h.Failed() {
			return []string{head}
		}
		return nil
	}
	lines := sanitize.Lines(text)
	if len(lines) > previewLines {
		more := len(lines) - previewLines
		lines = append(lines[:previewLines], fmt.Sprintf("… %d more lines", more))
	}
	out := []string{head + ": " + lines[0]}
	for _, l := range lines[1:] {
		out = append(out, strings.Repeat(" ", 2)+l)
	}
	return out
}

// sessionHook shows the end of a hook that ran for no call: a
// SessionStart hook's output at the head, a hook that blocked or failed as
// a note.
func (hr *hookRuns) sessionHook(t *Transcript, h hooks.Event) []Op {
	switch {
	case h.Event == "SessionStart":
		return hr.sessionStart(t, h)
	case h.Blocked():
		text := "hook " + h.Name + " blocked " + h.Blocks()
		if w := h.Why(); w != "" {
			text += ": " + w
		}
		return t.note(text)
	case h.Failed():
		text := "hook " + h.Name + " failed"
		if h.ExitCode != nil {
			text += fmt.Sprintf(" (exit %d)", *h.ExitCode)
		}
		if w := h.Why(); w != "" {
			text += ": " + w
		}
		return t.note(text)
	}
	return nil
}

// sessionStart puts a SessionStart hook's output at the head of the
// transcript (at the end once the head has left memory).
func (hr *hookRuns) sessionStart(t *Transcript, h hooks.Event) []Op {
	lines := hookOutput(h)
	if len(lines) == 0 {
		return nil
	}
	block := []string{notePrefix + lines[0]}
	for _, l := range lines[1:] {
		block = append(block, detailFolded+strings.TrimPrefix(l, "  "))
	}
	if t.page.base > 0 {
		return t.note(append([]string{lines[0]}, lines[1:]...)...)
	}
	at := hr.heads
	if t.page.count(t) > at {
		block = append(block, "")
	} else if at > 0 {
		block = append([]string{""}, block...)
	}
	hr.heads += len(block)
	if t.page.count(t) == 0 {
		t.speaker, t.last = "", "note"
	}
	return t.put(at, 0, block, nil)
}

// progressOf shows claude's tool_progress (Apply gives it): a long tool's
// elapsed time on its line; a hook's heartbeat names the call it runs for.
func (hr *hookRuns) progressOf(t *Transcript, m claude.Message) []Op {
	if m.Progress == nil || m.Progress.ToolUseID == "" {
		return nil
	}
	p := *m.Progress
	secs := int(p.Elapsed)
	if strings.HasPrefix(p.ToolUseID, "hook-") && p.Parent != nil {
		tc, ok := t.calling.tools[*p.Parent]
		if !ok {
			return nil
		}
		for id, c := range hr.hooks {
			if c.hook != nil && c.hook.event == p.ToolName && c != tc {
				// The hook was put on another call of its tool: the
				// heartbeat knows better.
				run := c.hook
				c.hook = nil
				ops := t.setLine(c, c.text)
				tc.hook, hr.hooks[id] = run, tc
				run.cli = secs
				return append(ops, t.setLine(tc, tc.text)...)
			}
			if c == tc && c.hook != nil {
				c.hook.cli = secs
				return t.setLine(tc, tc.text)
			}
		}
		return nil
	}
	id := p.ToolUseID
	if i := strings.Index(id, "-heartbeat-"); i > 0 && p.Parent != nil && *p.Parent != "" {
		// A heartbeat (every 30 s): its parent is the call that runs
		// ("toolu_s1-heartbeat-0", checked on 2.1.328).
		id = *p.Parent
	}
	tc, ok := t.calling.tools[id]
	if !ok || tc.finished || secs <= tc.progress {
		return nil
	}
	tc.progress = secs
	return t.setLine(tc, tc.text)
}

// Tick moves the elapsed time of the hooks running on calls; it returns
// nothing when no line changed (a session without a running hook costs
// nothing).
func (t *Transcript) Tick() []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ops []Op
	now := t.now()
	for _, tc := range t.hooking.hooks {
		if h := tc.hook; h != nil && h.secs(now) != h.shown {
			ops = append(ops, t.setLine(tc, tc.text)...)
		}
	}
	return ops
}

// RunningHooks reports whether a hook runs on a call.
func (t *Transcript) RunningHooks() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.hooking.hooks) > 0
}

// EndHooks forgets the running hooks (claude exited): their lines say
// nothing live any more.
func (t *Transcript) EndHooks() []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ops []Op
	for id, tc := range t.hooking.hooks {
		tc.hook = nil
		ops = append(ops, t.setLine(tc, tc.text)...)
		delete(t.hooking.hooks, id)
	}
	return ops
}

// setLine writes tc's line: text, and what is live on it. Callers hold mu.
func (t *Transcript) setLine(tc *toolCall, text string) []Op {
	tc.text = text
	live := ""
	switch {
	case tc.hook != nil:
		secs := tc.hook.secs(t.now())
		tc.hook.shown = secs
		live = fmt.Sprintf(" · %s hook running %d s", tc.hook.event, secs)
	case tc.progress > 0 && !tc.finished:
		live = fmt.Sprintf(" · running %d s", tc.progress)
	}
	return t.put(tc.line, 1, []string{text + live}, nil)
}

// SetCwd changes the folder paths are shown against (the session moved
// into a worktree, or back).
func (t *Transcript) SetCwd(dir string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cwd = dir
}

// ToolCall is the name and input of tool call id, as far as the
// transcript remembers it (the input only for the tools of the session's
// world: today.go).
func (t *Transcript) ToolCall(id string) (name string, input json.RawMessage, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tc, ok := t.calling.tools[id]
	if !ok {
		return "", nil, false
	}
	return tc.name, tc.input, true
}

// hookRuns is the hooks running for tool calls (by hook id: the call it
// runs for) and how many lines at the head SessionStart hooks wrote.
type hookRuns struct {
	hooks map[string]*toolCall // running hook id -> the call it runs for (hooks.go)
	heads int                  // lines at the head: SessionStart hooks' output
}
