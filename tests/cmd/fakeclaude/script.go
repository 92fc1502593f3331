package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// step is one parsed line of a script.
type step struct {
	line int    // 1-based line number in the script
	op   string // the operation key, e.g. "ask"
	arg  json.RawMessage

	timeout time.Duration // "timeout_ms" modifier; 0 = wait forever
	newline bool          // raw / raw_b64: append "\n" (default true)
	data    []byte        // raw / raw_b64 / stderr payload
	n       int64         // big / expect_answers / sleep_ms / exit
	str     string        // big "as", cancel target, wait substring, unknown_control subtype
	fill    string        // big "fill"
	obj     O             // result overrides / unknown_control request extras
	ask     *askSpec
	stream  streamSpec
	reqID   string // unknown_control "request_id"
	wait    bool   // unknown_control "wait"
}

// askSpec describes a can_use_tool permission request.
type askSpec struct {
	toolName      string
	input         json.RawMessage
	extra         O // passed through into the request verbatim, in order
	requestID     string
	toolUseID     string
	timeout       time.Duration
	assistant     bool          // emit the assistant tool_use message first
	checks        time.Duration // then pause this long before asking ("checks_ms")
	resultContent string
}

type streamSpec struct {
	N          int    `json:"n"`
	Chunk      string `json:"chunk"`
	IntervalMS int    `json:"interval_ms"`
	Framing    bool   `json:"framing"`
	Final      *bool  `json:"final"`
}

// controlOverride changes how fakeclaude answers a client control_request.
type controlOverride struct {
	Ignore   bool            `json:"ignore"`
	Error    string          `json:"error"`
	DelayMS  int             `json:"delay_ms"`
	Response json.RawMessage `json:"response"`
}

// config is the union of all {"config":{...}} steps (applied at load time).
type config struct {
	Control       map[string]controlOverride `json:"control"`
	Interrupt     string                     `json:"interrupt"`   // "abort_turn" (default) | "continue"
	SystemInit    *bool                      `json:"system_init"` // emit system/init (default true)
	DoneText      string                     `json:"done_text"`   // reply text after the script ends
	IgnoreSigterm bool                       `json:"ignore_sigterm"`
	Tools         []string                   `json:"tools"`
	Model         string                     `json:"model"`
}

type script struct {
	steps   []*step
	start   string // "user" (default) | "immediate" | "initialize"
	endMode string // "stay" (default) | "exit"
	cfg     config
}

// ops lists every step operation and the modifier keys it accepts.
var ops = map[string][]string{
	"start":                    nil,
	"end":                      nil,
	"config":                   nil,
	"comment":                  nil,
	"emit":                     nil,
	"raw":                      {"newline"},
	"raw_b64":                  {"newline"},
	"big":                      {"as", "fill"},
	"ask":                      {"timeout_ms"},
	"ask_nowait":               nil,
	"expect_answers":           {"timeout_ms"},
	"cancel":                   nil,
	"sleep_ms":                 nil,
	"stream_text":              nil,
	"result":                   nil,
	"say":                      nil,
	"exit":                     nil,
	"crash":                    nil,
	"hang":                     nil,
	"spawn_child":              nil,
	"unknown_control":          {"request", "request_id", "wait", "timeout_ms"},
	"wait_stdin_line_matching": {"timeout_ms"},
	"stderr":                   nil,
	"on_user":                  {"timeout_ms"},
}

func parseScript(text []byte) (*script, error) {
	sc := &script{start: "user", endMode: "stay"}
	r := bufio.NewReader(bytes.NewReader(text))
	lineNo := 0
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			lineNo++
			t := bytes.TrimSpace(b)
			if len(t) > 0 && t[0] != '#' && !bytes.HasPrefix(t, []byte("//")) {
				st, perr := parseStep(t, sc)
				if perr != nil {
					return nil, fmt.Errorf("script line %d: %w", lineNo, perr)
				}
				if st != nil {
					st.line = lineNo
					sc.steps = append(sc.steps, st)
				}
			}
		}
		if err != nil {
			break
		}
	}
	return sc, nil
}

