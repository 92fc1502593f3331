package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goEnv is the Go configuration of this test run, for a build started by
// the plugin inside a test's Neovim: the module and build caches this run
// already filled, and no network.
func goEnv(t *testing.T) []string {
	t.Helper()
	out := []string{"GOPROXY=off", "GOTOOLCHAIN=local"}
	for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOFLAGS", "GOROOT"} {
		b, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		out = append(out, k+"="+strings.TrimSpace(string(b)))
	}
	return out
}

// Installed with vim.pack (Neovim 0.12) from a git clone, with no build
// step and download = false: the first :ClaudeNova command builds the host by itself, then runs
// (the prompt is answered); :checkhealth then has no ERROR and says how the
// host was built.
func TestInstallWithVimPack(t *testing.T) {
	v012 := newestNvim(t)
	t.Parallel()
	// The plugin as a user would fetch it: this repository's committed HEAD.
	src := filepath.Join(t.TempDir(), "claude-nova.nvim")
	if out, err := exec.Command("git", "clone", "--quiet", root, src).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	// download = false: never downloads, even where the checkout's release
	// manifest names an asset (TestInstallDownloadsVerifiedHost downloads).
	e := NewEnv(t, v012, Options{Pack: src, NvimEnv: goEnv(t), Setup: map[string]any{"download": false}})
	// vim.pack.add clones while init.lua runs (and answers RPC meanwhile).
	e.Eventually(60*time.Second, "startup done", func() bool {
		var entered int
		e.Lua(&entered, "return vim.v.vim_did_enter")
		return entered == 1
	})
	var where string
	e.Lua(&where, "return require('claudenova.channel.host').root()")
	if !strings.Contains(where, filepath.Join("site", "pack")) {
		t.Fatalf("the plugin runs from %q, not vim.pack's folder", where)
	}
	if _, err := os.Stat(filepath.Join(where, "bin", "claudenova")); err == nil {
		t.Fatal("the clone has a host binary already")
	}
	e.Cmd("ClaudeNova new hello from vim.pack")
	e.Eventually(180*time.Second, "the prompt answered after the build", func() bool {
		return strings.Contains(e.Transcript(1), "You said: hello from vim.pack")
	})
	if !e.NoteContaining("building the host with go (first use)") {
		t.Errorf("the build was not announced: %v", e.Notes())
	}
	if e.NoteContaining("download") {
		t.Errorf("a download was tried with download = false: %v", e.Notes())
	}
	e.Cmd("checkhealth claudenova")
	var report []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		e.Lua(&report, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if strings.Contains(strings.Join(report, "\n"), "built by the plugin (first use)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the health report does not say how the host was built:\n%s", strings.Join(report, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, l := range report {
		if strings.Contains(l, "ERROR") {
			t.Errorf("health: %s", l)
		}
	}
}
