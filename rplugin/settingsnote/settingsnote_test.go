package settingsnote

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// The line 2.1.332 sent for a settings file with a bad hook, a bad
// defaultMode, and a settings.local.json that is not JSON (recorded with
// tests/cmd/capture, CLAUDE_AGENT_SDK_VERSION and CLAUDE_CODE_ENTRYPOINT=sdk-ts
// set; the path rewritten).
func recorded(t *testing.T) claude.Message {
	t.Helper()
	b, err := os.ReadFile("testdata/settings_not_in_effect-2.1.332.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	m, err := claude.ParseLine(bytes.TrimSpace(b))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTheRecordedWarning(t *testing.T) {
	m := recorded(t)
	if m.System == nil || m.System.Signal == nil || m.System.Signal.Tag != Tag || m.System.Signal.Level != "warning" {
		t.Fatalf("decoded %+v", m.System)
	}
	content := m.System.Signal.Content
	got := Summary(content, "/home/dev/project")
	want := "settings not in effect: hooks.PreToolUse, permissions.defaultMode (.claude/settings.json); " +
		".claude/settings.local.json (all of it) (claude did not load them)"
	if got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	lines := Lines(content, "/home/dev/project")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "not in effect: .claude/settings.json (permissions.defaultMode): Invalid value.") {
		t.Errorf("lines %q", lines)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, content string
		want          []Problem
	}{
		{"a setting", "head:\n  /p/s.json (env.X): bad\ntail", []Problem{{"/p/s.json", "env.X", "bad"}}},
		{"a file", "head:\n  /p/s.json: Invalid or malformed JSON", []Problem{{"/p/s.json", "", "Invalid or malformed JSON"}}},
		{"SDK inline settings", "h:\n  SDK inline settings (permissions.allow): x (y): z", []Problem{{"SDK inline settings", "permissions.allow", "x (y): z"}}},
		{"no list (a remote session's words)", "Some settings did not load or were skipped, so they are not in effect.", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Parse(c.content)
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("problem %d: got %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
	if got := Summary("Some settings did not load or were skipped.\nmore", ""); got != "claude: Some settings did not load or were skipped." {
		t.Errorf("summary without a list: %q", got)
	}
}

func TestOnce(t *testing.T) {
	var o Once
	if !o.First(1, "a") || o.First(1, "a") || !o.First(2, "a") || !o.First(1, "b") {
		t.Fatal("each session shows each warning once")
	}
}
