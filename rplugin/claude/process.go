package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	shellquote "github.com/kballard/go-shellquote"

	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
)

// MaxLineBytes bounds one stdout line. Longer lines are skipped (and logged),
// never buffered without limit.
const MaxLineBytes = 64 << 20

// Config says how to start claude.
type Config struct {
	Command        string   // the user's command, split with shell quoting rules, never run by a shell
	Args           []string // extra arguments after ours
	Dir            string   // working directory
	Env            []string // extra KEY=VALUE pairs on top of the host's environment
	PermissionMode string   // --permission-mode, when set
	Model          string   // --model, when set
	Resume         string   // --resume, when set
	Spawner        *Spawner // starts the process (nil: from the calling thread)
}

// SplitCommand splits the user's cmd option into words the way the host
// runs it: shell quoting rules, no shell.
func SplitCommand(cmd string) ([]string, error) {
	words, err := shellquote.Split(cmd)
	if err != nil {
		return nil, fmt.Errorf("split cmd %q: %w", cmd, err)
	}
	if len(words) == 0 {
		return nil, errors.New("cmd is empty")
	}
	return words, nil
}

// Argv returns the full argument vector for cfg.
func Argv(cfg Config) ([]string, error) {
	words, err := SplitCommand(cfg.Command)
	if err != nil {
		return nil, err
	}
	argv := append(words, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-prompt-tool", "stdio", "--include-partial-messages",
		// Each prompt is echoed (isReplay) when claude takes it: the plugin
		// knows which queued prompts can still be withdrawn.
		"--replay-user-messages")
	if cfg.Model != "" {
		argv = append(argv, "--model", cfg.Model)
	}
	if cfg.PermissionMode != "" {
		argv = append(argv, "--permission-mode", cfg.PermissionMode)
	}
	if cfg.Resume != "" {
		argv = append(argv, "--resume", cfg.Resume)
	}
	return append(argv, cfg.Args...), nil
}

// writeQueueLen bounds the lines waiting to be written to claude's stdin.
// Producers never wait on claude: a full queue is an error (claude stopped
// reading its input), never a stall of the caller.
const writeQueueLen = 256

// initTimeout is how long user messages wait for claude to answer
// initialize before they are sent anyway.
const initTimeout = 60 * time.Second

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

// Process is one running claude. Every line to claude is written by one
// writer goroutine, in order: initialize first, then everything else; user
// messages wait until initialize is answered. Nothing that sends to claude
// waits for claude.
type Process struct {
	argv  []string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   *slog.Logger

	out      chan outLine
	closing  atomic.Bool
	initDone chan struct{}
	initResp json.RawMessage // valid after initDone
	initErr  error           // valid after initDone

	msgs *queue.Bounded[Message]

	cmu    sync.Mutex
	calls  map[string]chan Message
	nextID atomic.Int64

	stderr *tail

	done    chan struct{}
	exitErr error
}

// Start spawns claude. The returned Process delivers every decoded stdout
// line on Messages; the reader never waits for the consumer.
func Start(cfg Config, log *slog.Logger) (*Process, error) {
	argv, err := Argv(cfg)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("claude command %q not found (tried: %s): %w", argv[0], shellquote.Join(argv...), err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = cfg.Dir
	cmd.Env = append(os.Environ(), cfg.Env...)
	// Own process group: stopping the session ends claude and everything it
	// started. Pdeathsig: if the host dies (even by SIGKILL) the kernel kills
	// claude; a Spawner makes that reliable.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd.Stdout = outW
	p := &Process{
		argv: argv, cmd: cmd, stdin: stdin, log: log,
		msgs: queue.NewBounded(MaxQueuedBytes, func(m Message) int { return len(m.Raw) }), calls: map[string]chan Message{},
		stderr: &tail{max: 4096, log: log}, done: make(chan struct{}),
		out: make(chan outLine, writeQueueLen), initDone: make(chan struct{}),
	}
	cmd.Stderr = p.stderr
	if err := cfg.Spawner.start(cmd); err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %s: %w", shellquote.Join(argv...), err)
	}
	outW.Close()
	log.Info("claude started", "pid", cmd.Process.Pid, "argv", shellquote.Join(argv...), "dir", cfg.Dir)

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		p.read(outR)
	}()
	// initialize is queued before anyone else can write: it is the first
	// line claude reads.
	// forwardSubagentText: subagents' messages come whole, at every depth
	// (without it only depth 1's tool calls do), for a nested transcript.
	initCh, err := p.startControl("initialize", map[string]any{"forwardSubagentText": true})
	if err != nil {
		p.initErr = err
		close(p.initDone)
	} else {
		go p.handshake(initCh)
	}
	go p.writeLoop()
	go func() {
		err := cmd.Wait()
		// Whatever claude left behind in its group goes with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-readDone:
		case <-time.After(2 * time.Second):
			outR.Close()
			<-readDone
		}
		outR.Close()
		p.exitErr = err
		p.log.Info("claude exited", "pid", cmd.Process.Pid, "err", err)
		p.failCalls()
		p.msgs.Close()
		close(p.done)
	}()
	return p, nil
}

