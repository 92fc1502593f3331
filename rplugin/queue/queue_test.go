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
