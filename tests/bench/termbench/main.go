// Command termbench measures the streaming transcript where it is seen: in
// a real terminal. Headless Neovim draws nothing, so uibench cannot see what
// drawing a transcript costs; here a Neovim server (--headless --listen)
// has a real TUI attached (nvim --remote-ui) inside a tmux session of its
// own, and the editor's event-loop lag is sampled while several sessions
// stream (the fake claude, partial messages as claude prints them):
// once with no transcript on screen (the sidebar only), once with one
// transcript shown following the output. The difference is what drawing
// the transcript costs; both should stay within a frame.
//
// Event-loop lag: a 10 ms libuv timer in Neovim records how late each tick
// fires. A tick is late when the loop was busy: applying the host's events,
// redrawing the screen (Neovim redraws between events), anything.
//
// It starts every process it stops (Neovim by its pid, tmux by the private
// server it created) and uses a temporary HOME and XDG folders. Run it
// through `make bench`.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/bench/benchstat"
	"github.com/neovim/go-client/nvim"
)

// target is the lag a user does not feel: one frame at 60 Hz.
const target = 16 * time.Millisecond

func main() {
	root := flag.String("root", ".", "repository root")
	nvimBin := flag.String("nvim", os.Getenv("NVIM_012"), "nvim binary")
	fake := flag.String("fakeclaude", "", "fake claude binary")
	sessions := flag.Int("sessions", 4, "sessions streaming at once")
	deltas := flag.Int("deltas", 3000, "text deltas each session streams")
	every := flag.Int("every", 2, "ms between two deltas of a session")
	cols := flag.Int("cols", 200, "terminal columns")
	rows := flag.Int("rows", 50, "terminal rows")
	flag.Parse()
	if *nvimBin == "" || *fake == "" {
		fmt.Fprintln(os.Stderr, "termbench: -nvim and -fakeclaude are required")
		os.Exit(2)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintln(os.Stderr, "termbench: tmux is needed for a real terminal:", err)
		os.Exit(2)
	}
	absRoot, _ := filepath.Abs(*root)
	cfg := run{root: absRoot, nvim: *nvimBin, fake: *fake, sessions: *sessions, deltas: *deltas, every: *every, cols: *cols, rows: *rows}
	fmt.Printf("event-loop lag in a real TUI (tmux %dx%d, nvim --remote-ui): %d sessions stream %d deltas each, %d ms apart\n",
		*cols, *rows, *sessions, *deltas, *every)
	ok := true
	var p99s [2]time.Duration
	for i, shown := range []bool{false, true} {
		r, err := cfg.measure(shown)
		if err != nil {
			fmt.Fprintln(os.Stderr, "termbench:", err)
			os.Exit(1)
		}
		what := "no transcript shown (sidebar)"
		if shown {
			what = "one transcript shown         "
		}
		if i == 0 {
			fmt.Printf("  idle, before streaming        ticks=%-5d p50 %5.2f ms  p99 %5.2f ms  max %5.2f ms\n",
				len(r.idle), benchstat.MS(benchstat.Pct(r.idle, 50)), benchstat.MS(benchstat.Pct(r.idle, 99)), benchstat.MS(benchstat.Pct(r.idle, 100)))
		}
		p99 := benchstat.Pct(r.lag, 99)
		p99s[i] = p99
		met := p99 <= target
		ok = ok && met
		fmt.Printf("  %s ticks=%-5d p50 %5.2f ms  p99 %5.2f ms  max %5.2f ms  (target p99 ≤ %v, a frame: %s); %d lines in the newest transcript\n",
			what, len(r.lag), benchstat.MS(benchstat.Pct(r.lag, 50)), benchstat.MS(p99), benchstat.MS(benchstat.Pct(r.lag, 100)), target, benchstat.Verdict(met), r.lines)
		benchstat.Record(benchstat.Figure{Row: "terminal (tmux, --remote-ui), 8 sessions streaming: event-loop lag, " + strings.TrimSpace(what),
			Figure: fmt.Sprintf("p99 %.2f ms", benchstat.MS(p99)), Target: fmt.Sprintf("p99 ≤ %v", target), Met: met})
	}
	fmt.Printf("  drawing the transcript costs %+.2f ms at p99\n", benchstat.MS(p99s[1]-p99s[0]))
	if !ok {
		os.Exit(1)
	}
}

type run struct {
	root, nvim, fake                    string
	sessions, deltas, every, cols, rows int
}

type result struct {
	idle, lag []time.Duration
	lines     int // transcript lines of the newest session at the end
}

// sampler is the event-loop lag probe: a 10 ms repeating timer that
// records how late each tick is (µs).
const sampler = `
local t = { lags = {}, on = false }
_G.termbench = t
local period = 10
local last
t.timer = vim.uv.new_timer()
t.timer:start(period, period, function()
  local now = vim.uv.hrtime()
  if t.on and last then
    local late = (now - last) / 1e3 - period * 1e3
    table.insert(t.lags, late > 0 and late or 0)
  end
  last = now
end)
function t.take()
  local l = t.lags
  t.lags = {}
  return l
end
`

// script is one session's claude: a turn of partial-message deltas (what
// --include-partial-messages prints, shown live), then the whole message.
func (c run) script() string {
	chunk := "streaming text, a line of about forty.\n"
	return fmt.Sprintf(`{"stream_text":{"n":%d,"chunk":%q,"interval_ms":%d}}`+"\n"+`{"result":true}`+"\n", c.deltas, chunk, c.every)
}

