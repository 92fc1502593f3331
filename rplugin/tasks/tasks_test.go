package tasks

import (
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

func msg(t *testing.T, s string) claude.Message {
	t.Helper()
	m, err := claude.ParseLine([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTasks(t *testing.T) {
	ts := NewTasks(3)
	apply := func(s string) Change { return ts.Apply(msg(t, s)) }
	// A task that joins the level before its task_started.
	if ch := apply(`{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"b1","task_type":"local_bash","description":"count"}]}`); len(ch.Tasks) != 1 || ch.Tasks[0].Type != "shell" {
		t.Fatalf("level %+v", ch)
	}
	apply(`{"type":"system","subtype":"task_started","task_id":"b1","tool_use_id":"t1","description":"count slowly","is_backgrounded":true,"task_type":"local_bash"}`)
	// A subagent's foreground shell is one of its calls, not a task.
	if ch := apply(`{"type":"system","subtype":"task_started","task_id":"b2","owned_by_subagent":true,"tool_use_id":"t2","description":"nap","is_backgrounded":false,"parent_task_id":"a1","task_type":"local_bash"}`); len(ch.Tasks) != 0 {
		t.Fatalf("foreground shell %+v", ch)
	}
	apply(`{"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"t3","description":"probe \u001b[31msub","subagent_type":"Explore","is_backgrounded":true,"spawn_depth":1,"task_type":"local_agent"}`)
	apply(`{"type":"system","subtype":"task_progress","task_id":"a1","tool_use_id":"t3","description":"Running x","usage":{"duration_ms":1500},"last_tool_name":"Read"}`)
	if ts.Active() != 2 {
		t.Fatalf("active %d", ts.Active())
	}
	a, ok := ts.Agent("a1")
	if !ok || a != (Agent{ID: "a1", Type: "Explore", Description: "probe sub"}) {
		t.Fatalf("agent %+v %v", a, ok)
	}
	if tk, _ := ts.Get("a1"); tk.LastTool != "Read" || tk.Elapsed.Seconds() != 1.5 || tk.Session != 3 {
		t.Fatalf("progress %+v", tk)
	}
	// killed is stopped; the notification says it again and notifies.
	apply(`{"type":"system","subtype":"task_updated","task_id":"a1","patch":{"status":"killed","end_time":1}}`)
	ch := apply(`{"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"t3","status":"stopped","summary":"probe sub"}`)
	if len(ch.Notified) != 1 || ch.Notified[0].Status != TaskStopped || ch.Notified[0].Ended == 0 {
		t.Fatalf("notified %+v", ch)
	}
	// A task that leaves the level ends, bookend or not.
	ch = apply(`{"type":"system","subtype":"background_tasks_changed","tasks":[]}`)
	if len(ch.Tasks) != 1 || ch.Tasks[0].ID != "b1" || ch.Tasks[0].Status != TaskCompleted || ts.Active() != 0 {
		t.Fatalf("level end %+v active %d", ch, ts.Active())
	}
	if tk, ok := ts.ByToolUse("t1"); !ok || tk.ID != "b1" {
		t.Fatalf("by tool use %+v", tk)
	}
	// An agent known from its messages only.
	ts.SeeAgent("a7", "general-purpose", "other")
	if a, ok := ts.Agent("a7"); !ok || a.Description != "other" {
		t.Fatalf("seen agent %+v", a)
	}
	if a, ok := ts.Agent("zz"); ok || a.ID != "zz" {
		t.Fatalf("unknown agent %+v", a)
	}
	// claude exiting ends what runs.
	apply(`{"type":"system","subtype":"task_started","task_id":"b9","tool_use_id":"t9","description":"long","task_type":"local_bash"}`)
	if ended := ts.EndAll(); len(ended) != 1 || ended[0].Status != TaskStopped || ts.Active() != 0 {
		t.Fatalf("end all %+v", ended)
	}
	// Malformed and unrelated lines change nothing.
	for _, s := range []string{`{"type":"system","subtype":"task_started"}`, `{"type":"system","subtype":"init"}`, `{"type":"system","subtype":"task_updated","task_id":"nope","patch":{"status":"completed"}}`} {
		if ch := apply(s); len(ch.Tasks)+len(ch.Notified) != 0 {
			t.Fatalf("%s: %+v", s, ch)
		}
	}
}

func TestTasksAreBounded(t *testing.T) {
	ts := NewTasks(1)
	for i := 0; i < maxTasks+50; i++ {
		id := string(rune('a'+i%26)) + string(rune('0'+i/26%10)) + string(rune('A'+i/260))
		ts.Apply(msg(t, `{"type":"system","subtype":"task_started","task_id":"`+id+`","tool_use_id":"x","description":"d","task_type":"local_bash"}`))
		ts.Apply(msg(t, `{"type":"system","subtype":"task_notification","task_id":"`+id+`","status":"completed"}`))
	}
	if n := len(ts.List()); n > maxTasks {
		t.Fatalf("%d tasks kept", n)
	}
}

// A teammate of an agent team runs in process (task_type
// in_process_teammate, 2.1.332's task types: local_agent, remote_agent,
// in_process_teammate, local_workflow): its permission requests name it
// (agent_id), and it is named as a subagent is (Zed lost them: zed
// #49663). The line's shape follows a subagent's task_started; no teammate
// was started on the wire here (agent teams are gated).
func TestTeammateIsAnAgent(t *testing.T) {
	ts := NewTasks(1)
	ts.Apply(msg(t, `{"type":"system","subtype":"task_started","task_id":"a9f3","tool_use_id":"toolu_s0","description":"review the parser","subagent_type":"reviewer","task_type":"in_process_teammate"}`))
	a, ok := ts.Agent("a9f3")
	if !ok || a.Type != "reviewer" || a.Description != "review the parser" {
		t.Fatalf("Agent = %+v, %v", a, ok)
	}
	if got, _ := ts.Get("a9f3"); got.Type != "teammate" {
		t.Fatalf("task type %q", got.Type)
	}
}
