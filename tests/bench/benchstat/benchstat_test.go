package benchstat

import (
	"testing"
	"time"
)

func TestPct(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var out []time.Duration
		for _, v := range n {
			out = append(out, time.Duration(v)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		p    int
		want time.Duration
	}{
		{"empty", nil, 99, 0},
		{"one", ms(7), 50, 7 * time.Millisecond},
		{"median of unsorted", ms(5, 1, 3, 2, 4), 50, 3 * time.Millisecond},
		{"p99 of 100 is the 99th", ms(func() []int {
			s := make([]int, 100)
			for i := range s {
				s[i] = 100 - i
			}
			return s
		}()...), 99, 99 * time.Millisecond},
		{"max", ms(1, 9, 3), 100, 9 * time.Millisecond},
		{"p0 is the minimum", ms(4, 2, 8), 0, 2 * time.Millisecond},
	} {
		if got := Pct(tc.in, tc.p); got != tc.want {
			t.Errorf("%s: Pct(%v, %d) = %v, want %v", tc.name, tc.in, tc.p, got, tc.want)
		}
	}
}

func TestPctLeavesTheSampleAlone(t *testing.T) {
	in := []time.Duration{3, 1, 2}
	Pct(in, 50)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Fatalf("the sample was reordered: %v", in)
	}
}

func TestMSAndVerdict(t *testing.T) {
	if got := MS(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("MS = %v", got)
	}
	if Verdict(true) != "met" || Verdict(false) != "MISSED" {
		t.Errorf("verdicts %q %q", Verdict(true), Verdict(false))
	}
}
