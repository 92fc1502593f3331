package hooks

import (
	"bytes"
	"os"
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

// PreSkillShellCommand (2.1.332): a hook on a skill's shell command, which
// is no tool call; exit 2 blocks the command (recorded with tests/cmd/capture:
// a skill with !`echo skill-shell-ran`, a hook that exits 2).
func TestPreSkillShellCommandRecorded(t *testing.T) {
	b, err := os.ReadFile("testdata/preskillshell-2.1.332.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var got []Event
	for _, l := range lines[:2] {
		m, err := claude.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := Decode(m)
		if !ok {
			t.Fatalf("not a hook: %s", l)
		}
		got = append(got, h)
	}
	started, ended := got[0], got[1]
	if started.Event != "PreSkillShellCommand" || started.Name != "PreSkillShellCommand:Bash" || started.ForCall() {
		t.Fatalf("started %+v (for a call: %v)", started, started.ForCall())
	}
	if !ended.Blocked() || ended.Failed() || ended.Why() != "blocked-by-test" {
		t.Fatalf("ended %+v: blocked %v, failed %v", ended, ended.Blocked(), ended.Failed())
	}
	if w := ended.Blocks(); w != "a skill's shell command" {
		t.Fatalf("blocks %q", w)
	}
}
