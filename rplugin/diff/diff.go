package diff

import "hash/maphash"

// Change is one block of an edit script: the lines a[A:A+Del] are replaced
// by the lines b[B:B+Ins]. Either count may be zero (pure insertion or pure
// deletion), never both.
type Change struct {
	A, B     int // 0-based start of the block in a and in b
	Del, Ins int // number of lines removed from a / inserted from b
}

// Lines computes an edit script that turns a into b. The changes are
// ordered by position and separated by at least one unchanged line.
// Applying them to a always reproduces b exactly. The script is minimal
// (a longest common subsequence is kept) unless the cost cutoff for very
// different inputs kicks in, see the package documentation.
func Lines(a, b []string) []Change {
	ca, cb := mark(a, b, nil)
	return collect(ca, cb)
}

// count returns the number of deleted and inserted lines of a script.
func count(cs []Change) (del, ins int) {
	for _, c := range cs {
		del += c.Del
		ins += c.Ins
	}
	return del, ins
}

// collect turns per-line change flags into Change blocks.
func collect(ca, cb []bool) []Change {
	var out []Change
	n, m := len(ca), len(cb)
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && !ca[i] && !cb[j] {
			i++
			j++
			continue
		}
		si, sj := i, j
		for i < n && ca[i] {
			i++
		}
		for j < m && cb[j] {
			j++
		}
		if i == si && j == sj {
			// The unchanged lines of a and b do not pair up; this is
			// an internal bug, never a property of the input.
			panic("diff: inconsistent change marks")
		}
		out = append(out, Change{A: si, B: sj, Del: i - si, Ins: j - sj})
	}
	return out
}

// mark computes, for every line of a and b, whether it is deleted
// (resp. inserted) by the edit script.
func mark(a, b []string, tune *tuning) (ca, cb []bool) {
	n, m := len(a), len(b)
	ca = make([]bool, n)
	cb = make([]bool, m)

	pre := 0
	for pre < n && pre < m && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a[n-1-suf] == b[m-1-suf] {
		suf++
	}
	am, bm := a[pre:n-suf], b[pre:m-suf]
	cam, cbm := ca[pre:n-suf], cb[pre:m-suf]
	if len(am) == 0 || len(bm) == 0 {
		for i := range cam {
			cam[i] = true
		}
		for i := range cbm {
			cbm[i] = true
		}
		return ca, cb
	}

	ia, ib, nids := intern(am, bm)

	// Lines that do not occur in the other file can never be matched:
	// mark them right away and hand only the rest to Myers.
	inA := make([]bool, nids)
	inB := make([]bool, nids)
	for _, id := range ia {
		inA[id] = true
	}
	for _, id := range ib {
		inB[id] = true
	}
	xs, xi := reduce(ia, inB, cam)
	ys, yi := reduce(ib, inA, cbm)

	if len(xs) > 0 && len(ys) > 0 {
		s := newMyers(xs, ys)
		if tune != nil {
			s.tooExpensive, s.cheap, s.budget = tune.cutoff, tune.cheap, tune.budget
		}
		s.compare(0, len(xs), 0, len(ys), false)
		for k, c := range s.cx {
			if c {
				cam[xi[k]] = true
			}
		}
		for k, c := range s.cy {
			if c {
				cbm[yi[k]] = true
			}
		}
	} else {
		for _, i := range xi {
			cam[i] = true
		}
		for _, i := range yi {
			cbm[i] = true
		}
	}

	// Slide over the whole files: runs may move into the trimmed
	// prefix or suffix.
	slide(ca, cb, a)
	slide(cb, ca, b)
	return ca, cb
}

// reduce returns the ids of the lines whose id occurs in the other file
// (present) together with their indices, and marks all others changed.
func reduce(ids []int32, present []bool, changed []bool) (xs []int32, xi []int32) {
	k := 0
	for _, id := range ids {
		if present[id] {
			k++
		}
	}
	xs = make([]int32, 0, k)
	xi = make([]int32, 0, k)
	for i, id := range ids {
		if present[id] {
			xs = append(xs, id)
			xi = append(xi, int32(i))
		} else {
			changed[i] = true
		}
	}
	return xs, xi
}

