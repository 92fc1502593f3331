//go:build !unix

package app

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
