package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run the REAL Claude Code CLI against the fake server. Point
// CLAUDE_BIN at the claude executable, e.g. after
//
//	npm install --prefix /tmp/fm-claude --no-audit --no-fund @anthropic-ai/claude-code@2.1.328
//	CLAUDE_BIN=/tmp/fm-claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude go test -race ./tests/fakemodel/

func claudeBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		t.Skip("CLAUDE_BIN is not set: skipping the integration test with the real Claude Code CLI " +
			"(install @anthropic-ai/claude-code and set CLAUDE_BIN to its claude binary)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("CLAUDE_BIN=%s: %v", bin, err)
	}
	return bin
}

// tlogWriter forwards server logs to the test log.
type tlogWriter struct{ t *testing.T }

func (w tlogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startServer starts a fake server for one test.
func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = log.New(tlogWriter{t}, "fakemodel: ", log.Lmicroseconds)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(opts)
	if _, err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); srv.Close() })
	return srv
}

// claudeProc is one running claude process speaking stream-json.
type claudeProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	stderr  *lockedBuffer
	cwd     string
	start   time.Time
	waitErr chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// claudeEnv is the environment for claude: ours plus the fake API settings,
// without any real credentials or config dirs inherited from the caller.
func claudeEnv(srvURL, home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") || k == "HOME" ||
			strings.HasPrefix(k, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"ANTHROPIC_BASE_URL="+srvURL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"HOME="+home,
	)
}

func startClaude(t *testing.T, srv *Server) *claudeProc {
	t.Helper()
	bin := claudeBin(t)
	home := t.TempDir()
	cwd := t.TempDir()
	cmd := exec.Command(bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-prompt-tool", "stdio")
	cmd.Dir = cwd
	cmd.Env = claudeEnv(srv.URL(), home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &claudeProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1024),
		stderr: &lockedBuffer{}, cwd: cwd, waitErr: make(chan error, 1)}
	cmd.Stderr = p.stderr
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() { p.waitErr <- cmd.Wait() }()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.waitErr:
		case <-time.After(5 * time.Second):
			// Kill only the process group of the claude we started.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.waitErr
		}
		if t.Failed() {
			t.Logf("claude stderr:\n%s", p.stderr.String())
		}
	})
	p.send(map[string]any{"type": "control_request", "request_id": "init-1",
		"request": map[string]any{"subtype": "initialize"}})
	return p
}

func (p *claudeProc) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("write to claude: %v", err)
	}
}

func (p *claudeProc) prompt(text string) {
	p.send(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text},
		"parent_tool_use_id": nil, "session_id": ""})
}

// msg is one decoded stdout line of claude.
type msg struct {
	Raw  string
	Type string
	M    map[string]any
}

func (m msg) str(path ...string) string {
	var v any = m.M
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}

// until reads claude's stdout until pred matches a message. Every message is
// passed to pred; control_requests it does not answer are a test failure.
func (p *claudeProc) until(ctx context.Context, what string, pred func(m msg) bool) msg {
	p.t.Helper()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("claude exited before %s (stderr: %s)", what, p.stderr.String())
			}
			var m msg
			m.Raw = line
			if err := json.Unmarshal([]byte(line), &m.M); err != nil {
				p.t.Logf("claude non-JSON stdout: %s", line)
				continue
			}
			m.Type, _ = m.M["type"].(string)
			if pred(m) {
				p.t.Logf("%6dms got %s", time.Since(p.start).Milliseconds(), what)
				return m
			}
		case <-ctx.Done():
			p.t.Fatalf("timeout waiting for %s: %v (stderr: %s)", what, ctx.Err(), p.stderr.String())
		}
	}
}

func isResult(m msg) bool { return m.Type == "result" }

// assistantText returns the concatenated text blocks of an assistant message.
func assistantText(m msg) string {
	if m.Type != "assistant" {
		return ""
	}
	mm, _ := m.M["message"].(map[string]any)
	blocks, _ := mm["content"].([]any)
	var s string
	for _, b := range blocks {
		bb, _ := b.(map[string]any)
		if bb["type"] == "text" {
			t, _ := bb["text"].(string)
			s += t
		}
	}
	return s
}