func (c run) measure(shown bool) (res result, err error) {
	dir, err := os.MkdirTemp("", "termbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "nvim.sock")
	script := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(script, []byte(c.script()), 0o644); err != nil {
		return res, err
	}
	project := filepath.Join(dir, "project")
	_ = os.MkdirAll(project, 0o755)
	opts, _ := json.Marshal(map[string]any{"cmd": c.fake, "env": map[string]string{"FAKECLAUDE_SCRIPT": script},
		"storage": filepath.Join(dir, "storage"), "log_level": "warn"})
	xdg := func(n string) string { return filepath.Join(dir, "xdg", n) }
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + xdg("config"), "XDG_DATA_HOME=" + xdg("data"), "XDG_STATE_HOME=" + xdg("state"),
		"XDG_CACHE_HOME=" + xdg("cache"), "XDG_RUNTIME_DIR=" + xdg("run"), "TMUX_TMPDIR=" + dir,
		"CLAUDENOVA_TEST_ROOT=" + c.root, "CLAUDENOVA_TEST_OPTS=" + string(opts)}
	_ = os.MkdirAll(xdg("run"), 0o700)

	// The server: no UI of its own; the TUI attaches below.
	server := exec.Command(c.nvim, "--headless", "--listen", sock, "-n", "-i", "NONE", "-u", filepath.Join(c.root, "tests", "e2e", "init.lua"))
	server.Dir, server.Env = project, env
	var serverErr bytes.Buffer
	server.Stderr = &serverErr
	if err := server.Start(); err != nil {
		return res, fmt.Errorf("start nvim: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = server.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = server.Process.Signal(syscall.SIGKILL) // ours, by pid
			<-exited
		}
	}()
	v, err := dial(sock, exited)
	if err != nil {
		return res, fmt.Errorf("%w (nvim: %s)", err, serverErr.String())
	}
	defer func() { _ = v.Command("qa!"); _ = v.Close() }()

	// The terminal: a tmux server of our own (-L, in our TMUX_TMPDIR) whose
	// one window runs the TUI client.
	tmux := func(args ...string) ([]byte, error) {
		cmd := exec.Command("tmux", append([]string{"-L", "termbench", "-f", "/dev/null"}, args...)...)
		cmd.Env, cmd.Dir = env, project
		return cmd.CombinedOutput()
	}
	if out, err := tmux("new-session", "-d", "-s", "termbench", "-x", fmt.Sprint(c.cols), "-y", fmt.Sprint(c.rows),
		c.nvim, "--remote-ui", "--server", sock); err != nil {
		return res, fmt.Errorf("tmux: %v: %s", err, out)
	}
	defer func() { _, _ = tmux("kill-server") }()
	if err := waitFor(30*time.Second, "the TUI to attach", func() (bool, error) {
		var uis []map[string]any
		if err := v.ExecLua("return vim.api.nvim_list_uis()", &uis); err != nil {
			return false, err
		}
		return len(uis) == 1 && fmt.Sprint(uis[0]["width"]) == fmt.Sprint(c.cols), nil
	}); err != nil {
		return res, err
	}
	if err := v.ExecLua(sampler, nil); err != nil {
		return res, fmt.Errorf("sampler: %w", err)
	}

	// Idle: 2 s with nothing going on.
	if err := v.ExecLua("_G.termbench.on = true", nil); err != nil {
		return res, err
	}
	time.Sleep(2 * time.Second)
	if res.idle, err = take(v); err != nil {
		return res, err
	}

	// What the user watches: the sidebar, and, when shown, the transcript of
	// the newest session in a split, following the output.
	for i := 0; i < c.sessions; i++ {
		if err := v.ExecLua("require('claudenova').new({ prompt = 'go' })", nil); err != nil {
			return res, err
		}
	}
	if shown {
		if err := v.Command("ClaudeNova transcript"); err != nil {
			return res, err
		}
	}
	if err := v.Command("ClaudeNova"); err != nil {
		return res, err
	}
	var sid int
	_ = v.ExecLua("return require('claudenova.store.state').current", &sid)
	if err := waitFor(10*time.Minute, "every session idle", func() (bool, error) {
		var idle int
		err := v.ExecLua(`local n = 0
			for _, s in pairs(require('claudenova.store.state').sessions) do if s.state == 'idle' then n = n + 1 end end
			return n`, &idle)
		return idle == c.sessions, err
	}); err != nil {
		return res, err
	}
	if res.lag, err = take(v); err != nil {
		return res, err
	}
	_ = v.ExecLua("_G.termbench.on = false; _G.termbench.timer:stop()", nil)
	_ = v.ExecLua(`local b = require('claudenova.surfaces.transcript').bufs[...]
		return b and vim.api.nvim_buf_line_count(b) or 0`, &res.lines, sid)
	// The screen as the terminal shows it: with the transcript shown, its
	// text is there (the TUI really drew it).
	screen, err := tmux("capture-pane", "-p", "-t", "termbench")
	if err != nil {
		return res, fmt.Errorf("capture-pane: %v: %s", err, screen)
	}
	if shown && !bytes.Contains(screen, []byte("streaming text, a line of about forty.")) {
		return res, fmt.Errorf("the terminal does not show the transcript:\n%s", screen)
	}
	return res, nil
}

func take(v *nvim.Nvim) ([]time.Duration, error) {
	var us []float64
	if err := v.ExecLua("return _G.termbench.take()", &us); err != nil {
		return nil, err
	}
	out := make([]time.Duration, len(us))
	for i, u := range us {
		out[i] = time.Duration(u * float64(time.Microsecond))
	}
	return out, nil
}

func dial(sock string, exited <-chan struct{}) (*nvim.Nvim, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := nvim.Dial(sock)
		if err == nil {
			return v, nil
		}
		select {
		case <-exited:
			return nil, errors.New("nvim exited before it listened")
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("dial %s: %w", sock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitFor(d time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(d)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
