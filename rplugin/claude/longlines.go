package claude

import "time"

// LongLines bounds how many lines longer than the read buffer (a whole
// reply, a large tool result) the host's claudes are read at once. Reading
// one costs about twice its size until it is decoded; eight sessions that
// end a long reply in the same moment would otherwise hold all of them
// together. A reader that waits for its turn leaves its claude's stdout
// unread (the pipe holds claude back); a reader keeps its turn until its
// line is queued (a long line waits for its session's queue to empty). A
// turn is a bound on memory, not a lock: a reader that waited maxWait (a
// claude that stopped in the middle of a line, a session whose handler is
// slow, hold their turn) goes on without one, so no session ever waits on
// another for long.
// One LongLines is shared by the processes of a host; nil bounds nothing.
type LongLines struct {
	turns   chan struct{}
	maxWait time.Duration
}

// NewLongLines lets n long lines be read at once.
func NewLongLines(n int) *LongLines {
	return &LongLines{turns: make(chan struct{}, max(n, 1)), maxWait: 500 * time.Millisecond}
}

// DefaultLongLines is how many long lines a host reads at once.
const DefaultLongLines = 1

// take waits for a turn, at most maxWait; it reports whether it got one
// (then give returns it).
func (l *LongLines) take() bool {
	if l == nil {
		return false
	}
	select {
	case l.turns <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(l.maxWait)
	defer t.Stop()
	select {
	case l.turns <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

func (l *LongLines) give() {
	if l != nil {
		<-l.turns
	}
}
