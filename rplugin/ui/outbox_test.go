package ui

import (
	"encoding/json"
	"log/slog"
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
		{"t", &appendData{"a", "1"}}, {"t", &appendData{"b", "x"}}, {"t", &appendData{"a", "2"}},
		{"other", 1},
		{"t", &appendData{"a", "3"}}, {"t", &appendData{"a", "4"}},
	}
	out := coalesce(in)
	b, _ := json.Marshal(out)
	want := `[{"event":"t","data":{"Key":"a","Text":"12"}},{"event":"t","data":{"Key":"b","Text":"x"}},{"event":"other","data":1},{"event":"t","data":{"Key":"a","Text":"34"}}]`
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
	batch := []Event{{"t", sized(100)}, {"t", sized(250)}, {"x", 1}, {"t", sized(100)}, {"t", sized(900)}, {"t", sized(10)}}
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

type lines struct {
	Session int
	N       int
}

func (l *lines) Size() int      { return l.N }
func (l *lines) SessionID() int { return l.Session }

// While Neovim cannot take events, the queue stays bounded: a session's
// transcript updates past the limit become one resync; requests are kept.
func TestOutboxBoundsTranscriptsNeverRequests(t *testing.T) {
	release := make(chan struct{})
	taken := make(chan struct{}, 1)
	var mu sync.Mutex
	var names []string
	o := NewOutbox(func(batch string) error {
		select {
		case taken <- struct{}{}:
		default:
		}
		<-release
		var evs []Event
		_ = json.Unmarshal([]byte(batch), &evs)
		mu.Lock()
		for _, e := range evs {
			names = append(names, e.Name)
		}
		mu.Unlock()
		return nil
	}, slog.New(slog.DiscardHandler))
	o.Send(EvNotify, "blocks the outbox") // taken at once; exec waits for release
	<-taken
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
	close(release)
	o.Close()
	mu.Lock()
	defer mu.Unlock()
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	if count[EvRequestAdded] != 1 || count[EvTranscriptResync] < 1 {
		t.Fatalf("delivered %v", count)
	}
}
