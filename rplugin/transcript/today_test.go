package transcript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
)

// Today's tools as a person reads them: each call's line says what it
// does and, once its result came (claude 2.1.328's tool_use_result), what
// came of it; no JSON.
func TestTodayToolLines(t *testing.T) {
	at := time.Date(2026, 12, 1, 21, 2, 47, 0, time.Local)
	ms := func(d time.Duration) string { b, _ := json.Marshal(at.Add(d).UnixMilli()); return string(b) }
	tests := []struct {
		tool, input, result string
		want                []string
		absent              []string
	}{
		{"CronCreate", `{"cron":"*/5 * * * *","prompt":"check the build","recurring":true}`,
			`{"id":"b2b5d660","humanSchedule":"Every 5 minutes","recurring":true,"durable":false,"nextFireAt":` + ms(5*time.Minute) + `}`,
			[]string{"▸ CronCreate */5 * * * *: check the build · next 21:08 · every 5 minutes · job b2b5d660 ✓", "  │ prompt: check the build", "  │ cron: */5 * * * * (every match)"},
			[]string{"{", "Scheduled recurring job"}},
		{"ScheduleWakeup", `{"delaySeconds":120,"reason":"wait for CI","prompt":"/loop check CI","noop":false}`,
			`{"scheduledFor":` + ms(133*time.Second) + `,"clampedDelaySeconds":120,"wasClamped":false}`,
			[]string{"▸ ScheduleWakeup in 2 min: wait for CI · fires at 21:05 ✓", "  │ prompt: /loop check CI"},
			[]string{"If you owe the user"}},
		{"CronDelete", `{"id":"b2b5d660"}`, `{"id":"b2b5d660"}`, []string{"▸ CronDelete b2b5d660 · deleted ✓"}, nil},
		{"CronList", `{}`, `{"jobs":[{"id":"a"},{"id":"b"}]}`, []string{"▸ CronList · 2 jobs ✓"}, nil},
		{"Monitor", `{"description":"watch the log","command":"tail -f app.log","timeout_ms":60000}`, `{"taskId":"be2","timeoutMs":60000}`,
			[]string{"▸ Monitor watch the log · `tail -f app.log` ✓", "  │ $ tail -f app.log", "  │ for at most 1 min"}, []string{"timeout_ms"}},
		{"EnterWorktree", `{"name":"feat"}`, `{"worktreePath":"/p/.claude/worktrees/feat","worktreeBranch":"worktree-feat","message":"Created"}`,
			[]string{"▸ EnterWorktree feat · now in /p/.claude/worktrees/feat (worktree-feat) ✓"}, nil},
		{"ExitWorktree", `{"action":"keep"}`, `{"action":"keep","originalCwd":"/p","worktreePath":"/p/.claude/worktrees/feat","message":"m"}`,
			[]string{"▸ ExitWorktree and keep it · back in /p ✓"}, nil},
		{"SendMessage", `{"to":"napper","message":"hi there"}`, `{"success":false,"message":"No agent named 'napper' is reachable.","display":"Not sent — no agent named 'napper' is reachable."}`,
			[]string{"▸ SendMessage to napper · Not sent — no agent named 'napper' is reachable. ✓", "  │ hi there"}, nil},
		{"ListAgents", `{}`, `{"listing":"This session is cwd-ab [de2ddc].\n\nNo reachable agents — no other Claude session is running."}`,
			[]string{"▸ ListAgents · no other agent reachable ✓"}, nil},
		{"ListAgents", `{}`, `{"listing":"This session is cwd2-c9 [6dd7f5].\n\nPeer sessions (1):\n  cwd-16 [e1c6c9]  ·  interactive  ·  busy  ·  started 4s ago","sections":[{"kind":"sessions","total":1,"rows":[{"name":"cwd-16","ref":"e1c6c9","type":"interactive","status":"busy"}]}],"notes":[]}`,
			[]string{"▸ ListAgents · cwd-16 (busy) ✓"}, nil},
		{"ListAgents", `{}`, `{"listing":"This session is cwd2-c9 [6dd7f5].\n\nPeer sessions (2):\n  cwd-16 [e1c6c9]  ·  interactive  ·  busy\n  api [aa11]  ·  background  ·  idle"}`,
			[]string{"▸ ListAgents · cwd-16, api ✓"}, nil},
		{"TodoWrite", `{"todos":[{"content":"write tests","status":"completed","activeForm":"Writing tests"},{"content":"ship","status":"in_progress","activeForm":"Shipping"},{"content":"party","status":"pending","activeForm":"Partying"}]}`,
			`{"oldTodos":[],"newTodos":[]}`,
			[]string{"▸ TodoWrite 1/3 done ✓", "  │ ☑ write tests", "  │ ◐ Shipping", "  │ ☐ party"}, []string{"activeForm"}},
		{"TaskCreate", `{"subject":"fix bug","description":"the login bug"}`, `{"task":{"id":"1","subject":"fix bug"}}`,
			[]string{"▸ TaskCreate fix bug · #1 ✓", "  │ the login bug"}, nil},
		{"TaskUpdate", `{"taskId":"1","status":"completed"}`, `{"success":true,"taskId":"1","updatedFields":["status"],"statusChange":{"from":"pending","to":"completed"}}`,
			[]string{"▸ TaskUpdate #1 → completed · pending → completed ✓"}, nil},
		{"ReportFindings", `{"findings":[{"file":"a.go","line":3,"summary":"nil map","failure_scenario":"x"}]}`, `{}`,
			[]string{"▸ ReportFindings 1 finding ✓", "  │ a.go:3 nil map"}, nil},
		{"TaskStop", `{"task_id":"bj1"}`, `{"message":"stopped"}`, []string{"▸ TaskStop bj1 ✓"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tr := newTestTranscript("/p")
			tr.now = func() time.Time { return at }
			var buf []string
			buf = replay(t, buf, tr.Prompt("go"))
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"`+tt.tool+`","input":`+tt.input+`}]}}`)))
			content, _ := json.Marshal("some text for the model\nIf you owe the user a status update, write it now.")
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":`+string(content)+`}]},"tool_use_result":`+tt.result+`}`)))
			text := strings.Join(buf, "\n")
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("lacks %q:\n%s", w, text)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(text, a) {
					t.Errorf("has %q:\n%s", a, text)
				}
			}
			if name, _, ok := tr.ToolCall("t1"); !ok || name != tt.tool {
				t.Errorf("ToolCall = %q %v", name, ok)
			}
		})
	}
}

