// Package queue provides an unbounded FIFO so that a producer (claude's
// stdout reader, a session) never blocks on a slow consumer (Neovim).
package queue

import "sync"

// Queue is an unbounded FIFO. Push never blocks. Out delivers items in order.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T
	wake   chan struct{}
	out    chan T
	closed bool
	done   chan struct{}
}

// New starts a queue whose items are delivered on Out.
func New[T any]() *Queue[T] {
	q := &Queue[T]{wake: make(chan struct{}, 1), out: make(chan T), done: make(chan struct{})}
	go q.pump()
	return q
}

// Push appends v. It never blocks; pushing after Close drops v.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Close stops accepting items; Out is closed once the queued items are delivered.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Out is the channel items are delivered on.
func (q *Queue[T]) Out() <-chan T { return q.out }

// Len reports how many items wait to be delivered.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

func (q *Queue[T]) pump() {
	defer close(q.out)
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			<-q.wake
			continue
		}
		v := q.items[0]
		var zero T
		q.items[0] = zero
		q.items = q.items[1:]
		q.mu.Unlock()
		q.out <- v
	}
}
