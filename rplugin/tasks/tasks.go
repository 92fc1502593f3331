// Package tasks keeps a session's background tasks (subagents, shells started
// with run_in_background, monitors) and its subagents as claude reports
// them: see Tasks.
package tasks

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Task statuses, as the user reads them.
const (
	TaskRunning   = "running"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskStopped   = "stopped"
)

// Task is one background task of a session: a subagent, a shell started
// with run_in_background, a monitor. claude announces them with
// system/task_started and reports on them with task_progress, task_updated,
// task_notification and background_tasks_changed (checked on 2.1.328).
// Every string is sanitized.
type Task struct {
	ID           string `json:"id"`
	Session      int    `json:"session"`
	Type         string `json:"type"` // "agent", "shell", "monitor", … (task_type without local_)
	SubagentType string `json:"subagent_type,omitempty"`
	Description  string `json:"description"`
	Status       string `json:"status"`          // running, completed, failed, stopped
	Started      int64  `json:"started"`         // unix seconds
	Ended        int64  `json:"ended,omitempty"` // unix seconds
	ToolUseID    string `json:"tool_use_id"`     // the call that started it
	LastTool     string `json:"last_tool,omitempty"`
	Parent       string `json:"parent,omitempty"`  // the agent task that started it
	Depth        int    `json:"depth,omitempty"`   // of an agent: 1 when Claude started it
	Summary      string `json:"summary,omitempty"` // claude's words when it ended
	// Background: it runs beside the conversation (a foreground agent
	// blocks the call that started it).
	Background bool `json:"background"`
	// Ambient tasks are housekeeping, not activity (claude's flag).
	Ambient bool `json:"ambient,omitempty"`
	// Elapsed is how long it has run by claude's count (task_progress).
	Elapsed time.Duration `json:"-"`

	started, ended time.Time
	leveled        bool // seen in a background_tasks_changed list
}

// Duration is how long the task ran (or has run so far).
func (t Task) Duration(now time.Time) time.Duration {
	end := t.ended
	if end.IsZero() {
		end = now
	}
	d := end.Sub(t.started)
	if t.Elapsed > d {
		d = t.Elapsed
	}
	return max(d, 0)
}

// Running reports whether the task has not ended.
func (t Task) Running() bool { return t.Status == TaskRunning }

// maxTasks bounds the ended tasks a session remembers.
const maxTasks = 200

// Tasks are a session's background tasks. The zero value is not usable:
// NewTasks.
type Tasks struct {
	mu      sync.Mutex
	session int
	byID    map[string]*Task
	order   []string // oldest first
	agents  map[string]Agent
	locals  map[string]*local // the tasks the host runs itself (local.go)
	now     func() time.Time
}

// Agent is who asks: a subagent, as a request names it.
type Agent struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// NewTasks returns the (empty) task list of session id.
func NewTasks(id int) *Tasks {
	return &Tasks{session: id, byID: map[string]*Task{}, agents: map[string]Agent{}, now: time.Now}
}

// Change is what one claude message did to the task list: the tasks it
// changed (snapshots), and whether one of them ended with a notification
// (claude's turn that may follow is about it).
type Change struct {
	Tasks    []Task
	Notified []Task
}

type taskMessage = claude.Task

// IsTaskMessage reports whether m is one Tasks.Apply reads.
func IsTaskMessage(m claude.Message) bool {
	return m.Type == "system" && claude.IsTask(m.Subtype)
}

// taskType is claude's task_type as the user reads it: local_agent is an
// agent, local_bash a shell, in_process_teammate a teammate (an agent
// team's, 2.1.332).
func taskType(t string) string {
	t = strings.TrimPrefix(sanitize.Line(t), "local_")
	switch t {
	case "bash":
		return "shell"
	case "in_process_teammate":
		return "teammate"
	case "":
		return "task"
	}
	return t
}

// status maps claude's task statuses to ours (killed is stopped; pending
// and paused are still running).
func status(s string) string {
	switch s {
	case "completed":
		return TaskCompleted
	case "failed":
		return TaskFailed
	case "killed", "stopped":
		return TaskStopped
	}
	return TaskRunning
}

