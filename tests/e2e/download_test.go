package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// release is this checkout as a user gets it at a release tag: a git clone
// whose manifest comes from `make release` (run in the clone, for this
// machine's platform: the four targets take minutes on two cores and share
// the flags), committed there, and the asset it built.
type release struct {
	src   string // the clone, with the manifest committed
	dist  string // make release's dist/ of the clone
	asset string // claudenova-<os>-<arch>
	sum   string // its SHA-256, as the manifest says
}

var (
	releaseOnce sync.Once
	releaseMade release
	releaseErr  string
)

// makeRelease builds the release once per test run (the tests using it
// only read it).
func makeRelease(t *testing.T) release {
	t.Helper()
	releaseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "claudenova-release-")
		if err != nil {
			releaseErr = err.Error()
			return
		}
		releaseCleanup = append(releaseCleanup, dir)
		src := filepath.Join(dir, "claude-nova.nvim")
		r := release{src: src, dist: filepath.Join(src, "dist"), asset: "claudenova-" + runtime.GOOS + "-" + runtime.GOARCH}
		steps := [][]string{
			{"git", "clone", "--quiet", root, src},
			{"go", "run", "./cmd/release", "-targets", runtime.GOOS + "/" + runtime.GOARCH},
			{"git", "-c", "user.name=release", "-c", "user.email=release@localhost", "commit", "--quiet", "-m", "release manifest", "lua/claudenova/core/release.lua"},
		}
		for _, s := range steps {
			cmd := exec.Command(s[0], s[1:]...)
			if s[0] != "git" || s[1] != "clone" {
				cmd.Dir = src
			}
			cmd.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local")
			if out, err := cmd.CombinedOutput(); err != nil {
				releaseErr = strings.Join(s, " ") + ": " + err.Error() + "\n" + string(out)
				return
			}
		}
		manifest, err := os.ReadFile(filepath.Join(src, "lua", "claudenova", "core", "release.lua"))
		if err != nil {
			releaseErr = err.Error()
			return
		}
		r.sum = fileSum(t, filepath.Join(r.dist, r.asset))
		if !strings.Contains(string(manifest), `sha256 = "`+r.sum+`"`) {
			releaseErr = "the manifest does not name the built asset's sum " + r.sum + ":\n" + string(manifest)
			return
		}
		releaseMade = r
	})
	if releaseErr != "" {
		t.Fatal("make release in a clone: " + releaseErr)
	}
	return releaseMade
}

// releaseCleanup lists the folders makeRelease made; TestMain removes them
// after the run.
var releaseCleanup []string

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// assetServer serves dir's files at /v<version>/<file> on 127.0.0.1 and
// counts the requests.
type assetServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func serveAssets(t *testing.T, dir string) *assetServer {
	t.Helper()
	s := &assetServer{}
	files := http.StripPrefix("/v0.1.0/", http.FileServer(http.Dir(dir)))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path)
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *assetServer) Hits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

// pathWithout is a PATH for a child Neovim without the named programs: a
// folder of links to every other program of this PATH (the first of each
// name, as a shell would find it).
func pathWithout(t *testing.T, names ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{}
	for _, n := range names {
		skip[n] = true
	}
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if skip[n] || seen[n] {
				continue
			}
			seen[n] = true
			_ = os.Symlink(filepath.Join(d, n), filepath.Join(dir, n))
		}
	}
	return dir
}

func healthText(e *Env, want string) string {
	e.t.Helper()
	e.Cmd("checkhealth claudenova")
	var report []string
	e.Eventually(30*time.Second, "health report", func() bool {
		e.Lua(&report, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		return strings.Contains(strings.Join(report, "\n"), want)
	})
	return strings.Join(report, "\n")
}

// WholeMessage is the line of :messages that contains s (a message cut to
// the screen is kept whole there).
func (e *Env) WholeMessage(s string) string {
	e.t.Helper()
	var line string
	e.Eventually(10*time.Second, "the whole message in :messages", func() bool {
		var msgs string
		e.Lua(&msgs, "return vim.fn.execute('messages')")
		for _, l := range strings.Split(msgs, "\n") {
			if strings.Contains(l, s) && len(l) > len(line) {
				line = l
			}
		}
		return line != "" && !strings.HasSuffix(line, "…")
	})
	return line
}

func mustBeClean(t *testing.T, report string) {
	t.Helper()
	for _, l := range strings.Split(report, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "WARNING") {
			t.Errorf("health: %s", l)
		}
	}
}

