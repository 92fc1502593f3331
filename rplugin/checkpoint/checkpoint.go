// Package checkpoint keeps a session's turns: the id claude keys its file
// checkpoint by (the uuid the plugin gives each prompt it sends, see
// rewind_files), and, for each turn, the files Claude changed with their
// content before the turn.
//
// The content before the turn is the tool result's originalFile of the
// turn's first Write or Edit of that file: what the CLI itself replaced.
// A snapshot taken by the plugin when the tool_use is announced would race
// with the CLI's own write in acceptEdits mode (the tool runs as soon as
// its input is complete); originalFile cannot be stale.
package checkpoint

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// NewID is a random version 4 UUID: the id of a prompt, and so of the
// checkpoint claude takes before the turn it starts.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Turn is one prompt the user sent and what the turn it started changed.
type Turn struct {
	ID     string    `json:"id"`     // the prompt's uuid: the checkpoint id
	N      int       `json:"n"`      // 1-based, in the order sent
	Prompt string    `json:"prompt"` // the prompt's full text
	Time   time.Time `json:"-"`
	Files  []string  `json:"files"` // absolute paths, in the order first changed
	// Unkept are files a command of the turn changed whose content before
	// is not kept (ignored, too big, outside git): a rewind names them and
	// leaves them as they are.
	Unkept []string `json:"unkept"`
	// UnkeptMore counts the files not kept past the first MaxUnkeptNamed.
	UnkeptMore int `json:"unkept_more"`
}

// MaxUnkeptNamed bounds the files a turn names as not kept (a command that
// writes 100k files is named by its first ones and a count).
const MaxUnkeptNamed = 100

// maxUnkeptSeen bounds the files remembered to count each once; past it a
// file named twice is counted twice.
const maxUnkeptSeen = 10000

// Before is a file's content before a turn changed it.
type Before struct {
	Content string
	Existed bool // false: the turn created the file
	// By is what changed it when it was not a file tool: the command
	// ("sed -i 's/a/b/' x.go").
	By string
	// Mode is its permission bits before (0: not known, as for a file
	// tool's change: a rewind leaves the mode as it finds it, 0644 for a
	// file it brings back).
	Mode fs.FileMode
}

// Was is the Before of a file whose content before was content (nil: it
// did not exist).
func Was(content *string) Before {
	if content == nil {
		return Before{}
	}
	return Before{Content: *content, Existed: true}
}

type turn struct {
	Turn
	before  map[string]Before
	evicted bool // its contents were dropped to stay within the budget
	unkept  map[string]bool
}

// Log is a session's turns. Safe for concurrent use.
type Log struct {
	mu     sync.Mutex
	turns  []*turn
	budget int // bytes of before-contents kept, over all turns
	used   int
	left   map[string]Left // path -> what the session's last change of it left
}

// NewLog keeps up to budget bytes of before-turn contents; the oldest
// turns' contents go first.
func NewLog(budget int) *Log { return &Log{budget: budget} }

// Begin records a prompt sent with id and returns its number.
func (l *Log) Begin(id, prompt string, at time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.turns) + 1
	l.turns = append(l.turns, &turn{Turn: Turn{ID: id, N: n, Prompt: prompt, Time: at}, before: map[string]Before{}})
	return n
}

// Drop forgets the prompt id when it is the last one and changed no file
// (a queued prompt the user withdrew before claude read it).
func (l *Log) Drop(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.turns); n > 0 && l.turns[n-1].ID == id && len(l.turns[n-1].Files) == 0 {
		l.evict(l.turns[n-1])
		l.turns = l.turns[:n-1]
	}
}

// Changed records that the running turn (the last prompt sent) changed
// path, whose content before was original (nil: the file did not exist).
// Only the turn's first change of a file counts.
func (l *Log) Changed(path string, b Before) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.turns) == 0 {
		return
	}
	t := l.turns[len(l.turns)-1]
	if _, ok := t.before[path]; ok {
		return
	}
	t.before[path] = b
	t.Files = append(t.Files, path)
	l.used += len(b.Content)
	for i := 0; l.used > l.budget && i < len(l.turns)-1; i++ {
		l.evict(l.turns[i])
	}
}

