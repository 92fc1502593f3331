package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

// faultEnv starts Neovim with the fake claude running script (absolute
// paths can use the returned project folder via a function).
func faultEnv(t *testing.T, v nvimVersion, script func(project string) []string) (*Env, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "fake.log")
	sp := filepath.Join(t.TempDir(), "script.jsonl")
	e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true,
		ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": sp, "FAKECLAUDE_LOG": log}})
	writeScriptAt(t, sp, script(e.Project)...)
	return e, log
}

func (e *Env) hostPid() int {
	var pid int
	e.Lua(&pid, "local c = require('claudenova.channel.host').channel; return c and vim.fn.jobpid(c) or 0")
	return pid
}

func (e *Env) nvimPid() int {
	var pid int
	e.Lua(&pid, "return vim.fn.getpid()")
	return pid
}

// responsive checks that Neovim answers a trivial request (it is not
// stuck: the bound is generous, this is no measure of speed).
func (e *Env) responsive() bool {
	done := make(chan error, 1)
	go func() {
		var n int
		done <- e.V.Eval("1+1", &n)
	}()
	select {
	case err := <-done:
		return err == nil
	case <-time.After(30 * time.Second):
		return false
	}
}

func focusBuf(e *Env, buf int) {
	e.Lua(nil, `for _, w in ipairs(vim.api.nvim_list_wins()) do
		if vim.api.nvim_win_get_buf(w) == ... then vim.api.nvim_set_current_win(w) end end`, buf)
}

