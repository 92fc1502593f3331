package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

type appendData struct{ Key, Text string }

func (d *appendData) Coalesce(next any) bool {
	n, ok := next.(*appendData)
	if !ok || n.Key != d.Key {
		return false
	}
	d.Text += n.Text
	return true
}

func TestCoalesce(t *testing.T) {
	in := []Event{
		{Name: "t", Data: &appendData{"a", "1"}}, {Name: "t", Data: &appendData{"b", "x"}}, {Name: "t", Data: &appendData{"a", "2"}},
		{Name: "other", Data: 1},
		{Name: "t", Data: &appendData{"a", "3"}}, {Name: "t", Data: &appendData{"a", "4"}},
	}
	out := coalesce(in)
	b, _ := json.Marshal(out)
	want := `[{"seq":0,"event":"t","data":{"Key":"a","Text":"12"}},{"seq":0,"event":"t","data":{"Key":"b","Text":"x"}},{"seq":0,"event":"other","data":1},{"seq":0,"event":"t","data":{"Key":"a","Text":"34"}}]`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestOutboxDeliversInOrderWithoutBlockingSenders(t *testing.T) {
	var mu sync.Mutex
	var got []int
	release := make(chan struct{})
	o := NewOutbox(func(batch string) error {
		<-release // Neovim is busy
		var evs []struct {
			Data int `json:"data"`
		}
		_ = json.Unmarshal([]byte(batch), &evs)
		mu.Lock()
		for _, e := range evs {
			got = append(got, e.Data)
		}
		mu.Unlock()
		return nil
	}, slog.New(slog.DiscardHandler))
	done := make(chan struct{})
	go func() {
		for i := 0; i < 1000; i++ {
			o.Send("n", i)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Send blocked while Neovim was busy")
	}
	close(release)
	o.Close()
	if len(got) != 1000 {
		t.Fatalf("delivered %d", len(got))
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("out of order at %d: %d", i, v)
		}
	}
}

type sized int

func (s sized) Size() int { return int(s) }

func TestSplit(t *testing.T) {
	batch := []Event{{Name: "t", Data: sized(100)}, {Name: "t", Data: sized(250)}, {Name: "x", Data: 1}, {Name: "t", Data: sized(100)}, {Name: "t", Data: sized(900)}, {Name: "t", Data: sized(10)}}
	parts := split(batch, 400)
	var sizes []int
	for _, p := range parts {
		n := 0
		for _, e := range p {
			if s, ok := e.Data.(sized); ok {
				n += int(s)
			}
		}
		sizes = append(sizes, n)
	}
	want := []int{350, 100, 900, 10}
	if len(sizes) != len(want) {
		t.Fatalf("sizes %v, want %v", sizes, want)
	}
	for i := range want {
		if sizes[i] != want[i] {
			t.Fatalf("sizes %v, want %v", sizes, want)
		}
	}
}

// heldOutbox is an outbox whose Neovim is busy: its first batch (a note)
// is taken and held until release is called; every event delivered is
// kept, in order, for got.
func heldOutbox(t *testing.T) (o *Outbox, release func(), got func() []Event) {
	t.Helper()
	hold := make(chan struct{})
	taken := make(chan struct{}, 1)
	var mu sync.Mutex
	var evs []Event
	o = NewOutbox(func(batch string) error {
		select {
		case taken <- struct{}{}:
		default:
		}
		<-hold
		var b []Event
		_ = json.Unmarshal([]byte(batch), &b)
		mu.Lock()
		evs = append(evs, b...)
		mu.Unlock()
		return nil
	}, slog.New(slog.DiscardHandler))
	o.Send(EvNotify, "blocks the outbox")
	<-taken
	return o, func() { close(hold) }, func() []Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]Event(nil), evs...)
	}
}

type lines struct {
	Session int
	N       int
}

func (l *lines) Size() int      { return l.N }
func (l *lines) SessionID() int { return l.Session }

// While Neovim cannot take events, the queue stays bounded: a session's
// transcript updates past the limit become one resync; requests are kept.
func TestOutboxBoundsTranscriptsNeverRequests(t *testing.T) {
	o, release, got := heldOutbox(t)
	for i := 0; i < 500; i++ {
		o.Send(EvTranscript, &lines{Session: 1, N: 100})
		o.Send(EvTranscript, &lines{Session: 2, N: 1})
		if i == 250 {
			o.Send(EvRequestAdded, "a request")
		}
		if _, n := o.Queued(); n > MaxQueuedLines+500 {
			t.Fatalf("%d lines queued", n)
		}
	}
	events, queued := o.Queued()
	if queued > MaxQueuedLines || events > 2000 {
		t.Fatalf("queued %d events, %d lines", events, queued)
	}
	release()
	o.Close()
	count := map[string]int{}
	for _, ev := range got() {
		count[ev.Name]++
	}
	if count[EvRequestAdded] != 1 || count[EvResync] < 1 {
		t.Fatalf("delivered %v", count)
	}
}