var seed = maphash.MakeSeed()

// intern maps every line of a and b to a small integer such that two
// lines get the same id exactly when they are equal strings. It uses an
// open-addressing table whose slots hold 32 bits of the line's hash and
// its id+1 (0 = empty); hash matches are confirmed by comparing strings.
func intern(a, b []string) (ia, ib []int32, nids int) {
	total := len(a) + len(b)
	size := 16
	for size < 2*total {
		size <<= 1
	}
	mask := uint64(size - 1)
	table := make([]uint64, size)
	reps := make([]string, 0, total)
	lookup := func(s string) int32 {
		h := maphash.String(seed, s)
		tag := h &^ 0xffffffff
		p := h & mask
		for {
			e := table[p]
			if e == 0 {
				id := int32(len(reps))
				reps = append(reps, s)
				table[p] = tag | uint64(id+1)
				return id
			}
			if e&^0xffffffff == tag {
				if id := int32(uint32(e)) - 1; reps[id] == s {
					return id
				}
			}
			p = (p + 1) & mask
		}
	}
	ia = make([]int32, len(a))
	for i, s := range a {
		ia[i] = lookup(s)
	}
	// reps[id] is the first occurrence of id in a (for ids < len(reps)
	// at this point). Most lines of b continue a run of lines equal to a,
	// so try the line after the previous match before hashing.
	na := len(reps)
	first := make([]int32, na)
	for i := len(a) - 1; i >= 0; i-- {
		first[ia[i]] = int32(i)
	}
	ib = make([]int32, len(b))
	g := 0 // guess: index in a of the line equal to the next line of b
	for i, s := range b {
		if g < len(a) && a[g] == s {
			ib[i] = ia[g]
			g++
			continue
		}
		id := lookup(s)
		ib[i] = id
		if int(id) < na {
			g = int(first[id]) + 1
		}
	}
	return ia, ib, len(reps)
}

// slide moves every run of changed lines in ch as far as it can along runs
// of equal lines: first up to merge with earlier runs, then down to merge
// with later ones, and finally back up until its end lines up with a
// change in the other file, if there is such a position. This does not
// alter the number of changed lines but yields fewer, tidier hunks (the
// same idea as GNU diff's shift_boundaries). lines is the file ch belongs
// to; other are the change flags of the other file.
func slide(ch, other []bool, lines []string) {
	n, m := len(ch), len(other)
	i, j := 0, 0 // j: index in the other file of the partner of line i
	for {
		for i < n && !ch[i] {
			for j < m && other[j] {
				j++
			}
			j++
			i++
		}
		if i >= n {
			return
		}
		start := i
		for i < n && ch[i] {
			i++
		}
		for j < m && other[j] {
			j++
		}
		corresponding := n
		for {
			runLen := i - start
			// Up: the line before the run equals the last line of it.
			for start > 0 && lines[start-1] == lines[i-1] {
				start--
				i--
				ch[start] = true
				ch[i] = false
				for start > 0 && ch[start-1] {
					start--
				}
				j--
				for other[j] {
					j--
				}
			}
			corresponding = n
			if j > 0 && other[j-1] {
				corresponding = i
			}
			// Down: the first line of the run equals the line after it.
			for i < n && lines[start] == lines[i] {
				ch[start] = false
				ch[i] = true
				start++
				i++
				for i < n && ch[i] {
					i++
				}
				j++
				for j < m && other[j] {
					corresponding = i
					j++
				}
			}
			if runLen == i-start {
				break
			}
		}
		// Back up to the last place where the run ended next to a
		// change in the other file.
		for corresponding < i {
			start--
			i--
			ch[start] = true
			ch[i] = false
			j--
			for other[j] {
				j--
			}
		}
	}
}