func parseStep(t []byte, sc *script) (*step, error) {
	fields, err := parseOrdered(t)
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	var found []string
	for _, f := range fields {
		m[f.K] = f.V.(json.RawMessage)
		if _, ok := ops[f.K]; ok && f.K != "comment" {
			found = append(found, f.K)
		}
	}
	if len(found) == 0 {
		if _, ok := m["comment"]; ok && len(m) == 1 {
			return nil, nil
		}
		return nil, fmt.Errorf("no operation key in %s", t)
	}
	if len(found) > 1 {
		return nil, fmt.Errorf("several operation keys %v in one step", found)
	}
	st := &step{op: found[0], arg: m[found[0]], newline: true}
	allowed := map[string]bool{st.op: true, "comment": true}
	for _, k := range ops[st.op] {
		allowed[k] = true
	}
	var unknown []string
	for k := range m {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown key(s) %v", st.op, unknown)
	}
	strict := func(raw json.RawMessage, v any) error {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("%s: %w", st.op, err)
		}
		return nil
	}
	if raw, ok := m["timeout_ms"]; ok {
		var ms int64
		if err := strict(raw, &ms); err != nil {
			return nil, err
		}
		st.timeout = time.Duration(ms) * time.Millisecond
	}

	switch st.op {
	case "start":
		if err := strict(st.arg, &sc.start); err != nil {
			return nil, err
		}
		switch sc.start {
		case "user", "immediate", "initialize":
		default:
			return nil, fmt.Errorf("start: want user|immediate|initialize, got %q", sc.start)
		}
		return nil, nil
	case "end":
		if err := strict(st.arg, &sc.endMode); err != nil {
			return nil, err
		}
		if sc.endMode != "exit" && sc.endMode != "stay" {
			return nil, fmt.Errorf("end: want exit|stay, got %q", sc.endMode)
		}
		return nil, nil
	case "config":
		var c config
		if err := strict(st.arg, &c); err != nil {
			return nil, err
		}
		if c.Interrupt != "" && c.Interrupt != "abort_turn" && c.Interrupt != "continue" {
			return nil, fmt.Errorf("config: interrupt must be abort_turn or continue, got %q", c.Interrupt)
		}
		mergeConfig(&sc.cfg, c)
		return nil, nil
	case "emit":
		if _, err := parseOrdered(st.arg); err != nil {
			return nil, fmt.Errorf("emit: %w", err)
		}
	case "raw", "stderr":
		var s string
		if err := strict(st.arg, &s); err != nil {
			return nil, err
		}
		st.data = []byte(s)
	case "raw_b64":
		var s string
		if err := strict(st.arg, &s); err != nil {
			return nil, err
		}
		if st.data, err = base64.StdEncoding.DecodeString(s); err != nil {
			return nil, fmt.Errorf("raw_b64: %w", err)
		}
	case "big", "expect_answers", "sleep_ms", "exit":
		if err := strict(st.arg, &st.n); err != nil {
			return nil, err
		}
		if st.n < 0 {
			return nil, fmt.Errorf("%s: negative value", st.op)
		}
	case "cancel", "wait_stdin_line_matching", "unknown_control":
		if err := strict(st.arg, &st.str); err != nil {
			return nil, err
		}
		if st.str == "" {
			return nil, fmt.Errorf("%s: empty string", st.op)
		}
	case "crash", "hang", "on_user", "spawn_child":
		var b bool
		if err := strict(st.arg, &b); err != nil {
			return nil, err
		}
		if !b {
			return nil, nil // {"crash":false} is a no-op
		}
	case "say":
		if err := strict(st.arg, &st.str); err != nil {
			return nil, err
		}
	case "result":
		// true, null, {} or an object of overrides.
		if t := bytes.TrimSpace(st.arg); len(t) > 0 && t[0] == '{' {
			if st.obj, err = parseOrdered(t); err != nil {
				return nil, fmt.Errorf("result: %w", err)
			}
		}
	case "stream_text":
		if err := strict(st.arg, &st.stream); err != nil {
			return nil, err
		}
	case "ask", "ask_nowait":
		if st.ask, err = parseAsk(st.arg); err != nil {
			return nil, fmt.Errorf("%s: %w", st.op, err)
		}
		if st.timeout == 0 {
			st.timeout = st.ask.timeout
		}
	}

	switch st.op {
	case "raw", "raw_b64":
		if raw, ok := m["newline"]; ok {
			if err := strict(raw, &st.newline); err != nil {
				return nil, err
			}
		}
	case "big":
		st.str = "assistant_text"
		if raw, ok := m["as"]; ok {
			if err := strict(raw, &st.str); err != nil {
				return nil, err
			}
		}
		if st.str != "assistant_text" && st.str != "garbage" {
			return nil, fmt.Errorf("big: \"as\" must be assistant_text or garbage, got %q", st.str)
		}
		if raw, ok := m["fill"]; ok {
			if err := strict(raw, &st.fill); err != nil {
				return nil, err
			}
		}
	case "unknown_control":
		if raw, ok := m["request"]; ok {
			if st.obj, err = parseOrdered(raw); err != nil {
				return nil, fmt.Errorf("unknown_control request: %w", err)
			}
		}
		if raw, ok := m["request_id"]; ok {
			if err := strict(raw, &st.reqID); err != nil {
				return nil, err
			}
		}
		if raw, ok := m["wait"]; ok {
			if err := strict(raw, &st.wait); err != nil {
				return nil, err
			}
		}
	}
	return st, nil
}