// Apply updates the list from one claude message (see IsTaskMessage).
func (ts *Tasks) Apply(m claude.Message) Change {
	if m.System == nil || m.System.Task == nil {
		return Change{}
	}
	tm := *m.System.Task
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.now()
	var ch Change
	if tm.Subtype == "background_tasks_changed" {
		return ts.level(tm, now)
	}
	id := sanitize.Line(tm.TaskID)
	if id == "" {
		return ch
	}
	t := ts.byID[id]
	switch tm.Subtype {
	case "task_started":
		// A shell a subagent runs in the foreground is one of its tool
		// calls, not a task of the session's.
		if tm.TaskType == "local_bash" && tm.Backgrounded != nil && !*tm.Backgrounded {
			return ch
		}
		if t == nil {
			t = ts.add(id, now)
		}
		t.Type = taskType(tm.TaskType)
		t.Status = TaskRunning
		t.ToolUseID = sanitize.Line(tm.ToolUseID)
		t.Parent = sanitize.Line(tm.ParentTaskID)
		t.Depth = tm.SpawnDepth
		t.Ambient = tm.Ambient
		t.Background = tm.Backgrounded == nil || *tm.Backgrounded
		if tm.Description != "" {
			t.Description = sanitize.Truncate(sanitize.Line(tm.Description), 120)
		}
		if tm.SubagentType != "" {
			t.SubagentType = sanitize.Line(tm.SubagentType)
		}
	case "task_progress":
		if t == nil {
			return ch
		}
		if tm.LastToolName != "" {
			t.LastTool = sanitize.Line(tm.LastToolName)
		}
		if tm.Usage.DurationMS > 0 {
			t.Elapsed = time.Duration(tm.Usage.DurationMS * float64(time.Millisecond))
		}
	case "task_updated":
		if t == nil {
			return ch
		}
		if tm.Patch.Backgrounded != nil {
			t.Background = *tm.Patch.Backgrounded
		}
		if tm.Patch.Status != "" {
			ts.end(t, status(tm.Patch.Status), tm.Patch.EndTime, now)
		}
		if tm.Patch.Error != "" {
			t.Summary = sanitize.Truncate(sanitize.Line(tm.Patch.Error), 300)
		}
	case "task_notification":
		if t == nil {
			return ch
		}
		ts.end(t, status(tm.Status), 0, now)
		if tm.Summary != "" {
			t.Summary = sanitize.Truncate(sanitize.Line(tm.Summary), 300)
		}
		ch.Notified = append(ch.Notified, *t)
	}
	ch.Tasks = append(ch.Tasks, *t)
	return ch
}

// end records that t ended (once: a later message may only say why).
func (ts *Tasks) end(t *Task, st string, endMS float64, now time.Time) {
	if st == TaskRunning {
		if t.Status != TaskRunning { // resumed
			t.Status, t.Ended, t.ended = TaskRunning, 0, time.Time{}
		}
		return
	}
	t.Status = st
	if t.ended.IsZero() {
		t.ended = now
		if endMS > 0 {
			if at := time.UnixMilli(int64(endMS)); !at.Before(t.started) && !at.After(now.Add(time.Minute)) {
				t.ended = at
			}
		}
		t.Ended = t.ended.Unix()
	}
}

// level applies background_tasks_changed, the list of every live
// background task (replace semantics, per the SDK): a task that left it
// without an ending we saw has ended all the same.
func (ts *Tasks) level(tm taskMessage, now time.Time) Change {
	var ch Change
	live := map[string]bool{}
	for _, e := range tm.List {
		id := sanitize.Line(e.TaskID)
		if id == "" {
			continue
		}
		live[id] = true
		t := ts.byID[id]
		if t == nil {
			t = ts.add(id, now)
			t.Type = taskType(e.TaskType)
			t.Status = TaskRunning
			t.Background = true
			t.Description = sanitize.Truncate(sanitize.Line(e.Description), 120)
			t.SubagentType = sanitize.Line(e.SubagentType)
			t.Parent = sanitize.Line(e.ParentTaskID)
			t.Ambient = e.Ambient
			ch.Tasks = append(ch.Tasks, *t)
		}
		t.leveled = true
	}
	for _, id := range ts.order {
		t := ts.byID[id]
		if t.Running() && t.leveled && !live[id] {
			ts.end(t, TaskCompleted, 0, now)
			ch.Tasks = append(ch.Tasks, *t)
		}
	}
	return ch
}