// waitGone waits until pid has exited (or is a zombie).
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		if st, err := os.ReadFile("/proc/" + itoa(pid) + "/stat"); err == nil && isZombie(st) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestExactlyOneAnswer ends a request every way it can end and counts the
// control_responses claude received for it: 0 for withdrawn, 1 otherwise.
// Counting waits for a barrier, not a pause: while claude lives, a later
// sentinel request's answer has reached it (fakeAnswerBarrier); once it is
// gone, it reads nothing more.
func TestExactlyOneAnswer(t *testing.T) {
	t.Parallel()
	// One request (tool, with input; a file_path is made the project's),
	// then the fault, when the test asks (a prompt), and the sentinels.
	script := func(tool string, input map[string]any, fault string) func(string) []string {
		return func(project string) []string {
			in := map[string]any{} // each Neovim version's env has its own project
			for k, v := range input {
				in[k] = v
			}
			if in["file_path"] != nil {
				in["file_path"] = filepath.Join(project, "w.txt")
			}
			b, _ := json.Marshal(map[string]any{"ask_nowait": map[string]any{"request_id": "req-one-00000001", "tool_name": tool, "input": in}})
			steps := []string{string(b)}
			switch fault {
			case "crash":
				steps = append(steps, `{"wait_stdin_line_matching":"cn-crash-now"}`, `{"crash":true}`)
			case "cancel":
				steps = append(steps, `{"wait_stdin_line_matching":"cn-cancel-now"}`, `{"cancel":"last"}`)
			}
			return append(steps, sentinelSteps()...)
		}
	}
	bashAsk := script("Bash", map[string]any{"command": "make", "description": "build"}, "")
	writeAsk := script("Write", map[string]any{"file_path": "w.txt", "content": "x\n"}, "")
	type tc struct {
		name     string
		script   func(string) []string
		act      func(e *Env, b barrier)
		answers  int
		behavior string
		message  string // in the deny, when the user typed one
		gone     bool   // claude is gone after act (Neovim, the host or claude itself ended)
		quits    bool   // so is Neovim
	}
	panel := func(e *Env) {
		e.Eventually(10*time.Second, "panel", func() bool { return e.PanelID() != "" })
		e.WaitGraceOver()
	}
	proposal := func(e *Env) int {
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		return buf
	}
	send := func(e *Env, b barrier, text string) { e.Lua(nil, "require('claudenova').send(...)", text, b.session) }
	cases := []tc{
		{"panel allow", bashAsk, func(e *Env, _ barrier) { panel(e); e.Input("a") }, 1, "allow", "", false, false},
		{"panel allow for session", bashAsk, func(e *Env, _ barrier) { panel(e); e.Input("s") }, 1, "allow", "", false, false},
		{"panel deny", bashAsk, func(e *Env, _ barrier) { panel(e); e.Input("d"); e.Input("no<CR>") }, 1, "deny", "no", false, false},
		{"panel closed then allow", bashAsk, func(e *Env, b barrier) {
			panel(e)
			e.Input("q")
			e.Eventually(5*time.Second, "panel hidden", func() bool { return e.PanelID() == "" })
			e.WaitGraceOver()
			b.none("closing the panel")
			if len(e.Pending()) != 1 {
				e.t.Fatal("closing the panel dropped the request")
			}
			e.Cmd("ClaudeNova allow")
		}, 1, "allow", "", false, false},
		{"sidebar closed then deny", bashAsk, func(e *Env, b barrier) {
			e.Cmd("ClaudeNova")
			e.Cmd("ClaudeNova")
			b.none("closing the sidebar")
			e.Cmd("ClaudeNova deny not now")
		}, 1, "deny", "not now", false, false},
		{"proposal :w", writeAsk, func(e *Env, _ barrier) { proposal(e); e.Cmd("write") }, 1, "allow", "", false, false},
		{"proposal :q", writeAsk, func(e *Env, _ barrier) { proposal(e); e.Cmd("quit") }, 1, "deny", "", false, false},
		{"proposal :bwipeout", writeAsk, func(e *Env, _ barrier) { b := proposal(e); e.Cmd("bwipeout! " + itoa(b)) }, 1, "deny", "", false, false},
		{"proposal :bdelete", writeAsk, func(e *Env, _ barrier) { b := proposal(e); e.Cmd("bdelete! " + itoa(b)) }, 1, "deny", "", false, false},
		{"proposal :e! then :w", writeAsk, func(e *Env, b barrier) {
			buf := proposal(e)
			e.Cmd("edit!")
			b.none(":e!")
			if len(e.Pending()) != 1 {
				e.t.Fatal(":e! ended the request")
			}
			focusBuf(e, buf) // the sentinel's panel may have had the cursor
			e.Cmd("write")
		}, 1, "allow", "", false, false},
		{":qa", bashAsk, func(e *Env, _ barrier) { panel(e); _ = e.CmdErr("qa") }, 1, "deny", "", true, true},
		{":qa!", writeAsk, func(e *Env, _ barrier) { proposal(e); _ = e.CmdErr("qa!") }, 1, "deny", "", true, true},
		{"SIGTERM to neovim", bashAsk, func(e *Env, _ barrier) { panel(e); _ = syscall.Kill(e.nvimPid(), syscall.SIGTERM) }, 1, "deny", "", true, true},
		{"host killed", bashAsk, func(e *Env, _ barrier) {
			panel(e)
			_ = syscall.Kill(e.hostPid(), syscall.SIGKILL)
			e.Eventually(10*time.Second, "one clear error", func() bool { return e.NoteContaining("host stopped unexpectedly") })
			if len(e.Pending()) != 0 {
				e.t.Error("rows not marked lost")
			}
		}, 0, "", "", true, false},
		{"claude crashes", script("Bash", map[string]any{"command": "make"}, "crash"), func(e *Env, b barrier) {
			send(e, b, "cn-crash-now")
			e.Eventually(10*time.Second, "row withdrawn", func() bool { return len(e.Pending()) == 0 && e.NoteContaining("exited unexpectedly") })
		}, 0, "", "", true, false},
		{"control_cancel_request", script("Bash", map[string]any{"command": "make"}, "cancel"), func(e *Env, b barrier) {
			send(e, b, "cn-cancel-now")
			e.Eventually(10*time.Second, "row withdrawn", func() bool { return len(e.Pending()) == 0 })
		}, 0, "", "", false, false},
		{"session stopped", bashAsk, func(e *Env, _ barrier) {
			panel(e)
			e.Cmd("ClaudeNova stop")
			e.Eventually(10*time.Second, "row withdrawn", func() bool { return len(e.Pending()) == 0 && e.PanelID() == "" })
			e.WaitGraceOver()
		}, 0, "", "", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e, log := faultEnv(t, v, c.script)
				b := barrier{e: e, log: log, session: e.newSession("go")}
				e.WaitPending(1)
				claudePids := e.ClaudePids()
				c.act(e, b)
				if c.gone {
					// Barrier: claude is gone, it reads nothing more.
					for _, pid := range claudePids {
						if !waitGone(pid, 30*time.Second) {
							t.Errorf("claude %d outlived %s", pid, c.name)
						}
					}
				} else {
					e.fakeAnswerBarrier(b.session, log)
				}
				as := fakeAnswers(log)
				if n := answersFor(log, "req-one-00000001"); n != c.answers {
					t.Fatalf("%d answers, want %d: %+v", n, c.answers, as)
				}
				if c.answers == 1 {
					a := testkit.AnswersFor(log, "req-one-00000001")[0]
					if a.Behavior != c.behavior {
						t.Fatalf("behavior %q, want %q", a.Behavior, c.behavior)
					}
					if msg, _ := a.Response["message"].(string); c.message != "" && msg != c.message {
						t.Fatalf("deny message %q, want the user's %q", msg, c.message)
					}
				}
				if !c.quits && !e.responsive() {
					t.Fatal("Neovim blocked")
				}
			})
		})
	}
}