type numbered struct {
	lines
	Seq int
}

func (n *numbered) LastSeq() int { return n.Seq }

// A resync names the last op it replaces, those sent while it waited
// included: the front end knows which snapshot brings them.
func TestResyncNamesTheLastOpItReplaces(t *testing.T) {
	release := make(chan struct{})
	taken := make(chan struct{}, 1)
	var mu sync.Mutex
	var resyncs []map[string]any
	o := NewOutbox(func(batch string) error {
		select {
		case taken <- struct{}{}:
		default:
		}
		<-release
		var evs []struct {
			Name string         `json:"event"`
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal([]byte(batch), &evs)
		mu.Lock()
		for _, e := range evs {
			if e.Name == EvResync {
				resyncs = append(resyncs, e.Data)
			}
		}
		mu.Unlock()
		return nil
	}, slog.New(slog.DiscardHandler))
	o.maxLines = 10
	o.Send(EvNotify, "blocks the outbox")
	<-taken
	for seq := 1; seq <= 8; seq++ {
		o.Send(EvTranscript, &numbered{lines{Session: 1, N: 3}, seq})
	}
	close(release)
	o.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(resyncs) != 1 || resyncs[0]["seq"] != float64(8) || resyncs[0]["session"] != float64(1) {
		t.Fatalf("resyncs %v, want one of session 1 up to op 8", resyncs)
	}
}

// Every delivered event carries the next number, also when events were
// coalesced, split or replaced by a resync: the front end never waits for a
// number that does not come.
func TestOutboxNumbersTheStream(t *testing.T) {
	var mu sync.Mutex
	var seqs []uint64
	o := NewOutbox(func(batch string) error {
		var evs []Event
		if err := json.Unmarshal([]byte(batch), &evs); err != nil {
			t.Error(err)
		}
		mu.Lock()
		for _, e := range evs {
			seqs = append(seqs, e.Seq)
		}
		mu.Unlock()
		return nil
	}, slog.New(slog.DiscardHandler))
	o.maxLines = 50
	for i := 0; i < 200; i++ {
		o.Send(EvTranscript, &scoped{sid: i % 3, n: 10})
		if i%7 == 0 {
			o.Send(EvMark, map[string]int{"token": i})
		}
	}
	o.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seqs) == 0 {
		t.Fatal("nothing delivered")
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("event %d has seq %d: %v", i, s, seqs)
		}
	}
}

// scoped is transcript-like data: n lines of session sid.
type scoped struct{ sid, n int }

func (s *scoped) SessionID() int { return s.sid }
func (s *scoped) Size() int      { return s.n }

// liveData is a session whose snapshot is read at delivery.
type liveData struct {
	mu    sync.Mutex
	state string
}

func (l *liveData) Live() any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}
func (l *liveData) LiveKey() string { return "s1" }

// A snapshot is taken when it is written: sent twice while Neovim is busy,
// the front end gets it once, with the newest state, however the senders
// raced (what per-snapshot version numbers used to guard against).
func TestLiveDataIsReadWhenDelivered(t *testing.T) {
	release, busy := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var got []string
	o := NewOutbox(func(batch string) error {
		once.Do(func() { close(busy) })
		<-release
		var evs []struct {
			Event string `json:"event"`
			Data  any    `json:"data"`
		}
		_ = json.Unmarshal([]byte(batch), &evs)
		mu.Lock()
		for _, e := range evs {
			got = append(got, e.Event+"="+fmt.Sprint(e.Data))
		}
		mu.Unlock()
		return nil
	}, slog.New(slog.DiscardHandler))
	s := &liveData{state: "running"}
	o.Send("first", 0) // Neovim is busy with this one
	<-busy             // (the writer has taken it alone)
	o.Send(EvSession, s)
	o.Send("between", 1)
	s.mu.Lock()
	s.state = "idle"
	s.mu.Unlock()
	o.Send(EvSession, s) // already waiting: the one above carries it
	close(release)
	o.Close()
	mu.Lock()
	defer mu.Unlock()
	want := "first=0 session=idle between=1"
	if strings.Join(got, " ") != want {
		t.Fatalf("delivered %q, want %q", strings.Join(got, " "), want)
	}
}

