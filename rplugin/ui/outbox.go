// Package ui is the Go side of the UI contract. Go sends events carrying view
// models (plain data) to the Lua front end; Lua renders them and sends
// gestures back through the host. Nothing here draws.
package ui

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"
)

// Event names sent to Lua (require'claudenova.frontend'.apply).
const (
	EvSession        = "session"         // Info of one session
	EvSessionRemoved = "session_removed" // {session}: an exited session the user cleared
	EvTranscript     = "transcript"      // {session, ops}
	// EvResync tells the front end to ask for the state again, instead of
	// events it will never get. {session, seq}: the transcript updates
	// Neovim could not take in time were replaced by it; the front end
	// fetches the transcript again, and again if the snapshot it gets is
	// older than seq (the last op replaced). {} (no session): events the
	// outbox could not deliver; it stands at their numbers in the stream
	// and the front end asks for everything again (sessions, pending
	// requests, transcripts).
	EvResync            = "resync"
	EvRequestAdded      = "request_added"      // RequestView
	EvRequestRemoved    = "request_removed"    // {id, outcome, message}
	EvPresent           = "present"            // RequestView, or AsAdded: open its surface
	EvNotify            = "notify"             // {msg, level}
	EvProposalRebase    = "proposal_rebase"    // {id, path, exists}: the real file changed on disk
	EvProposalPrepare   = "proposal_prepare"   // {id, path}: read this large original while the proposal is staged
	EvProposalUnprepare = "proposal_unprepare" // {id}: the original read ahead under id will not be needed
	EvFileWritten       = "file_written"       // {path}: claude wrote an applied proposal
	EvRules             = "rules"              // RulesView: the rules in effect, as claude reports them
	EvTasks             = "tasks"              // {session, tasks}: a session's background tasks
	EvCompletion        = "completion"         // Completion: the prompt input's choices for what was typed
	// EvMark is the reply of a call, in the stream: a Mark. Every call's
	// reply comes this way, at once or, for a call that waits on claude,
	// when claude answered; the caller acts on it after every event the
	// call caused and before any later one (one order, see Outbox).
	EvMark   = "mark"
	EvWorld  = "world"  // WorldView: a session's MCP servers, hooks, schedules, checklist, worktree
	EvAgents = "agents" // others.View: the other Claude sessions on this machine
	EvReview = "review" // ReviewEvent: a folder's review comments, round files, blame changed
	// EvMergeDone offers, once every file of a merge is settled, to remove
	// the worktree and its branch (merge.Offer; removed: withdrawn).
	EvMergeDone = "merge_done"
)

// AsAdded is EvPresent's data for a request just added (EvRequestAdded,
// earlier in the stream): open its surface as that event gave it.
type AsAdded struct {
	ID      string `json:"id"`
	AsAdded bool   `json:"as_added"`
}

