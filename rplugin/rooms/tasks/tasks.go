// Package tasks is the room of a session's background tasks: claude's
// subagents, shells started with run_in_background, monitors. Each session
// keeps its list (rplugin/tasks); this room applies claude's task messages
// to it, sends every change to the front end as EvTasks (and on the line of
// the call that started the task), and serves the task commands, whose
// answers wait on claude (desk.Later).
package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// agentOutputLines bounds what task_output returns of an agent's work.
const agentOutputLines = 400

// Room serves the task commands and applies claude's task messages.
type Room struct {
	d *desk.Desk
}

// New returns the tasks room.
func New(d *desk.Desk) *Room { return &Room{d: d} }

// View is a session's task list for the front end.
type View struct {
	Session int          `json:"session"`
	Tasks   []tasks.Task `json:"tasks"`
}

// Message applies one of claude's task messages.
func (r *Room) Message(s *session.Session, m claude.Message) {
	before := s.Tasks.Active()
	ch := s.Tasks.Apply(m)
	if len(ch.Tasks) == 0 {
		return
	}
	var ops []bufops.Op
	for _, t := range ch.Tasks {
		ops = append(ops, s.Transcript.TaskChanged(t)...)
	}
	for _, t := range ch.Notified {
		if t.Parent == "" {
			ops = append(ops, s.Transcript.Notified(t.ToolUseID, t.Status)...)
		}
	}
	r.d.Transcript(s, ops)
	r.d.UI.Send(ui.EvTasks, View{Session: s.ID, Tasks: s.Tasks.List()})
	if s.Tasks.Active() != before {
		r.d.UI.Send(ui.EvSession, s) // running while its tasks run
	}
}

// Changed sends a session's task list after the host changed one of its
// own tasks (a worktree's setup): the task views and the session line.
func (r *Room) Changed(s *session.Session) {
	r.d.UI.Send(ui.EvTasks, View{Session: s.ID, Tasks: s.Tasks.List()})
	r.d.UI.Send(ui.EvSession, s)
}

// SeeAgent records who a subagent's message says it is, so that its
// requests name it even before its task is known.
func (r *Room) SeeAgent(s *session.Session, m claude.Message) {
	if msg := m.Origin(); msg.AgentID != "" {
		s.Tasks.SeeAgent(msg.AgentID, msg.SubagentType, msg.TaskDescription)
	}
}

// Ended records that claude exited: its tasks went with it.
func (r *Room) Ended(s *session.Session) {
	ended := s.Tasks.EndAll()
	if len(ended) == 0 {
		return
	}
	var ops []bufops.Op
	for _, t := range ended {
		ops = append(ops, s.Transcript.TaskChanged(t)...)
	}
	r.d.Transcript(s, ops)
	r.d.UI.Send(ui.EvTasks, View{Session: s.ID, Tasks: s.Tasks.List()})
}

// Agent names the subagent agentID of session sid ("" agentID: nil).
func (r *Room) Agent(sid int, agentID string) *tasks.Agent {
	if agentID == "" {
		return nil
	}
	v := tasks.Agent{ID: sanitize.Line(agentID)}
	if s, ok := r.d.Sessions.Get(sid); ok {
		v, _ = s.Tasks.Agent(agentID)
	}
	return &v
}

var ErrNoTask = errors.New("no such task")

// task finds task id in any session.
func (r *Room) task(id string) (*session.Session, tasks.Task, error) {
	for _, s := range r.d.Sessions.All() {
		if t, ok := s.Tasks.Get(id); ok {
			return s, t, nil
		}
	}
	return nil, tasks.Task{}, fmt.Errorf("%w: %s", ErrNoTask, sanitize.Line(id))
}

// Output answers later with the end of a task's output: a shell's or a
// monitor's from claude (get_task_output: the last 8 KiB, also after it
// ended), an agent's from the transcript (what it said and did).
func (r *Room) Output(p desk.Later) error {
	s, t, err := r.task(p.ID)
	if err != nil {
		return err
	}
	if out, ok := s.Tasks.LocalOutput(t.ID); ok {
		r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) { return out, nil })
		return nil
	}
	if tasks.IsAgent(t.Type) {
		out, ok := s.Transcript.AgentOutput(t.ToolUseID, agentOutputLines)
		r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) {
			if !ok {
				return "", nil
			}
			return out, nil
		})
		return nil
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		raw, err := s.Proc.Control(ctx, "get_task_output", map[string]any{"task_id": t.ID})
		if err != nil {
			return nil, err
		}
		out, err := replies.DecodeTaskOutput(raw)
		if err != nil {
			return nil, err
		}
		return sanitize.Text(out.Output), nil
	})
	return nil
}

// Stop asks claude to stop a running task; the answer comes later
// (true once claude stopped it). The task's end arrives as its events.
func (r *Room) Stop(p desk.Later) error {
	s, t, err := r.task(p.ID)
	if err != nil {
		return err
	}
	if !t.Running() {
		return fmt.Errorf("task %s (%s) has already %s", t.ID, t.Description, t.Status)
	}
	if s.Tasks.StopLocal(t.ID) {
		// The host runs it: stopped now, its end reported by who runs it.
		r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) { return true, nil })
		return nil
	}
	if s.State() == session.StateExited {
		return fmt.Errorf("session %d has exited", s.ID)
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		// claude answers stop_task with success even for an id it does
		// not know (checked on 2.1.328): the task was looked up first.
		if _, err := s.Proc.Control(ctx, "stop_task", map[string]any{"task_id": t.ID}); err != nil {
			return nil, err
		}
		return true, nil
	})
	return nil
}

// At is the task started by the call whose lines include line
// (0-based) of a session's transcript: the innermost one.
func (r *Room) At(id, line int) (string, error) {
	s, ok := r.d.Sessions.Get(id)
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

// NameStops puts the name of the task a TaskStop call stops on its
// line (the call names it by id).
func (r *Room) NameStops(s *session.Session, m claude.Message) {
	if m.Assistant == nil {
		return
	}
	for _, b := range m.Assistant.Content {
		id, ok := tools.StopsTask(b.Name, b.Input)
		if b.Type != "tool_use" || !ok {
			continue
		}
		if t, ok := s.Tasks.Get(id); ok && t.Description != "" {
			s.Transcript.ToolHeadline(b.ID, "stops "+t.Type+" "+t.Description)
		}
	}
}
