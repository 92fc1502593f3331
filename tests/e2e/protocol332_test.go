package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recordedLine is a line the real claude sent, from a fixture of the host's
// packages, with its project folder made ${CWD} (the fake claude's).
func recordedLine(t *testing.T, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimSpace(string(b)), "/home/dev/project", "${CWD}")
}

// settings_not_in_effect (2.1.330+, sent only to an Agent SDK app: the
// real CLI is checked by the fixture's test; here the fake claude sends the
// recorded line twice): one notification naming the settings, the problems
// in the transcript once.
func TestSettingsNotInEffectShownOnce(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		line := recordedLine(t, "rplugin/settingsnote/testdata/settings_not_in_effect-2.1.332.jsonl")
		script := writeScript(t, `{"emit":`+line+`}`, `{"emit":`+line+`}`, `{"say":"after the warning"}`)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		id := e.newSession("go")
		e.Eventually(15*time.Second, "the turn", func() bool { return strings.Contains(e.Transcript(id), "after the warning") })
		var warned []string
		for _, n := range e.Notes() {
			if strings.Contains(n, "settings not in effect") {
				warned = append(warned, n)
			}
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "settings not in effect: hooks.PreToolUse, permissions.defaultMode (.claude/settings.json)") {
			t.Fatalf("notifications %q", warned)
		}
		tr := e.Transcript(id)
		if n := strings.Count(tr, "not in effect: .claude/settings.json (permissions.defaultMode): Invalid value."); n != 1 {
			t.Fatalf("the problem is in the transcript %d times:\n%s", n, tr)
		}
	})
}

// set_permission_mode's answer names the mode claude took (the real CLI
// answers the mode asked: 2.1.300, 2.1.328, 2.1.332); the fake claude
// answers another: the session stays in the mode it had and says why.
func TestModeSwitchAnsweredWithAnotherMode(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		script := writeScript(t, `{"config":{"control":{"set_permission_mode":{"response":{"mode":"default"}}}}}`, `{"say":"ready"}`)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		id := e.newSession("go")
		e.Eventually(15*time.Second, "the turn", func() bool { return strings.Contains(e.Transcript(id), "ready") })
		e.Cmd("ClaudeNova mode acceptEdits")
		e.Eventually(15*time.Second, "why not", func() bool {
			return e.NoteContaining("stays in default; claude says: claude answered mode default, not acceptEdits")
		})
		if _, mode := e.SessionState(id); mode != "default" {
			t.Fatalf("mode %q", mode)
		}
	})
}
