package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/store"
	sessiontasks "github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/views"
)

// feed pushes what claude printed in a captured session (the "<<" lines
// of rplugin/transcript/testdata/name, but its answers to our own control
// requests), a part at a time: each call goes on from where the last
// stopped, up to and including the first line stop accepts (nil: the end).
type feed struct {
	t     *testing.T
	c     *claudetest.Conn
	lines []string
}

func newFeed(t *testing.T, c *claudetest.Conn, name string) *feed {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "transcript", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	fd := &feed{t: t, c: c}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "<< ") && !strings.Contains(line, `"type":"control_response"`) {
			fd.lines = append(fd.lines, line[3:])
		}
	}
	return fd
}

func (f *feed) until(stop func(line string) bool) {
	for len(f.lines) > 0 {
		l := f.lines[0]
		f.lines = f.lines[1:]
		f.c.Push(l)
		if stop != nil && stop(l) {
			return
		}
	}
	if stop != nil {
		f.t.Fatal("the fixture ended first")
	}
}

func has(s string) func(string) bool { return func(l string) bool { return strings.Contains(l, s) } }

// lastTasks is the task list of the last EvTasks of session id.
func (r *recorder) lastTasks(id int) []sessiontasks.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sessiontasks.Task
	for _, e := range r.events {
		if v, ok := e.Data.(tasks.View); ok && e.Name == ui.EvTasks && v.Session == id {
			out = v.Tasks
		}
	}
	return out
}

// A subagent's request names its agent; the session runs while the agent
// does, between turns too.
func TestSubagentRequestNamesItsAgent(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	f := newFeed(t, c, "agents-task.jsonl")
	f.until(has(`"subtype":"can_use_tool"`))
	p := m.waitPending(1)[0]
	want := sessiontasks.Agent{ID: p.Agent.ID, Type: "general-purpose", Description: "probe sub"}
	if p.Agent == nil || *p.Agent != want || p.Agent.ID == "" {
		t.Fatalf("agent %+v", p.Agent)
	}
	if !strings.Contains(p.Title, "probe sub (general-purpose)") || p.Fields[0] != (views.Field{Label: "Agent", Value: "probe sub (general-purpose)"}) {
		t.Fatalf("title %q fields %+v", p.Title, p.Fields)
	}
	tasks := m.rec.lastTasks(info.ID)
	if len(tasks) != 1 || tasks[0].ID != p.Agent.ID || !tasks[0].Running() {
		t.Fatalf("tasks %+v", tasks)
	}
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Decision: decision("allow")}); err != nil {
		t.Fatal(err)
	}
	// The main turn ends while the agent works: running, not idle.
	f.until(has(`"type":"result"`))
	m.rec.wait(t, "the turn's end", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "*done") })
	s := mustSession(t, m.app, info.ID)
	if in := s.Info(); in.State != session.StateRunning || in.Tasks != 1 {
		t.Fatalf("between turns, with a task running: %+v", in)
	}
}

// task_output: a shell's from claude, an agent's from the transcript;
// stop_task: claude's answer, and refusals for what cannot be stopped.
func TestTaskOutputAndStop(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	var stopped []string
	c.OnControl = func(subtype string, fields map[string]any) (json.RawMessage, error) {
		switch subtype {
		case "get_task_output":
			return json.RawMessage(`{"output":"line 1\n\u001b[31mred\n","total_bytes":7,"truncated":false}`), nil
		case "stop_task":
			stopped = append(stopped, fields["task_id"].(string))
			return json.RawMessage(`{}`), nil
		}
		return json.RawMessage(`{}`), nil
	}
	f := newFeed(t, c, "tasks-shell.jsonl")
	f.until(has(`"subtype":"task_started"`))
	m.rec.wait(t, "a task", func([]ui.Event) bool { return len(m.rec.lastTasks(info.ID)) == 1 })
	task := m.rec.lastTasks(info.ID)[0]
	if task.Type != "shell" || task.Description != "count slowly" {
		t.Fatalf("task %+v", task)
	}
	reply := func(token string) map[string]any {
		var got map[string]any
		m.rec.wait(t, "reply "+token, func(evs []ui.Event) bool {
			for _, e := range evs {
				if mk, ok := e.Data.(ui.Mark); ok && e.Name == ui.EvMark && mk.Token == token {
					got = markMap(mk)
					return true
				}
			}
			return false
		})
		return got
	}
	if err := m.app.Rooms().Tasks.Output(Later{ReplyTo: desk.ReplyTo{Token: "o1"}, ID: task.ID}); err != nil {
		t.Fatal(err)
	}
	if r := reply("o1"); r["ok"] != true || r["result"] != "line 1\nred\n" {
		t.Fatalf("output reply %+v", r)
	}
	if err := m.app.Rooms().Tasks.Stop(Later{ReplyTo: desk.ReplyTo{Token: "s1"}, ID: task.ID}); err != nil {
		t.Fatal(err)
	}
	if r := reply("s1"); r["ok"] != true || r["result"] != true || len(stopped) != 1 || stopped[0] != task.ID {
		t.Fatalf("stop reply %+v, stopped %v", r, stopped)
	}
	if err := m.app.Rooms().Tasks.Stop(Later{ReplyTo: desk.ReplyTo{Token: "s2"}, ID: "nope"}); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("unknown task: %v", err)
	}
	f.until(nil)
	m.rec.wait(t, "ended", func([]ui.Event) bool {
		ts := m.rec.lastTasks(info.ID)
		return len(ts) == 1 && ts[0].Status == sessiontasks.TaskCompleted
	})
	if err := m.app.Rooms().Tasks.Stop(Later{ReplyTo: desk.ReplyTo{Token: "s3"}, ID: task.ID}); err == nil || !strings.Contains(err.Error(), "has already completed") {
		t.Fatalf("ended task: %v", err)
	}
	// An agent's output is what it did.
	info2, c2 := m.session("go")
	newFeed(t, c2, "agents-task.jsonl").until(has(`"text":"subagent done"`))
	m.rec.wait(t, "agent's text", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info2.ID), "subagent done") })
	agent := m.rec.lastTasks(info2.ID)[0]
	if err := m.app.Rooms().Tasks.Output(Later{ReplyTo: desk.ReplyTo{Token: "o2"}, ID: agent.ID}); err != nil {
		t.Fatal(err)
	}
	if r := reply("o2"); !strings.Contains(r["result"].(string), "hello from sub") {
		t.Fatalf("agent output %+v", r)
	}
}