// With Go off PATH: vim.pack.add from a git clone whose manifest comes from
// make release, the asset served on 127.0.0.1 (download.url): the first
// :ClaudeNova new downloads it, checks its SHA-256, installs it and
// answers; :checkhealth says so and is clean.
func TestInstallDownloadsVerifiedHost(t *testing.T) {
	v012 := newestNvim(t)
	t.Parallel()
	rel := makeRelease(t)
	srv := serveAssets(t, rel.dist)
	e := NewEnv(t, v012, Options{
		Pack:    rel.src,
		Setup:   map[string]any{"download": map[string]any{"url": srv.URL + "/v{version}/{asset}"}},
		NvimEnv: []string{"PATH=" + pathWithout(t, "go", "gofmt")},
	})
	e.Eventually(60*time.Second, "startup done", func() bool {
		var entered int
		e.Lua(&entered, "return vim.v.vim_did_enter")
		return entered == 1
	})
	var where string
	e.Lua(&where, "return require('claudenova.channel.host').root()")
	bin := filepath.Join(where, "bin", "claudenova")
	if _, err := os.Stat(bin); err == nil {
		t.Fatal("the clone has a host binary already")
	}
	var goThere int
	e.Lua(&goThere, "return vim.fn.executable('go')")
	if goThere != 0 {
		t.Fatal("go is on the child's PATH")
	}
	e.Cmd("ClaudeNova new hello from a download")
	e.Eventually(120*time.Second, "the prompt answered after the download", func() bool {
		return strings.Contains(e.Transcript(1), "You said: hello from a download")
	})
	for _, want := range []string{"downloading the host v0.1.0 (" + rel.asset, "host v0.1.0 downloaded and verified (sha256 " + rel.sum[:12]} {
		if !e.NoteContaining(want) {
			t.Errorf("no note %q: %v", want, e.Notes())
		}
	}
	if e.NoteContaining("building the host with go") {
		t.Errorf("a build was tried: %v", e.Notes())
	}
	if hits := srv.Hits(); len(hits) != 1 || hits[0] != "/v0.1.0/"+rel.asset {
		t.Errorf("the asset server saw %v, want one GET of /v0.1.0/%s", hits, rel.asset)
	}
	if got := fileSum(t, bin); got != rel.sum {
		t.Errorf("installed host's sum %s, the release's %s", got, rel.sum)
	}
	if st, err := os.Stat(bin); err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("installed host not executable: %v %v", st, err)
	}
	if left, _ := filepath.Glob(filepath.Join(where, "bin", ".claudenova.download.*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	report := healthText(e, "downloaded v0.1.0")
	if !strings.Contains(report, "downloaded v0.1.0 ("+rel.asset) || !strings.Contains(report, "sha256 ok ("+rel.sum) {
		t.Errorf("health does not say how the host was obtained:\n%s", report)
	}
	mustBeClean(t, report)
}

// A tampered asset (one byte changed on the server): refused, the message
// names both sums, nothing is installed and no host runs.
func TestTamperedHostIsRefused(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		rel := makeRelease(t)
		bad := t.TempDir()
		b, err := os.ReadFile(filepath.Join(rel.dist, rel.asset))
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(filepath.Join(bad, rel.asset), b, 0o755); err != nil {
			t.Fatal(err)
		}
		badSum := fileSum(t, filepath.Join(bad, rel.asset))
		srv := serveAssets(t, bad)
		// The clone itself on the runtimepath (no plugin manager), Go off PATH.
		plugin := filepath.Join(t.TempDir(), "claude-nova.nvim")
		if out, err := exec.Command("git", "clone", "--quiet", rel.src, plugin).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		e := NewEnv(t, v, Options{
			Setup:   map[string]any{"download": map[string]any{"url": srv.URL + "/v{version}/{asset}"}},
			NvimEnv: []string{"PATH=" + pathWithout(t, "go", "gofmt"), "CLAUDENOVA_TEST_PLUGIN=" + plugin},
		})
		_ = e.CmdErr("ClaudeNova new this must not run")
		e.Eventually(60*time.Second, "the refusal", func() bool { return len(e.ErrorNotes()) > 0 })
		errs := e.ErrorNotes()
		if len(errs) != 1 || !strings.HasPrefix(errs[0], "claude-nova: refused the downloaded host: its SHA-256 is "+badSum[:20]) {
			t.Fatalf("want one error, the refusal first: %v", errs)
		}
		// The line shown is cut to the screen; :messages has it whole.
		whole := e.WholeMessage("refused the downloaded host")
		for _, want := range []string{"its SHA-256 is " + badSum, "release manifest (lua/claudenova/core/release.lua) says " + rel.sum, "nothing was run"} {
			if !strings.Contains(whole, want) {
				t.Errorf("the refusal lacks %q: %s", want, whole)
			}
		}
		if _, err := os.Stat(filepath.Join(plugin, "bin", "claudenova")); err == nil {
			t.Error("the tampered host was installed")
		}
		if left, _ := filepath.Glob(filepath.Join(plugin, "bin", ".claudenova.download.*")); len(left) != 0 {
			t.Errorf("the tampered download was left: %v", left)
		}
		var running bool
		e.Lua(&running, "return require('claudenova.channel.host').running()")
		for _, pid := range e.markedPids() {
			exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
			if filepath.Base(exe) != "nvim" {
				t.Errorf("a process runs: %d %s", pid, exe)
			}
		}
		if running || e.Transcript(1) != "" {
			t.Errorf("a host ran (running %v, transcript %q)", running, e.Transcript(1))
		}
		if hits := srv.Hits(); len(hits) != 1 {
			t.Errorf("the asset server saw %v, want one request", hits)
		}
	})
}

