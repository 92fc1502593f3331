package claude

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
	shellquote "github.com/kballard/go-shellquote"
)

// Config says how to start claude.
type Config struct {
	Command        string   // the user's command, split with shell quoting rules, never run by a shell
	Args           []string // extra arguments after ours
	Dir            string   // working directory
	Env            []string // extra KEY=VALUE pairs on top of the host's environment
	PermissionMode string   // --permission-mode, when set
	Model          string   // --model, when set
	Resume         string   // --resume, when set
	Worktree       string   // --worktree NAME: claude makes the worktree and works there
	Spawner        *Spawner // starts the process (nil: from the calling thread)
	// LongLines is shared by the host's processes: how many lines longer
	// than the read buffer they read at once (nil: no bound).
	LongLines *LongLines
	// Initialize holds extra fields of the initialize request (the editor's
	// MCP server, hooks).
	Initialize map[string]any
	// Novel records what claude sends that the plugin does not know,
	// logged once (shared by the host's processes; nil: not recorded).
	Novel *Novelties
	// Open, when set, runs claude another way than Start (claude's own
	// terminal UI in the editor: package tuihook).
	Open Opener
}

// Opener runs claude for a Config.
type Opener func(Config, *slog.Logger) (Conn, error)

// Open starts claude as cfg says: cfg.Open when set, else Start.
func Open(cfg Config, log *slog.Logger) (Conn, error) {
	if cfg.Open != nil {
		return cfg.Open(cfg, log)
	}
	p, err := Start(cfg, log)
	if err != nil {
		return nil, err
	}
	return p, nil
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

// SessionFlags are the flags of cfg every claude takes, in stream-json or
// in its terminal UI: the model, the permission mode and the worktree.
func SessionFlags(cfg Config) []string {
	var out []string
	for _, f := range [][2]string{{"--model", cfg.Model}, {"--permission-mode", cfg.PermissionMode}, {"--worktree", cfg.Worktree}} {
		if f[1] != "" {
			out = append(out, f[0], f[1])
		}
	}
	return out
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
		"--replay-user-messages",
		// Hooks report as they run (hook_started, hook_progress,
		// hook_response): a slow hook is not an unexplained pause, and a
		// hook that blocks a call names itself.
		"--include-hook-events")
	argv = append(argv, SessionFlags(cfg)...)
	if cfg.Resume != "" {
		argv = append(argv, "--resume", cfg.Resume)
	}
	return append(argv, cfg.Args...), nil
}

// initTimeout is how long user messages wait for claude to answer
// initialize before they are sent anyway.
const initTimeout = 60 * time.Second

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
	// started. On Linux, Pdeathsig: if the host dies (even by SIGKILL) the
	// kernel kills claude; a Spawner makes that reliable (procattr_*.go).
	cmd.SysProcAttr = childAttr()

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
		argv: argv, cmd: cmd, stdin: stdin, log: log, long: cfg.LongLines,
		msgs: queue.NewBounded(MaxQueuedBytes, func(m Message) int { return m.Size }), calls: map[string]chan Message{},
		stderr: &tail{max: 4096, log: log}, done: make(chan struct{}),
		out: make(chan outLine, writeQueueLen), initDone: make(chan struct{}),
		mode: cfg.PermissionMode, novel: cfg.Novel,
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
	// perTaskStopAffordance: the plugin stops background tasks one at a
	// time (stop_task), so an interrupt ends the turn only; without it the
	// CLI kills every background agent on each interrupt (checked on
	// 2.1.328).
	// cfg.Initialize adds the editor's MCP server and hooks.
	init := map[string]any{"forwardSubagentText": true, "perTaskStopAffordance": true}
	for k, v := range cfg.Initialize {
		init[k] = v
	}
	_, initCh, err := p.startControl("initialize", init)
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

// Done is closed when the process has exited and its output was read.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is the process's exit error; valid after Done.
func (p *Process) ExitErr() error { return p.exitErr }

// Kill ends claude's process group now: SIGTERM, then SIGKILL after grace.
// Nothing more is written to it.
func (p *Process) Kill(grace time.Duration) {
	p.closing.Store(true)
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
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
