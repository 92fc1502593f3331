package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binPath is the fakeclaude binary built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeclaude-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "fakeclaude")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	out, err := exec.CommandContext(ctx, "go", "build", "-o", binPath, ".").CombinedOutput()
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build fakeclaude: %v\n%s", err, out)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
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

// fake is one running fakeclaude driven through pipes.
type fake struct {
	t       *testing.T
	ctx     context.Context
	dir     string
	logPath string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte // stdout lines without "\n"; closed at EOF
	stderr  *lockedBuffer
	done    chan struct{} // closed once the process has been waited for
	waitErr error
}

type fakeOpts struct {
	script string
	args   []string
	env    []string
}

func startFake(t *testing.T, ctx context.Context, o fakeOpts) *fake {
	t.Helper()
	dir := t.TempDir()
	f := &fake{t: t, ctx: ctx, dir: dir, logPath: filepath.Join(dir, "fakeclaude.log"),
		lines: make(chan []byte, 4096), stderr: &lockedBuffer{}, done: make(chan struct{})}
	scriptPath := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(scriptPath, []byte(o.script), 0o644); err != nil {
		t.Fatal(err)
	}
	// The context kills the child if a test overruns its deadline.
	f.cmd = exec.CommandContext(ctx, binPath, o.args...)
	f.cmd.Dir = dir
	f.cmd.Env = append(os.Environ(), "FAKECLAUDE_SCRIPT="+scriptPath, "FAKECLAUDE_LOG="+f.logPath)
	f.cmd.Env = append(f.cmd.Env, o.env...)
	f.cmd.Stderr = f.stderr
	f.cmd.WaitDelay = 5 * time.Second
	var err error
	if f.stdin, err = f.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			b, err := r.ReadBytes('\n')
			if len(b) > 0 {
				f.lines <- bytes.TrimSuffix(b, []byte("\n"))
			}
			if err != nil {
				break
			}
		}
		close(f.lines)
		f.waitErr = f.cmd.Wait()
		close(f.done)
	}()
	t.Cleanup(func() {
		_ = f.stdin.Close()
		select {
		case <-f.done:
		case <-time.After(2 * time.Second):
			// Only ever kills the process this test started.
			_ = f.cmd.Process.Kill()
			<-f.done
		}
		if t.Failed() {
			t.Logf("fakeclaude stderr:\n%s", f.stderr.String())
			if b, err := os.ReadFile(f.logPath); err == nil {
				if len(b) > 8000 {
					b = b[len(b)-8000:]
				}
				t.Logf("fakeclaude log (tail):\n%s", b)
			}
		}
	})
	return f
}

func (f *fake) sendRaw(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.stdin, line+"\n"); err != nil {
		f.t.Fatalf("write stdin: %v", err)
	}
}

func (f *fake) send(v any) {
	f.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	f.sendRaw(string(b))
}

func (f *fake) sendUser(text string) {
	f.t.Helper()
	f.send(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text},
		"parent_tool_use_id": nil, "session_id": ""})
}

func (f *fake) sendControl(id, subtype string, extra map[string]any) {
	f.t.Helper()
	req := map[string]any{"subtype": subtype}
	for k, v := range extra {
		req[k] = v
	}
	f.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
}

func (f *fake) answer(id string, resp map[string]any) {
	f.t.Helper()
	f.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

// nextRaw returns the next stdout line, failing on EOF or deadline.
func (f *fake) nextRaw() []byte {
	f.t.Helper()
	select {
	case b, ok := <-f.lines:
		if !ok {
			f.t.Fatalf("stdout closed; stderr: %s", f.stderr.String())
		}
		return b
	case <-f.ctx.Done():
		f.t.Fatalf("timed out waiting for a stdout line")
	}
	return nil
}

type msg map[string]any

func (f *fake) next() msg {
	f.t.Helper()
	b := f.nextRaw()
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		f.t.Fatalf("stdout line is not JSON: %v: %.200q", err, b)
	}
	return m
}

