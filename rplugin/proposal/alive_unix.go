//go:build unix

package proposal

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id exists (signal 0:
// EPERM means it exists but belongs to someone else). A reused id reads as
// alive, which only keeps a stale directory a while longer.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
