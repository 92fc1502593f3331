package queue

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func TestOrderAndNoBlock(t *testing.T) {
	q := New[int]()
	// Pushing many items with no reader must not block.
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10000; i++ {
			q.Push(i)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Push blocked without a reader")
	}
	q.Close()
	want := 0
	for v := range q.Out() {
		if v != want {
			t.Fatalf("got %d, want %d", v, want)
		}
		want++
	}
	if want != 10000 {
		t.Fatalf("delivered %d items, want 10000", want)
	}
	q.Push(1) // after close: dropped, no panic
}

func TestBoundedHoldsTheProducerBack(t *testing.T) {
	q := NewBounded[string](10, func(s string) int { return len(s) })
	q.Push("aaaaa")
	q.Push("bbbbb") // 10 bytes: full
	pushed := make(chan struct{})
	go func() { q.Push("c"); close(pushed) }()
	deadline := time.Now().Add(10 * time.Second)
	for q.Held() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the third Push did not wait for room")
		}
		time.Sleep(time.Millisecond)
	}
	if got := <-q.Out(); got != "aaaaa" {
		t.Fatalf("got %q", got)
	}
	<-pushed // room was made: it went in
	// One item larger than the limit passes when the queue is empty.
	if got := <-q.Out(); got != "bbbbb" {
		t.Fatalf("got %q", got)
	}
	if got := <-q.Out(); got != "c" {
		t.Fatalf("got %q", got)
	}
	big := make(chan struct{})
	go func() { q.Push("a string over the limit"); close(big) }()
	if got := <-q.Out(); got != "a string over the limit" {
		t.Fatalf("got %q", got)
	}
	<-big
	// Close lets a waiting Push go (its item dropped) and ends Out.
	q.Push("0123456789")
	go q.Push("x")
	for q.Held() != 1 {
		time.Sleep(time.Millisecond)
	}
	q.Close()
	n := 0
	for range q.Out() {
		n++
	}
	if n != 1 {
		t.Fatalf("%d items after close, want 1", n)
	}
}

// A consumer that waits on Out takes items straight from Push when nothing
// older waits: the order holds whichever way each item goes, whether the
// consumer keeps up or falls behind, with several producers each in order.
func TestOrderWhetherTheConsumerWaitsOrNot(t *testing.T) {
	for _, bounded := range []bool{false, true} {
		q := New[[2]int]()
		if bounded {
			q = NewBounded[[2]int](64, func([2]int) int { return 8 })
		}
		const producers, each = 4, 20000
		var wg sync.WaitGroup
		for p := 0; p < producers; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					q.Push([2]int{p, i})
					if rand.IntN(64) == 0 {
						time.Sleep(time.Microsecond) // the consumer catches up: it waits
					}
				}
			}()
		}
		go func() { wg.Wait(); q.Close() }()
		next := make([]int, producers)
		n := 0
		for v := range q.Out() {
			if v[1] != next[v[0]] {
				t.Fatalf("bounded %v: producer %d's item %d came when %d was due", bounded, v[0], v[1], next[v[0]])
			}
			next[v[0]]++
			n++
			if rand.IntN(256) == 0 {
				time.Sleep(time.Microsecond) // the consumer falls behind: items queue
			}
		}
		if n != producers*each {
			t.Fatalf("bounded %v: %d items delivered, want %d", bounded, n, producers*each)
		}
	}
}

// BenchmarkHandoff is one item's way from Push to a consumer waiting on
// Out, and back (a ping-pong of two queues): the turn of the editor's
// requests through a session's queue.
func BenchmarkHandoff(b *testing.B) {
	there, back := New[int](), New[int]()
	go func() {
		for v := range there.Out() {
			back.Push(v)
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		there.Push(i)
		<-back.Out()
	}
	b.StopTimer()
	there.Close()
	back.Close()
}
