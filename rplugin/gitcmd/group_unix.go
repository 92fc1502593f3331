//go:build unix

package gitcmd

import (
	"os/exec"
	"syscall"
)

// InGroup runs cmd in a process group of its own, ended whole when its
// context is: a git push's transport and the remote's hooks go with it.
func InGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