func (ts *Tasks) add(id string, now time.Time) *Task {
	t := &Task{ID: id, Session: ts.session, Status: TaskRunning, started: now, Started: now.Unix()}
	ts.byID[id] = t
	ts.order = append(ts.order, id)
	// Forget the oldest ended tasks beyond the bound.
	for i := 0; len(ts.order) > maxTasks && i < len(ts.order); {
		old := ts.byID[ts.order[i]]
		if old.Running() {
			i++
			continue
		}
		delete(ts.byID, old.ID)
		delete(ts.locals, old.ID)
		ts.order = append(ts.order[:i], ts.order[i+1:]...)
	}
	return t
}

// List returns every task, oldest first.
func (ts *Tasks) List() []Task {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]Task, 0, len(ts.order))
	for _, id := range ts.order {
		out = append(out, *ts.byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started < out[j].Started })
	return out
}

// Get returns the task id.
func (ts *Tasks) Get(id string) (Task, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.byID[id]
	if !ok {
		return Task{}, false
	}
	return *t, true
}

// ByToolUse returns the task the tool call toolUseID started.
func (ts *Tasks) ByToolUse(toolUseID string) (Task, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, id := range ts.order {
		if t := ts.byID[id]; t.ToolUseID == toolUseID && toolUseID != "" {
			return *t, true
		}
	}
	return Task{}, false
}

// Active is the number of running tasks that are activity (not ambient).
func (ts *Tasks) Active() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := 0
	for _, t := range ts.byID {
		if t.Running() && !t.Ambient {
			n++
		}
	}
	return n
}

// maxAgents bounds the agents remembered from their messages alone.
const maxAgents = 200

// SeeAgent records what a subagent's own message says about it (its type
// and description): a request of an agent whose task_started has not come
// still names it.
func (ts *Tasks) SeeAgent(id, subagentType, description string) {
	id = sanitize.Line(id)
	if id == "" {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, ok := ts.agents[id]; ok {
		return
	}
	if len(ts.agents) >= maxAgents {
		ts.agents = map[string]Agent{}
	}
	ts.agents[id] = Agent{ID: id, Type: sanitize.Line(subagentType), Description: sanitize.Truncate(sanitize.Line(description), 120)}
}

// IsAgent reports whether a task of type typ is an agent: a subagent, or
// a teammate (whose permission requests name it as a subagent's do).
func IsAgent(typ string) bool { return typ == "agent" || typ == "teammate" }

// Agent names the subagent id (its task, else what its messages said);
// false when nothing is known of it but its id.
func (ts *Tasks) Agent(id string) (Agent, bool) {
	id = sanitize.Line(id)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t, ok := ts.byID[id]; ok && IsAgent(t.Type) {
		a := Agent{ID: id, Type: t.SubagentType, Description: t.Description}
		if seen, ok := ts.agents[id]; ok && a.Type == "" {
			a.Type = seen.Type
		}
		return a, true
	}
	if a, ok := ts.agents[id]; ok {
		return a, true
	}
	return Agent{ID: id}, false
}

// EndAll marks every running task stopped (claude exited: they went with
// it) and returns them.
func (ts *Tasks) EndAll() []Task {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.now()
	var out []Task
	for _, id := range ts.order {
		if t := ts.byID[id]; t.Running() {
			ts.end(t, TaskStopped, 0, now)
			out = append(out, *t)
		}
	}
	return out
}