// No download and no Go: one message says what is missing and the two
// ways out (download = false; a download that fails: nothing listens).
func TestNoDownloadNoGoSaysBothWaysOut(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + l.Addr().String()
		_ = l.Close()
		for _, c := range []struct {
			name     string
			download any
			reason   string
		}{
			{"download-off", false, "download is off (download = false)"},
			{"download-fails", map[string]any{"url": closed + "/v{version}/{asset}"}, "curl " + closed + "/v0.1.0/claudenova-"},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				plugin := filepath.Join(t.TempDir(), "claude-nova.nvim")
				if out, err := exec.Command("git", "clone", "--quiet", root, plugin).CombinedOutput(); err != nil {
					t.Fatalf("git clone: %v\n%s", err, out)
				}
				e := NewEnv(t, v, Options{NoModel: true, Setup: map[string]any{"download": c.download},
					NvimEnv: []string{"PATH=" + pathWithout(t, "go", "gofmt"), "CLAUDENOVA_TEST_PLUGIN=" + plugin}})
				_ = e.CmdErr("ClaudeNova new hi")
				e.Eventually(60*time.Second, "the message", func() bool { return len(e.ErrorNotes()) > 0 })
				errs := e.ErrorNotes()
				if len(errs) != 1 || !strings.HasPrefix(errs[0], "claude-nova: no host binary (bin/claudenova) and no way to get one here: ") {
					t.Fatalf("want one error, saying what is missing first: %v", errs)
				}
				whole := e.WholeMessage("no way to get one here")
				for _, want := range []string{c.reason, "Go is not on PATH", "Two ways out", "curl or wget", "download.url", "install Go", ":ClaudeNova build"} {
					if !strings.Contains(whole, want) {
						t.Errorf("the message lacks %q: %s", want, whole)
					}
				}
			})
		}
	})
}

