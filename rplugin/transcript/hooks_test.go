package transcript

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/hooks"
)

// clock is a transcript clock the test moves.
type clock struct{ at time.Time }

func (c *clock) now() time.Time { return c.at }

func hookMsg(t *testing.T, sub, id, name, extra string) hooks.Event {
	t.Helper()
	event, _, _ := strings.Cut(name, ":")
	h, ok := hooks.Decode(msg(t, `{"type":"system","subtype":"`+sub+`","hook_id":"`+id+`","hook_name":"`+name+`","hook_event":"`+event+`"`+extra+`}`))
	if !ok {
		t.Fatalf("not a hook message: %s %s", sub, name)
	}
	return h
}

// Hooks as claude 2.1.328 reports them (shapes from the wire): a hook
// running for a call is on the call's line with its elapsed time, one that
// exits 2 names itself and its stderr as the reason, what it printed is
// folded under the line; a SessionStart hook's output is at the head.
func TestHooksOnTheirCall(t *testing.T) {
	tests := []struct {
		name     string
		response string
		line     string   // the call's line after its result
		details  []string // lines under it
		absent   []string
	}{
		{
			name:     "slow hook that passes",
			response: `,"output":"checking\nslept\n","stdout":"slept\n","stderr":"checking\n","exit_code":0,"outcome":"success"`,
			line:     "▸ Bash `touch y` ✓",
			details:  []string{"  │ hook PreToolUse:Bash: checking", "  │   slept"},
			absent:   []string{"blocked", "hook running"},
		},
		{
			name:     "hook that blocks",
			response: `,"output":"no bash on fridays\n","stdout":"","stderr":"no bash on fridays\n","exit_code":2,"outcome":"error"`,
			line:     "▸ Bash `touch y` · blocked by hook PreToolUse:Bash: no bash on fridays ✗",
			details:  []string{"  │ hook PreToolUse:Bash: no bash on fridays"},
			absent:   []string{"hook running"},
		},
		{
			name:     "hook that fails without blocking",
			response: `,"output":"","stdout":"","stderr":"oops\n","exit_code":1,"outcome":"error"`,
			line:     "▸ Bash `touch y` ✓",
			details:  []string{"  │ hook PreToolUse:Bash failed (exit 1): oops"},
			absent:   []string{"blocked"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTestTranscript("/p")
			c := &clock{at: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			tr.now = c.now
			var buf []string
			buf = replay(t, buf, tr.Prompt("go"))
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"touch y","description":"make y"}}]}}`)))
			ops, onCall := tr.Hook(hookMsg(t, "hook_started", "h1", "PreToolUse:Bash", ""))
			if !onCall {
				t.Fatal("a PreToolUse hook is not on its call")
			}
			buf = replay(t, buf, ops)
			if !strings.Contains(strings.Join(buf, "\n"), "▸ Bash `touch y` … · PreToolUse hook running 0 s") {
				t.Fatalf("running hook not shown:\n%s", strings.Join(buf, "\n"))
			}
			// Ticks move its time; a tick with nothing new changes nothing.
			c.at = c.at.Add(3 * time.Second)
			buf = replay(t, buf, tr.Tick())
			if !strings.Contains(strings.Join(buf, "\n"), "PreToolUse hook running 3 s") {
				t.Fatalf("elapsed not moved:\n%s", strings.Join(buf, "\n"))
			}
			if ops := tr.Tick(); len(ops) != 0 {
				t.Fatalf("a tick without a change wrote %v", ops)
			}
			// claude's heartbeat (every 30 s, or as configured) wins when later.
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"tool_progress","tool_use_id":"hook-PreToolUse-t1-heartbeat-0","tool_name":"PreToolUse","parent_tool_use_id":"t1","elapsed_time_seconds":5,"heartbeat":true}`)))
			if !strings.Contains(strings.Join(buf, "\n"), "PreToolUse hook running 5 s") {
				t.Fatalf("heartbeat not shown:\n%s", strings.Join(buf, "\n"))
			}
			ops, _ = tr.Hook(hookMsg(t, "hook_response", "h1", "PreToolUse:Bash", tt.response))
			buf = replay(t, buf, ops)
			isErr := strings.Contains(tt.line, "✗")
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":`+map[bool]string{true: "true", false: "false"}[isErr]+`,"content":"done"}]}}`)))
			text := strings.Join(buf, "\n")
			if text != strings.Join(tr.Lines(), "\n") {
				t.Fatalf("ops and lines disagree:\n%s\n---\n%s", text, strings.Join(tr.Lines(), "\n"))
			}
			if !strings.Contains(text, tt.line) {
				t.Fatalf("lacks %q:\n%s", tt.line, text)
			}
			for _, d := range tt.details {
				if !strings.Contains(text, d) {
					t.Fatalf("lacks %q:\n%s", d, text)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(text, a) {
					t.Fatalf("has %q:\n%s", a, text)
				}
			}
			if tr.RunningHooks() {
				t.Fatal("a hook still runs")
			}
		})
	}
}

