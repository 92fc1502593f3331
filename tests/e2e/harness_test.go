// Package e2e drives a real `nvim --embed --headless` with the plugin, the
// real claude CLI and our fake model server (or the fake claude for faults),
// and simulates the user.
package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neovim/go-client/nvim"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

// root is the repository root (where bin/claudenova lives).
var root = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}()

type nvimVersion struct{ name, bin string }

// newestNvim is the test bed's 0.12, for the tests that install the plugin
// once (the zero version when it is missing: versions has said so).
func newestNvim(t *testing.T) nvimVersion {
	t.Helper()
	for _, v := range versions(t) {
		if v.name == "nvim-0.12" {
			return v
		}
	}
	return nvimVersion{}
}

// versions returns the Neovim builds of the test bed. Under `make test`
// (CLAUDENOVA_REQUIRE_E2E=1) a missing build fails the test instead of
// skipping it.
func versions(t *testing.T) []nvimVersion {
	t.Helper()
	var out []nvimVersion
	for _, v := range []nvimVersion{{"nvim-0.10", os.Getenv("NVIM_010")}, {"nvim-0.12", os.Getenv("NVIM_012")}} {
		if v.bin != "" {
			out = append(out, v)
		}
	}
	if len(out) < 2 {
		if os.Getenv("CLAUDENOVA_REQUIRE_E2E") != "" {
			t.Fatalf("NVIM_010 and NVIM_012 must be set (run through `make test`, which installs the test bed)")
		}
		t.Skip("test bed not installed: run `make test` (NVIM_010/NVIM_012/CLAUDE_BIN unset)")
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "claudenova")); err != nil {
		t.Fatalf("bin/claudenova missing: run `make` first: %v", err)
	}
	return out
}

func claudeBin(t *testing.T) string {
	t.Helper()
	b := os.Getenv("CLAUDE_BIN")
	if b == "" {
		if os.Getenv("CLAUDENOVA_REQUIRE_E2E") != "" {
			t.Fatal("CLAUDE_BIN must be set (run through `make test`)")
		}
		t.Skip("CLAUDE_BIN unset")
	}
	return b
}

// eachNvim runs fn once per Neovim version, as parallel subtests of a
// test that is itself parallel: every simulated user has a Neovim, a host,
// a claude and a model server of their own, so tests do not share state
// (see TestMain for how many run at once).
func eachNvim(t *testing.T, fn func(t *testing.T, v nvimVersion)) {
	vs := versions(t)
	t.Parallel()
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			fn(t, v)
		})
	}
}

// Env is one simulated user: a headless Neovim with the plugin, a project
// folder, a private HOME, and the model server claude talks to.
type Env struct {
	t       *testing.T
	V       *nvim.Nvim
	Home    string
	Project string
	Storage string
	Marker  string // env marker inherited by every process we start
	Model   *fakemodel.Server

	sentinels int // answer barriers so far (barrier_test.go)

	env    []string // Neovim's environment
	Socket string   // the server's socket (Options.Listen)
	base   string   // the temp folder holding every folder above
	quit   bool     // Neovim was closed by Quit
}

// Options for an Env.
type Options struct {
	Claude    string            // "real" (default) or the path of the fake claude
	Setup     map[string]any    // extra setup() options
	ClaudeEnv map[string]string // extra env for claude
	NoModel   bool              // do not start the fake model server
	NoSetup   bool              // do not call setup()
	ModelOpts fakemodel.Options
	NvimEnv   []string // extra environment for Neovim ("K=V")
	Pack      string   // install the plugin with vim.pack from this git source (0.12)
	// NoRemote hides Neovim's autoload/remote/ (remote#host, remote#define)
	// from the runtimepath: a Neovim without remote plugins.
	NoRemote bool
	// Listen runs Neovim as a server (nvim --headless --listen) that the
	// test reaches through its socket, as a --remote-ui client does
	// (e.Socket).
	Listen bool
	// Init replaces the test init (make demo's: scripts/demo/init.lua);
	// tests/e2e/observe.lua is loaded after it, before VimEnter.
	Init string
	// Files are written into the project before Neovim starts; HomeFiles
	// into the home folder. "{{home}}" and "{{project}}" in Setup's values
	// are the two folders.
	Files     map[string]string
	HomeFiles map[string]string
	// Again starts this Neovim on the folders of an earlier Env (its home,
	// project, storage and XDG folders): a restart of the editor, once the
	// earlier one was closed with Quit.
	Again *Env
}