// lazy.nvim's build: lazy clones the plugin and runs its build.lua (no
// build key in the spec), which downloads and verifies the host before the
// first command; the command then needs nothing more. With the test bed's
// lazy.nvim (LAZY_NVIM) this is lazy itself; without it, its build step is
// run the way lazy runs it (build.lua, from the clone).
func TestInstallWithLazyBuild(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		rel := makeRelease(t)
		srv := serveAssets(t, rel.dist)
		setup := map[string]any{"download": map[string]any{"url": srv.URL + "/v{version}/{asset}"}}
		path := "PATH=" + pathWithout(t, "go", "gofmt")
		var e *Env
		var plugin string
		if lazy := os.Getenv("LAZY_NVIM"); lazy != "" {
			e = NewEnv(t, v, Options{Pack: rel.src, Setup: setup, NvimEnv: []string{path, "CLAUDENOVA_TEST_LAZY=" + lazy}})
			e.Eventually(120*time.Second, "startup done", func() bool {
				var entered int
				e.Lua(&entered, "return vim.v.vim_did_enter")
				return entered == 1
			})
			e.Lua(&plugin, "return require('lazy.core.config').plugins['claude-nova.nvim'].dir")
			if !strings.Contains(plugin, filepath.Join("lazy", "claude-nova.nvim")) {
				t.Fatalf("lazy put the plugin at %q", plugin)
			}
		} else {
			t.Log("LAZY_NVIM unset (the test bed has no local copy of lazy.nvim): running build.lua as lazy does")
			plugin = filepath.Join(t.TempDir(), "claude-nova.nvim")
			if out, err := exec.Command("git", "clone", "--quiet", rel.src, plugin).CombinedOutput(); err != nil {
				t.Fatalf("git clone: %v\n%s", err, out)
			}
			e = NewEnv(t, v, Options{Setup: setup, NvimEnv: []string{path, "CLAUDENOVA_TEST_PLUGIN=" + plugin}})
			// lazy: local chunk = loadfile(plugin.dir .. "/build.lua"); chunk(), in a coroutine.
			e.Lua(nil, `local f = assert(loadfile(... .. "/build.lua"))
				_G.claudenova_test.build = coroutine.create(f)
				local ok, err = coroutine.resume(_G.claudenova_test.build)
				assert(ok, err)`, plugin)
		}
		bin := filepath.Join(plugin, "bin", "claudenova")
		e.Eventually(120*time.Second, "the build step installed the host", func() bool {
			_, err := os.Stat(bin)
			return err == nil && e.NoteContaining("downloaded and verified")
		})
		if got := fileSum(t, bin); got != rel.sum {
			t.Fatalf("installed host's sum %s, the release's %s", got, rel.sum)
		}
		if os.Getenv("LAZY_NVIM") != "" {
			var state string
			e.Lua(&state, `local p = require('lazy.core.config').plugins['claude-nova.nvim']
				return p._.build and "build pending" or (p._.has_errors and "errors" or "ok")`)
			if state != "ok" {
				t.Errorf("lazy says the build: %s", state)
			}
		}
		before := len(srv.Hits())
		e.Cmd("ClaudeNova new hello after lazy's build")
		e.Eventually(60*time.Second, "the prompt answered", func() bool {
			return strings.Contains(e.Transcript(1), "You said: hello after lazy's build")
		})
		if n := len(srv.Hits()); n != before || before != 1 {
			t.Errorf("the asset was fetched %d times before the command and %d after, want once before", before, n-before)
		}
		report := healthText(e, "downloaded v0.1.0")
		if !strings.Contains(report, "plugin manager build") && !strings.Contains(report, "sha256 ok") {
			t.Errorf("health:\n%s", report)
		}
		mustBeClean(t, report)
	})
}

// A checkout between releases (its host sources changed since the
// manifest's revision) with Go: the exact host is built, nothing is
// downloaded.
func TestInstallBetweenReleasesBuildsWithGo(t *testing.T) {
	v012 := newestNvim(t)
	t.Parallel()
	rel := makeRelease(t)
	srv := serveAssets(t, rel.dist)
	plugin := filepath.Join(t.TempDir(), "claude-nova.nvim")
	host := filepath.Join(plugin, "rplugin", "host", "host.go")
	for _, s := range [][]string{
		{"git", "clone", "--quiet", rel.src, plugin},
		{"sh", "-c", "echo '// a change after the release' >> " + shellQuote(host)},
		{"git", "-C", plugin, "-c", "user.name=dev", "-c", "user.email=dev@localhost", "commit", "--quiet", "-am", "after the release"},
	} {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", s, err, out)
		}
	}
	e := NewEnv(t, v012, Options{
		Setup:   map[string]any{"download": map[string]any{"url": srv.URL + "/v{version}/{asset}"}},
		NvimEnv: append(goEnv(t), "CLAUDENOVA_TEST_PLUGIN="+plugin),
	})
	e.Cmd("ClaudeNova new hello between releases")
	e.Eventually(180*time.Second, "the prompt answered after the build", func() bool {
		return strings.Contains(e.Transcript(1), "You said: hello between releases")
	})
	if !e.NoteContaining("host sources differ from release v0.1.0's") || !e.NoteContaining("building the host with go") {
		t.Errorf("notes %v", e.Notes())
	}
	if hits := srv.Hits(); len(hits) != 0 {
		t.Errorf("the asset was fetched: %v", hits)
	}
}