// A Workflow is attributed like an agent: its task's state on its line,
// no launch metadata.
func TestWorkflowLikeAnAgent(t *testing.T) {
	tr := newTestTranscript("/p")
	ts := tasks.NewTasks(1)
	var buf []string
	buf = replay(t, buf, tr.Prompt("go"))
	script, _ := json.Marshal("export const meta = { name: \"probe-flow\", description: \"probe workflow\", phases: [\"one\"] }\nphase(\"one\")")
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"w1","name":"Workflow","input":{"script":`+string(script)+`}}]}}`)))
	for _, l := range []string{
		`{"type":"system","subtype":"task_started","task_id":"wk1","tool_use_id":"w1","description":"probe workflow","task_type":"local_workflow","workflow_name":"probe-flow"}`,
	} {
		for _, tk := range ts.Apply(msg(t, l)).Tasks {
			buf = replay(t, buf, tr.TaskChanged(tk))
		}
	}
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"tool_use_id":"w1","type":"tool_result","content":"Workflow launched in background. Task ID: wk1\nSummary: probe workflow"}]},"tool_use_result":{"status":"async_launched","taskId":"wk1","taskType":"local_workflow","workflowName":"probe-flow"}}`)))
	for _, l := range []string{
		`{"type":"system","subtype":"task_progress","task_id":"wk1","tool_use_id":"w1","description":"one: echoer","last_tool_name":"echoer","usage":{"duration_ms":68}}`,
		`{"type":"system","subtype":"task_updated","task_id":"wk1","patch":{"status":"completed"}}`,
	} {
		for _, tk := range ts.Apply(msg(t, l)).Tasks {
			buf = replay(t, buf, tr.TaskChanged(tk))
		}
	}
	text := strings.Join(buf, "\n")
	if !strings.Contains(text, "▸ Workflow probe-flow · workflow ✓") || strings.Contains(text, "Task ID") || strings.Contains(text, "export const") {
		t.Fatalf("transcript:\n%s", text)
	}
	if tk, _ := ts.Get("wk1"); tk.Type != "workflow" {
		t.Fatalf("task type %q", tk.Type)
	}
}
