package review

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// Limits on comments: they are the user's words, kept whole, but a folder
// of them stays small enough to read back at once.
const (
	MaxCommentText = 64 << 10 // bytes of one comment
	MaxCommentCode = 400      // lines quoted with one comment at most
	MaxComments    = 5000     // unsent comments of one folder
)

// ErrEmpty refuses a comment with nothing in it.
var ErrEmpty = errors.New("an empty comment is not added: write what Claude should change")

// Comment is the user's comment on a line or a range of lines of a file.
type Comment struct {
	ID   string `json:"id"`
	Path string `json:"path"` // absolute, clean
	From int    `json:"from"` // 1-based
	To   int    `json:"to"`   // inclusive, >= From
	Text string `json:"text"`
	// Code is the commented lines as they were when the comment was made
	// (the buffer's when it had unsaved edits): quoted when the file can
	// no longer be read.
	Code    []string `json:"code"`
	Created int64    `json:"created"`           // Unix seconds
	Session int      `json:"session,omitempty"` // the editor's session it was made in (0: none ran)
	Sent    int64    `json:"sent,omitempty"`    // when it was sent (0: in the open round)
	Round   int      `json:"round,omitempty"`   // the round it was sent with
}

// Range is how the comment names its lines: "line 3", "lines 3-5".
func (c Comment) Range() string {
	if c.To > c.From {
		return fmt.Sprintf("lines %d-%d", c.From, c.To)
	}
	return fmt.Sprintf("line %d", c.From)
}

// Comments are a folder's comments, sent and not. Not safe for concurrent
// use: the app holds a lock.
type Comments struct {
	list []Comment
}

// NewComment checks and builds a comment on lines from-to of path.
func NewComment(path string, from, to int, text string, code []string, session int, at time.Time) (Comment, error) {
	text = strings.TrimRight(text, " \t\r\n")
	text = strings.TrimLeft(text, "\r\n")
	switch {
	case strings.TrimSpace(text) == "":
		return Comment{}, ErrEmpty
	case len(text) > MaxCommentText:
		return Comment{}, fmt.Errorf("a comment of %d bytes is not added: %d at most (put the long text in a file and name it)", len(text), MaxCommentText)
	case path == "":
		return Comment{}, errors.New("a comment needs a file")
	case from < 1 || to < from:
		return Comment{}, fmt.Errorf("no line %d-%d to comment on", from, to)
	}
	if len(code) > MaxCommentCode {
		code = code[:MaxCommentCode]
	}
	return Comment{ID: newID(), Path: path, From: from, To: to, Text: text, Code: append([]string{}, code...),
		Created: at.Unix(), Session: session}, nil
}

// Add keeps c.
func (cs *Comments) Add(c Comment) error {
	if len(cs.Unsent()) >= MaxComments {
		return fmt.Errorf("%d comments wait to be sent already: send them (:ClaudeNova comments send) before adding more", MaxComments)
	}
	cs.list = append(cs.list, c)
	return nil
}

func (cs *Comments) find(id string) (int, error) {
	for i, c := range cs.list {
		if c.ID == id {
			if c.Sent != 0 {
				return -1, fmt.Errorf("that comment was sent to Claude already: it cannot change")
			}
			return i, nil
		}
	}
	return -1, fmt.Errorf("no comment %q (it was deleted, or sent)", id)
}

// Get returns the comment id.
func (cs *Comments) Get(id string) (Comment, bool) {
	for _, c := range cs.list {
		if c.ID == id {
			return c, true
		}
	}
	return Comment{}, false
}

// Edit replaces the text of an unsent comment.
func (cs *Comments) Edit(id, text string) (Comment, error) {
	i, err := cs.find(id)
	if err != nil {
		return Comment{}, err
	}
	c := cs.list[i]
	n, err := NewComment(c.Path, c.From, c.To, text, c.Code, c.Session, time.Unix(c.Created, 0))
	if err != nil {
		return Comment{}, err
	}
	cs.list[i].Text = n.Text
	return cs.list[i], nil
}

// Delete forgets an unsent comment.
func (cs *Comments) Delete(id string) (Comment, error) {
	i, err := cs.find(id)
	if err != nil {
		return Comment{}, err
	}
	c := cs.list[i]
	cs.list = append(cs.list[:i], cs.list[i+1:]...)
	return c, nil
}

// Move puts an unsent comment on lines from-to (its buffer was edited: the
// lines moved). A move to no line is ignored.
func (cs *Comments) Move(id string, from, to int) bool {
	i, err := cs.find(id)
	if err != nil || from < 1 || to < from {
		return false
	}
	if cs.list[i].From == from && cs.list[i].To == to {
		return false
	}
	cs.list[i].From, cs.list[i].To = from, to
	return true
}

// Remap moves the unsent comments of path with a change of the file from
// before to after (Claude wrote it): a commented line keeps its text's
// place; one that was replaced goes where its replacement starts. It
// reports whether a comment moved.
func (cs *Comments) Remap(path, before, after string) bool {
	var m []int
	n := 0
	moved := false
	for i := range cs.list {
		c := &cs.list[i]
		if c.Path != path || c.Sent != 0 {
			continue
		}
		if m == nil {
			a := diff.SplitLines(before)
			m, n = lineMap(a, diff.SplitLines(after)), len(diff.SplitLines(after))
		}
		at := func(line int) int {
			if line-1 < len(m) {
				return m[line-1] + 1
			}
			return line - len(m) + n // past the end: keeps its distance
		}
		from, to := at(c.From), at(c.To)
		if n > 0 {
			from, to = min(from, n), min(to, n)
		}
		from = max(from, 1)
		to = max(to, from)
		if from != c.From || to != c.To {
			c.From, c.To, moved = from, to, true
		}
	}
	return moved
}

// Unsent lists the comments of the open round, by file then line.
func (cs *Comments) Unsent() []Comment {
	var out []Comment
	for _, c := range cs.list {
		if c.Sent == 0 {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].From < out[j].From
	})
	return out
}

// All lists every comment kept, sent ones included, in the order made.
func (cs *Comments) All() []Comment { return append([]Comment(nil), cs.list...) }

// MaxSentKept bounds the sent comments kept (the oldest go first): they
// are history, the transcript has them too.
const MaxSentKept = 2000

// MarkSent marks the comments ids as sent at at with round n.
func (cs *Comments) MarkSent(ids []string, at time.Time, round int) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	sent := 0
	for i := range cs.list {
		if want[cs.list[i].ID] && cs.list[i].Sent == 0 {
			// History now (the transcript has the message): the quoted
			// lines are not kept.
			cs.list[i].Sent, cs.list[i].Round, cs.list[i].Code = at.Unix(), round, nil
		}
		if cs.list[i].Sent != 0 {
			sent++
		}
	}
	if sent > MaxSentKept {
		drop := sent - MaxSentKept
		kept := cs.list[:0]
		for _, c := range cs.list {
			if c.Sent != 0 && drop > 0 {
				drop--
				continue
			}
			kept = append(kept, c)
		}
		cs.list = kept
	}
}
