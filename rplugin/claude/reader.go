package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// MaxLineBytes bounds one stdout line. Longer lines are skipped (and logged),
// never buffered without limit.
const MaxLineBytes = 64 << 20

// Messages delivers decoded stdout lines in order; closed after exit.
func (p *Process) Messages() <-chan Message { return p.msgs.Out() }

// MaxQueuedBytes bounds the lines read from claude that wait for the
// session to handle them. Past it the reader waits (claude's stdout pipe
// then holds it back): memory stays bounded while the host works through a
// burst from several sessions. The session's consumer never waits on
// Neovim (the UI queue drops and resyncs), so the reader only waits for
// work the host is doing.
const MaxQueuedBytes = 1 << 20

func (p *Process) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var scratch []byte
	for {
		line, tooLong, err := readLine(br, MaxLineBytes, scratch[:0])
		// Queued lines are exact copies (dispatch); a large scratch buffer
		// is not kept for the next, small, line.
		if cap(line) <= 1<<20 {
			scratch = line
		} else {
			scratch = nil
		}
		if tooLong > 0 {
			p.log.Warn("skipped over-long line from claude", "bytes", tooLong)
		} else if len(line) > 0 {
			p.dispatch(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.log.Warn("reading claude stdout", "err", err)
			}
			return
		}
	}
}

// readLine returns the next line without its newline, in buf's storage
// when it fits. A line longer than max is consumed and reported by its
// length in tooLong instead.
func readLine(br *bufio.Reader, max int, buf []byte) (line []byte, tooLong int, err error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n <= max {
			buf = append(buf, chunk...)
		} else {
			buf = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n > max {
			return nil, n, err
		}
		buf = trimEOL(buf)
		return buf, 0, err
	}
}

func trimEOL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

func (p *Process) dispatch(line []byte) {
	if len(strings.TrimSpace(string(line[:min(len(line), 64)]))) == 0 {
		return
	}
	// A copy of exactly its size: the read buffer is used again, and a
	// queued line holds no spare capacity.
	line = bytes.Clone(line)
	m, err := ParseLine(line)
	if err != nil {
		p.log.Warn("skipped malformed line from claude", "err", err, "bytes", len(line), "head", preview(line))
		return
	}
	if m.Type == "control_response" {
		p.cmu.Lock()
		ch, ok := p.calls[m.RequestID]
		delete(p.calls, m.RequestID)
		p.cmu.Unlock()
		if ok {
			ch <- m
			return
		}
	}
	p.msgs.Push(m)
}

func preview(b []byte) string {
	if len(b) > 120 {
		b = b[:120]
	}
	return strconv.Quote(string(b))
}

func (p *Process) failCalls() {
	p.cmu.Lock()
	defer p.cmu.Unlock()
	for id, ch := range p.calls {
		close(ch)
		delete(p.calls, id)
	}
}

// handshake waits for claude's answer to initialize, then lets user
// messages through.
func (p *Process) handshake(ch chan Message) {
	defer close(p.initDone)
	select {
	case m, ok := <-ch:
		if !ok {
			p.initErr = errors.New("initialize: claude exited before answering")
			return
		}
		p.initResp, p.initErr = controlResult("initialize", m)
		if p.initErr != nil {
			p.log.Warn("initialize refused", "err", p.initErr)
		}
	case <-time.After(initTimeout):
		p.initErr = fmt.Errorf("initialize: no answer after %s", initTimeout)
		p.log.Warn("initialize not answered; sending anyway", "after", initTimeout)
	case <-p.done:
		p.initErr = errors.New("initialize: claude exited before answering")
	}
}

// Initialized is closed once claude answered initialize (or failed to).
func (p *Process) Initialized() <-chan struct{} { return p.initDone }

// InitResponse is claude's answer to initialize (slash commands, models, …);
// valid once Initialized is closed.
func (p *Process) InitResponse() (json.RawMessage, error) {
	select {
	case <-p.initDone:
		return p.initResp, p.initErr
	default:
		return nil, errors.New("initialize: not answered yet")
	}
}
