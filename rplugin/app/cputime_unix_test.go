//go:build unix

package app

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the test process used so far (user and system,
// every thread): a benchmark's own work, whatever else loads the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
