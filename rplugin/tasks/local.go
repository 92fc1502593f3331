package tasks

import (
	"io"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// maxLocalOutput bounds what a local task keeps of its output: its end.
const maxLocalOutput = 64 << 10

// local is the host's own part of a task it runs itself (a worktree's
// setup): its output and how to stop it. claude knows nothing of it.
type local struct {
	mu   sync.Mutex
	out  []byte
	stop func()
}

// Write keeps the end of the output (at most maxLocalOutput bytes).
func (l *local) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = append(l.out, p...)
	if over := len(l.out) - maxLocalOutput; over > 0 {
		l.out = append(l.out[:0], l.out[over:]...)
	}
	return len(p), nil
}

func (l *local) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.out)
}

// StartLocal adds a task the host runs itself for the session (typ
// "setup", …): shown, read and stopped as claude's are. stop ends it
// (the task's end is then reported with EndLocal). The returned writer
// takes its output.
func (ts *Tasks) StartLocal(id, typ, description string, stop func()) (Task, io.Writer) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.add(sanitize.Line(id), ts.now())
	t.Type = sanitize.Line(typ)
	t.Description = sanitize.Truncate(sanitize.Line(description), 120)
	t.Background = true
	l := &local{stop: stop}
	if ts.locals == nil {
		ts.locals = map[string]*local{}
	}
	ts.locals[t.ID] = l
	return *t, l
}

// EndLocal records how a local task ended (status TaskCompleted,
// TaskFailed or TaskStopped) with a summary (why it failed).
func (ts *Tasks) EndLocal(id, status, summary string) (Task, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.byID[id]
	if !ok || ts.locals[id] == nil {
		return Task{}, false
	}
	ts.end(t, status, 0, ts.now())
	if summary != "" {
		t.Summary = sanitize.Truncate(sanitize.Line(summary), 300)
	}
	return *t, true
}

// LocalOutput is the end of a local task's output (false: not a task
// the host runs).
func (ts *Tasks) LocalOutput(id string) (string, bool) {
	ts.mu.Lock()
	l := ts.locals[id]
	ts.mu.Unlock()
	if l == nil {
		return "", false
	}
	return sanitize.Text(l.text()), true
}

// StopLocal stops a running local task (false: not one the host runs).
func (ts *Tasks) StopLocal(id string) bool {
	ts.mu.Lock()
	l := ts.locals[id]
	ts.mu.Unlock()
	if l == nil {
		return false
	}
	if l.stop != nil {
		l.stop()
	}
	return true
}
