package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxUI is a terminal (a tmux pane on a tmux server of the test's own)
// running `nvim --remote-ui` against a Neovim server: what a person sees
// on their machine while Neovim, the host and claude run on another.
type tmuxUI struct {
	t      *testing.T
	socket string // the private tmux server's socket
	log    string // everything the client wrote to its terminal (pipe-pane)
}

func (u *tmuxUI) tmux(args ...string) string {
	u.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", u.socket}, args...)...).CombinedOutput()
	if err != nil {
		u.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// remoteUI starts the client in tmux; cleanup ends that tmux server (only
// ours: it has its own socket).
func remoteUI(t *testing.T, e *Env, v nvimVersion) *tmuxUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the remote UI test: ", err)
	}
	dir, err := os.MkdirTemp("", "cn-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	u := &tmuxUI{t: t, socket: filepath.Join(dir, "tmux.sock"), log: filepath.Join(dir, "pane.log")}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", u.socket, "kill-server").Run()
		_ = os.RemoveAll(dir)
	})
	client := strings.Join([]string{shellQuote(v.bin), "--remote-ui", "--server", shellQuote(e.Socket)}, " ")
	cmd := exec.Command("tmux", "-S", u.socket, "-f", "/dev/null", "new-session", "-d", "-s", "remote", "-x", "150", "-y", "45", client)
	cmd.Env = append(os.Environ(), "HOME="+e.Home, "TMUX=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	u.tmux("pipe-pane", "-o", "-t", "remote", "cat >> "+shellQuote(u.log))
	e.Eventually(30*time.Second, "the --remote-ui client attached", func() bool {
		var n int
		e.Lua(&n, "return #vim.api.nvim_list_uis()")
		return n == 1
	})
	return u
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Screen is the client's screen as text.
func (u *tmuxUI) Screen() string { return u.tmux("capture-pane", "-p", "-t", "remote") }

// Keys types keys into the client's terminal (tmux key names).
func (u *tmuxUI) Keys(keys ...string) {
	u.tmux(append([]string{"send-keys", "-t", "remote"}, keys...)...)
}

// Raw sends bytes as the terminal would (focus reports).
func (u *tmuxUI) Raw(hex ...string) {
	u.tmux(append([]string{"send-keys", "-t", "remote", "-H"}, hex...)...)
}

// Output is what the client wrote to its terminal so far.
func (u *tmuxUI) Output() []byte {
	b, _ := os.ReadFile(u.log)
	return b
}

// The wrapped OSC 777 of a notification (tmux's DCS passthrough doubles
// the ESC of the sequence inside).
var osc777InTmux = []byte("\x1bPtmux;\x1b\x1b]777;notify;claude-nova;")

// Neovim on another machine: a headless server (with the host and claude)
// and a --remote-ui client in a terminal. A proposal opens in the client
// and is applied by :w typed there. While the user looks, a request makes
// no signal; after FocusLost (the terminal reports it) a request gives one
// notification in the client's terminal: OSC 777 and OSC 9 in tmux's
// passthrough and the bell on Neovim 0.12 (nvim_ui_send reaches a remote
// UI's terminal); on 0.10, which has no way to write to a remote UI's
// terminal, the bell only. Once per request: focus back and away again
// brings no second one.
func TestRemoteUIProposalAndAwaySignal(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Listen: true, Setup: map[string]any{
			"surfaces": map[string]any{"quiet_ms": 0, "grace_ms": 0},
		}})
		u := remoteUI(t, e, v)
		path := e.WriteFile("a.txt", "line one\nline two\nline three\n")
		u.Keys(":edit a.txt", "Enter")
		e.Eventually(10*time.Second, "a.txt open in the client", func() bool { return strings.Contains(u.Screen(), "line two") })
		u.Keys(":ClaudeNova new "+readThenEdit(path, "line two", "line 2"), "Enter")
		p, _ := e.WaitProposal()
		e.Eventually(20*time.Second, "the proposal on the client's screen", func() bool {
			s := u.Screen()
			return strings.Contains(s, "line 2") && strings.Contains(s, "Proposal")
		})
		t.Logf("the client's screen with the proposal:\n%s", firstLines(u.Screen(), 6))
		// Looking: no signal.
		if bytes.Contains(u.Output(), []byte("]777;")) || bytes.Contains(u.Output(), []byte("]9;claude-nova")) {
			t.Fatal("a notification while the user was looking")
		}
		// Applied from the client: :w in the proposal.
		e.Eventually(10*time.Second, "the proposal is the client's window", func() bool {
			var cur string
			e.Lua(&cur, "return vim.api.nvim_buf_get_name(0)")
			return strings.Contains(cur, "proposed")
		})
		u.Keys(":w", "Enter")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("tool result is an error: %+v", r)
		}
		if got := read(t, path); got != "line one\nline 2\nline three\n" {
			t.Fatalf("file on disk %q", got)
		}
		e.Eventually(10*time.Second, "proposal closed", func() bool { return e.ProposalBuf(p.ID) == 0 && len(e.Pending()) == 0 })
		e.WaitIdle(1)

		// Away: the terminal reports focus out (CSI O).
		before := len(u.Output())
		u.Raw("1b", "5b", "4f")
		e.Eventually(10*time.Second, "the server knows the user is away", func() bool {
			var away bool
			e.Lua(&away, "return (require('claudenova.setup.away').away())")
			return away
		})
		e.Cmd("ClaudeNova send " + Seq(bash("echo away > away.txt", "while you are away")))
		e.WaitPending(1)
		after := func() []byte { return u.Output()[before:] }
		if v.name == "nvim-0.12" {
			e.Eventually(20*time.Second, "the notification in the client's terminal", func() bool {
				return bytes.Contains(after(), osc777InTmux) && bytes.Contains(after(), []byte("\x1b\x1b]9;claude-nova: "))
			})
		}
		e.Eventually(20*time.Second, "the bell in the client's terminal", func() bool { return bytes.Contains(after(), []byte("\a")) })
		out := after()
		t.Logf("the client's terminal after FocusLost and the request: %q", sequencesIn(out))
		if n := bytes.Count(out, osc777InTmux); v.name == "nvim-0.12" && n != 1 {
			t.Fatalf("%d OSC 777 notifications, want one", n)
		}
		if v.name == "nvim-0.12" && !bytes.Contains(out, []byte("claude-nova;Bash `echo away > away.txt` waits for you (1 · ")) {
			t.Errorf("the notification does not name the request: %q", sequencesIn(out))
		}
		// Back and away again: the same request is not signaled twice.
		u.Raw("1b", "5b", "49")
		u.Raw("1b", "5b", "4f")
		e.Eventually(10*time.Second, "away again", func() bool {
			var away bool
			e.Lua(&away, "return (require('claudenova.setup.away').away())")
			return away
		})
		var signals int
		e.Lua(&signals, "return #require('claudenova.setup.away').signals")
		if signals != 1 {
			t.Fatalf("%d signals, want one", signals)
		}
		if n := bytes.Count(u.Output()[before:], osc777InTmux); v.name == "nvim-0.12" && n != 1 {
			t.Fatalf("%d OSC 777 notifications after focus came and went, want one", n)
		}
		// Decided from the client: the panel's allow key.
		u.Raw("1b", "5b", "49")
		e.Eventually(10*time.Second, "the panel", func() bool { return e.PanelID() != "" })
		e.Eventually(10*time.Second, "the panel on the client's screen", func() bool { return strings.Contains(u.Screen(), "echo away") })
		e.Lua(nil, "vim.api.nvim_set_current_win(require('claudenova.surfaces.panel').current.win)")
		u.Keys("a")
		e.Eventually(30*time.Second, "the command ran", func() bool { return e.ReadFile("away.txt") == "away\n" })

		// paste-image with no clipboard tool on the server: the client's
		// terminal is asked (OSC 52); tmux answers with its paste buffer,
		// here the path of an image on the server's machine. Neovim 0.10
		// cannot reach a remote UI's terminal: a clear message instead.
		img := filepath.Join(e.Project, "shot.png")
		redPNG(t, img)
		u.tmux("set-option", "-g", "set-clipboard", "on")
		u.tmux("set-buffer", img)
		e.Lua(nil, "vim.env.PATH = ...", pathWithout(t, "wl-paste", "xclip", "pngpaste"))
		u.Keys(":ClaudeNova paste-image", "Enter")
		if v.name == "nvim-0.12" {
			e.Eventually(10*time.Second, "the image queued", func() bool {
				var queued []string
				e.Lua(&queued, "return require('claudenova.services.context').queue")
				return len(queued) == 1 && strings.HasSuffix(queued[0], "shot.png")
			})
			if !e.NoteContaining("added image: shot.png 8×8 for the next prompt") {
				t.Errorf("notes %v", e.Notes())
			}
		} else {
			e.Eventually(10*time.Second, "the message", func() bool { return e.NoteContaining("no clipboard tool for images here") })
		}
	})
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// sequencesIn keeps the escape sequences (and the bell) of terminal output,
// for the log: the notification, not the screen updates around it.
func sequencesIn(b []byte) string {
	var out []string
	for _, marker := range [][]byte{[]byte("\x1bPtmux;"), []byte("\a")} {
		for i := 0; ; {
			j := bytes.Index(b[i:], marker)
			if j < 0 {
				break
			}
			start := i + j
			end := start + 1
			if marker[0] == 0x1b {
				if k := bytes.Index(b[start+1:], []byte("\x1b\\\x1b\\")); k >= 0 {
					end = start + 1 + k + 4
				} else if k := bytes.Index(b[start+1:], []byte("\x1b\\")); k >= 0 {
					end = start + 1 + k + 2
				}
			}
			out = append(out, string(b[start:end]))
			i = end
		}
	}
	return strings.Join(out, " | ")
}

