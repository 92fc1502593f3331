package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

type waitResult int

const (
	waitOK waitResult = iota
	waitTimeout
	waitAborted
)

// waitUntil blocks until pred (called with s.mu held) is true, the timeout
// (0 = none) expires, or — if abortable — the turn begun at gen is aborted.
func (s *server) waitUntil(pred func() bool, timeout time.Duration, gen int64, abortable bool) waitResult {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		s.mu.Lock()
		if pred() {
			s.mu.Unlock()
			return waitOK
		}
		if abortable && s.gen.Load() != gen {
			s.mu.Unlock()
			return waitAborted
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timer:
			return waitTimeout
		}
	}
}

// waitStep is waitUntil for a script step: every time pred is found false
// the fake logs "waiting" (op, line), so a test can prove the step still
// waits after something happened (a later log entry) instead of sleeping.
func (s *server) waitStep(st *step, pred func() bool, gen int64) waitResult {
	return s.waitUntil(func() bool {
		if pred() {
			return true
		}
		s.log.event("waiting", kv{"op", st.op}, kv{"line", st.line})
		return false
	}, st.timeout, gen, true)
}

// beginTurnLocked marks a turn as running and returns its generation.
func (s *server) beginTurnLocked(fromUser bool) int64 {
	if fromUser && !s.systemInitSent {
		s.emitSystemInitLocked()
	}
	s.turnActive = true
	s.turnStart = time.Now()
	s.turnDenials = nil
	s.numTurns = 1
	s.lastText = ""
	return s.gen.Load()
}