func canUseTool(tool string) func(m msg) bool {
	return func(m msg) bool {
		return m.Type == "control_request" && m.str("request", "subtype") == "can_use_tool" &&
			m.str("request", "tool_name") == tool
	}
}

func (p *claudeProc) respond(req msg, response any) {
	p.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req.str("request_id"), "response": response}})
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestClaudePlainPrompt(t *testing.T) {
	claudeBin(t)
	t.Parallel()
	srv := startServer(t, Options{})
	ctx := testCtx(t, 60*time.Second)
	p := startClaude(t, srv)
	p.until(ctx, "init control_response", func(m msg) bool {
		return m.Type == "control_response" && m.str("response", "request_id") == "init-1"
	})
	p.prompt("hello")
	var said bool
	res := p.until(ctx, "result", func(m msg) bool {
		if strings.Contains(assistantText(m), "You said: hello") {
			said = true
		}
		return isResult(m)
	})
	if !said {
		t.Errorf("no assistant message with %q", "You said: hello")
	}
	if res.str("result") != "You said: hello" || res.str("subtype") != "success" {
		t.Errorf("result = %s", res.Raw)
	}
	t.Logf("requests: %+v", srv.RequestLog())
}

func TestClaudeBashAllow(t *testing.T) {
	claudeBin(t)
	t.Parallel()
	srv := startServer(t, Options{})
	ctx := testCtx(t, 90*time.Second)
	p := startClaude(t, srv)
	input := map[string]any{"command": "echo hi > out.txt", "description": "write"}
	script, _ := json.Marshal([][]any{{"Bash", input}})
	p.prompt("SEQ " + string(script))
	req := p.until(ctx, "can_use_tool Bash", canUseTool("Bash"))
	if got := req.str("request", "tool_use_id"); got != "toolu_s0" {
		t.Errorf("tool_use_id = %q, want toolu_s0", got)
	}
	reqInput := req.M["request"].(map[string]any)["input"]
	p.respond(req, map[string]any{"behavior": "allow", "updatedInput": reqInput})
	res := p.until(ctx, "result", isResult)
	if res.str("result") != "all done" {
		t.Errorf("result = %s", res.Raw)
	}
	tr, err := srv.WaitToolResult(ctx, "toolu_s0")
	if err != nil {
		t.Fatal(err)
	}
	if tr.IsError {
		t.Errorf("tool result is an error: %+v", tr)
	}
	b, err := os.ReadFile(filepath.Join(p.cwd, "out.txt"))
	if err != nil || string(b) != "hi\n" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
	t.Logf("tool result: %+v; requests: %+v", tr, srv.RequestLog())
}

