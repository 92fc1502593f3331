package claude

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

var fakeClaude string

func TestMain(m *testing.M) { testkit.MainWithFakeClaude(m, &fakeClaude) }

func startFake(t *testing.T, script string, env ...string) (*Process, *syncWriter) {
	t.Helper()
	dir := t.TempDir()
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	logBuf := &syncWriter{}
	log := slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := Start(Config{Command: fakeClaude, Dir: dir, Env: append([]string{"FAKECLAUDE_SCRIPT=" + sp}, env...), Spawner: NewSpawner()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	return p, logBuf
}

// syncWriter is a log sink safe to read while claude's goroutines write.
type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func next(t *testing.T, p *Process, typ string) Message {
	t.Helper()
	// A bound on a hang, not a measure of speed: a 20 MB line parsed under
	// -race on a loaded machine took longer than 10 s.
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-p.Messages():
			if !ok {
				t.Fatalf("claude exited waiting for %s", typ)
			}
			if m.Type == typ {
				return m
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %s", typ)
		}
	}
}

func TestProcessHandshakeAskAnswer(t *testing.T) {
	p, _ := startFake(t, `{"ask":{"tool_name":"Bash","input":{"command":"ls"}}}`+"\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.SendUser("", "go"); err != nil {
		t.Fatal(err)
	}
	m := next(t, p, "control_request")
	pr, err := DecodePermissionRequest(m)
	if err != nil || pr.ToolName != "Bash" {
		t.Fatalf("%+v %v", pr, err)
	}
	if err := p.Respond(pr.RequestID, Allow(pr.Input)); err != nil {
		t.Fatal(err)
	}
	res := next(t, p, "user")
	if res.User == nil || len(res.User.Content) == 0 || res.User.Content[0].Type != "tool_result" {
		t.Fatalf("no tool_result: %+v", res.User)
	}
	if res.Raw != nil {
		t.Fatal("a user message's line kept beside its typed value")
	}
	// A control request claude refuses comes back as *ControlError.
	if init, err := p.InitResponse(); err != nil || !strings.Contains(string(init), "commands") {
		t.Fatalf("initialize response %s %v", init, err)
	}
	if _, err := p.Control(ctx, "no_such_subtype", nil); err == nil {
		t.Fatal("unknown subtype accepted")
	} else if ce := (*ControlError)(nil); !errors.As(err, &ce) {
		t.Fatalf("error %T %v", err, err)
	}
}

func TestProcessSurvivesHostileLines(t *testing.T) {
	script := strings.Join([]string{
		`{"raw":"not json at all"}`,
		`{"raw_b64":"/w=="}`,
		`{"big":20000000,"as":"assistant_text"}`,
		`{"big":1000000,"as":"garbage"}`,
		`{"emit":{"type":"assistant","message":{"content":[{"type":"text","text":"after"}]}}}`,
	}, "\n") + "\n"
	p, logBuf := startFake(t, script)
	if err := p.SendUser("", "go"); err != nil {
		t.Fatal(err)
	}
	var big Message
	for {
		m := next(t, p, "assistant")
		if m.Size > 19_000_000 {
			big = m
			continue
		}
		if m.Assistant != nil && len(m.Assistant.Content) > 0 && m.Assistant.Content[0].Text.String() == "after" {
			break
		}
	}
	if big.Assistant == nil || big.Assistant.Content[0].Text.Len() < 19_000_000 {
		t.Fatal("the 20 MB line was not delivered")
	}
	if !strings.Contains(logBuf.String(), "skipped malformed line") {
		t.Fatalf("malformed line not logged:\n%s", logBuf.String())
	}
}

func TestReadLineCap(t *testing.T) {
	in := strings.Repeat("x", 100) + "\n" + "ok\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	line, _, tooLong, err := readLine(br, 50, nil, nil)
	if line != nil || tooLong != 101 || err != nil {
		t.Fatalf("over-long: %q %d %v", line, tooLong, err)
	}
	line, own, tooLong, _ := readLine(br, 50, nil, nil)
	if string(line) != "ok" || tooLong != 0 || own {
		t.Fatalf("next line %q %d own %v", line, tooLong, own)
	}
}

// A line longer than the reader's buffer comes in storage of its own, of
// exactly its size; a short one in the caller's scratch.
func TestReadLineLong(t *testing.T) {
	long := strings.Repeat("y", 100)
	br := bufio.NewReaderSize(strings.NewReader(long+"\r\nshort\n"), 16)
	scratch := make([]byte, 0, 32)
	line, own, tooLong, err := readLine(br, 1000, scratch, nil)
	if string(line) != long || !own || tooLong != 0 || err != nil || cap(line) != 102 {
		t.Fatalf("long line: %q own %v cap %d %d %v", line, own, cap(line), tooLong, err)
	}
	line, own, _, _ = readLine(br, 1000, scratch, nil)
	if string(line) != "short" || own || &line[0] != &scratch[:1][0] {
		t.Fatalf("short line: %q own %v, not in scratch", line, own)
	}
}

// Stop ends claude and what claude started: the fake starts a child in its
// process group, and both ignore SIGTERM, so only a SIGKILL to the group
// ends the child (killing claude alone would leave it to init).
func TestStopKillsProcessGroup(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "fake.log")
	p, _ := startFake(t, `{"config":{"ignore_sigterm":true}}`+"\n"+`{"start":"immediate"}`+"\n"+
		`{"spawn_child":true}`+"\n"+`{"hang":true}`+"\n", "FAKECLAUDE_LOG="+logPath)
	pid := p.Pid()
	// Barrier: "hang" is logged after the child started, and the fake
	// ignores SIGTERM from its start (config is applied before any step).
	var child int
	waitFor(t, "the fake's child and its hang", func() bool {
		hung := false
		for _, e := range testkit.ReadLog(logPath) {
			switch e["ev"] {
			case "child":
				child = int(e["pid"].(float64))
			case "hang":
				hung = true
			}
		}
		return hung && child > 0
	})
	t.Cleanup(func() { // should the test fail: the child is ours, and only it
		if pg, _ := syscall.Getpgid(child); pg == pid && alive(child) {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if pgid, err := syscall.Getpgid(child); err != nil || pgid != pid {
		t.Fatalf("the child %d is in group %d (%v), want claude's %d", child, pgid, err, pid)
	}
	done := make(chan struct{})
	go func() { p.Stop(200 * time.Millisecond); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return")
	}
	if alive(pid) {
		t.Fatalf("claude %d still alive", pid)
	}
	// The child was SIGKILLed with its group; it is gone once init has
	// reaped it (a zombie until then).
	waitFor(t, "claude's child gone", func() bool { return !alive(child) })
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(st)
	i := strings.LastIndexByte(s, ')')
	return !(i > 0 && i+2 < len(s) && s[i+2] == 'Z')
}

// waitFor polls cond until it holds (or fails the test after a generous
// while: it waits for something that must happen, it does not time it).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestControlAfterExit(t *testing.T) {
	p, _ := startFake(t, `{"start":"immediate"}`+"\n"+`{"exit":0}`+"\n")
	<-p.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.Control(ctx, "interrupt", nil); err == nil {
		t.Fatal("control on a dead process succeeded")
	}
}

// The first line claude reads is initialize; user messages wait for its
// answer even when the prompt is sent at once and the answer is slow.
func TestInitializeIsFirstAndAnsweredBeforePrompt(t *testing.T) {
	for i := 0; i < 20; i++ {
		logPath := filepath.Join(t.TempDir(), "fake.log")
		p, _ := startFake(t, `{"config":{"control":{"initialize":{"delay_ms":30}}}}`+"\n"+`{"result":true}`+"\n", "FAKECLAUDE_LOG="+logPath)
		if err := p.SendUser("", "first prompt"); err != nil {
			t.Fatal(err)
		}
		next(t, p, "result")
		var recv []string
		var at []time.Time
		for _, e := range testkit.ReadLog(logPath) {
			if e["t"] == "recv" && e["subtype"] == "initialize" {
				// An interrupt spares background tasks: they are stopped
				// one at a time (stop_task).
				if line := fmt.Sprint(e["line"]); !strings.Contains(line, `"perTaskStopAffordance":true`) {
					t.Fatalf("initialize does not declare perTaskStopAffordance: %s", line)
				}
			}
			if e["t"] == "recv" {
				recv = append(recv, fmt.Sprint(e["type"], "/", e["subtype"]))
				ts, _ := time.Parse("2006-01-02T15:04:05.000000Z", fmt.Sprint(e["ts"]))
				at = append(at, ts)
			}
		}
		if len(recv) < 2 || recv[0] != "control_request/initialize" || recv[1] != "user/<nil>" {
			t.Fatalf("run %d: claude read %v, want initialize then the prompt", i, recv)
		}
		// The fake answers initialize 30 ms after reading it: the prompt
		// may only come after that answer.
		if gap := at[1].Sub(at[0]); gap < 30*time.Millisecond {
			t.Fatalf("run %d: the prompt came %s after initialize, before its answer", i, gap)
		}
	}
}

// A full write queue is an error for the caller, never a wait.
func TestSendNeverWaitsOnClaude(t *testing.T) {
	p, _ := startFake(t, `{"start":"immediate"}`+"\n"+`{"hang":true}`+"\n")
	// Larger than a pipe's buffer, so the writer blocks on the first ones;
	// small enough that encoding the queue's worth is quick under -race.
	big := strings.Repeat("x", 128<<10)
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < writeQueueLen+64 && err == nil; i++ {
			err = p.Send(map[string]any{"type": "keep_alive", "pad": big})
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a bound on a hang, not a measure of speed
		t.Fatal("Send blocked on a claude that does not read")
	}
	if !errors.Is(err, ErrBackedUp) {
		t.Fatalf("err = %v, want ErrBackedUp", err)
	}
}

// A line longer than the read buffer asks for a turn of the host's long
// lines once, before the rest of it is read; a short line never does.
func TestReadLineTakesATurnForALongLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		turns int
	}{
		{"short", "short\n", 0},
		{"long", strings.Repeat("y", 100) + "\n", 1},
		{"over-long", strings.Repeat("y", 2000) + "\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
			turns := 0
			_, _, _, _ = readLine(br, 1000, nil, func() { turns++ })
			if turns != tc.turns {
				t.Fatalf("%d turns taken, want %d", turns, tc.turns)
			}
		})
	}
}

// LongLines lets n readers in at once; one that waited its longest goes on
// without a turn; nil lets everyone in.
func TestLongLines(t *testing.T) {
	l := NewLongLines(2)
	l.maxWait = time.Millisecond
	if !l.take() || !l.take() {
		t.Fatal("two turns were not free")
	}
	if l.take() {
		t.Fatal("a third turn was given")
	}
	l.give()
	if !l.take() {
		t.Fatal("a turn given back is not free")
	}
	var none *LongLines
	if none.take() {
		t.Fatal("nil gave a turn")
	}
}

// A control request whose caller gave up (its context ended) leaves
// nothing waiting behind it: its answer, when it comes, finds no one.
func TestControlGivenUpIsForgotten(t *testing.T) {
	p, _ := startFake(t, `{"config":{"control":{"get_settings":{"delay_ms":2000}}}}`+"\n"+`{"start":"immediate"}`+"\n")
	<-p.Initialized() // initialize's own call is answered, not given up
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Control(ctx, "get_settings", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("control: %v", err)
	}
	p.cmu.Lock()
	n := len(p.calls)
	p.cmu.Unlock()
	if n != 0 {
		t.Fatalf("%d call(s) still wait for an answer", n)
	}
}
