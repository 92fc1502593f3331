// Package luatest runs the front end's unit tests: each case of each
// tests/lua/*_spec.lua in a child Neovim of its own (0.10 and 0.12, a UI
// attached so that the screen can be read), the plugin above a fake host
// channel (tests/lua/harness.lua). No claude, no model server, no host
// binary. Screens a case captures are compared with the references in
// tests/lua/screens; `make screens` (UPDATE_SCREENS=1) writes them anew.
package luatest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/neovim/go-client/nvim"
)

var root = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}()

type version struct{ name, bin string }

// versions are the Neovims the cases run on: the test bed's 0.10 and 0.12
// (make test), else the nvim on PATH (the suite needs no claude, no model
// server, no host binary).
func versions(t *testing.T) []version {
	t.Helper()
	var out []version
	for _, v := range []version{{"0.10", os.Getenv("NVIM_010")}, {"0.12", os.Getenv("NVIM_012")}} {
		if v.bin != "" {
			out = append(out, v)
		}
	}
	if len(out) == 2 {
		return out
	}
	if os.Getenv("CLAUDENOVA_REQUIRE_E2E") != "" {
		t.Fatal("NVIM_010 and NVIM_012 must be set (run through `make test`, which installs the test bed)")
	}
	// Without a Neovim to run them on, the front end's tests fail rather
	// than pass unseen: a plain `go test ./...` says so, and skipping them
	// is a choice the caller makes (CLAUDENOVA_SKIP_LUA=1).
	skip := func(why string) {
		t.Helper()
		if os.Getenv("CLAUDENOVA_SKIP_LUA") != "" {
			t.Skip(why)
		}
		t.Fatal(why + "; the front end's tests did not run (CLAUDENOVA_SKIP_LUA=1 skips them knowingly)")
	}
	bin, err := exec.LookPath("nvim")
	if err != nil {
		skip("no Neovim: run `make test`, which installs 0.10 and 0.12")
	}
	b, err := exec.Command(bin, "--version").Output()
	if err != nil {
		skip(fmt.Sprintf("%s --version: %v", bin, err))
	}
	m := regexp.MustCompile(`NVIM v0\.(\d+)`).FindSubmatch(b)
	if m == nil || (string(m[1]) != "10" && string(m[1]) != "12") {
		skip("the nvim on PATH is not 0.10 or 0.12 (the reference screens are theirs): run `make test`")
	}
	return []version{{"0." + string(m[1]), bin}}
}

// traceHook makes a Neovim whose case hangs say where: with
// CLAUDENOVA_TEST_TRACE_CALLS set, every call into C (a wait, a prompt)
// from startup on leaves its traceback in $CLAUDENOVA_TEST_TRACE.
const traceHook = `lua if os.getenv("CLAUDENOVA_TEST_TRACE_CALLS") then jit.off() ` +
	`local f = io.open(os.getenv("CLAUDENOVA_TEST_TRACE"), "w") ` +
	`debug.sethook(function() local info = debug.getinfo(2, "Sn") ` +
	`if info and info.what == "C" and f then f:seek("set", 0) ` +
	`f:write(debug.traceback(tostring(info.name), 2), "\n", string.rep(" ", 400), "\n") f:flush() end end, "c") end`

// child starts a Neovim with a UI of width columns attached.
func child(t *testing.T, v version, width, height int) (*nvim.Nvim, string) {
	t.Helper()
	base := t.TempDir()
	// Neovim's log in a folder that exists: when it cannot make its own
	// (seen under load) it logs to the current folder and warns 100 ms
	// after startup, and that message arriving in a case's wait stopped the
	// editor at a hit-enter prompt.
	logDir := filepath.Join(base, "state", "nvim")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"NVIM_LOG_FILE=" + filepath.Join(logDir, "log"),
		"HOME=" + filepath.Join(base, "home"), "PATH=" + os.Getenv("PATH"), "TMPDIR=" + base,
		"XDG_CONFIG_HOME=" + filepath.Join(base, "config"), "XDG_DATA_HOME=" + filepath.Join(base, "data"),
		"XDG_STATE_HOME=" + filepath.Join(base, "state"), "XDG_CACHE_HOME=" + filepath.Join(base, "cache"),
		"CLAUDENOVA_TEST_ROOT=" + root, "CLAUDENOVA_TEST_TRACE=" + filepath.Join(base, "trace"),
		// Times shown from a recording (a job's next run) are the same anywhere.
		"TZ=UTC",
	}
	n, err := nvim.NewChildProcess(
		nvim.ChildProcessCommand(v.bin),
		nvim.ChildProcessArgs("--embed", "--headless", "-n", "-i", "NONE", "-u", "NONE", "--cmd", traceHook),
		nvim.ChildProcessEnv(env), nvim.ChildProcessDir(base),
		nvim.ChildProcessServe(true), nvim.ChildProcessLogf(func(string, ...any) {}),
	)
	if err != nil {
		t.Fatalf("start %s: %v", v.bin, err)
	}
	t.Cleanup(func() { _ = n.Close() })
	_ = n.RegisterHandler("redraw", func(...[]any) {})
	if err := n.AttachUI(width, height, map[string]any{"rgb": true, "ext_linegrid": true}); err != nil {
		t.Fatalf("attach a UI: %v", err)
	}
	return n, filepath.Join(base, "trace")
}

type caseInfo struct {
	Name   string `msgpack:"name"`
	Widths []int  `msgpack:"widths"`
}