// expect reads the next line and checks its type (and subtype if non-empty).
func (f *fake) expect(typ, subtype string) msg {
	f.t.Helper()
	m := f.next()
	if m.str("type") != typ || (subtype != "" && m.sub() != subtype) {
		f.t.Fatalf("want %s/%s, got %v", typ, subtype, m.short())
	}
	return m
}

// stillWaiting waits until the fake logs that its step op is waiting, in
// an entry after the first one after matches (after nil: any). The fake
// logs "waiting" each time it looks at its condition and finds it false,
// so this proves the step still waits once that entry (an answer, a line
// read) happened: a barrier, not a pause.
func (f *fake) stillWaiting(op string, after func(msg) bool) {
	f.t.Helper()
	for {
		seen := after == nil
		b, _ := os.ReadFile(f.logPath) // not there yet: nothing logged
		for _, l := range bytes.Split(b, []byte("\n")) {
			var e msg
			if json.Unmarshal(l, &e) != nil {
				continue
			}
			switch {
			case !seen:
				seen = after(e)
			case e.str("t") == "event" && e.str("ev") == "waiting" && e.str("op") == op:
				return
			}
		}
		select {
		case <-f.ctx.Done():
			f.t.Fatalf("timed out waiting for the fake's %s to be waiting", op)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// exit waits for the process to end and returns its wait status.
func (f *fake) exit() syscall.WaitStatus {
	f.t.Helper()
	select {
	case <-f.done:
	case <-f.ctx.Done():
		f.t.Fatalf("timed out waiting for fakeclaude to exit")
	}
	var ee *exec.ExitError
	if f.waitErr != nil && !errors.As(f.waitErr, &ee) {
		f.t.Fatalf("wait: %v", f.waitErr)
	}
	return f.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// logEntries parses the whole FAKECLAUDE_LOG file.
func (f *fake) logEntries() []msg {
	f.t.Helper()
	b, err := os.ReadFile(f.logPath)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []msg
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m msg
		if err := json.Unmarshal(l, &m); err != nil {
			f.t.Fatalf("log line is not JSON: %v: %.200q", err, l)
		}
		out = append(out, m)
	}
	return out
}

// waitLog polls the log until an entry satisfies pred.
func (f *fake) waitLog(pred func(msg) bool) msg {
	f.t.Helper()
	for {
		if b, err := os.ReadFile(f.logPath); err == nil {
			for _, l := range bytes.Split(b, []byte("\n")) {
				var m msg
				if json.Unmarshal(l, &m) == nil && pred(m) {
					return m
				}
			}
		}
		select {
		case <-f.ctx.Done():
			f.t.Fatalf("timed out waiting for a log entry")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// answersFor returns the log's "answer" entries for a request id.
func (f *fake) answersFor(id string) []msg {
	var out []msg
	for _, e := range f.logEntries() {
		if e.str("t") == "answer" && e.str("request_id") == id {
			out = append(out, e)
		}
	}
	return out
}

func (m msg) str(k string) string {
	s, _ := m[k].(string)
	return s
}

func (m msg) obj(k string) msg {
	o, _ := m[k].(map[string]any)
	return msg(o)
}

// sub is the subtype of a message, looking inside control envelopes.
func (m msg) sub() string {
	switch m.str("type") {
	case "control_request":
		return m.obj("request").str("subtype")
	case "control_response":
		return m.obj("response").str("subtype")
	}
	return m.str("subtype")
}

// content returns message.content[0] of an assistant/user message.
func (m msg) content() msg {
	c, _ := m.obj("message")["content"].([]any)
	if len(c) == 0 {
		return nil
	}
	o, _ := c[0].(map[string]any)
	return msg(o)
}

func (m msg) short() string {
	b, _ := json.Marshal(m)
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdef", c) {
				return false
			}
		}
	}
	return true
}
