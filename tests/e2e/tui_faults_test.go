package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hookPids are this test's claudenova hook processes still running.
func (e *Env) hookPids() []int {
	var out []int
	for _, pid := range e.markedPids() {
		b, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) == 2 && filepath.Base(args[0]) == "claudenova" && args[1] == "hook" {
			out = append(out, pid)
		}
	}
	return out
}

// tuiPid is the pid of session id's claude (its terminal's job).
func (e *Env) tuiPid(id int) int {
	var pid int
	e.Lua(&pid, "return vim.fn.jobpid(vim.b[require('claudenova.frontend.tui').bufs[...]].terminal_job_id)", id)
	return pid
}

// enterWhileAsked presses Enter (its first choice, "Yes") in the TUI's own
// dialog until done says the answer took: it takes no key for a moment
// after it shows.
func (e *Env) enterWhileAsked(id, job int, what string, done func() bool) {
	e.t.Helper()
	e.Eventually(40*time.Second, what, func() bool {
		if done() {
			return true
		}
		if strings.Contains(e.tuiScreen(id), "Do you want to proceed?") {
			e.Lua(nil, "vim.fn.chansend(..., '\\r')", job)
		}
		return false
	})
}

// claude's terminal UI killed (SIGKILL) while a proposal is open: the
// proposal is withdrawn, nothing is applied, the hook that waited for it
// is gone.
func TestTUIKilledWhileAProposalIsOpen(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(Step("Write", map[string]any{"file_path": "{{cwd}}/k.txt", "content": "never\n"})), "SEQ")
		p, buf := e.WaitProposal()
		if len(e.hookPids()) == 0 {
			t.Fatal("no hook waits for the proposal")
		}
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 0, 1, false, { 'amended, never saved' })", buf)
		if err := syscall.Kill(e.tuiPid(id), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		e.Eventually(20*time.Second, "session exited, its proposal withdrawn, its hook gone", func() bool {
			st, _ := e.SessionState(id)
			return st == "exited" && len(e.Pending()) == 0 && e.ProposalBuf(p.ID) == 0 && len(e.hookPids()) == 0
		})
		if e.fileExists("k.txt") {
			t.Fatal("the withdrawn Write was applied")
		}
		// Its end is told once, as claude's: killed is no clean exit.
		if errs := e.ErrorNotes(); len(errs) != 1 || !strings.Contains(errs[0], "exited unexpectedly") {
			t.Fatalf("errors: %v", errs)
		}
	})
}

// The host dies while a hook waits: the hook gives up at once (no
// decision) and the TUI's own dialog answers; a fresh host knows nothing of
// the TUI, whose next request is asked in the terminal alone.
func TestTUIHostRestartedWhileAHookWaits(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(bash("echo 1 > one.txt", "one"), bash("echo 2 > two.txt", "two")), "SEQ")
		e.WaitPending(1)
		if len(e.hookPids()) == 0 {
			t.Fatal("no hook waits")
		}
		old := e.hostPid()
		_ = syscall.Kill(old, syscall.SIGKILL)
		e.Eventually(20*time.Second, "the hook gave up", func() bool { return len(e.hookPids()) == 0 })
		e.Eventually(10*time.Second, "the host's end told", func() bool { return e.NoteContaining("host stopped unexpectedly") })
		e.Cmd("ClaudeNova new fresh")
		e.Eventually(10*time.Second, "fresh host", func() bool { p := e.hostPid(); return p != 0 && p != old })
		// Still claude's own dialog: answered there, both commands run,
		// the second asked in the terminal alone.
		e.enterWhileAsked(id, job, "the first command allowed in the terminal", func() bool { return e.fileExists("one.txt") })
		e.enterWhileAsked(id, job, "the second command allowed in the terminal", func() bool { return e.fileExists("two.txt") })
		for _, p := range e.Pending() {
			t.Fatalf("the fresh host has a request: %+v", p)
		}
	})
}

// Two TUIs and a stream-json session ask at once: each request is its
// session's, and each answer reaches its own claude.
func TestTwoTUIsAndAStreamJSONSessionAtOnce(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		id1, job1 := e.startTUI()
		id2, job2 := e.startTUI()
		e.typeIntoTUI(id1, job1, Seq(bash("echo a > a.txt", "tui one")), "SEQ")
		e.typeIntoTUI(id2, job2, Seq(bash("echo b > b.txt", "tui two")), "SEQ")
		id3 := e.newSession(Seq(bash("echo c > c.txt", "stream")))
		ps := e.WaitPending(3)
		byCmd := map[string]Pending{}
		for _, p := range ps {
			for _, f := range []string{"a", "b", "c"} {
				if strings.Contains(p.Target, "echo "+f) {
					byCmd[f] = p
				}
			}
		}
		want := map[string]int{"a": id1, "b": id2, "c": id3}
		for f, id := range want {
			if byCmd[f].Session != id {
				t.Fatalf("echo %s is session %d's, want %d: %+v", f, byCmd[f].Session, id, ps)
			}
		}
		if ok, why := e.decideAPI(byCmd["a"].ID, "deny"); !ok {
			t.Fatalf("deny: %s", why)
		}
		for _, f := range []string{"b", "c"} {
			if ok, why := e.decideAPI(byCmd[f].ID, "allow"); !ok {
				t.Fatalf("allow: %s", why)
			}
		}
		e.Eventually(30*time.Second, "the allowed commands ran", func() bool { return e.fileExists("b.txt") && e.fileExists("c.txt") })
		e.Eventually(20*time.Second, "the first TUI says it was denied", func() bool {
			return strings.Contains(e.tuiScreen(id1), "Denied by PermissionRequest hook")
		})
		if e.fileExists("a.txt") {
			t.Fatal("the denied command ran")
		}
		if errs := e.ErrorNotes(); len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
	})
}
