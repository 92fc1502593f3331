package claude

import (
	"bytes"
	"log/slog"
	"sync"
)

// StderrTail returns the last few KiB claude wrote to stderr.
func (p *Process) StderrTail() string { return p.stderr.String() }

// tail keeps the end of claude's stderr and logs each line.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	log  *slog.Logger
	part []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.log.Info("claude stderr", "line", string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	if len(t.part) > t.max {
		t.part = t.part[len(t.part)-t.max:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
