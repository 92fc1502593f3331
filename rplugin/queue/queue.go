// Package queue provides the FIFO between a producer and its consumer: an
// unbounded one, so that a producer (a session's UI events, gestures that
// take time) never blocks on a slow consumer, or one bounded in bytes, so
// that a producer that reads faster than its consumer works (claude's
// stdout reader) is held back instead of holding everything in memory.
package queue

import "sync"

// Queue is a FIFO whose items are delivered on Out, in order.
type Queue[T any] struct {
	mu     sync.Mutex
	room   *sync.Cond
	items  []T
	bytes  int
	limit  int // 0: unbounded
	size   func(T) int
	wake   chan struct{}
	out    chan T
	closed bool
	held   int  // pushers waiting for room
	hands  bool // the pump holds an item it is handing to the consumer
}

// New starts an unbounded queue: Push never blocks.
func New[T any]() *Queue[T] { return NewBounded[T](0, nil) }

// NewBounded starts a queue that holds at most limit bytes of items (size
// tells an item's bytes): Push waits while it is full. One item larger
// than limit is let through when the queue is empty. Its consumer must
// never wait on its producer.
func NewBounded[T any](limit int, size func(T) int) *Queue[T] {
	if size == nil {
		size = func(T) int { return 0 }
	}
	q := &Queue[T]{limit: limit, size: size, wake: make(chan struct{}, 1), out: make(chan T)}
	q.room = sync.NewCond(&q.mu)
	go q.pump()
	return q
}

// Push appends v, waiting while a bounded queue is full; pushing after
// Close drops v.
func (q *Queue[T]) Push(v T) {
	n := q.size(v)
	q.mu.Lock()
	// Empty means nothing counted: the item the pump hands over counts
	// until the consumer has it.
	for q.limit > 0 && !q.closed && q.bytes > 0 && q.bytes+n > q.limit {
		q.held++
		q.room.Wait()
		q.held--
	}
	if q.closed {
		q.mu.Unlock()
		return
	}
	if len(q.items) == 0 && !q.hands {
		// Nothing older waits anywhere: a consumer waiting on Out takes v
		// from this goroutine, without the pump's turn in between (a
		// goroutine woken on another thread, a tenth of a millisecond
		// on a loaded machine, on the way of every request to the
		// editor).
		select {
		case q.out <- v:
			q.mu.Unlock()
			return
		default:
		}
	}
	q.items = append(q.items, v)
	q.bytes += n
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Close stops accepting items (a waiting Push returns); Out is closed once
// the queued items are delivered.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.room.Broadcast()
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

// Held reports how many Push calls wait for room.
func (q *Queue[T]) Held() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held
}

// Bytes reports the size of the items not yet handed to the consumer.
func (q *Queue[T]) Bytes() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
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
		q.hands = true
		q.mu.Unlock()
		q.out <- v
		// Counted until handed over: the consumer holds it now.
		q.mu.Lock()
		q.hands = false
		q.bytes -= q.size(v)
		q.room.Broadcast()
		q.mu.Unlock()
	}
}
