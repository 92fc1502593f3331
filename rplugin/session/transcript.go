package session

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// Transcript is the model of one session's conversation as the user reads
// it: markdown-ish lines (prompts, Claude's text streamed as it is written,
// one line per tool call with its input and result folded beneath it, turn
// footers), their highlights, and what it takes to keep them current. It
// turns claude messages into buffer operations (ops.go); the front end
// only applies them.
//
// Only a tail of the lines is kept in memory (Spill): older lines are
// appended to a file, so a session that talks for hours costs the host a
// bounded amount of memory while the whole text stays available.
type Transcript struct {
	mu       sync.Mutex
	cwd      string
	lines    []string // lines[i] is line base+i
	base     int      // lines already moved to the spill file
	spill    string   // the spill file ("" keeps every line in memory)
	keep     int      // lines kept in memory when spilling
	spillErr error

	cost    float64 // the session's cost at the last turn's end (claude's running total)
	seq     int     // version: ops made so far
	speaker string  // who wrote the last block: "you", "claude", ""
	last    string  // the kind of the last block: "text", "tool", "note", …
	history bool    // replaying a resumed session's earlier conversation

	tools  map[string]*toolCall // tool_use_id -> its lines
	order  []string             // tool ids, oldest first (bounded)
	asked  idSet                // tool ids claude asked the user about
	drafts []*draft             // blocks being streamed, oldest first

	// Agents and turns (agents.go), status signals (signals.go).
	agentCalls map[string]string // agent id -> the tool_use_id of its call
	inTurn     bool              // a turn is running (prompted, or started by claude)
	why        []string          // tasks that ended, for the heading of claude's next own turn
	anchors    map[string]*int   // signal -> the line of its note, updated in place
	said       map[string]string // tool_use id -> what Claude said before the call
	saidOrder  []string
	saidMsg    string // the message whose text is in saidText
	saidText   string
	queued     map[string]*int   // queued prompt id -> the line of its heading
	queuedHead map[string]string // queued prompt id -> its heading without the mark
	input      *inputDraft       // a tool input being streamed
	activity   string            // what claude is doing now, for the winbar
	changed    bool              // activity changed since Activity was read

	hooks map[string]*toolCall // running hook id -> the call it runs for (hooks.go)
	heads int                  // lines at the head: SessionStart hooks' output

	planPath string            // last plan file written under ~/.claude/plans/
	lastText string            // last assistant text (plan fallback)
	plans    map[string]string // tool_use_id -> plan text of an ExitPlanMode call

	now func() time.Time // the clock of tool and draft durations (tests fix it)
}

// NewTranscript returns an empty transcript for a session in cwd.
func NewTranscript(cwd string) *Transcript {
	return &Transcript{cwd: cwd, tools: map[string]*toolCall{}, plans: map[string]string{},
		agentCalls: map[string]string{}, anchors: map[string]*int{},
		queued: map[string]*int{}, queuedHead: map[string]string{}, said: map[string]string{}, hooks: map[string]*toolCall{}, now: time.Now}
}

// Snapshot is the whole transcript: lines [0, First) are in File, the rest
// in Lines; Marks and Code highlight Lines (relative to First).
type Snapshot struct {
	Seq   int      `json:"seq"` // the version it shows (see Op)
	First int      `json:"first"`
	File  string   `json:"file,omitempty"`
	Lines []string `json:"lines"`
	Marks []Mark   `json:"marks,omitempty"`
	Code  []Code   `json:"code,omitempty"`
}

// Snapshot returns the transcript as it is now.
func (t *Transcript) Snapshot() Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	sn := Snapshot{Seq: t.seq, First: t.base, Lines: append([]string(nil), t.lines...)}
	if t.base > 0 {
		sn.File = t.spill
	}
	var st hlState
	sn.Marks, sn.Code = highlight(sn.Lines, &st)
	return sn
}

// Lines returns a copy of the lines kept in memory (all of them unless the
// transcript spills).
func (t *Transcript) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// count is the number of lines, spilled ones included. Callers hold mu.
func (t *Transcript) count() int { return t.base + len(t.lines) }

// put replaces lines [index, index+n) by lines (n 0 inserts) and returns
// the ops saying so (one, or several of at most maxOpLines lines),
// highlighted from state st (nil: a fresh block). Lines already spilled are
// not changed in memory (the buffer has them). Callers hold mu.
func (t *Transcript) put(index, n int, lines []string, st *hlState) []Op {
	if st == nil {
		st = &hlState{}
	}
	marks, code := highlight(lines, st)
	op := set(index, n, lines, marks, code)
	var ops []Op
	for len(op.Lines) > maxOpLines {
		head, tail := cut(op, maxOpLines)
		ops = append(ops, t.number(head))
		op = tail
	}
	ops = append(ops, t.number(op))
	if index >= t.base {
		i := index - t.base
		end := min(i+n, len(t.lines))
		// In place: lines nested in an agent's block go in the middle.
		t.lines = slices.Replace(t.lines, i, end, lines...)
	}
	// Calls and drafts after the replaced lines move with them.
	if shift := len(lines) - n; shift != 0 {
		for _, tc := range t.tools {
			if tc.line >= index+n {
				tc.line += shift
			}
		}
		for _, d := range t.drafts {
			if d.start >= index+n {
				d.start += shift
			}
		}
		for _, a := range t.anchors {
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
	t.trim()
	return ops
}

func (t *Transcript) number(op Op) Op {
	op.Prev = t.seq
	t.seq++
	op.Seq = t.seq
	return op
}

// add appends lines as a fresh block.
func (t *Transcript) add(lines ...string) []Op {
	return t.put(t.count(), 0, lines, nil)
}

// Apply turns one claude message into buffer operations.
func (t *Transcript) Apply(m claude.Message) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch m.Type {
	case "stream_event":
		return t.streamEvent(m)
	case "assistant":
		return t.assistant(m)
	case "user":
		return t.toolResults(m, "")
	case "result":
		return t.result(m, false)
	case "system", "rate_limit_event":
		if h, ok := DecodeHook(m); ok {
			ops, _ := t.hook(h)
			return ops
		}
		return t.signal(m)
	case "tool_progress":
		return t.progressOf(m)
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