// barrier is what an act of TestExactlyOneAnswer needs to prove a
// request was not answered (yet).
type barrier struct {
	e       *Env
	log     string
	session int
}

// none proves that what the user did (what) did not answer req-one.
func (b barrier) none(what string) {
	b.e.t.Helper()
	b.e.fakeAnswerBarrier(b.session, b.log)
	if n := answersFor(b.log, "req-one-00000001"); n != 0 {
		b.e.t.Fatalf("%s answered the request: %+v", what, fakeAnswers(b.log))
	}
}

// The host dies mid-session: the front end forgets everything of it, and the
// next host's session 1 (numbered from 1 again) gets its own transcript and
// one sidebar section.
func TestHostCrashThenFreshHost(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) { hostCrashThenFreshHost(t, v, Options{}) })
}

// hostCrashThenFreshHost is TestHostCrashThenFreshHost with options o (the jobstart smoke set runs it too).
func hostCrashThenFreshHost(t *testing.T, v nvimVersion, o Options) {
	e := NewEnv(t, v, o)
	e.Cmd("ClaudeNova")
	e.Cmd("wincmd p")
	e.newSession("first words")
	e.Eventually(60*time.Second, "first reply", func() bool { return strings.Contains(e.Transcript(1), "You said: first words") })
	e.Cmd("ClaudeNova send " + Seq(bash("echo never > never.txt", "never")))
	e.WaitPending(1)
	old := e.hostPid()
	_ = syscall.Kill(old, syscall.SIGKILL)
	e.Eventually(10*time.Second, "error shown", func() bool { return e.NoteContaining("host stopped unexpectedly") })
	n := 0
	for _, note := range e.Notes() {
		if strings.Contains(note, "host stopped unexpectedly") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d host errors, want exactly one", n)
	}
	if len(e.Pending()) != 0 {
		t.Fatal("requests of the dead host still pending")
	}
	// The next command starts a fresh host, whose session 1 is new.
	e.Cmd("ClaudeNova new second words")
	e.Eventually(10*time.Second, "fresh host", func() bool { p := e.hostPid(); return p != 0 && p != old })
	e.Eventually(60*time.Second, "new session's reply", func() bool { return strings.Contains(e.Transcript(1), "You said: second words") })
	if tr := e.Transcript(1); strings.Contains(tr, "first words") {
		t.Fatalf("the new session's transcript holds the old one:\n%s", tr)
	}
	var sb []string
	e.Lua(&sb, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.sidebar').buf, 0, -1, false)")
	sessions := 0
	for _, l := range sb {
		if sessionRow.MatchString(l) {
			sessions++
		}
	}
	if sessions != 1 {
		t.Fatalf("sidebar shows %d sessions (want 1):\n%s", sessions, strings.Join(sb, "\n"))
	}
	if e.ReadFile("never.txt") != "" {
		t.Fatal("the dead host's request ran")
	}
}

// TestNoOrphansRealClaude: the real CLI does not outlive any way Neovim or
// the host can end (given a while to go: the host stops it with a grace).
func TestNoOrphansRealClaude(t *testing.T) {
	t.Parallel()
	ends := []struct {
		name string
		end  func(e *Env)
	}{
		{":qa", func(e *Env) { _ = e.CmdErr("qa") }},
		{":qa!", func(e *Env) { _ = e.CmdErr("qa!") }},
		{"SIGTERM to neovim", func(e *Env) { _ = syscall.Kill(e.nvimPid(), syscall.SIGTERM) }},
		{"SIGKILL to the host", func(e *Env) { _ = syscall.Kill(e.hostPid(), syscall.SIGKILL) }},
	}
	for _, end := range ends {
		t.Run(end.name, func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e := NewEnv(t, v, Options{})
				e.newSession(Seq(bash("echo x > x.txt", "x")))
				e.WaitPending(1)
				pids := e.ClaudePids()
				if len(pids) == 0 {
					t.Fatal("no claude process")
				}
				end.end(e)
				for _, pid := range pids {
					if !waitGone(pid, 30*time.Second) {
						t.Errorf("claude process %d outlived %s", pid, end.name)
					}
				}
			})
		})
	}
}

