package review

import (
	"errors"
	"sort"
	"time"
)

// RoundBudget bounds the baseline contents one round keeps (bytes): past
// it, a file's baseline is dropped and the round says so for that file.
const RoundBudget = 64 << 20

// Baseline is a file's content at the review baseline: as it was when the
// last round was sent (or the session began), before Claude changed it.
type Baseline struct {
	Existed bool   `json:"existed"` // false: Claude created the file in this round
	Content string `json:"content"`
	// Dropped: the content was too large to keep within RoundBudget.
	Dropped bool `json:"dropped,omitempty"`
	// Outside: the file changed outside Claude's Write and Edit (a command,
	// or an editor) since the baseline; seen because the round tracks it.
	Outside bool `json:"outside,omitempty"`
	// By is the command that first changed it in the round ("": a file
	// tool).
	By string `json:"by,omitempty"`
}

// ErrDropped says a baseline was too large to keep.
var ErrDropped = errors.New("its content at the review baseline was too large to keep")

// Round is a session's open round of review: the files Claude changed
// since the baseline, each with its content then. Round 1 starts when the
// session begins; each send closes the round and starts the next.
type Round struct {
	N     int
	Since time.Time
	files map[string]Baseline
	order []string // in the order first changed
	used  int
	// tracked are files an earlier round knew, with their content when
	// this round began: a change to one of them by a command (Bash) is
	// seen (Seen) although no Write or Edit reported it.
	tracked map[string]Baseline
}

// NewRound starts round n at since.
func NewRound(n int, since time.Time) *Round {
	if n < 1 {
		n = 1
	}
	return &Round{N: n, Since: since, files: map[string]Baseline{}, tracked: map[string]Baseline{}}
}

// Changed records that Claude changed path, whose content before was
// original (nil: it did not exist). Only the first change of a file in the
// round counts: it reports whether this was it.
func (r *Round) Changed(path string, original *string) bool {
	return r.ChangedBy(path, original, "")
}

// ChangedBy is Changed by a command (by: its text).
func (r *Round) ChangedBy(path string, original *string, by string) bool {
	if _, ok := r.files[path]; ok {
		return false
	}
	b := Baseline{Existed: original != nil, By: by}
	if original != nil {
		b.Content = *original
	}
	if t, ok := r.tracked[path]; ok && !t.Dropped {
		// Known since the round began: that is the baseline, also when a
		// command changed it before this Write or Edit.
		b = t
		b.By = by
	}
	r.add(path, b)
	return true
}

func (r *Round) add(path string, b Baseline) {
	if r.used+len(b.Content) > RoundBudget {
		b.Content, b.Dropped = "", true
	}
	r.used += len(b.Content)
	r.files[path] = b
	r.order = append(r.order, path)
}

// Seen records that a file the round tracks changed although no Write or
// Edit reported it (now is its content): it joins the round, with its
// content when the round began, marked Outside. It reports whether it
// joined.
func (r *Round) Seen(path, now string, exists bool) bool {
	t, ok := r.tracked[path]
	if _, in := r.files[path]; in || !ok || t.Dropped || (t.Existed == exists && t.Content == now) {
		return false
	}
	t.Outside = true
	r.add(path, t)
	return true
}

// Tracked lists the files the round watches for changes by commands, sorted.
func (r *Round) Tracked() []string {
	out := make([]string, 0, len(r.tracked))
	for p := range r.tracked {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Files lists the files of the round, in the order first changed.
func (r *Round) Files() []string { return append([]string(nil), r.order...) }

// Baseline returns path's content at the baseline.
func (r *Round) Baseline(path string) (Baseline, bool) {
	b, ok := r.files[path]
	return b, ok
}

// Next closes the round: the next one starts at at, empty, and tracks the
// files given with their content now (read returns it; a file it cannot
// read is not tracked).
func (r *Round) Next(at time.Time, files []string, read func(path string) (string, bool, error)) *Round {
	n := NewRound(r.N+1, at)
	used := 0
	for _, p := range files {
		content, exists, err := read(p)
		if err != nil {
			continue
		}
		b := Baseline{Existed: exists, Content: content}
		if used+len(content) > RoundBudget {
			b = Baseline{Existed: exists, Dropped: true}
		}
		used += len(b.Content)
		n.tracked[p] = b
	}
	return n
}
