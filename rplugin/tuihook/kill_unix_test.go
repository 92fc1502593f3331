//go:build unix

package tuihook

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A TUI whose job exited is not signalled when its session is stopped: its
// pid may by then lead another process group (here one the test starts).
// The test ends that group itself with SIGKILL: the first fatal signal a
// process is sent is the one it dies of, so SIGTERM there means Kill
// signalled it.
func TestKillAfterExitSignalsNobody(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := newConn([]string{"claude"}, "/p", "default", nil)
	c.Running(cmd.Process.Pid) // the TUI's pid, taken since by sleep
	c.Exited(0)
	c.Kill(50 * time.Millisecond)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the process that took the TUI's pid ended by %v, not the test's SIGKILL", cmd.ProcessState)
	}
}
