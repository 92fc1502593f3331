// Package benchstat holds what the benchmark commands share to report a
// figure next to its target: percentiles of a sample, milliseconds, and
// the verdict word.
package benchstat

import (
	"slices"
	"time"
)

// Pct is the p-th percentile (nearest rank) of ds; 100 is the maximum. An
// empty sample is 0.
func Pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	i = min(max(i, 1), len(s))
	return s[i-1]
}

// MS is d in milliseconds, to the microsecond.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Verdict is how a report says whether a target was met.
func Verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
