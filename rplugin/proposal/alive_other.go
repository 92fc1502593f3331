//go:build !unix

package proposal

import "os"

// processAlive reports whether a process with this id exists. Where that
// cannot be told, it answers true: a directory is then kept, never removed
// from under a live process.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
