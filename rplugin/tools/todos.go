package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Claude's checklist: TodoWrite sends the whole list; TaskCreate,
// TaskUpdate, TaskGet and TaskList work on one item at a time (claude
// 2.1.x with CLAUDE_CODE_ENABLE_TODO_TOOLS). TaskStop stops a background
// task (tasks name what it stopped).

// Todo is one item of Claude's checklist.
type Todo struct {
	ID     string `json:"id,omitempty"`
	Text   string `json:"text"`
	Status string `json:"status"`           // pending, in_progress, completed
	Active string `json:"active,omitempty"` // "Running tests"
}

// TodoUpdate is what a TaskUpdate changed of item ID (empty: unchanged;
// Status "deleted" removes it).
type TodoUpdate struct{ ID, Status, Text, Active string }

// CleanTodo is t made safe to show, pending when it says nothing.
func CleanTodo(t Todo) Todo {
	t.ID, t.Text, t.Status, t.Active = sanitize.Line(t.ID), sanitize.Truncate(sanitize.Line(t.Text), 200), sanitize.Line(t.Status), sanitize.Truncate(sanitize.Line(t.Active), 120)
	if t.Status == "" {
		t.Status = "pending"
	}
	return t
}

// Checklist is the checklist as lines for a person: "☑ write tests",
// "◐ Running tests", "☐ ship" (the item in progress by its active form).
func Checklist(todos []Todo) []string {
	out := make([]string, 0, len(todos))
	for _, t := range todos {
		out = append(out, TodoLine(t))
	}
	return out
}

// TodoLine is one checklist item for a person.
func TodoLine(t Todo) string {
	switch t.Status {
	case "completed":
		return "☑ " + t.Text
	case "in_progress":
		what := t.Text
		if t.Active != "" {
			what = t.Active
		}
		return "◐ " + what
	}
	return "☐ " + t.Text
}

// Done counts the completed items.
func Done(todos []Todo) int {
	n := 0
	for _, t := range todos {
		if t.Status == "completed" {
			n++
		}
	}
	return n
}

// todosIn is a TodoWrite's list.
func todosIn(in Input) ([]Todo, bool) {
	list, ok := in.List("todos")
	if !ok {
		return nil, false
	}
	var todos []Todo
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			item := Input(m)
			todos = append(todos, Todo{Text: item.Str("content"), Status: item.Str("status"), Active: item.Str("activeForm")})
		}
	}
	return todos, true
}

var todoWrite = Tool{
	Target: func(in Input) string {
		todos, ok := todosIn(in)
		if !ok {
			return ""
		}
		done := 0
		for _, t := range todos {
			if t.Status == "completed" {
				done++
			}
		}
		return fmt.Sprintf("%d/%d done", done, len(todos))
	},
	Details: func(in Input, add func(string, string)) {
		todos, _ := todosIn(in)
		for i := range todos {
			todos[i] = CleanTodo(todos[i])
		}
		for _, l := range Checklist(todos) {
			add("", l)
		}
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		todos, _ := todosIn(c.In)
		return Effect{Todos: &todos}
	},
}

type taskResult struct {
	Task struct {
		ID      string `json:"id"`
		Subject string `json:"subject"`
	} `json:"task"`
	StatusChange *struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"statusChange"`
}

var taskCreate = Tool{
	Target:  func(in Input) string { return in.Str("subject") },
	Details: func(in Input, add func(string, string)) { add("", in.Str("description")) },
	Headline: func(r Result, _ time.Time) string {
		var t taskResult
		if !r.Decode(&t) || t.Task.ID == "" {
			return ""
		}
		return "#" + sanitize.Line(t.Task.ID)
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		var t taskResult
		c.Result.Decode(&t)
		if t.Task.ID == "" {
			return Effect{}
		}
		subject := t.Task.Subject
		if subject == "" {
			subject = c.In.Str("subject")
		}
		return Effect{AddTodo: &Todo{ID: t.Task.ID, Text: subject, Status: "pending", Active: c.In.Str("activeForm")}}
	},
}

// taskTarget is a TaskUpdate's or a TaskGet's line: "#3 write tests → in progress".
func taskTarget(in Input) string {
	t := "#" + in.Str("taskId")
	if sub := in.Str("subject"); sub != "" {
		t += " " + sub
	}
	if st := in.Str("status"); st != "" {
		t += " → " + strings.ReplaceAll(st, "_", " ")
	}
	return t
}

var taskUpdate = Tool{
	Target: taskTarget,
	Details: func(in Input, add func(string, string)) {
		if d := in.Str("description"); d != "" {
			add("", d)
		}
	},
	Headline: func(r Result, _ time.Time) string {
		var t taskResult
		if !r.Decode(&t) || t.StatusChange == nil {
			return ""
		}
		c := t.StatusChange
		return sanitize.Line(strings.ReplaceAll(c.From, "_", " ")) + " → " + sanitize.Line(strings.ReplaceAll(c.To, "_", " "))
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		return Effect{UpdateTodo: &TodoUpdate{ID: c.In.Str("taskId"), Status: c.In.Str("status"), Text: c.In.Str("subject"), Active: c.In.Str("activeForm")}}
	},
}

var taskGet = Tool{Target: taskTarget, Details: none}

var taskStop = Tool{
	Target: func(in Input) string {
		if id := in.Str("task_id"); id != "" {
			return id
		}
		return in.Str("shell_id")
	},
	Details:   none,
	KeepInput: true,
}

// StopsTask is the id of the task a call stops (a TaskStop names it by
// task_id, or shell_id on earlier CLIs).
func StopsTask(name string, input json.RawMessage) (string, bool) {
	if name != "TaskStop" {
		return "", false
	}
	id := taskStop.Target(DecodeInput(input))
	return id, id != ""
}