// awaitUser consumes the next user message (waiting for it) and begins a turn.
func (s *server) awaitUser(timeout time.Duration, cur int64) (int64, bool) {
	if s.waitUntil(func() bool { return s.userCount > s.userUsed }, timeout, 0, false) != waitOK {
		return cur, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.userUsed++
	return s.beginTurnLocked(true), true
}

func (s *server) runScript() {
	var gen int64
	switch s.sc.start {
	case "immediate":
		s.mu.Lock()
		gen = s.beginTurnLocked(false)
		s.mu.Unlock()
	case "initialize":
		s.waitUntil(func() bool { return s.initDone }, 0, 0, false)
		s.mu.Lock()
		gen = s.beginTurnLocked(false)
		s.mu.Unlock()
	default:
		gen, _ = s.awaitUser(0, 0)
	}
	s.log.event("script_start", kv{"start", s.sc.start})

	steps := s.sc.steps
	for i := 0; i < len(steps); i++ {
		if s.gen.Load() != gen {
			// The turn was interrupted: skip to the next on_user step.
			j := i
			for j < len(steps) && steps[j].op != "on_user" {
				j++
			}
			if j > i {
				s.log.event("steps_skipped", kv{"from", i}, kv{"to", j - 1}, kv{"reason", "interrupted"})
			}
			if i = j; i >= len(steps) {
				break
			}
		}
		st := steps[i]
		s.log.write("step", kv{"i", i}, kv{"line", st.line}, kv{"op", st.op})
		gen = s.exec(st, gen)
	}

	s.log.event("script_end", kv{"end", s.sc.endMode})
	if s.sc.endMode == "exit" {
		os.Exit(0)
	}
	done := s.sc.cfg.DoneText
	if done == "" {
		done = "all done"
	}
	for {
		g, _ := s.awaitUser(0, gen)
		gen = g
		s.mu.Lock()
		if s.gen.Load() == gen {
			s.lastText = done
			s.out.json(s.assistantLocked([]any{O{{"type", "text"}, {"text", done}}}))
			s.out.json(s.resultLocked())
			s.turnActive = false
		}
		s.mu.Unlock()
	}
}

func (s *server) assistantLocked(content []any) O {
	return O{{"type", "assistant"}, {"message", O{{"id", "msg_" + newUUID()}, {"type", "message"},
		{"role", "assistant"}, {"model", s.model}, {"content", content}, {"stop_reason", nil},
		{"stop_sequence", nil}, {"usage", O{{"input_tokens", 10}, {"output_tokens", 1}}},
		{"context_management", nil}}}, {"parent_tool_use_id", nil}, {"session_id", s.sessionID},
		{"uuid", newUUID()}, {"timestamp", nowTS()}}
}

// guarded runs f with s.mu held unless the turn begun at gen was aborted.
func (s *server) guarded(gen int64, f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen.Load() != gen {
		return false
	}
	f()
	s.bump()
	return true
}

// substitute expands ${SESSION_ID}, ${CWD}, ${PERMISSION_MODE},
// ${LAST_REQUEST_ID}, ${LAST_TOOL_USE_ID} and ${UUID} (fresh per occurrence).
func (s *server) substituteLocked(b []byte) []byte {
	if !bytes.Contains(b, []byte("${")) {
		return b
	}
	r := strings.NewReplacer("${SESSION_ID}", s.sessionID, "${CWD}", s.cwd, "${PERMISSION_MODE}", s.permMode,
		"${LAST_REQUEST_ID}", s.lastAskID, "${LAST_TOOL_USE_ID}", s.lastToolUseID)
	out := r.Replace(string(b))
	for strings.Contains(out, "${UUID}") {
		out = strings.Replace(out, "${UUID}", newUUID(), 1)
	}
	return []byte(out)
}

func (s *server) exec(st *step, gen int64) int64 {
	switch st.op {
	case "emit":
		s.guarded(gen, func() {
			var buf bytes.Buffer
			if err := json.Compact(&buf, s.substituteLocked(st.arg)); err != nil {
				s.log.event("emit_error", kv{"line", st.line}, kv{"err", err.Error()})
				return
			}
			s.out.line(buf.Bytes())
		})
	case "raw", "raw_b64":
		s.guarded(gen, func() {
			b := st.data
			if st.op == "raw" {
				b = s.substituteLocked(b)
			}
			if st.newline {
				s.out.line(b)
			} else {
				s.out.bytesNoNewline(b)
			}
		})
	case "say":
		s.guarded(gen, func() {
			s.lastText = st.str
			s.out.json(s.assistantLocked([]any{O{{"type", "text"}, {"text", st.str}}}))
		})
	case "big":
		s.execBig(st, gen)
	case "stream_text":
		s.execStream(st, gen)
	case "ask", "ask_nowait":
		s.execAsk(st, gen)
	case "expect_answers":
		n := int(st.n)
		r := s.waitStep(st, func() bool { return s.answersTotal >= n }, gen)
		if r == waitTimeout {
			s.log.event("timeout", kv{"op", st.op}, kv{"line", st.line})
		}
	case "cancel":
		s.guarded(gen, func() {
			id := st.str
			if id == "last" {
				id = s.lastAskID
			}
			if a := s.asks[id]; a != nil && a.state == askPending {
				a.state = askCancelled
			}
			s.out.json(O{{"type", "control_cancel_request"}, {"request_id", id}})
		})
	case "sleep_ms":
		s.waitUntil(func() bool { return false }, time.Duration(st.n)*time.Millisecond, gen, true)
	case "result":
		s.guarded(gen, func() {
			r := s.resultLocked()
			for _, f := range st.obj {
				r = r.set(f.K, f.V)
			}
			s.out.json(r)
			s.turnActive = false
		})
	case "exit":
		s.log.event("exit", kv{"code", st.n})
		os.Exit(int(st.n))
	case "crash":
		s.log.event("crash")
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		blockForever()
	case "spawn_child":
		s.spawnChild()
	case "hang":
		s.log.event("hang")
		s.hung.Store(true)
		blockForever()
	case "unknown_control":
		rid := st.reqID
		if rid == "" {
			rid = newUUID()
		}
		ok := s.guarded(gen, func() {
			s.sentCtl[rid] = &sentControl{subtype: st.str}
			req := append(O{{"subtype", st.str}}, st.obj...)
			s.out.json(O{{"type", "control_request"}, {"request_id", rid}, {"request", req}})
		})
		if ok && st.wait {
			r := s.waitStep(st, func() bool { return s.sentCtl[rid].answers > 0 }, gen)
			if r == waitTimeout {
				s.log.event("timeout", kv{"op", st.op}, kv{"line", st.line}, kv{"request_id", rid})
			}
		}
	case "wait_stdin_line_matching":
		next := -1
		r := s.waitStep(st, func() bool {
			if next < s.lineCursor {
				next = s.lineCursor
			}
			for ; next < len(s.lines); next++ {
				if strings.Contains(s.lines[next], st.str) {
					s.lineCursor = next + 1
					return true
				}
			}
			return false
		}, gen)
		if r == waitTimeout {
			s.log.event("timeout", kv{"op", st.op}, kv{"line", st.line})
		}
	case "stderr":
		b := st.data
		if !bytes.HasSuffix(b, []byte("\n")) {
			b = append(append([]byte{}, b...), '\n')
		}
		_, _ = os.Stderr.Write(b)
		s.log.event("stderr", kv{"text", string(st.data)})
	case "on_user":
		s.mu.Lock()
		s.turnActive = false
		s.mu.Unlock()
		g, ok := s.awaitUser(st.timeout, gen)
		if !ok {
			s.log.event("timeout", kv{"op", st.op}, kv{"line", st.line})
		}
		return g
	default:
		panic(fmt.Sprintf("unhandled op %q", st.op))
	}
	return gen
}

func (s *server) execAsk(st *step, gen int64) {
	spec := st.ask
	var a *pendingAsk
	ok := s.guarded(gen, func() {
		a = &pendingAsk{reqID: spec.requestID, toolUseID: spec.toolUseID, toolName: spec.toolName,
			input: spec.input, resultContent: spec.resultContent}
		if a.reqID == "" {
			a.reqID = newUUID()
		}
		if a.toolUseID == "" {
			a.toolUseID = newToolUseID()
		}
		if old := s.asks[a.reqID]; old == nil {
			s.askOrder = append(s.askOrder, a.reqID)
		}
		s.asks[a.reqID] = a
		s.lastAskID, s.lastToolUseID = a.reqID, a.toolUseID
		if spec.assistant {
			s.out.json(s.assistantLocked([]any{O{{"type", "tool_use"}, {"id", a.toolUseID},
				{"name", a.toolName}, {"input", a.input}}}))
		}
	})
	if ok && spec.assistant && spec.checks > 0 {
		// claude checks the call it named before it asks (the real CLI
		// takes milliseconds, more for a large file's Edit).
		time.Sleep(spec.checks)
	}
	ok = ok && s.guarded(gen, func() {
		req := O{{"subtype", "can_use_tool"}, {"tool_name", a.toolName}}
		hasDisplay := false
		for _, f := range spec.extra {
			hasDisplay = hasDisplay || f.K == "display_name"
		}
		if !hasDisplay {
			req = append(req, kv{"display_name", a.toolName})
		}
		req = append(req, kv{"input", a.input})
		req = append(req, spec.extra...)
		req = append(req, kv{"tool_use_id", a.toolUseID})
		s.out.json(O{{"type", "control_request"}, {"request_id", a.reqID}, {"request", req}})
	})
	if !ok || st.op == "ask_nowait" {
		return
	}
	r := s.waitStep(st, func() bool { return a.state != askPending }, gen)
	if r == waitTimeout {
		s.log.event("timeout", kv{"op", st.op}, kv{"line", st.line}, kv{"request_id", a.reqID})
	}
}

func repeatTo(fill string, n int64) []byte {
	if fill == "" {
		fill = "x"
	}
	b := bytes.Repeat([]byte(fill), int(n)/len(fill)+1)
	return b[:n]
}

func (s *server) execBig(st *step, gen int64) {
	if s.gen.Load() != gen {
		return
	}
	if st.str == "garbage" {
		fill := st.fill
		if fill == "" {
			fill = "#not-json "
		}
		s.out.line(repeatTo(fill, st.n))
		return
	}
	text := string(repeatTo(st.fill, st.n))
	s.mu.Lock()
	msg := s.assistantLocked([]any{O{{"type", "text"}, {"text", text}}})
	s.mu.Unlock()
	s.out.json(msg)
}

func (s *server) execStream(st *step, gen int64) {
	sp := st.stream
	s.mu.Lock()
	sid, model := s.sessionID, s.model
	s.mu.Unlock()
	ev := func(event O) {
		var id [16]byte
		for i := range id {
			id[i] = byte(rand.Uint32())
		}
		s.out.json(O{{"type", "stream_event"}, {"event", event}, {"session_id", sid},
			{"parent_tool_use_id", nil}, {"uuid", fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:])}})
	}
	if s.gen.Load() != gen {
		return
	}
	if sp.Framing {
		ev(O{{"type", "message_start"}, {"message", O{{"id", "msg_" + newUUID()}, {"type", "message"},
			{"role", "assistant"}, {"model", model}, {"content", []any{}}}}})
		ev(O{{"type", "content_block_start"}, {"index", 0}, {"content_block", O{{"type", "text"}, {"text", ""}}}})
	}
	for i := 0; i < sp.N; i++ {
		if s.gen.Load() != gen {
			return
		}
		ev(O{{"type", "content_block_delta"}, {"index", 0}, {"delta", O{{"type", "text_delta"}, {"text", sp.Chunk}}}})
		if sp.IntervalMS > 0 {
			time.Sleep(time.Duration(sp.IntervalMS) * time.Millisecond)
		}
	}
	if sp.Framing {
		ev(O{{"type", "content_block_stop"}, {"index", 0}})
		ev(O{{"type", "message_delta"}, {"delta", O{{"stop_reason", "end_turn"}, {"stop_sequence", nil}}},
			{"usage", O{{"output_tokens", sp.N}}}})
		ev(O{{"type", "message_stop"}})
	}
	if sp.Final == nil || *sp.Final {
		s.guarded(gen, func() {
			s.lastText = strings.Repeat(sp.Chunk, sp.N)
			s.out.json(s.assistantLocked([]any{O{{"type", "text"}, {"text", s.lastText}}}))
		})
	}
}

// childVar marks the fake's own child (spawn_child): a process that
// ignores SIGTERM and SIGHUP and waits to be killed.
const childVar = "FAKECLAUDE_CHILD"

// spawnChild starts a child of the fake in the fake's process group (as a
// tool claude runs would be) with no stdio, and logs its pid ("child").
func (s *server) spawnChild() {
	exe, err := os.Executable()
	if err == nil {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childVar+"=1")
		if err = cmd.Start(); err == nil {
			s.log.event("child", kv{"pid", cmd.Process.Pid})
			go func() { _ = cmd.Wait() }()
			return
		}
	}
	s.log.event("child_error", kv{"err", err.Error()})
}

// runChild is the whole life of a spawn_child process.
func runChild() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	blockForever()
}