// Spawner starts children from one OS thread that never exits. Pdeathsig
// fires when the *thread* that forked a child exits, so children must not be
// forked from a thread the Go runtime may retire.
type Spawner struct {
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// NewSpawner starts the spawning thread; it lives as long as the process.
func NewSpawner() *Spawner {
	sp := &Spawner{reqs: make(chan spawnReq)}
	go func() {
		runtime.LockOSThread() // never unlocked
		for r := range sp.reqs {
			r.done <- r.cmd.Start()
		}
	}()
	return sp
}

func (sp *Spawner) start(cmd *exec.Cmd) error {
	if sp == nil {
		return cmd.Start()
	}
	done := make(chan error, 1)
	sp.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}

// Argv is the command line that was run.
func (p *Process) Argv() []string { return p.argv }

// CommandLine is Argv quoted for display.
func (p *Process) CommandLine() string { return shellquote.Join(p.argv...) }

// Pid of the claude process (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Messages delivers decoded stdout lines in order; closed after exit.
func (p *Process) Messages() <-chan Message { return p.msgs.Out() }

// Done is closed when the process has exited and its output was read.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is the process's exit error; valid after Done.
func (p *Process) ExitErr() error { return p.exitErr }

// StderrTail returns the last few KiB claude wrote to stderr.
func (p *Process) StderrTail() string { return p.stderr.String() }

// MaxQueuedBytes bounds the lines read from claude that wait for the
// session to handle them. Past it the reader waits (claude's stdout pipe
// then holds it back): memory stays bounded while the host works through a
// burst from several sessions. The session's consumer never waits on
// Neovim (the UI queue drops and resyncs), so the reader only waits for
// work the host is doing.
const MaxQueuedBytes = 1 << 20

func (p *Process) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var scratch []byte
	for {
		line, tooLong, err := readLine(br, MaxLineBytes, scratch[:0])
		// Queued lines are exact copies (dispatch); a large scratch buffer
		// is not kept for the next, small, line.
		if cap(line) <= 1<<20 {
			scratch = line
		} else {
			scratch = nil
		}
		if tooLong > 0 {
			p.log.Warn("skipped over-long line from claude", "bytes", tooLong)
		} else if len(line) > 0 {
			p.dispatch(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.log.Warn("reading claude stdout", "err", err)
			}
			return
		}
	}
}

// readLine returns the next line without its newline, in buf's storage
// when it fits. A line longer than max is consumed and reported by its
// length in tooLong instead.
func readLine(br *bufio.Reader, max int, buf []byte) (line []byte, tooLong int, err error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n <= max {
			buf = append(buf, chunk...)
		} else {
			buf = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n > max {
			return nil, n, err
		}
		buf = trimEOL(buf)
		return buf, 0, err
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

func (p *Process) dispatch(line []byte) {
	if len(strings.TrimSpace(string(line[:min(len(line), 64)]))) == 0 {
		return
	}
	// A copy of exactly its size: the read buffer is used again, and a
	// queued line holds no spare capacity.
	line = bytes.Clone(line)
	m, err := ParseLine(line)
	if err != nil {
		p.log.Warn("skipped malformed line from claude", "err", err, "bytes", len(line), "head", preview(line))
		return
	}
	if m.Type == "control_response" {
		p.cmu.Lock()
		ch, ok := p.calls[m.RequestID]
		delete(p.calls, m.RequestID)
		p.cmu.Unlock()
		if ok {
			ch <- m
			return
		}
	}
	p.msgs.Push(m)
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
		}
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
	for {
		select {
		case l := <-p.out:
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
			initDone = nil
			for _, b := range held {
				write(b)
			}
			held = nil
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

func userLine(uuid, text string, notes ...string) ([]byte, error) {
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
	return encodeLine(line)
}

// ControlError is an error response from claude to one of our control requests.
type ControlError struct{ Subtype, Message string }

func (e *ControlError) Error() string {
	return fmt.Sprintf("claude refused %s: %s", e.Subtype, e.Message)
}

// startControl queues a control request and returns the channel its
// response arrives on (closed if claude exits first).
func (p *Process) startControl(subtype string, fields map[string]any) (chan Message, error) {
	id := fmt.Sprintf("nova-%d", p.nextID.Add(1))
	req := map[string]any{"subtype": subtype}
	for k, v := range fields {
		req[k] = v
	}
	ch := make(chan Message, 1)
	p.cmu.Lock()
	p.calls[id] = ch
	p.cmu.Unlock()
	if err := p.Send(map[string]any{"type": "control_request", "request_id": id, "request": req}); err != nil {
		p.cmu.Lock()
		delete(p.calls, id)
		p.cmu.Unlock()
		return nil, fmt.Errorf("%s: %w", subtype, err)
	}
	return ch, nil
}

func controlResult(subtype string, m Message) (json.RawMessage, error) {
	var env struct {
		Response struct {
			Subtype  string          `json:"subtype"`
			Error    string          `json:"error"`
			Response json.RawMessage `json:"response"`
		} `json:"response"`
	}
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return nil, fmt.Errorf("%s: decode response: %w", subtype, err)
	}
	if env.Response.Subtype == "error" {
		return nil, &ControlError{Subtype: subtype, Message: env.Response.Error}
	}
	return env.Response.Response, nil
}

// Control sends a control request and waits for its response body. Callers
// that serve Neovim must not wait here: run it from a goroutine of their own.
func (p *Process) Control(ctx context.Context, subtype string, fields map[string]any) (json.RawMessage, error) {
	ch, err := p.startControl(subtype, fields)
	if err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: claude exited before answering", subtype)
		}
		return controlResult(subtype, m)
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", subtype, ctx.Err())
	case <-p.done:
		return nil, fmt.Errorf("%s: claude exited before answering", subtype)
	}
}

// Reply is the outcome of a control request started with Begin.
type Reply struct {
	Body json.RawMessage
	Err  error
}

// Begin queues a control request, in order with every other line to
// claude, and returns at once: the channel delivers its one Reply (an error
// when claude exits first). A line queued after Begin returns is read by
// claude after the request.
func (p *Process) Begin(subtype string, fields map[string]any) (<-chan Reply, error) {
	ch, err := p.startControl(subtype, fields)
	if err != nil {
		return nil, err
	}
	out := make(chan Reply, 1)
	go func() {
		select {
		case m, ok := <-ch:
			if !ok {
				out <- Reply{Err: fmt.Errorf("%s: claude exited before answering", subtype)}
				return
			}
			body, err := controlResult(subtype, m)
			out <- Reply{Body: body, Err: err}
		case <-p.done:
			out <- Reply{Err: fmt.Errorf("%s: claude exited before answering", subtype)}
		}
	}()
	return out, nil
}

// RespondControl answers one of claude's control requests (other than
// can_use_tool) with a success and body.
func (p *Process) RespondControl(requestID string, body any) error {
	return p.Send(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype": "success", "request_id": requestID, "response": body,
		},
	})
}