// Answer is a call's result, or its error in words for the user. Errors
// never travel as RPC errors, whose text Neovim wraps in its own plumbing.
type Answer struct {
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Answered is the Answer of a call that returned res and err.
func Answered(res any, err error) Answer {
	if err != nil {
		return Answer{Error: err.Error()}
	}
	return Answer{OK: true, Result: res}
}

// Mark is a call's reply in the stream (EvMark), matched by the token the
// front end gave the call; the method it answers is named for people
// reading a recorded stream (and the front end's tests replaying one).
type Mark struct {
	Token  string `json:"token"`
	Method string `json:"method,omitempty"`
	Reply  Answer `json:"reply"`
}

// Event is one message to the Lua front end. Seq numbers the events of one
// outbox as they are delivered (1, 2, 3, … with no gap): the front end
// applies them in that order, whatever order the batches reach it in.
type Event struct {
	Seq  uint64 `json:"seq"`
	Name string `json:"event"`
	Data any    `json:"data"`
	// quiet: transcript text that came after a quiet spell (see
	// transcriptGap), delivered at once.
	quiet bool
}

// Sink receives events for Lua. Send never blocks.
type Sink interface {
	Send(name string, data any)
}

// maxBatch bounds how many events go to Neovim in one call.
const maxBatch = 1024

// transcriptGap is the least time between two deliveries that carry only
// transcript text while it streams. Every buffer change costs Neovim a
// (tree-sitter) reparse of the transcript; a burst of output from several
// sessions is delivered as a few coalesced edits instead of thousands.
// Anything else (a request, a session change) is delivered at once, and so
// is transcript text that comes after a quiet spell as long (a tool call
// claude names, then checks): held back for the gap, it reached Neovim just
// as the permission request that follows it did, which then waited for it.
const transcriptGap = 16 * time.Millisecond // one frame

// MaxQueuedLines bounds, per session, the transcript lines waiting for
// Neovim (while it is busy, in input() say). Past it, the session's queued
// transcript updates are replaced by one EvResync: the front end
// fetches the transcript again when it can. Requests and other events are
// never dropped.
const MaxQueuedLines = 20000

// Live is implemented by event data whose value is read when it is
// delivered (a session's snapshot): whoever sent it, the front end gets the
// state as it is then, and two such events of one key waiting together are
// delivered once, where the first was.
type Live interface {
	Live() any
	LiveKey() string
}

// SessionScoped is implemented by event data that belongs to one session's
// transcript.
type SessionScoped interface{ SessionID() int }

// Sequenced is implemented by transcript updates: the number of their last
// op.
type Sequenced interface{ LastSeq() int }

func lastSeq(data any) int {
	if s, ok := data.(Sequenced); ok {
		return s.LastSeq()
	}
	return 0
}

// Outbox delivers events to Neovim in order, in batches, from its own
// goroutine, so no producer ever waits for Neovim. It is the one writer of
// the stream the front end reads: every event it delivers carries the next
// sequence number, and a synchronous call's reply is placed in the same
// stream by a mark (EvMark).
type Outbox struct {
	exec func(batch string) error
	log  *slog.Logger
	wg   sync.WaitGroup
	wake chan struct{}
	seq  uint64 // the last number delivered (run's goroutine only)
	// lost are the numbers of deliveries given up (run's goroutine only):
	// the next delivery carries them first, as EvResync, so the stream
	// has no gap and the front end knows to ask for the state again.
	lost []uint64

	// Record, when set before the first Send, receives every batch as it
	// is delivered (the recordings the front end's tests replay).
	Record func(batch []byte)

	mu       sync.Mutex
	events   []Event
	lines    map[int]int            // transcript lines queued, per session
	resync   map[int]map[string]any // the data of the session's queued resync
	closed   bool
	maxLines int
	holds    int           // Holds not yet released (see Hold)
	holdGen  int           // counts the holds given up after holdMax: their releases do nothing
	holdMax  time.Duration // the longest a hold keeps a delivery waiting (see Hold)
	gap      time.Duration // transcriptGap (a test's own)
	lastText time.Time     // when transcript text was last queued
}

// NewOutbox starts an outbox that hands each JSON-encoded batch to exec.
func NewOutbox(exec func(batch string) error, log *slog.Logger) *Outbox {
	return newOutbox(exec, log, holdMax, transcriptGap)
}

// newOutbox is NewOutbox with the bound of a hold (tests that hold on a
// loaded machine, where a millisecond's sleep can take longer than the
// bound, give it room) and the transcript's gap (a test that sees what
// waits for it makes it long).
func newOutbox(exec func(batch string) error, log *slog.Logger, maxHold, gap time.Duration) *Outbox {
	o := &Outbox{exec: exec, log: log, wake: make(chan struct{}, 1),
		lines: map[int]int{}, resync: map[int]map[string]any{}, maxLines: MaxQueuedLines, holdMax: maxHold, gap: gap}
	o.wg.Add(1)
	go o.run()
	return o
}

// Send queues an event. It never blocks.
func (o *Outbox) Send(name string, data any) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	sc, scoped := data.(SessionScoped)
	if name == EvTranscript && scoped {
		sid, n := sc.SessionID(), size(data)
		now := time.Now()
		quiet := now.Sub(o.lastText) >= o.gap
		o.lastText = now
		switch {
		case o.resync[sid] != nil:
			// A resync is queued: it fetches this too.
			rs := o.resync[sid]
			rs["seq"] = max(rs["seq"].(int), lastSeq(data))
		case o.lines[sid]+n > o.maxLines:
			rs := map[string]any{"session": sid, "seq": max(o.dropTranscript(sid), lastSeq(data))}
			o.resync[sid] = rs
			o.events = append(o.events, Event{Name: EvResync, Data: rs})
			o.log.Info("ui: transcript updates replaced by a resync", "session", sid)
		case o.absorb(sid, data):
			// Merged into an update of the session still waiting.
		default:
			o.lines[sid] += n
			o.events = append(o.events, Event{Name: name, Data: data, quiet: quiet})
		}
	} else if lv, ok := data.(Live); ok && o.waiting(name, lv.LiveKey()) {
		// Already waiting: it is read when delivered, so this one is in it.
	} else {
		o.events = append(o.events, Event{Name: name, Data: data})
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// absorb merges a transcript update of session sid into one of the
// session's waiting at the end of the queue (past only other sessions'
// transcript updates, whose order against it does not matter), as the
// delivery would: a flood held up by a busy Neovim waits as a few large
// updates, not as an event per streamed word. It reports whether it did.
// Callers hold mu.
func (o *Outbox) absorb(sid int, data any) bool {
	for i := len(o.events) - 1; i >= 0; i-- {
		ev := o.events[i]
		sc, ok := ev.Data.(SessionScoped)
		if ev.Name != EvTranscript || !ok {
			return false
		}
		if sc.SessionID() != sid {
			continue
		}
		c, ok := ev.Data.(Coalescable)
		if !ok {
			return false
		}
		before := size(ev.Data)
		if !c.Coalesce(data) {
			return false
		}
		o.lines[sid] += size(ev.Data) - before
		return true
	}
	return false
}

// waiting reports whether a live event of name and key is queued. Callers
// hold mu.
func (o *Outbox) waiting(name, key string) bool {
	for _, ev := range o.events {
		if lv, ok := ev.Data.(Live); ok && ev.Name == name && lv.LiveKey() == key {
			return true
		}
	}
	return false
}

// dropTranscript removes the queued transcript updates of a session and
// returns the number of the last op they carried. Callers hold mu.
func (o *Outbox) dropTranscript(sid int) (last int) {
	kept := o.events[:0]
	for _, ev := range o.events {
		if sc, ok := ev.Data.(SessionScoped); ok && ev.Name == EvTranscript && sc.SessionID() == sid {
			last = max(last, lastSeq(ev.Data))
			continue
		}
		kept = append(kept, ev)
	}
	for i := len(kept); i < len(o.events); i++ {
		o.events[i] = Event{}
	}
	o.events = kept
	o.lines[sid] = 0
	return last
}

// Queued reports the events and transcript lines waiting for Neovim.
func (o *Outbox) Queued() (events, lines int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range o.lines {
		lines += n
	}
	return len(o.events), lines
}

func size(data any) int {
	if s, ok := data.(Sized); ok {
		return s.Size()
	}
	return 0
}

// pop takes the oldest event; with block it waits for one. It reports false
// when there is none (or the outbox is closed and drained).
func (o *Outbox) pop(block bool) (Event, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(o.events) == 0 {
		if o.closed || !block {
			return Event{}, false
		}
		o.mu.Unlock()
		<-o.wake
		o.mu.Lock()
	}
	ev := o.events[0]
	o.events[0] = Event{}
	o.events = o.events[1:]
	if sc, ok := ev.Data.(SessionScoped); ok {
		switch ev.Name {
		case EvTranscript:
			o.lines[sc.SessionID()] -= size(ev.Data)
		}
	}
	if ev.Name == EvResync {
		if m, ok := ev.Data.(map[string]any); ok {
			if sid, ok := m["session"].(int); ok {
				delete(o.resync, sid) // its data no longer changes
			}
		}
	}
	return ev, true
}

// Holder is a Sink that can hold its delivery (see Outbox.Hold).
type Holder interface {
	Hold() (release func())
}

// Hold holds s's delivery until release, when s can (see Outbox.Hold);
// else release does nothing.
func Hold(s Sink) (release func()) {
	if h, ok := s.(Holder); ok {
		return h.Hold()
	}
	return func() {}
}

// holdMax bounds how long a hold keeps a delivery waiting: a hold is for
// events sent within microseconds of each other, and a forgotten release
// must not stop the stream.
const holdMax = 20 * time.Millisecond

// Hold keeps the outbox from delivering what it took until release is
// called (once; later calls do nothing), so that events sent together
// reach the front end in one batch: a request's arrival (its row, its
// session's "waiting", its surface) drawn once rather than over two
// redraws, the second of which made the slowest panels. Holds nest. A
// delivery waits for a hold at most holdMax (the outbox's own bound).
func (o *Outbox) Hold() (release func()) {
	o.mu.Lock()
	o.holds++
	gen := o.holdGen
	o.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			if gen == o.holdGen {
				o.holds--
			}
			o.mu.Unlock()
			select {
			case o.wake <- struct{}{}:
			default:
			}
		})
	}
}