// A delivery that fails is tried again with the same numbers: the front end
// keeps the first copy that reaches it and drops repeats, so nothing is lost
// and no number is skipped.
func TestFailedDeliveryIsTriedAgain(t *testing.T) {
	tests := []struct {
		name      string
		failures  int // how many tries of the first batch fail
		delivered bool
	}{
		{"one failure", 1, true},
		{"two failures", 2, true},
		{"every try fails", deliveryTries, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			tries := 0
			var got []uint64
			o := NewOutbox(func(batch string) error {
				mu.Lock()
				defer mu.Unlock()
				tries++
				if tries <= tc.failures {
					return errors.New("neovim is busy")
				}
				var evs []Event
				if err := json.Unmarshal([]byte(batch), &evs); err != nil {
					t.Error(err)
				}
				for _, e := range evs {
					got = append(got, e.Seq)
				}
				return nil
			}, slog.New(slog.DiscardHandler))
			o.Send(EvNotify, map[string]string{"msg": "one"})
			o.Close()
			mu.Lock()
			defer mu.Unlock()
			if tc.delivered && (len(got) != 1 || got[0] != 1) {
				t.Fatalf("delivered seqs %v after %d tries", got, tries)
			}
			if !tc.delivered && (len(got) != 0 || tries != deliveryTries) {
				t.Fatalf("delivered %v in %d tries", got, tries)
			}
		})
	}
}

