package claude

// LongLines bounds how many lines longer than the read buffer (a whole
// reply, a large tool result) the host's claudes are read at once. Reading
// one costs about twice its size until it is decoded; eight sessions that
// end a long reply in the same moment would otherwise hold all of them
// together. A reader that waits for its turn leaves its claude's stdout
// unread (the pipe holds claude back), and every reader takes its turn
// before it queues the line, so a turn never waits on a session's handler.
// One LongLines is shared by the processes of a host; nil bounds nothing.
type LongLines struct{ turns chan struct{} }

// NewLongLines lets n long lines be read at once.
func NewLongLines(n int) *LongLines {
	return &LongLines{turns: make(chan struct{}, max(n, 1))}
}

// DefaultLongLines is how many long lines a host reads at once.
const DefaultLongLines = 2

func (l *LongLines) take() {
	if l != nil {
		l.turns <- struct{}{}
	}
}

func (l *LongLines) give() {
	if l != nil {
		<-l.turns
	}
}