func (o *Outbox) held() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.holds > 0
}

// Close delivers what is queued and stops.
func (o *Outbox) Close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	o.wg.Wait()
}

func (o *Outbox) isClosed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed
}

func (o *Outbox) run() {
	defer o.wg.Done()
	var last time.Time
	for {
		first, ok := o.pop(true)
		if !ok {
			return
		}
		batch := []Event{first}
		urgent := first.Name != EvTranscript || first.quiet
		wait := time.NewTimer(time.Until(last.Add(o.gap)))
		var holdUp <-chan time.Time // the longest a hold keeps this batch
		for len(batch) < maxBatch {
			if ev, ok := o.pop(false); ok {
				batch = append(batch, ev)
				urgent = urgent || ev.Name != EvTranscript
				continue
			}
			if o.isClosed() {
				break
			}
			if urgent {
				if !o.held() {
					break
				}
				if holdUp == nil {
					holdUp = time.After(o.holdMax)
				}
			}
			select {
			case <-o.wake:
			case <-wait.C:
				urgent = true // gap elapsed: take what is there and go
			case <-holdUp:
				o.log.Warn("ui: a hold kept a delivery waiting too long; delivered")
				holdUp, urgent = nil, true
				o.mu.Lock()
				o.holds, o.holdGen = 0, o.holdGen+1
				o.mu.Unlock()
			}
		}
		wait.Stop()
		for i, ev := range batch {
			if lv, ok := ev.Data.(Live); ok {
				batch[i].Data = lv.Live() // read now: the newest state goes last
			}
		}
		for _, part := range split(coalesce(batch), maxDeliveryLines) {
			for i := range part {
				o.seq++
				part[i].Seq = o.seq
			}
			b, err := json.Marshal(part)
			if err != nil {
				// Never a gap in the numbers: the front end would wait for
				// them. The events go as notes of their loss.
				o.log.Error("encode ui batch", "err", err)
				lost := make([]Event, len(part))
				for i, ev := range part {
					lost[i] = Event{Seq: ev.Seq, Name: EvNotify, Data: map[string]any{"level": "error",
						"msg": "claude-nova: an update of the host could not be encoded (" + ev.Name + "); see :ClaudeNova log"}}
				}
				b, _ = json.Marshal(lost)
			}
			o.repair()
			if o.Record != nil {
				o.Record(b)
			}
			if !o.deliver(string(b), len(part)) {
				for _, ev := range part {
					o.lost = append(o.lost, ev.Seq)
				}
			}
		}
		last = time.Now()
	}
}

