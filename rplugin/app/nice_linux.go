package app

import (
	"runtime"
	"syscall"
)

// backgroundThread moves the calling goroutine to an OS thread of its own
// that the kernel schedules after everyone else's (nice +10): the work done
// there (encoding and checking a saved proposal of many megabytes) never
// starves the goroutines that answer Neovim, nor Neovim itself, on a
// machine with few cores. The goroutine keeps the thread until it ends.
func backgroundThread() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 10)
}
