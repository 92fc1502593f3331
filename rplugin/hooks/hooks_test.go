package hooks

import (
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// A hook message decodes into what it means; anything else is no hook.
func TestDecode(t *testing.T) {
	tests := []struct {
		name, line                   string
		ok, forCall, blocked, failed bool
		event, why                   string
	}{
		{name: "started for a call", line: `{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse"}`,
			ok: true, forCall: true, event: "PreToolUse"},
		{name: "event from the name", line: `{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"Stop"}`,
			ok: true, event: "Stop"},
		{name: "blocks by exiting 2", line: `{"type":"system","subtype":"hook_response","hook_id":"h2","hook_name":"Stop","hook_event":"Stop","stderr":"tests fail\nmore","exit_code":2,"outcome":"error"}`,
			ok: true, blocked: true, event: "Stop", why: "tests fail"},
		{name: "exit 2 of an event that cannot block fails", line: `{"type":"system","subtype":"hook_response","hook_id":"h3","hook_name":"PostToolUse:Bash","hook_event":"PostToolUse","output":"lint: 3 errors","exit_code":2,"outcome":"error"}`,
			ok: true, forCall: true, failed: true, event: "PostToolUse", why: "lint: 3 errors"},
		{name: "success", line: `{"type":"system","subtype":"hook_response","hook_id":"h4","hook_name":"SessionStart:startup","hook_event":"SessionStart","exit_code":0,"outcome":"success"}`,
			ok: true, event: "SessionStart"},
		{name: "no hook id", line: `{"type":"system","subtype":"hook_started","hook_name":"Stop"}`},
		{name: "another system message", line: `{"type":"system","subtype":"status","status":"compacting"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := claude.ParseLine([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			h, ok := Decode(m)
			if ok != tt.ok {
				t.Fatalf("decoded %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if h.Event != tt.event || h.ForCall() != tt.forCall || h.Blocked() != tt.blocked || h.Failed() != tt.failed || h.Why() != tt.why {
				t.Fatalf("event %q for call %v blocked %v failed %v why %q", h.Event, h.ForCall(), h.Blocked(), h.Failed(), h.Why())
			}
		})
	}
}
