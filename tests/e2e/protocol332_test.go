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

// A teammate's permission request (an in-process teammate of an agent
// team: task_type in_process_teammate) names the teammate as a subagent's
// names its agent. The fake claude sends the teammate's task_started, then
// its ask (agent teams did not start a teammate on the wire here).
func TestTeammateRequestNamesTheTeammate(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		script := writeScript(t,
			`{"emit":{"type":"system","subtype":"task_started","task_id":"a9f3","tool_use_id":"toolu_team","description":"review the parser","subagent_type":"reviewer","task_type":"in_process_teammate","session_id":"${SESSION_ID}"}}`,
			`{"ask":{"tool_name":"Bash","request_id":"req-team-1","input":{"command":"touch from-teammate","description":"touch"},"agent_id":"a9f3"}}`,
			`{"say":"done"}`)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		e.newSession("go")
		e.WaitPending(1)
		var agent Agent
		e.Lua(&agent, "return require('claudenova').pending()[1].agent")
		if agent.Description != "review the parser" || agent.Type != "reviewer" {
			t.Fatalf("the request's agent %+v", agent)
		}
	})
}

// PreSkillShellCommand (2.1.332): the hook runs for a skill's shell
// command, no tool call: the session shows it running in the sidebar, and
// when it blocks the command the transcript says what it blocked. The fake
// claude replays the lines 2.1.332 sent (rplugin/hooks/testdata).
func TestSkillShellHookShown(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		rec := strings.Split(recordedLine(t, "rplugin/hooks/testdata/preskillshell-2.1.332.jsonl"), "\n")
		script := writeScript(t, `{"emit":`+rec[0]+`}`, `{"wait_stdin_line_matching":"hook-may-end"}`,
			`{"emit":`+rec[1]+`}`, `{"emit":`+rec[2]+`}`, `{"say":"done after the hook"}`)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		e.Cmd("ClaudeNova sidebar")
		id := e.newSession("go")
		e.Eventually(15*time.Second, "the hook in the sidebar", func() bool {
			return strings.Contains(strings.Join(e.sidebarLines(), "\n"), "· go · PreSkillShellCommand · hook ")
		})
		e.Lua(nil, "require('claudenova').send(...)", "hook-may-end", id)
		e.Eventually(15*time.Second, "the turn", func() bool { return strings.Contains(e.Transcript(id), "done after the hook") })
		mustContain(t, "transcript", e.Transcript(id), "hook PreSkillShellCommand:Bash blocked a skill's shell command: blocked-by-test",
			"Not run in /greet: echo skill-shell-ran (blocked by hook: blocked-by-test)")
	})
}