func randomID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// NewEnv starts Neovim v with the plugin.
func NewEnv(t *testing.T, v nvimVersion, o Options) *Env {
	t.Helper()
	base := t.TempDir()
	if o.Again != nil {
		base = o.Again.base
	}
	e := &Env{t: t, Home: filepath.Join(base, "home"), Project: filepath.Join(base, "project"),
		Storage: filepath.Join(base, "storage"), Marker: "cn-" + randomID(), base: base}
	for _, d := range []string{e.Home, e.Project, e.Storage} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	claudeEnv := map[string]string{
		"HOME": e.Home,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"ANTHROPIC_API_KEY":                        "test",
		"CLAUDENOVA_TEST_MARKER":                   e.Marker,
	}
	for rel, content := range o.Files {
		e.WriteFile(rel, content)
	}
	for rel, content := range o.HomeFiles {
		p := filepath.Join(e.Home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !o.NoModel {
		e.Model = fakemodel.New(o.ModelOpts)
		if _, err := e.Model.Start(context.Background()); err != nil {
			t.Fatalf("fake model server: %v", err)
		}
		t.Cleanup(e.Model.Close)
		claudeEnv["ANTHROPIC_BASE_URL"] = e.Model.URL()
	}
	for k, val := range o.ClaudeEnv {
		claudeEnv[k] = val
	}
	cmd := o.Claude
	if cmd == "" || cmd == "real" {
		cmd = claudeBin(t)
	}
	setup := map[string]any{
		"cmd":       cmd,
		"env":       claudeEnv,
		"storage":   e.Storage,
		"log_level": "debug",
	}
	for k, val := range o.Setup {
		setup[k] = val
	}
	optsJSON, _ := json.Marshal(setup)
	optsJSON = []byte(strings.NewReplacer("{{home}}", e.Home, "{{project}}", e.Project).Replace(string(optsJSON)))
	if o.NoSetup {
		optsJSON = nil
	}
	xdg := func(n string) string { return filepath.Join(base, "xdg", n) }
	// Neovim's log in a folder that exists (else it may log elsewhere and
	// warn of it 100 ms after startup, a message no test expects).
	if err := os.MkdirAll(filepath.Join(xdg("state"), "nvim"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"NVIM_LOG_FILE=" + filepath.Join(xdg("state"), "nvim", "log"),
		"HOME=" + e.Home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + xdg("config"),
		"XDG_DATA_HOME=" + xdg("data"),
		"XDG_STATE_HOME=" + xdg("state"),
		"XDG_CACHE_HOME=" + xdg("cache"),
		"XDG_RUNTIME_DIR=" + xdg("run"),
		"CLAUDENOVA_TEST_ROOT=" + root,
		"CLAUDENOVA_TEST_OPTS=" + string(optsJSON),
		"CLAUDENOVA_TEST_MARKER=" + e.Marker,
		"TMPDIR=" + base,
		"CLAUDENOVA_TEST_PACK=" + o.Pack,
	}
	if o.NoRemote {
		env = append(env, "CLAUDENOVA_TEST_HIDE_REMOTE="+filepath.Join(base, "runtime"))
	}
	for _, kv := range o.NvimEnv { // replaces a variable set above
		k, _, _ := strings.Cut(kv, "=")
		kept := env[:0]
		for _, old := range env {
			if !strings.HasPrefix(old, k+"=") {
				kept = append(kept, old)
			}
		}
		env = append(kept, kv)
	}
	args := []string{"--embed", "--headless", "-n", "-i", "NONE", "-u", filepath.Join(root, "tests", "e2e", "init.lua")}
	if o.Init != "" {
		args = []string{"--embed", "--headless", "-n", "-i", "NONE", "-u", o.Init,
			"-c", "luafile " + filepath.Join(root, "tests", "e2e", "observe.lua")}
	}
	e.env = env
	if o.Listen {
		e.listen(v, args, env)
		return e
	}
	nv, err := nvim.NewChildProcess(
		nvim.ChildProcessCommand(v.bin),
		nvim.ChildProcessArgs(args...),
		nvim.ChildProcessEnv(env),
		nvim.ChildProcessDir(e.Project),
		nvim.ChildProcessServe(true),
		nvim.ChildProcessLogf(func(string, ...any) {}),
	)
	if err != nil {
		t.Fatalf("start %s: %v", v.bin, err)
	}
	e.V = nv
	t.Cleanup(func() {
		if !e.quit {
			e.close()
		}
		e.assertNoOrphans(30 * time.Second)
		if t.Failed() {
			e.dumpLog()
		}
	})
	return e
}

func (e *Env) close() {
	done := make(chan struct{})
	go func() { _ = e.V.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		e.t.Errorf("nvim did not exit")
	}
}

// Quit closes this Neovim (as :qa would end it) and waits until it and
// every process it started are gone: NewEnv with Options.Again then
// starts the editor again on the same folders.
func (e *Env) Quit() {
	e.t.Helper()
	e.quit = true
	e.close()
	e.assertNoOrphans(30 * time.Second)
}

// Lua runs code with args and decodes its result into out (may be nil).
func (e *Env) Lua(out any, code string, args ...any) {
	e.t.Helper()
	if args == nil {
		args = []any{}
	}
	blocked, err := e.execLua(code, out, args...)
	if blocked != "" {
		e.t.Fatalf("lua %q: %s", firstLine(code), blocked)
	}
	if err != nil {
		e.t.Fatalf("lua %q: %v", firstLine(code), err)
	}
}

// execLua is ExecLua, watched: a call Neovim does not answer because it
// waits for a key (a prompt nothing answers) would hold the test until go
// test's own timeout. After blockedAfter the watch asks for the mode (an
// answer that never waits); when Neovim is blocked it says so in blocked,
// with what the prompt showed, and presses <Esc> so the call can end.
func (e *Env) execLua(code string, out any, args ...any) (blocked string, err error) {
	done := make(chan error, 1)
	go func() { done <- e.V.ExecLua(code, out, args...) }()
	tick := time.NewTicker(blockedAfter)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if blocked != "" {
				// What the prompt said: :messages, now that it is answered.
				msgs := make(chan string, 1)
				go func() {
					var m string
					_ = e.V.ExecLua("return vim.fn.execute('messages')", &m)
					msgs <- m
				}()
				select {
				case m := <-msgs:
					blocked += "; its messages:" + m
				case <-time.After(5 * time.Second):
				}
			}
			return blocked, err
		case <-tick.C:
			m, merr := e.V.Mode()
			if merr != nil || !m.Blocking || blocked != "" {
				continue
			}
			blocked = fmt.Sprintf("Neovim waits for a key (mode %q) and cannot answer", m.Mode)
			_, _ = e.V.Input("<Esc>")
		}
	}
}

// blockedAfter is how long a call waits before asking whether Neovim is
// blocked by a prompt (a slow answer under load is not a failure).
const blockedAfter = 20 * time.Second

// Cmd runs an Ex command.
// A :ClaudeNova command runs as a gesture: it returns at once and may
// still wait for the host's reply, as a person's typing would go on.
// Cmd then waits, as that person would, until it is done.
func (e *Env) Cmd(cmd string) {
	e.t.Helper()
	if err := e.CmdErr(cmd); err != nil {
		e.t.Fatalf("command %q: %v", cmd, err)
	}
}

// CmdErr runs an Ex command, waits for a :ClaudeNova one to be done, and
// returns its error.
func (e *Env) CmdErr(cmd string) error {
	e.t.Helper()
	if err := e.V.Command(cmd); err != nil {
		return err
	}
	e.commandsDone()
	return nil
}

// commandsDone waits until no :ClaudeNova command runs or waits its turn.
func (e *Env) commandsDone() {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var busy bool
		err := e.V.ExecLua(`local ok, c = pcall(require, 'claudenova.commands')
			return ok and c.busy() or false`, &busy)
		if err != nil || !busy {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("a :ClaudeNova command still runs after 30 s; notes: %v", e.Notes())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "…"
	}
	return s
}

// Eventually polls cond every 20 ms until it is true or timeout passes.
func (e *Env) Eventually(timeout time.Duration, what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			if m, err := e.V.Mode(); err == nil && m.Blocking {
				_, _ = e.V.Input("<Esc>") // the notes below can be read then
				e.t.Errorf("Neovim waits for a key (mode %q): nothing answers its prompt", m.Mode)
			}
			var stream, sessions any
			_ = e.V.ExecLua("return require('claudenova.frontend.inbox').stream_state()", &stream)
			// The host's own view, beside the front end's.
			_ = e.V.ExecLua(`local ok, s = pcall(require('claudenova.channel.host').request, 'sessions')
				if not ok then return tostring(s) end
				local out = {}
				for _, i in ipairs(s or {}) do table.insert(out, ("%s:%s"):format(i.id, i.state)) end
				return table.concat(out, " ")`, &sessions)
			e.t.Fatalf("timed out after %s waiting for %s\nnotes: %s\nthe front end's stream: %v\nthe host's sessions: %v", timeout, what,
				strings.Join(e.Notes(), "\n  "), stream, sessions)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Notes returns every vim.notify message so far.
func (e *Env) Notes() []string {
	var notes []struct {
		Msg string `msgpack:"msg"`
	}
	if err := e.V.ExecLua("return _G.claudenova_test.notes", &notes); err != nil {
		return []string{"(notes unavailable: " + err.Error() + ")"}
	}
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.Msg
	}
	return out
}

// NoteContaining reports whether some notification contains s.
func (e *Env) NoteContaining(s string) bool {
	for _, n := range e.Notes() {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// Transcript returns the lines of session id's transcript buffer.
func (e *Env) Transcript(id int) string {
	var lines []string
	e.Lua(&lines, `local b = require('claudenova.surfaces.transcript').bufs[...]
		if not b or not vim.api.nvim_buf_is_valid(b) then return {} end
		return vim.api.nvim_buf_get_lines(b, 0, -1, false)`, id)
	return strings.Join(lines, "\n")
}

// Pending is require('claudenova').pending().
type Pending struct {
	ID      string `msgpack:"id"`
	Session int    `msgpack:"session"`
	Tool    string `msgpack:"tool"`
	Surface string `msgpack:"surface"`
	Target  string `msgpack:"target"`
}

// Pending lists the pending requests the UI knows.
func (e *Env) Pending() []Pending {
	var out []Pending
	e.Lua(&out, "return require('claudenova').pending()")
	return out
}

// WaitGone waits until request id has left the host and the front end:
// answered and told. A test that saves a proposal and then waits for the
// next one waits for this first.
func (e *Env) WaitGone(id string) {
	e.t.Helper()
	e.Eventually(10*time.Second, "request "+id+" answered and told", func() bool {
		var gone bool
		e.Lua(&gone, `local id = ...
			for _, r in ipairs(require('claudenova.channel.host').request('pending') or {}) do
				if r.id == id then return false end
			end
			return require('claudenova.store.state').requests[id] == nil`, id)
		return gone
	})
}

// WaitPending waits for n pending requests (at least n; 0: none at all)
// and returns them.
func (e *Env) WaitPending(n int) []Pending {
	e.t.Helper()
	var p []Pending
	e.Eventually(60*time.Second, fmt.Sprintf("%d pending request(s)", n), func() bool {
		p = e.Pending()
		if n == 0 {
			return len(p) == 0 // it returned at once, whatever was pending
		}
		return len(p) >= n
	})
	return p
}

// SessionState returns the state of session id as the UI knows it.
func (e *Env) SessionState(id int) (state, mode string) {
	var s struct {
		State string `msgpack:"state"`
		Mode  string `msgpack:"mode"`
	}
	e.Lua(&s, "return require('claudenova.store.state').sessions[...] or {}", id)
	return s.State, s.Mode
}

// WaitIdle waits until session id has finished its turn.
func (e *Env) WaitIdle(id int) {
	e.t.Helper()
	e.Eventually(60*time.Second, fmt.Sprintf("session %d idle", id), func() bool {
		st, _ := e.SessionState(id)
		return st == "idle"
	})
}

// WriteFile writes a project file.
func (e *Env) WriteFile(rel, content string) string {
	e.t.Helper()
	p := filepath.Join(e.Project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// ReadFile reads a project file ("" when missing).
func (e *Env) ReadFile(rel string) string {
	b, err := os.ReadFile(filepath.Join(e.Project, rel))
	if err != nil {
		return ""
	}
	return string(b)
}

// Seq builds a scripted prompt: the fake model calls these tools in order.
func Seq(steps ...[2]any) string {
	b, _ := json.Marshal(steps)
	return "SEQ " + string(b)
}

// Step is one scripted tool call.
func Step(tool string, input any) [2]any { return [2]any{tool, input} }

// markedPids lists live processes carrying this env's marker.
func (e *Env) markedPids() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	needle := []byte("CLAUDENOVA_TEST_MARKER=" + e.Marker)
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if kv == string(needle) {
				if st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil && isZombie(st) {
					break
				}
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

func isZombie(stat []byte) bool {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// ClaudePids lists this env's live processes other than nvim and the host.
func (e *Env) ClaudePids() []int {
	var out []int
	for _, pid := range e.markedPids() {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		base := filepath.Base(exe)
		if base == "nvim" || base == "claudenova" {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// assertNoOrphans fails if any process carrying the marker outlives Neovim,
// then kills those (they are ours: they carry our marker).
func (e *Env) assertNoOrphans(wait time.Duration) {
	deadline := time.Now().Add(wait)
	var left []int
	for {
		left = e.markedPids()
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		var desc []string
		for _, pid := range left {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			desc = append(desc, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		e.t.Errorf("processes left after nvim exited:\n%s", strings.Join(desc, "\n"))
	}
}

func (e *Env) dumpLog() {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(e.Home), "xdg", "state", "nvim", "claudenova.log"))
	for _, m := range matches {
		b, _ := os.ReadFile(m)
		if len(b) > 8000 {
			b = b[len(b)-8000:]
		}
		e.t.Logf("host log %s (tail):\n%s", m, b)
	}
}

// LogText returns the host log.
func (e *Env) LogText() string {
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(e.Home), "xdg", "state", "nvim", "claudenova.log"))
	return string(b)
}

// fakeClaudePath and fakeMCPPath (a stdio MCP server) are built once by
// TestMain.
var fakeClaudePath, fakeMCPPath string

// envsPerCore is how many simulated users run at once per core when
// -parallel is not given: an env spends most of its time waiting (for
// claude's turns, for a person's pauses and the surfaces' quiet periods),
// so a core keeps more than one busy.
const envsPerCore = 3

func TestMain(m *testing.M) {
	flag.Parse()
	if !flagGiven("test.parallel") {
		_ = flag.Set("test.parallel", strconv.Itoa(envsPerCore*runtime.NumCPU()))
	}
	testkit.MainWithFakes(m, &fakeClaudePath, &fakeMCPPath, func() {
		for _, d := range releaseCleanup {
			_ = os.RemoveAll(d)
		}
	})
}

// flagGiven reports whether the flag was set on the command line.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// ErrorNotes returns the notifications shown at level ERROR.
func (e *Env) ErrorNotes() []string {
	var notes []struct {
		Msg   string `msgpack:"msg"`
		Level int    `msgpack:"level"`
	}
	e.Lua(&notes, "return _G.claudenova_test.notes")
	var out []string
	for _, n := range notes {
		if n.Level >= 4 {
			out = append(out, n.Msg)
		}
	}
	return out
}

// Mode is nvim_get_mode (answered even while Neovim waits for a key).
func (e *Env) Mode() (mode string, blocking bool) {
	e.t.Helper()
	m, err := e.V.Mode()
	if err != nil {
		e.t.Fatalf("nvim_get_mode: %v", err)
	}
	return m.Mode, m.Blocking
}

// WaitMode waits until Neovim is in mode (after typed keys were processed).
func (e *Env) WaitMode(mode string) {
	e.t.Helper()
	e.Eventually(5*time.Second, "mode "+mode, func() bool { m, _ := e.Mode(); return m == mode })
}

// AttachUI makes the test a UI of cols × rows, as a terminal is: messages
// wider than the screen then give a real hit-enter prompt. Real
// notifications are echoed from then on.
func (e *Env) AttachUI(cols, rows int) {
	e.t.Helper()
	_ = e.V.RegisterHandler("redraw", func(...[]any) {})
	if err := e.V.AttachUI(cols, rows, map[string]any{"rgb": true}); err != nil {
		e.t.Fatalf("attach ui: %v", err)
	}
	e.Lua(nil, "_G.claudenova_test.echo = true")
}

// LuaAsync runs code without waiting for it (it may block on a prompt);
// the result is discarded.
func (e *Env) LuaAsync(code string, args ...any) {
	go func() { _ = e.V.ExecLua(code, nil, args...) }()
}