type result struct {
	OK      bool   `msgpack:"ok"`
	Err     string `msgpack:"err"`
	Screens []struct {
		Name string `msgpack:"name"`
		Text string `msgpack:"text"`
	} `msgpack:"screens"`
}

const harness = "return dofile(os.getenv('CLAUDENOVA_TEST_ROOT') .. '/tests/lua/harness.lua')"

// TestFrontEnd runs every case of every spec on both Neovim versions.
// A spec's tests are the keys of the table it returns: a name written
// twice keeps only its last test, silently. Each name must be once.
func TestSpecNamesAreUnique(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join(root, "tests", "lua", "*_spec.lua"))
	name := regexp.MustCompile(`(?m)^  \["(.*)"\] = \{$`)
	for _, path := range specs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range name.FindAllStringSubmatch(string(b), -1) {
			if seen[m[1]] {
				t.Errorf("%s: the test %q is written twice (only the last runs)", filepath.Base(path), m[1])
			}
			seen[m[1]] = true
		}
		if len(seen) == 0 {
			t.Errorf("%s: no test found", filepath.Base(path))
		}
	}
}

func TestFrontEnd(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join(root, "tests", "lua", "*_spec.lua"))
	sort.Strings(specs)
	if len(specs) == 0 {
		t.Fatal("no specs")
	}
	for _, v := range versions(t) {
		for _, path := range specs {
			spec := strings.TrimSuffix(filepath.Base(path), "_spec.lua")
			var cases []caseInfo
			n, _ := child(t, v, 80, 24)
			if err := n.ExecLua(harness+".cases(...)", &cases, spec); err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			_ = n.Close()
			for _, c := range cases {
				for _, w := range c.Widths {
					c, w := c, w
					t.Run(fmt.Sprintf("%s/%s/%s/%d", v.name, spec, c.Name, w), func(t *testing.T) {
						t.Parallel()
						runCase(t, v, spec, c.Name, w)
					})
				}
			}
		}
	}
}

func runCase(t *testing.T, v version, spec, name string, width int) {
	n, trace := child(t, v, width, 24)
	var res result
	done := make(chan error, 1)
	go func() { done <- n.ExecLua(harness+".run(...)", &res, spec, name) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(60 * time.Second):
		where, _ := os.ReadFile(trace)
		steps, _ := os.ReadFile(trace + ".steps")
		where = append(steps, where...)
		t.Fatalf("the case did not finish in a minute; where it ran last:\n%s\nthe editor shows:\n%s", where, stuck(n))
	}
	if !res.OK {
		t.Fatalf("%s", res.Err)
	}
	for _, s := range res.Screens {
		compare(t, v, spec, s.Name, s.Text)
	}
}

// stuck reads the screen of a Neovim whose case hangs (a prompt waiting
// for a key answers RPC requests still), or says it cannot.
func stuck(n *nvim.Nvim) string {
	got := make(chan string, 2)
	go func() {
		var mode map[string]any
		_ = n.Call("nvim_get_mode", &mode)
		got <- fmt.Sprintf("(mode %v)", mode)
		var rows []string
		err := n.ExecLua(`local r = {} for i = 1, vim.o.lines do local c = {} for j = 1, vim.o.columns do c[#c+1] = vim.fn.screenstring(i, j) end r[i] = table.concat(c) end return r`, &rows)
		if err != nil {
			got <- fmt.Sprintf("(screen unreadable: %v)", err)
			return
		}
		got <- strings.Join(rows, "\n")
	}()
	var out []string
	for len(out) < 2 {
		select {
		case s := <-got:
			out = append(out, s)
		case <-time.After(5 * time.Second):
			return strings.Join(append(out, "(the editor answers nothing more)"), "\n")
		}
	}
	return strings.Join(out, "\n")
}

// compare checks a screen against its reference: the version's own
// (<name>.<version>.txt) when there is one, else the shared one.
func compare(t *testing.T, v version, spec, name, got string) {
	t.Helper()
	dir := filepath.Join(root, "tests", "lua", "screens", spec)
	shared := filepath.Join(dir, name+".txt")
	own := filepath.Join(dir, name+"."+v.name+".txt")
	ref := shared
	if _, err := os.Stat(own); err == nil {
		ref = own
	}
	want, err := os.ReadFile(ref)
	if os.Getenv("UPDATE_SCREENS") != "" {
		if err == nil && string(want) == got+"\n" {
			return
		}
		// The shared reference is 0.12's; 0.10 gets its own only when it differs.
		target := shared
		if v.name != "0.12" {
			if sw, err := os.ReadFile(shared); err == nil && string(sw) == got+"\n" {
				_ = os.Remove(own)
				return
			}
			target = own
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", target)
		return
	}
	if err != nil {
		t.Fatalf("no reference screen %s (make screens writes it):\n%s", ref, got)
	}
	if string(want) != got+"\n" {
		t.Fatalf("screen %s differs from %s (make screens updates it):\n%s", name, ref, diffLines(string(want), got+"\n"))
	}
}

func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "row %2d want |%s|\n       got  |%s|\n", i+1, a, c)
		}
	}
	return b.String()
}

// The files generated from the front end's own definitions (make docs: the
// help's generated sections, the host's names of the highlight groups, the
// options as LuaCATS classes in lua/claudenova/core/types.lua) match them.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	for _, v := range versions(t) {
		out, err := exec.Command(v.bin, "--headless", "-u", "NONE", "-i", "NONE", "-l", filepath.Join(root, "scripts", "gendocs.lua"), "--check").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", v.name, err, out)
		}
	}
}