// NotKept records that the running turn changed path without its content
// before being kept.
func (l *Log) NotKept(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.turns) == 0 {
		return
	}
	t := l.turns[len(l.turns)-1]
	if _, ok := t.before[path]; ok || t.unkept[path] {
		return
	}
	if t.unkept == nil {
		t.unkept = map[string]bool{}
	}
	if len(t.unkept) < maxUnkeptSeen {
		t.unkept[path] = true
	}
	if len(t.Unkept) < MaxUnkeptNamed {
		t.Unkept = append(t.Unkept, path)
	} else {
		t.UnkeptMore++
	}
}

func (l *Log) evict(t *turn) {
	if t.evicted {
		return
	}
	for _, b := range t.before {
		l.used -= len(b.Content)
	}
	t.before, t.evicted = map[string]Before{}, true
}

// copy is the turn as callers see it: its file list is theirs.
func (t *turn) copy() Turn {
	c := t.Turn
	c.Files = append([]string(nil), t.Files...)
	c.Unkept = append([]string(nil), t.Unkept...)
	return c
}

// Turns returns every turn, oldest first.
func (l *Log) Turns() []Turn {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Turn, len(l.turns))
	for i, t := range l.turns {
		out[i] = t.copy()
	}
	return out
}

// Find returns the turn with id; id "" is the last turn that changed a file.
func (l *Log) Find(id string) (Turn, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.turns) - 1; i >= 0; i-- {
		t := l.turns[i]
		if t.ID == id || (id == "" && len(t.Files) > 0) {
			return t.copy(), true
		}
	}
	return Turn{}, false
}

// Number returns turn n (1-based).
func (l *Log) Number(n int) (Turn, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 1 || n > len(l.turns) {
		return Turn{}, false
	}
	return l.turns[n-1].copy(), true
}

// ErrForgotten says a turn's contents were dropped (older turns go first
// when the budget is spent).
var ErrForgotten = fmt.Errorf("the content before that turn is no longer kept (older turns are dropped first)")

// Before returns path's content before turn id changed it.
func (l *Log) Before(id, path string) (Before, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range l.turns {
		if t.ID != id {
			continue
		}
		if b, ok := t.before[path]; ok {
			return b, nil
		}
		if t.evicted {
			return Before{}, ErrForgotten
		}
		return Before{}, fmt.Errorf("turn %d did not change %s", t.N, path)
	}
	return Before{}, fmt.Errorf("no turn %q in this session", id)
}

// Left is what the session left of a file: its content right after the
// session's last change of it. A file that differs from it on disk was
// changed since by someone else (another session, the user).
type Left struct {
	Content string
	Exists  bool
}

// Landed records what the session's change of path left on disk.
func (l *Log) Landed(path, content string, exists bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.left == nil {
		l.left = map[string]Left{}
	}
	l.used += len(content) - len(l.left[path].Content)
	l.left[path] = Left{Content: content, Exists: exists}
}

// LeftOf returns what the session left of path (false when it changed
// path in no turn this process saw).
func (l *Log) LeftOf(path string) (Left, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lf, ok := l.left[path]
	return lf, ok
}

// FileBefore is a file a run of turns changed, and its content before the
// first of them changed it.
type FileBefore struct {
	Path string
	Before
}

// Since returns each file turn id or a later turn changed, with its content
// before the first of those changes: what rewinding to before turn id
// restores of the session's own work. It is ErrForgotten when a content
// was dropped to stay within the budget.
func (l *Log) Since(id string) ([]FileBefore, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := -1
	for i, t := range l.turns {
		if t.ID == id {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no turn %q in this session", id)
	}
	var out []FileBefore
	seen := map[string]bool{}
	for _, t := range l.turns[start:] {
		for _, p := range t.Files {
			if seen[p] {
				continue
			}
			seen[p] = true
			b, ok := t.before[p]
			if !ok {
				return nil, ErrForgotten
			}
			out = append(out, FileBefore{Path: p, Before: b})
		}
	}
	return out, nil
}
