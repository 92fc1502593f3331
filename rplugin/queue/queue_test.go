package queue

import (
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