func TestClaudeBashDeny(t *testing.T) {
	claudeBin(t)
	t.Parallel()
	srv := startServer(t, Options{})
	ctx := testCtx(t, 90*time.Second)
	p := startClaude(t, srv)
	p.prompt(`SEQ [["Bash",{"command":"echo no > denied.txt","description":"write"}]]`)
	req := p.until(ctx, "can_use_tool Bash", canUseTool("Bash"))
	p.respond(req, map[string]any{"behavior": "deny", "message": "nope"})
	p.until(ctx, "result", isResult)
	tr, err := srv.WaitToolResult(ctx, "toolu_s0")
	if err != nil {
		t.Fatal(err)
	}
	if !tr.IsError || !strings.Contains(tr.Content, "nope") {
		t.Errorf("tool result = %+v, want is_error with %q", tr, "nope")
	}
	if _, err := os.Stat(filepath.Join(p.cwd, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("denied.txt exists or stat failed: %v", err)
	}
}

// A second prompt in the same session is scriptable too, and a SLOW answer
// is abandoned when claude is interrupted.
func TestClaudeLaterTurnsAndInterrupt(t *testing.T) {
	claudeBin(t)
	t.Parallel()
	srv := startServer(t, Options{})
	ctx := testCtx(t, 120*time.Second)
	p := startClaude(t, srv)

	p.prompt("hello")
	p.until(ctx, "result 1", isResult)

	p.prompt(`SEQ [["Write",{"file_path":"{{cwd}}/w.txt","content":"x\n"}],["Bash",{"command":"cat w.txt","description":"show"}]]`)
	// Allow whatever claude asks about until the result.
	var sawTools []string
	res := p.until(ctx, "result 2", func(m msg) bool {
		if m.Type == "control_request" && m.str("request", "subtype") == "can_use_tool" {
			sawTools = append(sawTools, m.str("request", "tool_name"))
			p.respond(m, map[string]any{"behavior": "allow", "updatedInput": m.M["request"].(map[string]any)["input"]})
		}
		return isResult(m)
	})
	if res.str("result") != "all done" {
		t.Errorf("result 2 = %s", res.Raw)
	}
	for _, id := range []string{"toolu_s0", "toolu_s1"} {
		if _, err := srv.WaitToolResult(ctx, id); err != nil {
			t.Error(err)
		}
	}
	t.Logf("permission prompts in turn 2: %v; tool results: %+v", sawTools, srv.ToolResults())

	p.prompt(fmt.Sprintf("SLOW %d", 60000))
	n := srv.Requests()
	if err := srv.Wait(ctx, func(s *Server) bool {
		l := s.RequestLog()
		return len(l) > 0 && l[len(l)-1].Kind == "slow"
	}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	p.send(map[string]any{"type": "control_request", "request_id": "int-1",
		"request": map[string]any{"subtype": "interrupt"}})
	res = p.until(ctx, "result after interrupt", isResult)
	t.Logf("interrupt -> result in %v: %.300s (requests before SLOW: %d)", time.Since(t0), res.Raw, n)
	if strings.Contains(res.Raw, "slow done") {
		t.Errorf("the 60 s reply completed: the interrupt did not end the turn: %.300s", res.Raw)
	}

	// /compact sends a compaction request (with tools); the session goes on.
	p.prompt("/compact")
	p.until(ctx, "result of /compact", isResult)
	p.prompt("hello again")
	res = p.until(ctx, "result 4", isResult)
	if res.str("result") != "You said: hello again" {
		t.Errorf("result 4 = %.500s", res.Raw)
	}
	var kinds []string
	for _, l := range srv.RequestLog() {
		kinds = append(kinds, l.Kind+":"+l.Note)
	}
	t.Logf("request kinds: %v", kinds)
}

// DEMO runs the default script (Read + Edit a.txt in claude's cwd).
func TestClaudeDemo(t *testing.T) {
	claudeBin(t)
	t.Parallel()
	srv := startServer(t, Options{})
	ctx := testCtx(t, 90*time.Second)
	p := startClaude(t, srv)
	a := filepath.Join(p.cwd, "a.txt")
	if err := os.WriteFile(a, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.prompt("DEMO")
	var asked []string
	res := p.until(ctx, "result", func(m msg) bool {
		if m.Type == "control_request" && m.str("request", "subtype") == "can_use_tool" {
			asked = append(asked, m.str("request", "tool_name"))
			p.respond(m, map[string]any{"behavior": "allow", "updatedInput": m.M["request"].(map[string]any)["input"]})
		}
		return isResult(m)
	})
	if res.str("result") != "all done" {
		t.Errorf("result = %.500s", res.Raw)
	}
	for _, id := range []string{"toolu_s0", "toolu_s1"} {
		tr, err := srv.WaitToolResult(ctx, id)
		if err != nil || tr.IsError {
			t.Errorf("%s: %+v %v", id, tr, err)
		}
	}
	if b, _ := os.ReadFile(a); string(b) != "hello from claude-nova\n" {
		t.Errorf("a.txt = %q", b)
	}
	t.Logf("permission prompts: %v", asked)
}

func TestClaudeStream(t *testing.T) {
	claudeBin(t)
	t.Parallel()
	srv := startServer(t, Options{})
	ctx := testCtx(t, 90*time.Second)
	p := startClaude(t, srv)
	const n = 2000
	p.prompt(fmt.Sprintf("STREAM %d", n))
	t0 := time.Now()
	res := p.until(ctx, "result", isResult)
	var want strings.Builder
	for i := 0; i < n; i++ {
		want.WriteString(streamChunk(i))
	}
	if got := res.str("result"); strings.TrimSpace(got) != strings.TrimSpace(want.String()) {
		t.Errorf("result has %d bytes, want %d", len(got), want.Len())
	}
	t.Logf("STREAM %d (%d bytes) -> result in %v", n, n*40, time.Since(t0))
}
