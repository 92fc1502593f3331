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
const MaxQueuedBytes = 256 << 10

// readBuffer is the size of the buffer claude's stdout is read through.
const readBuffer = 64 << 10

func (p *Process) read(r io.Reader) {
	br := bufio.NewReaderSize(r, readBuffer)
	var scratch []byte
	long := false // this line took a turn of the host's long lines
	take := func() { long = p.long.take() }
	for {
		long = false
		line, own, tooLong, err := readLine(br, MaxLineBytes, scratch[:0], take)
		if !own {
			scratch = line // a line that fit the reader's buffer: reused
		}
		var m Message
		ok := false
		if tooLong > 0 {
			p.log.Warn("skipped over-long line from claude", "bytes", tooLong)
		} else if len(line) > 0 {
			m, ok = p.decode(line, own)
		}
		if ok {
			// A long line waits until the session's queue is empty
			// (queue.NewBounded): it holds its turn meanwhile, so the
			// host holds one such line read and one queued, not one per
			// session.
			p.msgs.Push(m)
		}
		if long {
			p.long.give()
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.log.Warn("reading claude stdout", "err", err)
			}
			return
		}
	}
}

// readLine returns the next line without its newline. A line that fits the
// reader's buffer is in scratch's storage (own is false: the caller copies
// what it keeps); a longer one is in storage of exactly its size, made for
// it (own): a session's long message (a whole reply) is copied once, and no
// buffer of its size outlives it. Once a line turns out longer than the
// buffer, long is called (before more of it is read). A line longer than
// max is consumed and reported by its length in tooLong instead.
func readLine(br *bufio.Reader, max int, scratch []byte, long func()) (line []byte, own bool, tooLong int, err error) {
	var parts [][]byte // the buffer-sized parts of a long line
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			if n == len(chunk) && long != nil {
				long()
			}
			if n <= max {
				parts = append(parts, bytes.Clone(chunk))
			} else {
				parts = nil
			}
			continue
		}
		switch {
		case n > max:
			return nil, false, n, err
		case parts == nil:
			return trimEOL(append(scratch, chunk...)), false, 0, err
		}
		line = make([]byte, 0, n)
		for _, p := range parts {
			line = append(line, p...)
		}
		return trimEOL(append(line, chunk...)), true, 0, err
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

// decode decodes a line; ok is false for a blank or malformed one and for
// the answer to a control request, which goes to its caller. own says the
// line's storage is its own (else it is copied: the read buffer is used
// again).
func (p *Process) decode(line []byte, own bool) (m Message, ok bool) {
	if len(strings.TrimSpace(string(line[:min(len(line), 64)]))) == 0 {
		return Message{}, false
	}
	if !own {
		// A copy of exactly its size: a queued line holds no spare
		// capacity.
		line = bytes.Clone(line)
	}
	m, err := ParseLine(line)
	if err != nil {
		p.log.Warn("skipped malformed line from claude", "err", err, "bytes", len(line), "head", preview(line))
		return Message{}, false
	}
	p.novel.Note(m, p.log)
	if m.Undecoded == nil && typedWhole[m.Type] {
		m.Raw = nil // its typed value holds it all
	}
	if m.Type == "control_response" {
		p.cmu.Lock()
		ch, waiting := p.calls[m.RequestID]
		delete(p.calls, m.RequestID)
		p.cmu.Unlock()
		if waiting {
			ch <- m
			return Message{}, false
		}
	}
	return m, true
}

// typedWhole are the kinds whose typed value holds all that is read of
// them: their line is not kept beside it.
var typedWhole = map[string]bool{
	"assistant": true, "user": true, "result": true, "stream_event": true,
	"tool_progress": true, "rate_limit_event": true, "command_lifecycle": true,
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
			return
		}
		p.holdMode(p.mode)
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