// deliver hands a batch to Neovim, trying again a few times when it fails:
// the front end waits for every number, and a batch it already has is
// dropped there by its numbers, so a repeat is harmless where a loss would
// hold the stream up. It reports whether the batch went.
func (o *Outbox) deliver(b string, events int) bool {
	var err error
	for try, pause := 0, 20*time.Millisecond; try < deliveryTries; try, pause = try+1, pause*4 {
		if err = o.exec(b); err == nil {
			return true
		}
		o.log.Warn("ui batch not delivered, trying again", "err", err, "events", events, "try", try+1)
		time.Sleep(pause)
	}
	o.log.Error("ui batch not delivered: the front end will ask for the state again", "err", err, "events", events)
	return false
}

// repair delivers the numbers of batches given up, each as EvResync: the
// front end, which waits for every number, goes on, and asks for the
// state again once (a batch it did get after all is dropped there as a
// repeat). Numbers it still cannot deliver wait for the next batch.
func (o *Outbox) repair() {
	if len(o.lost) == 0 {
		return
	}
	evs := make([]Event, len(o.lost))
	for i, seq := range o.lost {
		evs[i] = Event{Seq: seq, Name: EvResync, Data: map[string]any{}}
	}
	b, _ := json.Marshal(evs)
	if o.deliver(string(b), len(evs)) {
		if o.Record != nil {
			o.Record(b)
		}
		o.log.Info("ui: undelivered events replaced by a resync", "events", len(evs))
		o.lost = nil
	}
}

// deliveryTries is how often a batch is tried before it is given up.
const deliveryTries = 3

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