// A batch given up leaves no gap: the next delivery carries its numbers
// first, as resyncs (the front end asks for the state again), then its own.
func TestGivenUpNumbersComeBackAsResyncs(t *testing.T) {
	var mu sync.Mutex
	tries := 0
	type got struct {
		seq  uint64
		name string
	}
	var evs []got
	o := NewOutbox(func(batch string) error {
		mu.Lock()
		defer mu.Unlock()
		tries++
		if tries <= deliveryTries {
			return errors.New("neovim is busy")
		}
		var b []Event
		if err := json.Unmarshal([]byte(batch), &b); err != nil {
			t.Error(err)
		}
		for _, e := range b {
			evs = append(evs, got{e.Seq, e.Name})
		}
		return nil
	}, slog.New(slog.DiscardHandler))
	o.Send(EvNotify, map[string]string{"msg": "lost"})
	for {
		mu.Lock()
		n := tries
		mu.Unlock()
		if n >= deliveryTries {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	o.Send(EvNotify, map[string]string{"msg": "next"})
	o.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []got{{1, EvResync}, {2, EvNotify}}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("delivered %v, want %v", evs, want)
	}
}

// growing is a session's transcript update that absorbs the next one of
// its session (as bufops.Update does), up to 300 lines.
type growing struct {
	Session, N int
}

func (g *growing) SessionID() int { return g.Session }
func (g *growing) Size() int      { return g.N }
func (g *growing) Coalesce(next any) bool {
	n, ok := next.(*growing)
	if !ok || n.Session != g.Session || g.N+n.N > 300 {
		return false
	}
	g.N += n.N
	return true
}

// While Neovim is busy, a session's transcript updates merge as they
// queue (past other sessions' updates, never past anything else): a flood
// waits as a few large updates, and every line still arrives, in order
// with the other events.
func TestTranscriptUpdatesMergeAsTheyQueue(t *testing.T) {
	o, release, delivered := heldOutbox(t)
	for i := 0; i < 1000; i++ {
		o.Send(EvTranscript, &growing{Session: 1, N: 2})
		o.Send(EvTranscript, &growing{Session: 2, N: 1})
		if i == 500 {
			o.Send(EvRequestAdded, "a request")
		}
	}
	events, queued := o.Queued()
	// Session 1: 2,000 lines in updates of 300; session 2: 1,000 in updates
	// of 300; the request cuts each session's run in two.
	if events > 20 || queued != 3000 {
		t.Fatalf("queued %d events, %d lines", events, queued)
	}
	release()
	o.Close()
	lines := map[int]int{}
	request := -1
	for i, ev := range delivered() {
		switch ev.Name {
		case EvTranscript:
			var g growing
			b, _ := json.Marshal(ev.Data)
			_ = json.Unmarshal(b, &g)
			lines[g.Session] += g.N
			if request >= 0 && i > request && lines[g.Session] <= 1000 && g.Session == 1 {
				t.Fatalf("session 1's lines before the request came after it: %d", lines[1])
			}
		case EvRequestAdded:
			request = i
			if lines[1] != 1002 || lines[2] != 501 {
				t.Fatalf("before the request: %v", lines)
			}
		}
	}
	if lines[1] != 2000 || lines[2] != 1000 || request < 0 {
		t.Fatalf("delivered %v, request at %d", lines, request)
	}
}

func TestHoldDeliversEventsSentTogetherInOneBatch(t *testing.T) {
	// A hold's own bound (20 ms) is not what this tests: under the race
	// detector, beside the e2e suite, the millisecond's sleep below took
	// longer, and the hold was given up as designed.
	o, batches := namingOutbox(time.Minute, transcriptGap)
	defer o.Close()
	for round := 0; round < 50; round++ {
		release := Hold(o)
		o.Send(EvRequestAdded, round)
		time.Sleep(time.Millisecond) // the outbox takes the first one meanwhile
		o.Send(EvSession, round)
		o.Send(EvPresent, round)
		release()
		release() // a second release does nothing
		select {
		case got := <-batches:
			if want := []string{EvRequestAdded, EvSession, EvPresent}; !slices.Equal(got, want) {
				t.Fatalf("round %d: batch %v, want %v in one", round, got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: nothing delivered", round)
		}
	}
}

func TestAForgottenHoldDoesNotStopTheStream(t *testing.T) {
	got := make(chan string, 4)
	// A bound long beside the 2 ms below (a loaded machine stretches it),
	// short beside the 5 s the forgotten hold is given.
	o := newOutbox(func(batch string) error { got <- batch; return nil }, slog.New(slog.DiscardHandler), 200*time.Millisecond, transcriptGap)
	defer o.Close()
	late := o.Hold() // never released in time
	o.Send(EvNotify, "a")
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("a forgotten hold stopped delivery")
	}
	late() // given up already: it must not release the next hold
	release := o.Hold()
	o.Send(EvRequestAdded, 1)
	time.Sleep(2 * time.Millisecond)
	o.Send(EvPresent, 1)
	release()
	if b := <-got; !strings.Contains(b, EvRequestAdded) || !strings.Contains(b, EvPresent) {
		t.Fatalf("after a given-up hold, a new hold did not hold: %s", b)
	}
}

// A Sink that cannot hold is handed a release that does nothing.
func TestHoldOfASinkThatCannotHold(t *testing.T) {
	Hold(sinkFunc(func(string, any) {}))()
}

type sinkFunc func(string, any)

func (f sinkFunc) Send(name string, data any) { f(name, data) }

// Transcript text that comes after a quiet spell goes at once; text that
// follows it within the gap waits for the gap, or for the next event that
// goes at once, and goes with it. (Held for the gap, a tool call claude
// names reached Neovim as the permission request that follows it did, and
// the request waited for it.) The gap here is an hour: what waits for it
// is seen waiting.
func TestTextAfterAQuietSpellGoesAtOnce(t *testing.T) {
	o, batches := namingOutbox(time.Minute, time.Hour)
	defer o.Close()
	next := func(what string) []string {
		t.Helper()
		select {
		case got := <-batches:
			return got
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: nothing delivered", what)
			return nil
		}
	}
	o.Send(EvNotify, "a delivery: the gap counts from it")
	next("the note")
	o.Send(EvTranscript, &growing{Session: 1, N: 1})
	if got := next("text after a quiet spell"); !slices.Equal(got, []string{EvTranscript}) {
		t.Fatalf("text after a quiet spell: %v", got)
	}
	o.Send(EvTranscript, &growing{Session: 1, N: 1}) // within the gap: it waits
	o.Send(EvRequestAdded, "a request")
	if got := next("text within the gap, then a request"); !slices.Equal(got, []string{EvTranscript, EvRequestAdded}) {
		t.Fatalf("text within the gap did not wait for the request: %v", got)
	}
}

// namingOutbox is an outbox whose deliveries come out of batches as the
// names of their events, one slice a delivery.
func namingOutbox(maxHold, gap time.Duration) (*Outbox, chan []string) {
	batches := make(chan []string, 16)
	o := newOutbox(func(batch string) error {
		var evs []Event
		_ = json.Unmarshal([]byte(batch), &evs)
		var names []string
		for _, e := range evs {
			names = append(names, e.Name)
		}
		batches <- names
		return nil
	}, slog.New(slog.DiscardHandler), maxHold, gap)
	return o, batches
}
