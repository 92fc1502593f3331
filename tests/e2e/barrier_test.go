package e2e

import (
	"context"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

// Barriers: a test that says something did NOT happen ("nothing was
// answered", "no prompt waits") must prove it, not sleep and look. Each
// helper here makes something happen that must come after the unwanted
// thing, had it happened, and waits for that.

// rejectLikeAWipe denies request id the way the slowest gesture travels: a
// proposal_wiped notification. The host handles Neovim's notifications one
// at a time in the order they were sent; a wipe then waits on its
// session's worker behind every proposal saved or wiped before it; and its
// answer is queued for the process's one writer behind every answer queued
// before (rplugin/claude: one writer goroutine writes claude's stdin in
// order). So once claude has read this answer it has read every answer
// that anything Neovim did before caused, and the host has logged them.
func (e *Env) rejectLikeAWipe(id string) {
	e.t.Helper()
	e.Lua(nil, "require('claudenova.channel.host').notify('proposal_wiped', { id = ... })", id)
}

// The fake claude's part of fakeAnswerBarrier, good for sentinelRounds
// barriers: in round k, once it reads a line with the token of k (a
// prompt) it asks req-sentinel-k; after the last it waits for good (a
// script that ended would end the turn under the test's feet).
const sentinelRounds = 3

func sentinelToken(k int) string { return "cn-answer-barrier-" + itoa(k) + "." }

func sentinelSteps() []string {
	var steps []string
	for k := 1; k <= sentinelRounds; k++ {
		steps = append(steps, `{"wait_stdin_line_matching":"`+sentinelToken(k)+`"}`,
			`{"ask_nowait":{"tool_name":"Bash","request_id":"req-sentinel-`+itoa(k)+`","input":{"command":"true","description":"barrier"}}}`)
	}
	return append(steps, `{"wait_stdin_line_matching":"cn-never-sent"}`)
}

// fakeAnswerBarrier returns once the fake claude (whose script ends with
// sentinelSteps, logging to log) has read every answer that anything done
// so far in Neovim caused: a sentinel request is rejected the slowest way
// (rejectLikeAWipe) and its answer is in the fake's log, which records
// stdin in the order it was written.
func (e *Env) fakeAnswerBarrier(session int, log string) {
	e.t.Helper()
	e.sentinels++
	k := e.sentinels
	if k > sentinelRounds {
		e.t.Fatalf("more than %d answer barriers: make sentinelSteps longer", sentinelRounds)
	}
	e.Lua(nil, "require('claudenova').send(...)", sentinelToken(k), session)
	rid := "req-sentinel-" + itoa(k)
	id := e.waitPendingMatch("the sentinel request", func(p Pending) bool { return strings.HasSuffix(p.ID, ":"+rid) })
	e.rejectLikeAWipe(id)
	e.Eventually(30*time.Second, "the sentinel's answer read by claude", func() bool { return answersFor(log, rid) == 1 })
	e.Eventually(10*time.Second, "the sentinel's row gone", func() bool {
		for _, p := range e.Pending() {
			if p.ID == id {
				return false
			}
		}
		return true
	})
}

// realAnswerBarrier is fakeAnswerBarrier with the real CLI: once session
// is idle it asks a sentinel Bash command (a new scripted turn), rejected the slowest
// way, and the barrier holds once the model has the CLI's tool result for
// it (the CLI has read that answer, so every answer before it) and the
// host has logged its answer (so every answer before it too).
func (e *Env) realAnswerBarrier(session int) {
	e.t.Helper()
	const cmd = "touch answer-barrier" // asked (claude runs an echo unasked); denied, so never run
	e.WaitIdle(session)                // a turn of its own: a prompt sent during a turn is merged into it
	e.sendLua(session, Seq(bash(cmd, "barrier")))
	id := e.waitPendingMatch("the sentinel request", func(p Pending) bool { return strings.Contains(p.Target, cmd) })
	// The model has every earlier tool result now (claude sent them with
	// the request the sentinel's tool call answered): the next one is the
	// sentinel's.
	before := len(e.Model.ToolResults())
	e.rejectLikeAWipe(id)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := e.Model.Wait(ctx, func(s *fakemodel.Server) bool { return len(s.ToolResults()) > before })
	if err != nil {
		e.t.Fatalf("the sentinel's tool result never reached the model: %v", err)
	}
	if r := e.Model.ToolResults()[before]; !r.IsError {
		e.t.Fatalf("the sentinel was not denied: %+v", r)
	}
	e.Eventually(10*time.Second, "the sentinel's answer logged", func() bool { return e.answeredInLog(id) })
}

// answeredInLog reports whether the host logged an answer to request id.
func (e *Env) answeredInLog(id string) bool {
	l := e.LogText()
	return strings.Contains(l, "msg=answered id="+id+" ") || strings.Contains(l, `msg=answered id="`+id+`"`)
}

// waitPendingMatch waits for a pending request that match selects.
func (e *Env) waitPendingMatch(what string, match func(Pending) bool) string {
	e.t.Helper()
	var id string
	e.Eventually(60*time.Second, what, func() bool {
		for _, p := range e.Pending() {
			if match(p) {
				id = p.ID
				return true
			}
		}
		return false
	})
	return id
}

// messageShown waits until :messages holds text: the message was output
// (a message cut to the screen keeps its whole text there once the editor
// is idle, see ui/notify.lua). A prompt waiting meanwhile fails the test.
func (e *Env) messageShown(text string) {
	e.t.Helper()
	e.Eventually(30*time.Second, ":messages holding "+text, func() bool {
		var msgs string
		e.luaUnlessPrompt("waiting for "+text, &msgs, "return vim.fn.execute('messages')")
		return strings.Contains(msgs, text)
	})
}

// noPromptWaits proves that no prompt (hit-enter, a confirm dialog) waits
// for the user, nor is on its way, after everything typed and shown so
// far: a request is answered, which Neovim does only outside a prompt and
// after the keys typed before it, and it finds the typeahead empty and no
// message scrolled up (state() "s", the ground of a hit-enter prompt, which
// only a redraw or the prompt clears).
func (e *Env) noPromptWaits(after string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st string
		e.luaUnlessPrompt("after "+after, &st, "return (vim.fn.getchar(1) ~= 0 and 'k' or '') .. vim.fn.state()")
		if !strings.ContainsAny(st, "ksmo") {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("after %s Neovim never settled (state %q: typeahead, a mapping or scrolled messages left)", after, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// luaUnlessPrompt is Lua for a test about prompts: Neovim answers the call
// only outside a prompt, so while it has no answer nvim_get_mode (answered
// inside prompts too) is asked whether a prompt waits. Keys typed just
// before (the answer to a prompt) may not be read yet when it is asked, so
// only a prompt that stays while no answer comes fails the test; a prompt
// that goes lets the call through at once.
func (e *Env) luaUnlessPrompt(what string, out any, code string) {
	e.t.Helper()
	done := make(chan error, 1)
	go func() { done <- e.V.ExecLua(code, out) }()
	var since time.Time // a prompt seen without a break since
	for {
		select {
		case err := <-done:
			if err != nil {
				e.t.Fatalf("%s: %v", what, err)
			}
			return
		case <-time.After(20 * time.Millisecond):
			m, blocking := e.Mode()
			switch {
			case !blocking:
				since = time.Time{}
			case since.IsZero():
				since = time.Now()
			case time.Since(since) > 5*time.Second:
				e.t.Fatalf("a prompt waits for the user %s (mode %q)", what, m)
			}
		}
	}
}
