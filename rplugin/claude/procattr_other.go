//go:build !linux

package claude

import "syscall"

// childAttr: claude gets its own process group. Without Pdeathsig (Linux
// only) a host killed by SIGKILL leaves claude to notice its closed stdin;
// every other ending of the host stops the process group itself.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
