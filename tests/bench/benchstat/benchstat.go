// Package benchstat holds what the benchmark commands share to report a
// figure next to its target: percentiles of a sample, milliseconds, the
// verdict word, and the summary the README's table is generated from.
package benchstat

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
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

// Figure is one line of the machine-readable summary `make bench` writes
// (JSON lines, in the file $CLAUDENOVA_BENCH_SUMMARY names): the README's
// performance table is generated from it (tests/bench/benchtable), never
// written by hand.
type Figure struct {
	Row     string `json:"row"`     // what was measured: the table's first column
	Variant string `json:"variant"` // "0.12", "0.10": one row shows its variants side by side; "" when there is one
	Figure  string `json:"figure"`  // the measured value(s), as printed
	Target  string `json:"target"`  // the target, as printed; "" for a figure reported beside a target, not held to one
	Met     bool   `json:"met"`
}

// SummaryEnv names the file Record appends to.
const SummaryEnv = "CLAUDENOVA_BENCH_SUMMARY"

// Record appends f to the summary file, when $CLAUDENOVA_BENCH_SUMMARY
// names one (make bench sets it); else it does nothing. The variant comes
// from $CLAUDENOVA_BENCH_VARIANT when f has none.
func Record(f Figure) {
	path := os.Getenv(SummaryEnv)
	if path == "" {
		return
	}
	if f.Variant == "" {
		f.Variant = os.Getenv("CLAUDENOVA_BENCH_VARIANT")
	}
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchstat: summary:", err)
		return
	}
	defer fh.Close()
	_, _ = fh.Write(append(b, '\n'))
}

// ReadSummary reads a summary file Record wrote.
func ReadSummary(path string) ([]Figure, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Figure
	for i, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var f Figure
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, f)
	}
	return out, nil
}