// Respond queues the answer to a can_use_tool request.
func (p *Process) Respond(requestID string, result PermissionResult) error {
	b, err := EncodeAnswer(requestID, result)
	if err != nil {
		return err
	}
	return p.enqueue(outLine{b: b})
}

// RespondAndTell queues the answer and, in the same write, a user message
// (the plugin telling Claude what the user changed). Written together, the
// CLI puts the message into the very request that carries the tool's result
// (checked on 2.1.328: 17 of 17 runs; 50 ms later it came one request late).
func (p *Process) RespondAndTell(requestID string, result PermissionResult, note string) error {
	b, err := EncodeAnswer(requestID, result)
	if err != nil {
		return err
	}
	if note != "" {
		u, err := userLine("", note)
		if err != nil {
			return err
		}
		b = append(b, u...)
	}
	return p.enqueue(outLine{b: b})
}

// EncodeAnswer is the control_response line (with its newline) answering
// requestID. The updatedInput, which may carry a whole file, is spliced in
// as it is instead of being encoded again: it must be valid JSON (claude
// sent it, or Decision.Result checked it).
func EncodeAnswer(requestID string, r PermissionResult) ([]byte, error) {
	input := r.UpdatedInput
	if bytes.IndexByte(input, '\n') >= 0 {
		var c bytes.Buffer
		if err := json.Compact(&c, input); err != nil {
			return nil, fmt.Errorf("encode answer: %w", err)
		}
		input = c.Bytes()
	}
	r.UpdatedInput = nil
	inner, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode answer: %w", err)
	}
	id, _ := json.Marshal(requestID)
	b := make([]byte, 0, len(inner)+len(input)+len(id)+96)
	b = append(b, `{"type":"control_response","response":{"subtype":"success","request_id":`...)
	b = append(b, id...)
	b = append(b, `,"response":`...)
	if len(input) > 0 {
		b = append(b, inner[:len(inner)-1]...)
		b = append(b, `,"updatedInput":`...)
		b = append(b, input...)
		b = append(b, '}')
	} else {
		b = append(b, inner...)
	}
	return append(b, "}}\n"...), nil
}

// RespondError answers a control request with an error (e.g. unknown subtype).
func (p *Process) RespondError(requestID, message string) error {
	return p.Send(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype": "error", "request_id": requestID, "error": message,
		},
	})
}

// Stop ends claude: every queued line is written, stdin is closed, then it
// waits up to grace, terminates and finally kills the process group. It
// returns once the process is gone.
func (p *Process) Stop(grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	expired := false
	if p.closing.CompareAndSwap(false, true) {
		closed := make(chan struct{})
		select {
		case p.out <- outLine{close: closed}:
			select {
			case <-closed:
			case <-p.done:
			case <-timer.C:
				expired = true
			}
		case <-p.done:
		case <-timer.C:
			expired = true
		}
	}
	if !expired {
		select {
		case <-p.done:
			return
		case <-timer.C:
		}
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(time.Second):
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
}

// tail keeps the end of claude's stderr and logs each line.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	log  *slog.Logger
	part []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.log.Info("claude stderr", "line", string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	if len(t.part) > t.max {
		t.part = t.part[len(t.part)-t.max:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
