// Package ui is the Go side of the UI contract. Go sends events carrying view
// models (plain data) to the Lua front end; Lua renders them and sends
// gestures back through the host. Nothing here draws.
package ui

import (
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
)

// Event names sent to Lua (require'claudenova.ui'.apply).
const (
	EvSession        = "session"         // Info of one session
	EvTranscript     = "transcript"      // {session, ops}
	EvRequestAdded   = "request_added"   // RequestView
	EvRequestUpdated = "request_updated" // RequestView
	EvRequestRemoved = "request_removed" // {id, outcome, message}
	EvPresent        = "present"         // RequestView: open its surface
	EvNotify         = "notify"          // {msg, level}
	EvProposalRebase = "proposal_rebase" // {id, path, exists}: the real file changed on disk
	EvFileWritten    = "file_written"    // {path}: claude wrote an applied proposal
)

// Event is one message to the Lua front end.
type Event struct {
	Name string `json:"event"`
	Data any    `json:"data"`
}

// Sink receives events for Lua. Send never blocks.
type Sink interface {
	Send(name string, data any)
}

// maxBatch bounds how many events go to Neovim in one call.
const maxBatch = 256

// Outbox delivers events to Neovim in order, in batches, from its own
// goroutine, so no producer ever waits for Neovim.
type Outbox struct {
	q    *queue.Queue[Event]
	exec func(batch string) error
	log  *slog.Logger
	wg   sync.WaitGroup
}

// NewOutbox starts an outbox that hands each JSON-encoded batch to exec.
func NewOutbox(exec func(batch string) error, log *slog.Logger) *Outbox {
	o := &Outbox{q: queue.New[Event](), exec: exec, log: log}
	o.wg.Add(1)
	go o.run()
	return o
}

// Send queues an event.
func (o *Outbox) Send(name string, data any) { o.q.Push(Event{Name: name, Data: data}) }

// Close delivers what is queued and stops.
func (o *Outbox) Close() {
	o.q.Close()
	o.wg.Wait()
}

func (o *Outbox) run() {
	defer o.wg.Done()
	out := o.q.Out()
	for ev := range out {
		batch := []Event{ev}
	more:
		for len(batch) < maxBatch {
			select {
			case e, ok := <-out:
				if !ok {
					break more
				}
				batch = append(batch, e)
			default:
				break more
			}
		}
		b, err := json.Marshal(batch)
		if err != nil {
			o.log.Error("encode ui batch", "err", err)
			continue
		}
		if err := o.exec(string(b)); err != nil {
			o.log.Warn("ui batch not delivered", "err", err, "events", len(batch))
		}
	}
}

// Recorder is a Sink that keeps events, for tests.
type Recorder struct {
	mu     sync.Mutex
	Events []Event
}

// Send records an event.
func (r *Recorder) Send(name string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Events = append(r.Events, Event{Name: name, Data: data})
}

// Named returns the recorded events with the given name.
func (r *Recorder) Named(name string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.Events {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}
