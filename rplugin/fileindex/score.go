package fileindex

import (
	"container/heap"
	"sort"
	"strings"
)

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with q (q lower case, ASCII case
// folded).
func hasPrefixFold(s, q string) bool {
	if len(s) < len(q) {
		return false
	}
	for i := 0; i < len(q); i++ {
		if lower(s[i]) != q[i] {
			return false
		}
	}
	return true
}

// indexFold is strings.Index with ASCII case folding (q lower case).
func indexFold(s, q string) int {
	for i := 0; i+len(q) <= len(s); i++ {
		if hasPrefixFold(s[i:], q) {
			return i
		}
	}
	return -1
}

func boundary(prev, c byte) bool {
	switch prev {
	case '/', '_', '-', '.', ' ':
		return true
	}
	return 'a' <= prev && prev <= 'z' && 'A' <= c && c <= 'Z'
}

// Score says how well q (lower case) matches path. ok is false when q's
// characters are not all in path, in order (ASCII case folded). Higher is
// better: the path starting with q counts most, then the file's name
// holding q (most when it starts with it), then q anywhere in the path;
// below that, characters that start a word (after / _ - . or a case
// change) and characters next to each other count; a shorter path wins a
// tie.
func Score(q, path string) (int, bool) {
	j := 0
	for i := 0; i < len(path) && j < len(q); i++ {
		if lower(path[i]) == q[j] {
			j++
		}
	}
	if j < len(q) {
		return 0, false
	}
	base := strings.LastIndexByte(path, '/') + 1
	score := 0
	switch {
	case hasPrefixFold(path, q):
		score += 3000
	case hasPrefixFold(path[base:], q):
		score += 2000
	case indexFold(path[base:], q) >= 0:
		score += 1500
	case indexFold(path, q) >= 0:
		score += 1000
	}
	// The characters, matched left to right, each at the first place that
	// starts a word if there is one before the next plain match.
	j, last := 0, -2
	for i := 0; i < len(path) && j < len(q); i++ {
		if lower(path[i]) != q[j] {
			continue
		}
		score += 10
		if i == 0 || boundary(path[i-1], path[i]) {
			score += 15
		}
		if last == i-1 {
			score += 20
		}
		if i >= base {
			score += 5
		}
		last = i
		j++
	}
	return score - len(path)/4, true
}

type scored struct {
	i     int
	score int
	path  string
}

// better orders matches: higher score, then the shorter path, then by name.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if len(a.path) != len(b.path) {
		return len(a.path) < len(b.path)
	}
	return a.path < b.path
}

// top keeps the best n matches (a heap with the worst on top).
type top struct {
	n  int
	hs worst
}

type worst []scored

func (w worst) Len() int           { return len(w) }
func (w worst) Less(i, j int) bool { return better(w[j], w[i]) }
func (w worst) Swap(i, j int)      { w[i], w[j] = w[j], w[i] }
func (w *worst) Push(x any)        { *w = append(*w, x.(scored)) }
func (w *worst) Pop() any {
	old := *w
	x := old[len(old)-1]
	*w = old[:len(old)-1]
	return x
}

func newTop(n int) *top { return &top{n: max(n, 1)} }

func (t *top) add(i, score int, path string) {
	s := scored{i, score, path}
	if len(t.hs) < t.n {
		heap.Push(&t.hs, s)
		return
	}
	if better(s, t.hs[0]) {
		t.hs[0] = s
		heap.Fix(&t.hs, 0)
	}
}

// sorted returns the kept matches, best first.
func (t *top) sorted() []scored {
	out := append([]scored(nil), t.hs...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}