func parseAsk(raw json.RawMessage) (*askSpec, error) {
	fields, err := parseOrdered(raw)
	if err != nil {
		return nil, err
	}
	a := &askSpec{assistant: true, resultContent: "ok", input: json.RawMessage("{}")}
	for _, f := range fields {
		v := f.V.(json.RawMessage)
		var err error
		switch f.K {
		case "tool_name":
			err = json.Unmarshal(v, &a.toolName)
		case "input":
			if _, err = parseOrdered(v); err == nil {
				a.input = v
			}
		case "request_id":
			err = json.Unmarshal(v, &a.requestID)
		case "tool_use_id":
			err = json.Unmarshal(v, &a.toolUseID)
		case "timeout_ms":
			var ms int64
			err = json.Unmarshal(v, &ms)
			a.timeout = time.Duration(ms) * time.Millisecond
		case "assistant":
			err = json.Unmarshal(v, &a.assistant)
		case "checks_ms":
			var ms int64
			err = json.Unmarshal(v, &ms)
			a.checks = time.Duration(ms) * time.Millisecond
		case "result_content":
			err = json.Unmarshal(v, &a.resultContent)
		case "subtype":
			err = fmt.Errorf("subtype is always can_use_tool")
		default:
			a.extra = append(a.extra, f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.K, err)
		}
	}
	if strings.TrimSpace(a.toolName) == "" {
		return nil, fmt.Errorf("tool_name is required")
	}
	return a, nil
}

func mergeConfig(dst *config, c config) {
	if c.Control != nil {
		if dst.Control == nil {
			dst.Control = map[string]controlOverride{}
		}
		for k, v := range c.Control {
			dst.Control[k] = v
		}
	}
	if c.Interrupt != "" {
		dst.Interrupt = c.Interrupt
	}
	if c.SystemInit != nil {
		dst.SystemInit = c.SystemInit
	}
	if c.DoneText != "" {
		dst.DoneText = c.DoneText
	}
	if c.IgnoreSigterm {
		dst.IgnoreSigterm = true
	}
	if c.Tools != nil {
		dst.Tools = c.Tools
	}
	if c.Model != "" {
		dst.Model = c.Model
	}
}