// TestStreamingSessionsKeepHostAndTranscripts: several sessions printing as
// fast as they can while transcripts are created and re-created. The host
// must stay up (a synchronous call back into the host from inside a UI event
// once broke Neovim's nested-call ordering and closed the channel) and every
// transcript buffer must end equal to the host's model.
func TestStreamingSessionsKeepHostAndTranscripts(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, fakeLog := faultEnv(t, v, func(string) []string {
			var steps []string
			for i := 0; i < 300; i++ {
				steps = append(steps, `{"say":"line `+itoa(i)+` of a long answer\nwith a second line"}`)
			}
			return append(steps, `{"result":true}`)
		})
		t.Cleanup(func() {
			if t.Failed() {
				b, _ := os.ReadFile(fakeLog)
				if len(b) > 6000 {
					b = b[len(b)-6000:]
				}
				t.Logf("the fake claudes' log (tail):\n%s", b)
			}
		})
		e.Cmd("ClaudeNova")
		const n = 4
		for i := 0; i < n; i++ {
			e.newSession("go")
		}
		e.Cmd("ClaudeNova transcript")
		// Wipe one transcript mid-stream: it is re-created and catches up.
		e.Lua(nil, "pcall(vim.api.nvim_buf_delete, require('claudenova.surfaces.transcript').ensure(2), { force = true })")
		for id := 1; id <= n; id++ {
			if os.Getenv("STREAM_DEBUG") != "" {
				var st map[string]any
				e.Lua(&st, "return require('claudenova.frontend.inbox').stream_state()")
				t.Logf("stream %v", st)
			}
			e.WaitIdle(id)
		}
		if e.NoteContaining("host stopped unexpectedly") || e.NoteContaining("internal error") {
			t.Fatalf("host trouble: %v", e.Notes())
		}
		for id := 1; id <= n; id++ {
			id := id
			var differs string // where the buffer and the host part, for a failure
			t.Cleanup(func() {
				if t.Failed() && differs != "" {
					t.Logf("transcript %d: %s", id, differs)
				}
			})
			e.Eventually(10*time.Second, "transcript "+itoa(id)+" complete", func() bool {
				e.Lua(&differs, `local id = ...
					local want = require('claudenova.channel.host').request('transcript', { session = id })
					local buf = require('claudenova.surfaces.transcript').ensure(id)
					local got = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
					if want.first ~= 0 then return "the host's lines begin at " .. tostring(want.first) end
					for i = 1, math.max(#want.lines, #got) do
						if want.lines[i] ~= got[i] then
							return ("line %d of %d/%d: host %q, buffer %q"):format(i, #want.lines, #got, tostring(want.lines[i]), tostring(got[i]))
						end
					end
					return ""`, id)
				return differs == ""
			})
		}
	})
}