// A session whose claude exits takes its tasks with it.
func TestTasksEndWithClaude(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	newFeed(t, c, "tasks-stop.jsonl").until(has(`"subtype":"task_started"`))
	m.rec.wait(t, "a task", func([]ui.Event) bool { return len(m.rec.lastTasks(info.ID)) == 1 })
	c.Exit(nil)
	m.rec.wait(t, "stopped", func([]ui.Event) bool {
		ts := m.rec.lastTasks(info.ID)
		return len(ts) == 1 && ts[0].Status == sessiontasks.TaskStopped
	})
}

// A resumed session's subagents show nested under their calls, as live.
func TestResumeShowsSubagentsNested(t *testing.T) {
	m := newMem(t)
	home := t.TempDir()
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Env: map[string]string{"HOME": home}}); err != nil {
		t.Fatal(err)
	}
	const id = "29efbea0-9d66-4713-bc7e-bda34cca77d6"
	dir := store.Dir(filepath.Join(home, ".claude"), m.dir)
	src := filepath.Join("..", "store", "testdata", "agents")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	info, err := m.app.NewSession(NewParams{Cwd: m.dir, Resume: id})
	if err != nil {
		t.Fatal(err)
	}
	m.rec.wait(t, "history", func([]ui.Event) bool {
		return strings.Contains(strings.Join(mustTranscript(t, m.app, info.ID), "\n"), "live from here")
	})
	lines := mustTranscript(t, m.app, info.ID)
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"▸ Task probe sub · general-purpose ✓\n  │ SEQ",
		"  │ running in the background\n",
		"  │ ▸ Agent deeper one · general-purpose ✓\n",
		"  │   │ ▸ Bash `echo deep` ✓\n",
		"  │   │   │ deep\n",
		"  │ ▸ Bash `echo mid` ✓\n",
		"## Claude · earlier · after probe sub finished\n\nall done",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("history lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "internal metadata") {
		t.Fatalf("metadata shown:\n%s", got)
	}
}

// A background agent's request between turns leaves the session idle once
// decided (no turn runs); a turn claude starts by itself runs until its
// result.
func TestTurnsBetweenTasks(t *testing.T) {
	m := newMem(t)
	info, c := m.session("")
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "s1", "permissionMode": "default"})
	s := mustSession(t, m.app, info.ID)
	m.rec.wait(t, "idle", func([]ui.Event) bool { return s.State() == session.StateIdle })
	c.Ask("r1", "Bash", map[string]any{"command": "touch x"}, map[string]any{"agent_id": "a1"})
	p := m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Decision: decision("allow")}); err != nil {
		t.Fatal(err)
	}
	answer(t, c, "r1")
	if st := s.State(); st != session.StateIdle {
		t.Fatalf("state %s after a request between turns", st)
	}
	// An init while idle is not a turn (claude sends one after a model
	// switch too); a subagent's message is not one either.
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "s1", "permissionMode": "default"})
	c.PushJSON(map[string]any{"type": "assistant", "parent_tool_use_id": "toolu_task", "agent_id": "a1",
		"message": map[string]any{"id": "m0", "content": []any{map[string]any{"type": "text", "text": "agent at work"}}}})
	m.rec.wait(t, "the agent's text", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "agent at work") })
	if st := s.State(); st != session.StateIdle {
		t.Fatalf("state %s after an init and an agent's message between turns", st)
	}
	// Claude's own words while idle: a turn it started by itself.
	c.PushJSON(map[string]any{"type": "assistant", "parent_tool_use_id": nil,
		"message": map[string]any{"id": "m1", "content": []any{map[string]any{"type": "text", "text": "the task is done"}}}})
	m.rec.wait(t, "running", func([]ui.Event) bool { return s.State() == session.StateRunning })
	c.PushJSON(map[string]any{"type": "result", "subtype": "success"})
	m.rec.wait(t, "idle again", func([]ui.Event) bool { return s.State() == session.StateIdle })
}
