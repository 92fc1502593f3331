package e2e

import (
	"strings"
	"testing"
	"time"
)

// A Neovim without remote plugins (its autoload/remote/ hidden from the
// runtimepath, as neovim/neovim#27949 plans): the host starts with a plain
// jobstart(…, {rpc = true}) and the smoke set behaves as it does with
// remote#host. :checkhealth names the path in use.
func TestJobstartSmoke(t *testing.T) {
	no := Options{NoRemote: true}
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		for _, c := range []struct {
			name string
			run  func(t *testing.T, v nvimVersion, o Options)
		}{
			{"registration", jobstartRegistration},
			{"hello", helloTranscript},
			{"proposal", proposalEditWithUserAmendment},
			{"panel", bashAllowFromPanel},
			{"host-crash", hostCrashThenFreshHost},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				c.run(t, v, no)
			})
		}
	})
}

// jobstartRegistration: remote#host is really gone, the host answers, and
// :checkhealth says which path is in use (and reports no error).
func jobstartRegistration(t *testing.T, v nvimVersion, o Options) {
	e := NewEnv(t, v, o)
	var remote int
	e.Lua(&remote, "return vim.fn.exists('*remote#host#Register') + #vim.api.nvim_get_runtime_file('autoload/remote/*.vim', true)")
	if remote != 0 {
		t.Fatalf("remote#host is still on the runtimepath (%d)", remote)
	}
	e.Cmd("ClaudeNova new hello without remote plugins")
	e.Eventually(60*time.Second, "the prompt answered", func() bool {
		return strings.Contains(e.Transcript(1), "You said: hello without remote plugins")
	})
	var kind string
	e.Lua(&kind, "return require('claudenova.setup.register').kind()")
	if kind != "jobstart" {
		t.Fatalf("register.kind() = %q, want jobstart", kind)
	}
	e.Cmd("checkhealth claudenova")
	var lines []string
	e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "started with jobstart(…, {rpc = true})") {
		t.Errorf("health does not name the jobstart path:\n%s", text)
	}
	if strings.Contains(text, "ERROR") {
		t.Errorf("health reports an error:\n%s", text)
	}
}

// With remote#host present, the remote plugin path is the one in use.
func TestRemoteHostPathByDefault(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true})
		e.Cmd("ClaudeNova sidebar")
		var kind string
		e.Lua(&kind, "return require('claudenova.setup.register').kind()")
		if kind != "remote" {
			t.Fatalf("register.kind() = %q, want remote", kind)
		}
		e.Cmd("checkhealth claudenova")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if text := strings.Join(lines, "\n"); !strings.Contains(text, "registered as a remote plugin (remote#host#Register") {
			t.Errorf("health does not name the remote#host path:\n%s", text)
		}
	})
}