func TestSessionHooks(t *testing.T) {
	tr := newTestTranscript("/p")
	var buf []string
	// SessionStart runs before anything else: at the head.
	ops, onCall := tr.Hook(hookMsg(t, "hook_started", "s1", "SessionStart:startup", ""))
	if onCall || len(ops) != 0 {
		t.Fatalf("SessionStart on a call: %v %v", onCall, ops)
	}
	buf = replay(t, buf, tr.Prompt("go"))
	ops, _ = tr.Hook(hookMsg(t, "hook_response", "s1", "SessionStart:startup", `,"output":"hello from session start\nline two\n","exit_code":0,"outcome":"success"`))
	buf = replay(t, buf, ops)
	// A Stop hook that blocks is a note; one that passes says nothing.
	ops, _ = tr.Hook(hookMsg(t, "hook_response", "s2", "Stop", `,"stderr":"tests fail\n","exit_code":2,"outcome":"error"`))
	buf = replay(t, buf, ops)
	ops, _ = tr.Hook(hookMsg(t, "hook_response", "s3", "Stop", `,"exit_code":0,"outcome":"success"`))
	buf = replay(t, buf, ops)
	want := "> hook SessionStart:startup: hello from session start\n  │ line two\n\n## You\n\ngo\n\n> hook Stop blocked it: tests fail"
	if got := strings.Join(buf, "\n"); got != want || got != strings.Join(tr.Lines(), "\n") {
		t.Fatalf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// A long tool's elapsed time comes from tool_progress until its result.
func TestToolProgress(t *testing.T) {
	tr := newTestTranscript("/p")
	var buf []string
	buf = replay(t, buf, tr.Prompt("go"))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"WebFetch","input":{"url":"https://example.com","prompt":"p"}}]}}`)))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"tool_progress","tool_use_id":"t1","tool_name":"WebFetch","parent_tool_use_id":null,"elapsed_time_seconds":31,"heartbeat":true}`)))
	if !strings.Contains(strings.Join(buf, "\n"), "▸ WebFetch https://example.com … · running 31 s") {
		t.Fatalf("no elapsed time:\n%s", strings.Join(buf, "\n"))
	}
	// A long Bash's heartbeat names it as its parent (2.1.328).
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"tool_progress","tool_use_id":"t1-heartbeat-1","tool_name":"WebFetch","parent_tool_use_id":"t1","elapsed_time_seconds":60,"heartbeat":true}`)))
	if !strings.Contains(strings.Join(buf, "\n"), "· running 60 s") {
		t.Fatalf("heartbeat not shown:\n%s", strings.Join(buf, "\n"))
	}
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"page"}]}}`)))
	if text := strings.Join(buf, "\n"); strings.Contains(text, "running") || !strings.Contains(text, "▸ WebFetch https://example.com ✓") {
		t.Fatalf("after the result:\n%s", text)
	}
	// Late progress of a finished call changes nothing.
	if ops := tr.Apply(msg(t, `{"type":"tool_progress","tool_use_id":"t1","tool_name":"WebFetch","elapsed_time_seconds":61}`)); len(ops) != 0 {
		t.Fatalf("late progress wrote %v", ops)
	}
}