// The signal's rules without a terminal: nothing while the user looks (a
// UI attached, with focus), once per request after focus went away (the UI
// reports it), also with no UI attached; the command gets the message.
func TestAwaySignalRunsCommandOnce(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		dir := t.TempDir()
		out := filepath.Join(dir, "signals.txt")
		script := filepath.Join(dir, "notify")
		if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s|%s\\n' \"$1\" \"$2\" >> "+shellQuote(out)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		e := NewEnv(t, v, Options{Setup: map[string]any{"notify_away": map[string]any{"command": []string{script, "claude-nova"}}}})
		signals := func() []string {
			b, _ := os.ReadFile(out)
			return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
		}
		e.AttachUI(120, 40)
		e.Cmd("ClaudeNova new " + Seq(bash("echo one > one.txt", "one")))
		e.WaitPending(1)
		var n int
		e.Lua(&n, "return #require('claudenova.setup.away').signals")
		if n != 0 || len(signals()) != 0 {
			t.Fatalf("a signal while the user looks: %d %v", n, signals())
		}
		e.Cmd("ClaudeNova deny")
		e.WaitIdle(1)
		// Focus goes (the UI says so, as a terminal's focus report does).
		if err := e.V.Request("nvim_ui_set_focus", nil, false); err != nil {
			t.Fatal(err)
		}
		e.Cmd("ClaudeNova send " + Seq(bash("echo two > two.txt", "two")))
		e.WaitPending(1)
		e.Eventually(10*time.Second, "the command ran", func() bool { return len(signals()) == 1 })
		if got := signals()[0]; !strings.HasPrefix(got, "claude-nova|claude-nova:_Bash_`echo_two_>_two.txt`_waits_for_you") {
			t.Errorf("the command got %q", got)
		}
		// Focus back and away again: the same request, no second signal.
		_ = e.V.Request("nvim_ui_set_focus", nil, true)
		_ = e.V.Request("nvim_ui_set_focus", nil, false)
		e.Cmd("ClaudeNova deny")
		e.WaitIdle(1)
		// No UI attached at all: away too.
		if err := e.V.DetachUI(); err != nil {
			t.Fatal(err)
		}
		e.Cmd("ClaudeNova send " + Seq(bash("echo three > three.txt", "three")))
		e.WaitPending(1)
		e.Eventually(10*time.Second, "the command ran again", func() bool { return len(signals()) == 2 })
		var why []string
		e.Lua(&why, "return vim.tbl_map(function(s) return s.why end, require('claudenova.setup.away').signals)")
		if strings.Join(why, ",") != "Neovim has no focus,no UI is attached" {
			t.Errorf("signals for %v", why)
		}
	})
}
