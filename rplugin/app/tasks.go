package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Background tasks: claude's subagents, shells started with
// run_in_background, monitors. Each session keeps its list
// (session.Tasks); every change reaches the front end as EvTasks and shows
// on the line of the call that started the task. Their output and stopping
// them wait on claude: those calls answer later (see Later).

// agentOutputLines bounds what task_output returns of an agent's work.
const agentOutputLines = 400

// TasksView is a session's task list for the front end.
type TasksView struct {
	Session int            `json:"session"`
	Tasks   []session.Task `json:"tasks"`
}

// taskMessage applies one of claude's task messages.
func (a *App) taskMessage(s *session.Session, m claude.Message) {
	before := s.Tasks.Active()
	ch := s.Tasks.Apply(m)
	if len(ch.Tasks) == 0 {
		return
	}
	var ops []session.Op
	for _, t := range ch.Tasks {
		ops = append(ops, s.Transcript.TaskChanged(t)...)
	}
	for _, t := range ch.Notified {
		if t.Parent == "" {
			ops = append(ops, s.Transcript.Notified(t.ToolUseID, t.Status)...)
		}
	}
	a.transcript(s, ops)
	a.ui.Send(ui.EvTasks, TasksView{Session: s.ID, Tasks: s.Tasks.List()})
	if s.Tasks.Active() != before {
		a.ui.Send(ui.EvSession, s) // running while its tasks run
	}
}

// signal shows one of claude's status signals (api_retry, compaction, a
// rate limit, …) in the transcript, and what it does now in the winbar.
func (a *App) signal(s *session.Session, m claude.Message) {
	a.transcript(s, s.Transcript.Apply(m))
	a.activity(s)
}

// activity tells the front end when what claude does now changed.
func (a *App) activity(s *session.Session) {
	if _, changed := s.Transcript.Activity(); changed {
		a.ui.Send(ui.EvSession, s)
	}
}

// seeAgent records who a subagent's message says it is, so that its
// requests name it even before its task is known.
func (a *App) seeAgent(s *session.Session, m claude.Message) {
	if !bytes.Contains(m.Raw, []byte(`"agent_id"`)) {
		return
	}
	var msg struct {
		AgentID         string `json:"agent_id"`
		SubagentType    string `json:"subagent_type"`
		TaskDescription string `json:"task_description"`
	}
	if json.Unmarshal(m.Raw, &msg) == nil && msg.AgentID != "" {
		s.Tasks.SeeAgent(msg.AgentID, msg.SubagentType, msg.TaskDescription)
	}
}

// tasksEnded records that claude exited: its tasks went with it.
func (a *App) tasksEnded(s *session.Session) {
	ended := s.Tasks.EndAll()
	if len(ended) == 0 {
		return
	}
	var ops []session.Op
	for _, t := range ended {
		ops = append(ops, s.Transcript.TaskChanged(t)...)
	}
	a.transcript(s, ops)
	a.ui.Send(ui.EvTasks, TasksView{Session: s.ID, Tasks: s.Tasks.List()})
}

// AgentView names the agent behind a request.
type AgentView = session.Agent

// agent names the subagent agentID of session sid ("" agentID: nil).
func (a *App) agent(sid int, agentID string) *AgentView {
	if agentID == "" {
		return nil
	}
	v := AgentView{ID: sanitize.Line(agentID)}
	if s, ok := a.sessions.Get(sid); ok {
		v, _ = s.Tasks.Agent(agentID)
	}
	return &v
}

// agentLabel is how a request names its agent: its description (its type
// in parentheses), else "subagent <id>".
func agentLabel(v *AgentView) string {
	name := v.Description
	if name == "" {
		name = "subagent " + v.ID
	}
	if v.Type != "" {
		name += " (" + v.Type + ")"
	}
	return name
}

var errNoTask = errors.New("no such task")

// task finds task id in any session.
func (a *App) task(id string) (*session.Session, session.Task, error) {
	for _, s := range a.sessions.All() {
		if t, ok := s.Tasks.Get(id); ok {
			return s, t, nil
		}
	}
	return nil, session.Task{}, fmt.Errorf("%w: %s", errNoTask, sanitize.Line(id))
}

// TaskOutput answers later with the end of a task's output: a shell's or a
// monitor's from claude (get_task_output: the last 8 KiB, also after it
// ended), an agent's from the transcript (what it said and did).
func (a *App) TaskOutput(p Later) error {
	s, t, err := a.task(p.ID)
	if err != nil {
		return err
	}
	if t.Type == "agent" {
		out, ok := s.Transcript.AgentOutput(t.ToolUseID, agentOutputLines)
		a.replyLater(p.Token, func(context.Context) (any, error) {
			if !ok {
				return "", nil
			}
			return out, nil
		})
		return nil
	}
	a.replyLater(p.Token, func(ctx context.Context) (any, error) {
		raw, err := s.Proc.Control(ctx, "get_task_output", map[string]any{"task_id": t.ID})
		if err != nil {
			return nil, err
		}
		var out struct {
			Output string `json:"output"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("get_task_output: %w", err)
		}
		return sanitize.Text(out.Output), nil
	})
	return nil
}

// StopTask asks claude to stop a running task; the answer comes later
// (true once claude stopped it). The task's end arrives as its events.
func (a *App) StopTask(p Later) error {
	s, t, err := a.task(p.ID)
	if err != nil {
		return err
	}
	if !t.Running() {
		return fmt.Errorf("task %s (%s) has already %s", t.ID, t.Description, t.Status)
	}
	if s.State() == session.StateExited {
		return fmt.Errorf("session %d has exited", s.ID)
	}
	a.replyLater(p.Token, func(ctx context.Context) (any, error) {
		// claude answers stop_task with success even for an id it does
		// not know (checked on 2.1.328): the task was looked up first.
		if _, err := s.Proc.Control(ctx, "stop_task", map[string]any{"task_id": t.ID}); err != nil {
			return nil, err
		}
		return true, nil
	})
	return nil
}

// TaskAt is the task started by the call whose lines include line
// (0-based) of a session's transcript: the innermost one.
func (a *App) TaskAt(id, line int) (string, error) {
	s, ok := a.sessions.Get(id)
	if !ok {
		return "", fmt.Errorf("no session %d", id)
	}
	call, ok := s.Transcript.CallAt(line)
	if !ok {
		return "", errors.New("no task on this line")
	}
	t, ok := s.Tasks.ByToolUse(call)
	if !ok {
		return "", errors.New("no task on this line")
	}
	return t.ID, nil
}
