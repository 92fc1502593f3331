// Package transcript turns one session's claude messages into the lines
// the user reads, as buffer edits (Transcript.Apply; package bufops).
package transcript

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/hooks"
)

// Transcript is the model of one session's conversation as the user reads
// it: markdown-ish lines (prompts, Claude's text streamed as it is written,
// one line per tool call with its input and result folded beneath it, turn
// footers), their highlights, and what it takes to keep them current. It
// turns claude messages into buffer operations (package bufops); the
// front end only applies them.
//
// Only a tail of the lines is kept in memory (Spill): older lines are
// appended to a file, so a session that talks for hours costs the host a
// bounded amount of memory while the whole text stays available.
//
// What it keeps is split in parts, each in the file of its concern with
// the methods that change it: page (the lines, the spill, the version;
// transcript.go), toolCalls (tools.go), streamDrafts (stream.go),
// agentNest (agents.go), hookRuns (hooks.go), statusLines (signals.go)
// and saidLog (blocks.go). A part's methods take the transcript for the
// lines they write (put, add, note, setLine) and run under its lock; the
// transcript's own methods are what the rest of the host calls.
type Transcript struct {
	mu  sync.Mutex
	cwd string

	cost    float64 // the session's cost at the last turn's end (claude's running total)
	speaker string  // who wrote the last block: "you", "claude", ""
	last    string  // the kind of the last block: "text", "tool", "note", …
	history bool    // replaying a resumed session's earlier conversation

	// Agents and turns (agents.go), status signals (signals.go).
	inTurn     bool              // a turn is running (prompted, or started by claude)
	why        []string          // tasks that ended, for the heading of claude's next own turn
	queued     map[string]*int   // queued prompt id -> the line of its heading
	queuedHead map[string]string // queued prompt id -> its heading without the mark

	planPath string            // last plan file written under ~/.claude/plans/
	lastText string            // last assistant text (plan fallback)
	plans    map[string]string // tool_use_id -> plan text of an ExitPlanMode call

	// The parts, each with what it keeps.
	page      page
	hooking   hookRuns
	status    statusLines
	streaming streamDrafts
	nesting   agentNest
	saying    saidLog
	calling   toolCalls

	now func() time.Time // the clock of tool and draft durations (tests fix it)
}

// NewTranscript returns an empty transcript for a session in cwd.
func NewTranscript(cwd string) *Transcript {
	return &Transcript{cwd: cwd, plans: map[string]string{},
		queued: map[string]*int{}, queuedHead: map[string]string{}, now: time.Now,
		calling: toolCalls{tools: map[string]*toolCall{}}, nesting: agentNest{agentCalls: map[string]string{}},
		status: statusLines{anchors: map[string]*int{}}, saying: saidLog{said: map[string]string{}},
		hooking: hookRuns{hooks: map[string]*toolCall{}}}
}

// Snapshot is the whole transcript: lines [0, First) are in File, the rest
// in Lines; Marks and Code highlight Lines (relative to First).
type Snapshot struct {
	Seq   int           `json:"seq"` // the version it shows (see Op)
	First int           `json:"first"`
	File  string        `json:"file,omitempty"`
	Lines []string      `json:"lines"`
	Marks []bufops.Mark `json:"marks,omitempty"`
	Code  []bufops.Code `json:"code,omitempty"`
}

// Snapshot returns the transcript as it is now.
func (t *Transcript) Snapshot() Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	sn := Snapshot{Seq: t.page.seq, First: t.page.base, Lines: append([]string(nil), t.page.lines...)}
	if t.page.base > 0 {
		sn.File = t.page.spill
	}
	var st hlState
	sn.Marks, sn.Code = bufops.Highlight(sn.Lines, &st)
	return sn
}

// Lines returns a copy of the lines kept in memory (all of them unless the
// transcript spills).
func (t *Transcript) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.page.lines...)
}

// count is the number of lines, spilled ones included. Callers hold mu.
func (pg *page) count(t *Transcript) int { return pg.base + len(pg.lines) }

// put replaces lines [index, index+n) by lines (n 0 inserts) and returns
// the ops saying so (one, or several of at most bufops.MaxOpLines lines),
// highlighted from state st (nil: a fresh block). Lines already spilled are
// not changed in memory (the buffer has them). Callers hold mu.
func (t *Transcript) put(index, n int, lines []string, st *hlState) []Op {
	if st == nil {
		st = &hlState{}
	}
	marks, code := bufops.Highlight(lines, st)
	op := bufops.Set(index, n, lines, marks, code)
	var ops []Op
	for len(op.Lines) > bufops.MaxOpLines {
		head, tail := bufops.Cut(op, bufops.MaxOpLines)
		ops = append(ops, t.page.number(t, head))
		op = tail
	}
	ops = append(ops, t.page.number(t, op))
	if index >= t.page.base {
		i := index - t.page.base
		end := min(i+n, len(t.page.lines))
		// In place: lines nested in an agent's block go in the middle.
		t.page.lines = slices.Replace(t.page.lines, i, end, lines...)
	}
	// Calls and drafts after the replaced lines move with them.
	if shift := len(lines) - n; shift != 0 {
		for _, tc := range t.calling.tools {
			if tc.line >= index+n {
				tc.line += shift
			}
		}
		for _, d := range t.streaming.drafts {
			if d.start >= index+n {
				d.start += shift
			}
		}
		for _, a := range t.status.anchors {
			if *a >= index+n {
				*a += shift
			}
		}
		for _, a := range t.queued {
			if *a >= index+n {
				*a += shift
			}
		}
	}
	t.page.trim(t)
	return ops
}

func (pg *page) number(t *Transcript, op Op) Op {
	op.Prev = pg.seq
	pg.seq++
	op.Seq = pg.seq
	return op
}

// add appends lines as a fresh block.
func (t *Transcript) add(lines ...string) []Op {
	return t.put(t.page.count(t), 0, lines, nil)
}

// Apply turns one claude message into buffer operations.
func (t *Transcript) Apply(m claude.Message) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch m.Type {
	case "stream_event":
		return t.streaming.streamEvent(t, m)
	case "assistant":
		return t.saying.assistant(t, m)
	case "user":
		return t.calling.toolResults(t, m, "")
	case "result":
		return t.saying.result(t, m, false)
	case "system", "rate_limit_event":
		if h, ok := hooks.Decode(m); ok {
			ops, _ := t.hooking.hook(t, h)
			return ops
		}
		return t.status.signal(t, m)
	case "tool_progress":
		return t.hooking.progressOf(t, m)
	}
	return nil
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ---- streaming ----

// page is the transcript's lines: a tail in memory (lines[i] is line
// base+i), the older ones in the spill file, and the version the ops made
// so far (seq).
type page struct {
	lines    []string // lines[i] is line base+i
	base     int      // lines already moved to the spill file
	spill    string   // the spill file ("" keeps every line in memory)
	keep     int      // lines kept in memory when spilling
	spillErr error
	seq      int // version: ops made so far
}
