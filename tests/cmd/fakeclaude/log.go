package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"sync"
	"unicode/utf8"
)

// logLineCap is how many bytes of a stdin/stdout line are copied into the log;
// longer lines are truncated and carry "truncated":true plus a sha256.
const logLineCap = 64 << 10

// logger appends one JSON object per line to FAKECLAUDE_LOG. Each line is a
// single write(2) on an O_APPEND file, so tests can tail it while fakeclaude
// runs and several fakeclaude processes may share one log.
type logger struct {
	mu  sync.Mutex
	f   *os.File
	pid int
}

func openLogger(path string) (*logger, error) {
	l := &logger{pid: os.Getpid()}
	if path == "" {
		return l, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	l.f = f
	return l, nil
}

func (l *logger) write(t string, fields ...kv) {
	if l == nil || l.f == nil {
		return
	}
	o := append(O{{"t", t}, {"pid", l.pid}, {"ts", nowTS()}}, fields...)
	b, err := marshal(o)
	if err != nil {
		b, _ = marshal(O{{"t", "log_error"}, {"pid", l.pid}, {"err", err.Error()}})
	}
	b = append(b, '\n')
	l.mu.Lock()
	_, _ = l.f.Write(b)
	l.mu.Unlock()
}

func (l *logger) event(ev string, fields ...kv) {
	l.write("event", append([]kv{{"ev", ev}}, fields...)...)
}

// summary is the routing part of a protocol line.
type summary struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
}

// summarize parses a line; ok is false for anything that is not a JSON object.
// For control messages Subtype/RequestID are lifted from request/response.
func summarize(b []byte) (s summary, ok bool) {
	if len(b) == 0 || b[0] != '{' {
		return s, false
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false
	}
	switch s.Type {
	case "control_request":
		var r struct {
			Subtype string `json:"subtype"`
		}
		_ = json.Unmarshal(s.Request, &r)
		s.Subtype = r.Subtype
	case "control_response":
		var r struct {
			Subtype   string `json:"subtype"`
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(s.Response, &r)
		s.Subtype, s.RequestID = r.Subtype, r.RequestID
	}
	return s, true
}

// lineFields describes a line for a recv/sent log entry.
func lineFields(b []byte, s summary, ok bool) []kv {
	var f []kv
	if ok {
		if s.Type != "" {
			f = append(f, kv{"type", s.Type})
		}
		if s.Subtype != "" {
			f = append(f, kv{"subtype", s.Subtype})
		}
		if s.RequestID != "" {
			f = append(f, kv{"request_id", s.RequestID})
		}
	} else {
		f = append(f, kv{"malformed", true})
	}
	f = append(f, kv{"len", len(b)})
	body := b
	if len(b) > logLineCap {
		body = b[:logLineCap]
		sum := sha256.Sum256(b)
		f = append(f, kv{"truncated", true}, kv{"sha256", hex.EncodeToString(sum[:])})
	}
	if !utf8.Valid(b) {
		f = append(f, kv{"invalid_utf8", true}, kv{"line_b64", base64.StdEncoding.EncodeToString(body)})
	}
	return append(f, kv{"line", string(body)})
}

// output serialises whole lines onto stdout (one write per line) and logs them.
type output struct {
	mu  sync.Mutex
	w   io.Writer
	log *logger
}

func (o *output) line(b []byte) {
	buf := make([]byte, len(b)+1)
	copy(buf, b)
	buf[len(b)] = '\n'
	s, ok := summarize(b)
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.w.Write(buf); err != nil {
		o.log.event("stdout_error", kv{"err", err.Error()})
		return
	}
	o.log.write("sent", lineFields(b, s, ok)...)
}

// bytesNoNewline writes b verbatim (no newline appended).
func (o *output) bytesNoNewline(b []byte) {
	s, ok := summarize(b)
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.w.Write(b); err != nil {
		o.log.event("stdout_error", kv{"err", err.Error()})
		return
	}
	o.log.write("sent", append(lineFields(b, s, ok), kv{"no_newline", true})...)
}

func (o *output) json(v any) {
	b, err := marshal(v)
	if err != nil {
		o.log.event("marshal_error", kv{"err", err.Error()})
		return
	}
	o.line(b)
}
