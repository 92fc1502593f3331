package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

var realArgv = []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json",
	"--verbose", "--permission-prompt-tool", "stdio"}

func TestFakeClaude(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		args    []string
		env     []string
		timeout time.Duration // default 20s
		run     func(t *testing.T, f *fake)
	}{
		{
			name: "initialize handshake",
			args: append(slices.Clone(realArgv), "--permission-mode", "plan", "--resume", "old-session",
				"--model", "opus-x", "--brand-new-flag", "v"),
			env: []string{"FAKECLAUDE_SESSION=sess-fixed"},
			run: func(t *testing.T, f *fake) {
				f.sendControl("init-1", "initialize", nil)
				r := f.expect("control_response", "success")
				resp := r.obj("response")
				if resp.str("request_id") != "init-1" {
					t.Fatalf("request_id: %v", r.short())
				}
				if c, ok := resp.obj("response")["commands"].([]any); !ok || len(c) != 0 {
					t.Fatalf("commands: %v", r.short())
				}
				in := f.expect("system", "init")
				if in.str("session_id") != "sess-fixed" || in.str("permissionMode") != "plan" ||
					in.str("cwd") != f.dir || in.str("model") != "opus-x" {
					t.Fatalf("init: %v", in.short())
				}
				if tools, _ := in["tools"].([]any); !slices.Contains(tools, any("Bash")) {
					t.Fatalf("tools: %v", in["tools"])
				}

				f.sendControl("pm-1", "set_permission_mode", map[string]any{"mode": "acceptEdits"})
				r = f.expect("control_response", "success")
				if r.obj("response").str("request_id") != "pm-1" ||
					r.obj("response").obj("response").str("mode") != "acceptEdits" {
					t.Fatalf("set_permission_mode: %v", r.short())
				}
				if st := f.expect("system", "status"); st.str("permissionMode") != "acceptEdits" {
					t.Fatalf("status: %v", st.short())
				}

				f.sendControl("x-1", "rewind_everything", nil)
				r = f.expect("control_response", "error")
				if r.obj("response").str("request_id") != "x-1" ||
					!strings.Contains(r.obj("response").str("error"), "rewind_everything") {
					t.Fatalf("unknown subtype: %v", r.short())
				}

				_ = f.stdin.Close()
				if ws := f.exit(); !ws.Exited() || ws.ExitStatus() != 0 {
					t.Fatalf("exit after EOF: %v", ws)
				}
				var argv []any
				for _, e := range f.logEntries() {
					if e.str("t") == "argv" {
						argv, _ = e["argv"].([]any)
					}
				}
				if !slices.Contains(argv, any("--brand-new-flag")) || !slices.Contains(argv, any("old-session")) {
					t.Fatalf("argv not logged: %v", argv)
				}
			},
		},
		{
			name: "ask waits for the answer then emits tool_result",
			script: `{"ask":{"tool_name":"Bash","input":{"command":"ls"},"description":"list","blocked_path":"/tmp/x",` +
				`"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"}]}}
{"say":"after"}
{"result":{}}`,
			run: func(t *testing.T, f *fake) {
				f.sendUser("go")
				f.expect("system", "init") // no initialize sent: init precedes the first turn
				a := f.expect("assistant", "")
				tu := a.content()
				if tu.str("type") != "tool_use" || tu.str("name") != "Bash" {
					t.Fatalf("tool_use: %v", a.short())
				}
				cr := f.expect("control_request", "can_use_tool")
				id := cr.str("request_id")
				req := cr.obj("request")
				if !looksLikeUUID(id) || req.str("tool_use_id") != tu.str("id") || req.str("tool_name") != "Bash" ||
					req.obj("input").str("command") != "ls" || req.str("blocked_path") != "/tmp/x" ||
					req["permission_suggestions"] == nil || req.str("description") != "list" {
					t.Fatalf("can_use_tool: %v", cr.short())
				}
				f.stillWaiting("ask", nil) // blocked until answered
				f.answer(id, map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "ls -l"}})
				u := f.expect("user", "")
				tr := u.content()
				if tr.str("type") != "tool_result" || tr.str("content") != "ok" || tr["is_error"] != false ||
					tr.str("tool_use_id") != tu.str("id") {
					t.Fatalf("tool_result: %v", u.short())
				}
				if a := f.expect("assistant", ""); a.content().str("text") != "after" {
					t.Fatalf("after: %v", a.short())
				}
				if r := f.expect("result", "success"); r["is_error"] != false {
					t.Fatalf("result: %v", r.short())
				}
				// A duplicate answer is logged but produces no second tool_result.
				f.answer(id, map[string]any{"behavior": "allow"})
				f.sendUser("more")
				if a := f.expect("assistant", ""); a.content().str("text") != "all done" {
					t.Fatalf("want all done, got %v", a.short())
				}
				f.expect("result", "success")
				ans := f.answersFor(id)
				if len(ans) != 2 || ans[0].str("state_before") != "pending" || ans[1].str("state_before") != "answered" ||
					ans[0].str("behavior") != "allow" {
					t.Fatalf("answers logged: %v", ans)
				}
			},
		},
		{
			name:   "deny produces an error tool_result",
			script: `{"ask":{"tool_name":"Write","input":{"file_path":"/p/new.txt","content":"x"},"request_id":"w-1"}}` + "\n" + `{"result":true}`,
			run: func(t *testing.T, f *fake) {
				f.sendUser("go")
				f.expect("system", "init")
				f.expect("assistant", "")
				if cr := f.expect("control_request", "can_use_tool"); cr.str("request_id") != "w-1" {
					t.Fatalf("request id: %v", cr.short())
				}
				f.answer("w-1", map[string]any{"behavior": "deny", "message": "use another name"})
				tr := f.expect("user", "").content()
				if tr.str("content") != "use another name" || tr["is_error"] != true {
					t.Fatalf("deny tool_result: %v", tr.short())
				}
				r := f.expect("result", "success")
				if d, _ := r["permission_denials"].([]any); len(d) != 1 {
					t.Fatalf("permission_denials: %v", r.short())
				}
			},
		},
		{
			name: "cancel emits control_cancel_request",
			script: `{"ask_nowait":{"tool_name":"MultiEdit","input":{"file_path":"/p/a","edits":[]},"request_id":"me-1"}}
{"cancel":"last"}
{"result":{"result":"cancelled"}}`,
			run: func(t *testing.T, f *fake) {
				f.sendUser("go")
				f.expect("system", "init")
				f.expect("assistant", "")
				f.expect("control_request", "can_use_tool")
				if c := f.expect("control_cancel_request", ""); c.str("request_id") != "me-1" {
					t.Fatalf("cancel: %v", c.short())
				}
				if r := f.expect("result", "success"); r.str("result") != "cancelled" {
					t.Fatalf("result override: %v", r.short())
				}
				// A late answer to a cancelled request is logged, not acted on.
				f.answer("me-1", map[string]any{"behavior": "allow"})
				f.sendUser("next")
				if a := f.expect("assistant", ""); a.content().str("text") != "all done" {
					t.Fatalf("got %v", a.short())
				}
				if ans := f.answersFor("me-1"); len(ans) != 1 || ans[0].str("state_before") != "cancelled" {
					t.Fatalf("answers: %v", ans)
				}
			},
		},
		{
			name: "interrupt with a pending ask",
			script: `{"ask":{"tool_name":"Bash","input":{"command":"touch never"}}}
{"say":"unreachable"}
{"result":{}}`,
			run: func(t *testing.T, f *fake) {
				f.sendControl("init-1", "initialize", nil)
				f.sendUser("go")
				f.expect("control_response", "success")
				f.expect("system", "init")
				tu := f.expect("assistant", "").content()
				id := f.expect("control_request", "can_use_tool").str("request_id")
				f.sendControl("int-1", "interrupt", nil)
				if c := f.expect("control_cancel_request", ""); c.str("request_id") != id {
					t.Fatalf("cancel: %v", c.short())
				}
				if r := f.expect("control_response", "success"); r.obj("response").str("request_id") != "int-1" {
					t.Fatalf("interrupt response: %v", r.short())
				}
				tr := f.expect("user", "").content()
				if tr.str("type") != "tool_result" || tr["is_error"] != true || tr.str("tool_use_id") != tu.str("id") {
					t.Fatalf("rejected tool_result: %v", tr.short())
				}
				if txt := f.expect("user", "").content(); txt.str("text") != "[Request interrupted by user for tool use]" {
					t.Fatalf("interrupted text: %v", txt.short())
				}
				if r := f.expect("result", "error_during_execution"); r["is_error"] != true {
					t.Fatalf("result: %v", r.short())
				}
				// The rest of the aborted turn is skipped.
				f.sendUser("again")
				if a := f.expect("assistant", ""); a.content().str("text") != "all done" {
					t.Fatalf("got %v", a.short())
				}
			},
		},
		{
			name: "raw malformed lines",
			script: `{"start":"immediate"}
{"raw":"{\"type\":\"assistant\",\"message\":"}
{"raw_b64":"/v97fQ=="}
{"raw":"partial-without-newline","newline":false}
{"emit":{"type":"system","subtype":"marker","session_id":"${SESSION_ID}"}}`,
			env: []string{"FAKECLAUDE_SESSION=s-raw"},
			run: func(t *testing.T, f *fake) {
				if b := f.nextRaw(); string(b) != `{"type":"assistant","message":` {
					t.Fatalf("raw: %q", b)
				}
				if b := f.nextRaw(); string(b) != "\xfe\xff{}" {
					t.Fatalf("raw_b64: %q", b)
				}
				if b := f.nextRaw(); !strings.HasPrefix(string(b), `partial-without-newline{"type":"system","subtype":"marker"`) {
					t.Fatalf("no-newline raw: %q", b)
				}
				var invalid bool
				for _, e := range f.logEntries() {
					invalid = invalid || (e.str("t") == "sent" && e["invalid_utf8"] == true)
				}
				if !invalid {
					t.Fatal("invalid UTF-8 line not flagged in the log")
				}
			},
		},
		{
			name: "20 MB line arrives intact",
			script: `{"start":"immediate"}
{"big":20971520,"as":"assistant_text"}
{"big":1048576,"as":"garbage"}
{"say":"small"}`,
			timeout: 60 * time.Second,
			run: func(t *testing.T, f *fake) {
				b := f.nextRaw()
				var m msg
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatalf("big line (%d bytes) is not JSON: %v", len(b), err)
				}
				text := m.content().str("text")
				if len(text) != 20<<20 || strings.Trim(text, "x") != "" {
					t.Fatalf("text length %d", len(text))
				}
				g := f.nextRaw()
				if len(g) != 1<<20 || json.Valid(g) {
					t.Fatalf("garbage line: %d bytes, valid=%v", len(g), json.Valid(g))
				}
				if a := f.expect("assistant", ""); a.content().str("text") != "small" {
					t.Fatalf("after big: %v", a.short())
				}
				sum := sha256.Sum256(b)
				var found bool
				for _, e := range f.logEntries() {
					if e.str("t") == "sent" && e["truncated"] == true && e.str("sha256") == hex.EncodeToString(sum[:]) {
						found = true
					}
				}
				if !found {
					t.Fatal("no truncated sent entry with the big line's sha256")
				}
			},
		},
		{
			name:   "crash mid-request",
			script: `{"ask_nowait":{"tool_name":"Bash","input":{"command":"x"}}}` + "\n" + `{"stderr":"boom"}` + "\n" + `{"crash":true}`,
			run: func(t *testing.T, f *fake) {
				f.sendUser("go")
				f.expect("system", "init")
				f.expect("assistant", "")
				f.expect("control_request", "can_use_tool")
				ws := f.exit()
				if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("want SIGKILL, got %v", ws)
				}
				if !strings.Contains(f.stderr.String(), "boom") {
					t.Fatalf("stderr: %q", f.stderr.String())
				}
			},
		},
		{
			name:   "exit code",
			script: `{"start":"immediate"}` + "\n" + `{"exit":3}`,
			run: func(t *testing.T, f *fake) {
				if ws := f.exit(); !ws.Exited() || ws.ExitStatus() != 3 {
					t.Fatalf("want exit 3, got %v", ws)
				}
			},
		},
		{
			name: "several pending asks, expect_answers, on_user",
			script: `{"ask_nowait":{"tool_name":"Read","input":{"file_path":"/a"},"request_id":"r-1"}}
{"ask_nowait":{"tool_name":"Read","input":{"file_path":"/b"},"request_id":"r-2","assistant":false,"result_content":"contents of b"}}
{"expect_answers":2}
{"result":{}}
{"on_user":true}
{"say":"second turn"}
{"result":{}}
{"end":"exit"}`,
			run: func(t *testing.T, f *fake) {
				f.sendUser("go")
				f.expect("system", "init")
				f.expect("assistant", "")
				f.expect("control_request", "can_use_tool")
				f.expect("control_request", "can_use_tool") // r-2 has no assistant message
				f.answer("r-2", map[string]any{"behavior": "allow"})
				if tr := f.expect("user", "").content(); tr.str("content") != "contents of b" {
					t.Fatalf("r-2 result: %v", tr.short())
				}
				// One answer of two: expect_answers still waits.
				f.stillWaiting("expect_answers", func(e msg) bool { return e.str("t") == "answer" && e.str("request_id") == "r-2" })
				f.answer("r-1", map[string]any{"behavior": "allow"})
				f.expect("user", "")
				f.expect("result", "success")
				f.sendUser("turn 2")
				if a := f.expect("assistant", ""); a.content().str("text") != "second turn" {
					t.Fatalf("second turn: %v", a.short())
				}
				f.expect("result", "success")
				if ws := f.exit(); !ws.Exited() || ws.ExitStatus() != 0 {
					t.Fatalf("end exit: %v", ws)
				}
			},
		},
		{
			name: "unknown control subtype from the fake",
			script: `{"start":"immediate"}
{"unknown_control":"future_feature","request":{"payload":1},"request_id":"u-1","wait":true}
{"say":"after"}`,
			run: func(t *testing.T, f *fake) {
				cr := f.expect("control_request", "future_feature")
				if cr.str("request_id") != "u-1" || cr.obj("request")["payload"] != float64(1) {
					t.Fatalf("control_request: %v", cr.short())
				}
				f.stillWaiting("unknown_control", nil)
				f.send(map[string]any{"type": "control_response", "response": map[string]any{
					"subtype": "error", "request_id": "u-1", "error": "unsupported"}})
				f.expect("assistant", "")
				ans := f.answersFor("u-1")
				if len(ans) != 1 || ans[0].str("for") != "unknown_control" || ans[0].str("error") != "unsupported" {
					t.Fatalf("answers: %v", ans)
				}
			},
		},
		{
			name: "stream_text and wait_stdin_line_matching",
			script: `{"start":"immediate"}
{"wait_stdin_line_matching":"magic-token"}
{"stream_text":{"n":500,"chunk":"ab"}}`,
			run: func(t *testing.T, f *fake) {
				f.sendRaw("not json at all")
				f.stillWaiting("wait_stdin_line_matching", func(e msg) bool { return e.str("t") == "recv" && strings.Contains(e.str("line"), "not json at all") })
				f.sendRaw(`{"type":"keep_alive","note":"magic-token"}`)
				for i := range 500 {
					m := f.expect("stream_event", "")
					if d := m.obj("event").obj("delta"); d.str("type") != "text_delta" || d.str("text") != "ab" {
						t.Fatalf("event %d: %v", i, m.short())
					}
				}
				if a := f.expect("assistant", ""); len(a.content().str("text")) != 1000 {
					t.Fatalf("final: %v", a.short())
				}
			},
		},
		{
			name:   "hang stops reading",
			script: `{"start":"immediate"}` + "\n" + `{"say":"hi"}` + "\n" + `{"hang":true}`,
			run: func(t *testing.T, f *fake) {
				f.expect("assistant", "")
				f.waitLog(func(e msg) bool { return e.str("t") == "event" && e.str("ev") == "hang" })
				_ = f.stdin.Close()
				// Barrier: the fake read the EOF and ignored it.
				f.waitLog(func(e msg) bool { return e.str("t") == "event" && e.str("ev") == "hung_read" && e["eof"] == true })
				_ = f.cmd.Process.Kill()
				if ws := f.exit(); !ws.Signaled() {
					t.Fatalf("want killed, got %v", ws)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 20 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			args := tc.args
			if args == nil {
				args = realArgv
			}
			f := startFake(t, ctx, fakeOpts{script: tc.script, args: args, env: tc.env})
			tc.run(t, f)
		})
	}
}

