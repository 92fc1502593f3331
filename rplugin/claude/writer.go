package claude

import (
	"encoding/json"
	"errors"
	"fmt"
)

// writeQueueLen bounds the lines waiting to be written to claude's stdin.
// Producers never wait on claude: a full queue is an error (claude stopped
// reading its input), never a stall of the caller.
const writeQueueLen = 256

// ErrBackedUp is returned when claude has stopped reading its input and the
// write queue is full.
var ErrBackedUp = errors.New("claude is not reading its input (write queue full)")

// ErrExited is returned for a write to a claude that has exited.
var ErrExited = errors.New("claude has exited")

// outLine is one line waiting for the writer. user lines wait until claude
// has answered initialize; close ends the input (done is closed once it is).
type outLine struct {
	b     []byte
	user  bool
	close chan struct{}
}

// writeLoop writes queued lines in order; user lines wait for initialize.
func (p *Process) writeLoop() {
	var held [][]byte
	initDone := p.initDone
	broken := false
	write := func(b []byte) {
		if broken {
			return
		}
		if _, err := p.stdin.Write(b); err != nil {
			broken = true
			p.log.Warn("write to claude", "err", err)
		}
	}
	// initialized lets the held lines go once initialize is answered (or
	// drops them when claude refused the mode).
	initialized := func() {
		initDone = nil
		if p.refused.Load() {
			// claude would not run in the mode the user chose: not
			// one prompt reaches it (the session is stopped).
			p.log.Warn("user lines dropped: claude is not in the chosen permission mode", "lines", len(held))
			held = nil
			broken = true
			return
		}
		for _, b := range held {
			write(b)
		}
		held = nil
	}
	for {
		select {
		case l := <-p.out:
			if initDone != nil {
				// select picks at random among ready cases: a line queued
				// after initialize was answered must not pass it (a close
				// would write the held prompts of a refused claude).
				select {
				case <-initDone:
					initialized()
				default:
				}
			}
			switch {
			case l.close != nil:
				for _, b := range held {
					write(b)
				}
				held = nil
				_ = p.stdin.Close()
				close(l.close)
				return
			case l.user && initDone != nil:
				held = append(held, l.b)
			default:
				write(l.b)
			}
		case <-initDone:
			initialized()
		case <-p.done:
			return
		}
	}
}

// enqueue hands a line to the writer without waiting for claude.
func (p *Process) enqueue(l outLine) error {
	if p.closing.Load() {
		return ErrExited
	}
	select {
	case <-p.done:
		return ErrExited
	default:
	}
	select {
	case p.out <- l:
		return nil
	default:
		return ErrBackedUp
	}
}

func encodeLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return append(b, '\n'), nil
}

// Send queues one JSON object as a line for claude's stdin.
func (p *Process) Send(v any) error {
	b, err := encodeLine(v)
	if err != nil {
		return err
	}
	return p.enqueue(outLine{b: b})
}

// SendUser queues a user prompt; it is written once claude has answered
// initialize. Notes, if any, go first in the same message, each as a text
// block of its own (the prompt is the last block). A non-empty uuid names
// the message: claude keys the file checkpoint of the turn it starts by it
// (rewind_files).
func (p *Process) SendUser(uuid, text string, notes ...string) error {
	b, err := userLine(uuid, text, notes...)
	if err != nil {
		return err
	}
	return p.enqueue(outLine{b: b, user: true})
}

// SendNote queues a user message no person typed (a note of the
// plugin's for Claude), marked isSynthetic: claude hands it to the model
// as "[MESSAGE FROM NON-USER SOURCE - NOT USER INPUT]\n…" (2.1.300, 2.1.328
// and 2.1.332), not as words of the user's.
func (p *Process) SendNote(text string) error {
	b, err := noteLine(text)
	if err != nil {
		return err
	}
	return p.enqueue(outLine{b: b, user: true})
}

func userLine(uuid, text string, notes ...string) ([]byte, error) {
	return userMessage(uuid, text, false, notes)
}

// noteLine is a user message no person typed.
func noteLine(text string) ([]byte, error) { return userMessage("", text, true, nil) }

func userMessage(uuid, text string, synthetic bool, notes []string) ([]byte, error) {
	var content any = text
	if len(notes) > 0 {
		var blocks []map[string]string
		for _, n := range notes {
			blocks = append(blocks, map[string]string{"type": "text", "text": n})
		}
		content = append(blocks, map[string]string{"type": "text", "text": text})
	}
	line := map[string]any{
		"type":               "user",
		"message":            map[string]any{"role": "user", "content": content},
		"parent_tool_use_id": nil,
		"session_id":         "",
	}
	if uuid != "" {
		line["uuid"] = uuid
	}
	if synthetic {
		line["isSynthetic"] = true
	}
	return encodeLine(line)
}
