package diff

import "math"

// myers holds the state of a linear-space Myers diff over two sequences of
// interned lines. Diagonal k (= x - y) is stored at index k+off of fd/bd.
type myers struct {
	xs, ys []int32
	cx, cy []bool // changed flags, parallel to xs and ys
	fd, bd []int  // furthest x reached per diagonal, forward / backward
	off    int
	// tooExpensive is the edit cost after which the search for a middle
	// snake gives up on minimality (see split).
	tooExpensive int
	// work counts diagonal extensions done so far; once it exceeds
	// budget, tooExpensive drops to cheap so that pathological inputs
	// (huge D among frequent lines) finish in bounded time.
	work, budget, cheap int
}

// tuning overrides the cost cutoffs (tests use it to exercise the
// heuristic paths on small inputs).
type tuning struct{ cutoff, cheap, budget int }

// Cost cutoffs. Below budget the search behaves like GNU diff (cutoff at
// least 4096 edit steps per middle-snake search); beyond it every search
// is capped at cheapCutoff steps.
const (
	minCutoff     = 4096
	cheapCutoff   = 128
	baseBudget    = 1 << 24
	budgetPerLine = 32
)

func newMyers(xs, ys []int32) *myers {
	n, m := len(xs), len(ys)
	diags := n + m + 3
	s := &myers{
		xs:  xs,
		ys:  ys,
		cx:  make([]bool, n),
		cy:  make([]bool, m),
		fd:  make([]int, diags),
		bd:  make([]int, diags),
		off: m + 1,
	}
	// Roughly sqrt(n+m), but never below 4096: like GNU diff, only give
	// up on minimality for really expensive inputs.
	te := 1
	for d := diags; d != 0; d >>= 2 {
		te <<= 1
	}
	s.tooExpensive = max(te, minCutoff)
	s.budget = baseBudget + budgetPerLine*(n+m)
	s.cheap = cheapCutoff
	return s
}

// compare marks the changed lines of xs[xoff:xlim] versus ys[yoff:ylim].
// With minimal set the cost cutoff is not applied.
func (s *myers) compare(xoff, xlim, yoff, ylim int, minimal bool) {
	xs, ys := s.xs, s.ys
	for xoff < xlim && yoff < ylim && xs[xoff] == ys[yoff] {
		xoff++
		yoff++
	}
	for xlim > xoff && ylim > yoff && xs[xlim-1] == ys[ylim-1] {
		xlim--
		ylim--
	}
	switch {
	case xoff == xlim:
		for y := yoff; y < ylim; y++ {
			s.cy[y] = true
		}
		return
	case yoff == ylim:
		for x := xoff; x < xlim; x++ {
			s.cx[x] = true
		}
		return
	}
	xmid, ymid, loMin, hiMin := s.split(xoff, xlim, yoff, ylim, minimal)
	if xmid < xoff || xmid > xlim || ymid < yoff || ymid > ylim ||
		(xmid == xoff && ymid == yoff) || (xmid == xlim && ymid == ylim) {
		// Cannot happen for a correct split; stay correct regardless.
		for x := xoff; x < xlim; x++ {
			s.cx[x] = true
		}
		for y := yoff; y < ylim; y++ {
			s.cy[y] = true
		}
		return
	}
	s.compare(xoff, xmid, yoff, ymid, loMin)
	s.compare(xmid, xlim, ymid, ylim, hiMin)
}

// split finds a point (xmid, ymid) on an optimal edit path between
// (xoff, yoff) and (xlim, ylim) by running Myers' greedy search from both
// corners at once until the two frontiers overlap (the "middle snake").
// The sub-problems on both sides of a genuine middle snake are cheaper than
// the cutoff, so they are flagged minimal. If the cost reaches
// tooExpensive (and minimal is false) it returns the most advanced point
// of either frontier instead; the side of that point which was not
// searched exhaustively is flagged non-minimal.
//
// Both ranges must be non-empty, and their first and last elements must
// differ.
func (s *myers) split(xoff, xlim, yoff, ylim int, minimal bool) (xmid, ymid int, loMin, hiMin bool) {
	xs, ys := s.xs, s.ys
	fd, bd, off := s.fd, s.bd, s.off
	dmin, dmax := xoff-ylim, xlim-yoff // range of diagonals in the box
	fmid, bmid := xoff-yoff, xlim-ylim // start diagonals of both searches
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[off+fmid] = xoff
	bd[off+bmid] = xlim

	for cost := 1; ; cost++ {
		// Forward: one more edit on every active diagonal. Diagonals
		// just outside the active range get sentinels that lose every
		// comparison.
		if fmin > dmin {
			fmin--
			fd[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[off+k-1], fd[off+k+1]
			x := hi // down: insertion
			if lo >= hi {
				x = lo + 1 // right: deletion
			}
			y := x - k
			for x < xlim && y < ylim && xs[x] == ys[y] {
				x++
				y++
			}
			fd[off+k] = x
			if odd && bmin <= k && k <= bmax && bd[off+k] <= x {
				return x, y, true, true
			}
		}

		// Backward, mirrored.
		if bmin > dmin {
			bmin--
			bd[off+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[off+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[off+k-1], bd[off+k+1]
			x := hi - 1 // up: insertion
			if lo < hi {
				x = lo // left: deletion
			}
			y := x - k
			for x > xoff && y > yoff && xs[x-1] == ys[y-1] {
				x--
				y--
			}
			bd[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[off+k] {
				return x, y, true, true
			}
		}

		s.work += (fmax-fmin)/2 + (bmax-bmin)/2 + 2
		if s.work > s.budget && s.tooExpensive > s.cheap {
			s.tooExpensive = s.cheap
		}
		if minimal || cost < s.tooExpensive {
			continue
		}

		// Too expensive: take the forward point that got furthest
		// (max x+y) or the backward point that got furthest (min x+y),
		// whichever made more progress, clamped into the box.
		fxy, fx := -1, 0
		for k := fmax; k >= fmin; k -= 2 {
			x := min(fd[off+k], xlim)
			y := x - k
			if y > ylim {
				x, y = ylim+k, ylim
			}
			if x+y > fxy {
				fxy, fx = x+y, x
			}
		}
		bxy, bx := math.MaxInt, 0
		for k := bmax; k >= bmin; k -= 2 {
			x := max(bd[off+k], xoff)
			y := x - k
			if y < yoff {
				x, y = yoff+k, yoff
			}
			if x+y < bxy {
				bxy, bx = x+y, x
			}
		}
		if (xlim+ylim)-bxy < fxy-(xoff+yoff) {
			return fx, fxy - fx, true, false
		}
		return bx, bxy - bx, false, true
	}
}