func TestScriptErrorsExit2(t *testing.T) {
	for _, script := range []string{
		`{"bogus_op":1}`,
		`{"sleep_ms":5,"typo":1}`,
		`{"ask":{"input":{}}}`,
		`{"emit":{"a":1},"raw":"x"}`,
		`not json`,
	} {
		t.Run(script, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			f := startFake(t, ctx, fakeOpts{script: script})
			if ws := f.exit(); !ws.Exited() || ws.ExitStatus() != 2 {
				t.Fatalf("want exit 2, got %v", ws)
			}
			if !strings.Contains(f.stderr.String(), "script line 1") {
				t.Fatalf("stderr: %q", f.stderr.String())
			}
		})
	}
}

func TestParseScriptDirectives(t *testing.T) {
	sc, err := parseScript([]byte(`# comment
// another
{"start":"initialize"}
{"config":{"interrupt":"continue","control":{"initialize":{"delay_ms":5}}}}
{"comment":"just a note"}
{"ask":{"tool_name":"Bash","input":{"command":"ls"},"timeout_ms":250,"decision_reason":"x"}}
{"end":"exit"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.start != "initialize" || sc.endMode != "exit" || sc.cfg.Interrupt != "continue" ||
		sc.cfg.Control["initialize"].DelayMS != 5 {
		t.Fatalf("directives: %+v", sc)
	}
	if len(sc.steps) != 1 || sc.steps[0].op != "ask" || sc.steps[0].timeout != 250*time.Millisecond ||
		len(sc.steps[0].ask.extra) != 1 || sc.steps[0].ask.extra[0].K != "decision_reason" {
		t.Fatalf("steps: %+v", sc.steps)
	}
}

// TestScriptFromEnvText checks FAKECLAUDE_SCRIPT_TEXT (inline script).
func TestScriptFromEnvText(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := startFake(t, ctx, fakeOpts{env: []string{
		"FAKECLAUDE_SCRIPT=", `FAKECLAUDE_SCRIPT_TEXT={"start":"immediate"}` + "\n" + `{"say":"inline"}`}})
	if a := f.expect("assistant", ""); a.content().str("text") != "inline" {
		t.Fatalf("got %v", a.short())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "fakeclaude.log")); err != nil {
		t.Fatal(err)
	}
}
