package claude

import "syscall"

// childAttr: claude gets its own process group, and the kernel kills it
// when the host's thread that started it dies (even by SIGKILL).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
