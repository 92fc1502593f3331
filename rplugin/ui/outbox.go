// Package ui is the Go side of the UI contract. Go sends events carrying view
// models (plain data) to the Lua front end; Lua renders them and sends
// gestures back through the host. Nothing here draws.
package ui

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
)

// Event names sent to Lua (require'claudenova.ui'.apply).
const (
	EvSession        = "session"         // Info of one session
	EvTranscript     = "transcript"      // {session, ops}
	EvRequestAdded   = "request_added"   // RequestView
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
const maxBatch = 1024

// transcriptGap is the least time between two deliveries that carry only
// transcript text. Every buffer change costs Neovim a (tree-sitter) reparse
// of the transcript; a burst of output from several sessions is delivered as
// a few coalesced edits instead of thousands. Anything else (a request, a
// session change) is delivered at once.
const transcriptGap = 30 * time.Millisecond

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
	var last time.Time
	for ev := range out {
		batch := []Event{ev}
		urgent := ev.Name != EvTranscript
		wait := time.NewTimer(time.Until(last.Add(transcriptGap)))
	more:
		for len(batch) < maxBatch {
			if urgent {
				select {
				case e, ok := <-out:
					if !ok {
						break more
					}
					batch = append(batch, e)
				default:
					break more
				}
				continue
			}
			select {
			case e, ok := <-out:
				if !ok {
					break more
				}
				batch = append(batch, e)
				urgent = e.Name != EvTranscript
			case <-wait.C:
				urgent = true // gap elapsed: take what is there and go
			}
		}
		wait.Stop()
		for _, part := range split(coalesce(batch), maxDeliveryLines) {
			b, err := json.Marshal(part)
			if err != nil {
				o.log.Error("encode ui batch", "err", err)
				continue
			}
			if err := o.exec(string(b)); err != nil {
				o.log.Warn("ui batch not delivered", "err", err, "events", len(part))
			}
		}
		last = time.Now()
	}
}

// maxDeliveryLines bounds the buffer lines one delivery carries: between two
// deliveries Neovim serves everyone else (keys, other plugins' RPC).
const maxDeliveryLines = 400

// Sized is implemented by event data that carries buffer lines.
type Sized interface{ Size() int }

// Splitter is implemented by event data that can be cut into parts of at
// most max lines each.
type Splitter interface{ Split(max int) []any }

// split cuts a batch into deliveries of at most max lines each.
func split(batch []Event, max int) [][]Event {
	var parts [][]Event
	var cur []Event
	size := 0
	var events []Event
	for _, ev := range batch {
		if sp, ok := ev.Data.(Splitter); ok {
			for _, d := range sp.Split(max) {
				events = append(events, Event{Name: ev.Name, Data: d})
			}
			continue
		}
		events = append(events, ev)
	}
	for _, ev := range events {
		n := 0
		if s, ok := ev.Data.(Sized); ok {
			n = s.Size()
		}
		if len(cur) > 0 && size+n > max {
			parts = append(parts, cur)
			cur, size = nil, 0
		}
		cur = append(cur, ev)
		size += n
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// Coalescable is implemented by event data that can absorb the data of the
// next event of the same name (a session's transcript appends, say), so a
// burst of output reaches Neovim as a few large edits instead of many small
// ones.
type Coalescable interface {
	Coalesce(next any) bool
}

// coalesce merges an event into an earlier one of the same run of
// same-named events whose data absorbs it (order across other events is kept).
func coalesce(batch []Event) []Event {
	out := batch[:0:0]
	runStart := 0
	for _, ev := range batch {
		if n := len(out); n > 0 && out[n-1].Name != ev.Name {
			runStart = n
		}
		merged := false
		for i := len(out) - 1; i >= runStart; i-- {
			if c, ok := out[i].Data.(Coalescable); ok && c.Coalesce(ev.Data) {
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, ev)
		}
	}
	return out
}
