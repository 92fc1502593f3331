package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
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
	drafts []*draft             // blocks being streamed, oldest first

	// Agents and turns (agents.go), status signals (signals.go).
	agentCalls map[string]string // agent id -> the tool_use_id of its call
	inTurn     bool              // a turn is running (prompted, or started by claude)
	why        []string          // tasks that ended, for the heading of claude's next own turn
	anchors    map[string]*int   // signal -> the line of its note, updated in place
	input      *inputDraft       // a tool input being streamed
	activity   string            // what claude is doing now, for the winbar
	changed    bool              // activity changed since Activity was read

	planPath string            // last plan file written under ~/.claude/plans/
	lastText string            // last assistant text (plan fallback)
	plans    map[string]string // tool_use_id -> plan text of an ExitPlanMode call
}

// toolCall is one tool call's place in the transcript.
type toolCall struct {
	line    int    // its summary line
	details int    // lines folded beneath it (a nested call's included)
	summary string // the line without outcome (nest prefix included)
	name    string
	started time.Time
	full    string // file with the whole result, when it was cut

	// Agents and tasks (agents.go).
	depth      int        // 0: Claude's own call; n: inside n agents
	parent     *toolCall  // the agent call it is nested in
	inputs     int        // lines of its input beneath it
	inputLines []string   // those lines, until written
	label      string     // how a heading names the task it started
	agent      bool       // a Task or Agent call: its agent's work goes beneath it
	typ, desc  string     // its agent's type and description
	task       *taskState // the task it started, as last reported
	live       bool       // its task runs in the background
	done       bool       // its task ended
}

// draft is a text or thinking block being streamed.
type draft struct {
	message string  // API message id
	index   int     // content block index
	kind    string  // "text" or "thinking"
	start   int     // first line
	done    int     // lines finished (the partial one follows them)
	partial string  // text after the last newline
	spilled bool    // some of its lines went to the spill file
	st      hlState // highlight state after lines
	words   int     // thinking: words so far
	began   time.Time
}

func (d *draft) count() int { return d.done + 1 }

// maxTools bounds the tool calls whose lines are remembered (for "the whole
// result" and outcomes arriving late).
const maxTools = 2000

// previewLines is how many lines of a tool's result the transcript shows;
// the rest is one "… N more lines" line and a file the user can open.
const previewLines = 20

// NewTranscript returns an empty transcript for a session in cwd.
func NewTranscript(cwd string) *Transcript {
	return &Transcript{cwd: cwd, tools: map[string]*toolCall{}, plans: map[string]string{},
		agentCalls: map[string]string{}, anchors: map[string]*int{}}
}

// Spill makes the transcript keep about keep lines in memory and append
// older ones to path; whole tool results that were cut go next to it.
func (t *Transcript) Spill(path string, keep int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spill, t.keep = path, max(keep, 100)
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

// trim moves the oldest lines to the spill file once a quarter more than
// keep are in memory. Callers hold mu.
func (t *Transcript) trim() {
	if t.spill == "" || t.spillErr != nil || len(t.lines) <= t.keep+t.keep/4 {
		return
	}
	n := len(t.lines) - t.keep
	// Never spill a draft being streamed, which still changes, unless it
	// is large: then its finished lines go (its last line stays), and the
	// finished block keeps the draft instead of replacing it (keepDraft).
	// Nor the block of an agent at work (its lines go beneath its call),
	// unless it is huge.
	for _, d := range t.drafts {
		if d.done > t.keep/4 {
			d.spilled = true
			n = min(n, d.start+d.done-t.base)
			continue
		}
		n = min(n, d.start-t.base)
	}
	for _, tc := range t.tools {
		if tc.live && tc.depth == 0 && tc.details < t.keep/2 {
			n = min(n, tc.line-t.base)
		}
	}
	if n <= 0 {
		return
	}
	if err := appendFile(t.spill, t.lines[:n]); err != nil {
		t.spillErr = err // keep everything in memory from now on
		return
	}
	rest := make([]string, len(t.lines)-n, t.keep+t.keep/4+1)
	copy(rest, t.lines[n:])
	t.lines = rest
	t.base += n
}

func appendFile(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Plan returns the plan for the ExitPlanMode call toolUseID: the plan in its
// tool_use input (claude strips it from the permission request), else the
// plan file the session last wrote, else the last assistant text.
func (t *Transcript) Plan(toolUseID string, read func(string) ([]byte, error)) string {
	t.mu.Lock()
	plan, path, last := t.plans[toolUseID], t.planPath, t.lastText
	t.mu.Unlock()
	if plan != "" {
		return plan
	}
	if path != "" {
		if b, err := read(path); err == nil {
			return string(b)
		}
	}
	return last
}

// heading starts a block by who; a blank line separates blocks of
// different kinds and consecutive text blocks (so text after a list never
// runs into its last item); tool lines stay packed. Callers hold mu.
func (t *Transcript) heading(who, title, kind string) []Op {
	return t.headingMarked(who, title, "", kind)
}

// headingMarked is heading with a mark after the title (and after
// "earlier" in history): "You · earlier · checkpoint 2 · 14:02".
func (t *Transcript) headingMarked(who, title, mark, kind string) []Op {
	var ops []Op
	if t.history {
		title += " · earlier"
	}
	if mark != "" {
		title += " · " + mark
	}
	if t.speaker != who {
		t.speaker = who
		if t.count() == 0 {
			ops = append(ops, t.add("## "+title, "")...)
		} else {
			ops = append(ops, t.add("", "## "+title, "")...)
		}
	} else if t.last != "" && (t.last != kind || kind != "tool") {
		ops = append(ops, t.add("")...)
	}
	t.last = kind
	return ops
}

// BeginHistory starts the earlier conversation of a resumed session (read
// from claude's session store): its headings say "earlier" and its tool
// calls carry no times, until EndHistory.
func (t *Transcript) BeginHistory(claudeID string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	ops := t.note("Earlier in this session (" + sanitize.Line(claudeID) + "), from claude's session store:")
	t.history = true
	t.speaker = ""
	return ops
}

// EndHistory marks where the live conversation starts.
func (t *Transcript) EndHistory() []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.history = false
	return t.note("End of the earlier conversation: live from here.")
}

// Prompt records a prompt the user sent.
func (t *Transcript) Prompt(text string) []Op { return t.PromptMarked(text, "") }

// PromptMarked records a prompt with a mark after "You" in its heading
// (its checkpoint: "checkpoint 3 · 14:02").
func (t *Transcript) PromptMarked(text, mark string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker = ""
	t.inTurn = true
	ops := t.headingMarked("you", "You", sanitize.Line(mark), "text")
	return append(ops, t.add(sanitize.Lines(text)...)...)
}

// Note records an informational or error line (already plain text).
func (t *Transcript) Note(text string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.note(sanitize.Lines(text)...)
}

func (t *Transcript) note(lines ...string) []Op {
	t.speaker, t.last = "", "note"
	out := make([]string, 0, len(lines)+1)
	if t.count() > 0 {
		out = append(out, "")
	}
	for _, l := range lines {
		out = append(out, notePrefix+l)
	}
	return t.add(out...)
}

// Told records a message the plugin wrote to Claude for the user (what the
// user changed in a proposal, their notes): its first line shows, the rest
// (the diff) is folded beneath it.
func (t *Transcript) Told(text string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := sanitize.Lines(strings.TrimPrefix(text, "[claude-nova] "))
	out := []string{"**Your note to Claude:** " + lines[0]}
	for _, l := range lines[1:] {
		out = append(out, detailFolded+l)
	}
	t.speaker, t.last = "", "note"
	if t.count() > 0 {
		out = append([]string{""}, out...)
	}
	return t.add(out...)
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
		return t.signal(m)
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

// streamEvent shows a text or thinking block while it is written
// (--include-partial-messages). The finished block (an assistant line)
// replaces its draft in place.
func (t *Transcript) streamEvent(m claude.Message) []Op {
	var se struct {
		ParentToolUseID *string `json:"parent_tool_use_id"`
		MessageID       string  `json:"api_message_id"`
		Event           struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
			ContentBlock struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				Thinking    string `json:"thinking"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		} `json:"event"`
	}
	if json.Unmarshal(m.Raw, &se) != nil || (se.ParentToolUseID != nil && *se.ParentToolUseID != "") {
		return nil
	}
	ev := se.Event
	msgID := se.MessageID
	switch ev.Type {
	case "content_block_start":
		switch ev.ContentBlock.Type {
		case "text", "thinking":
			return t.startDraft(msgID, ev.Index, ev.ContentBlock.Type)
		case "tool_use":
			t.startInput(msgID, ev.Index, ev.ContentBlock.ID, ev.ContentBlock.Name)
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "input_json_delta":
			return t.growInput(msgID, ev.Index, ev.Delta.PartialJSON)
		case "text_delta":
			d, ops := t.draftFor(msgID, ev.Index, "text")
			return append(ops, t.grow(d, ev.Delta.Text)...)
		case "thinking_delta":
			d, ops := t.draftFor(msgID, ev.Index, "thinking")
			d.words += len(strings.Fields(ev.Delta.Thinking))
			return append(ops, t.put(d.start, 1, []string{thinkingLine(d)}, nil)...)
		}
	}
	return nil
}

func thinkingLine(d *draft) string {
	return fmt.Sprintf("%s_thinking… (%d words)_", notePrefix, d.words)
}

func (t *Transcript) startDraft(msgID string, index int, kind string) []Op {
	t.setActivity("")
	ops := t.claudeHeading(kind)
	d := &draft{message: msgID, index: index, kind: kind, start: t.count(), began: time.Now()}
	first := ""
	if kind == "thinking" {
		first = thinkingLine(d)
	}
	ops = append(ops, t.put(d.start, 0, []string{first}, nil)...)
	t.drafts = append(t.drafts, d) // after put: lines it inserts do not move it
	return ops
}

// draftFor finds (or starts, when the start event was not seen) a draft.
func (t *Transcript) draftFor(msgID string, index int, kind string) (*draft, []Op) {
	for _, d := range t.drafts {
		if d.message == msgID && d.index == index {
			return d, nil
		}
	}
	ops := t.startDraft(msgID, index, kind)
	return t.drafts[len(t.drafts)-1], ops
}

// grow adds streamed text to a draft: the lines it completes and its new
// last line replace the draft's old last line.
func (t *Transcript) grow(d *draft, text string) []Op {
	text = sanitize.Text(text)
	lastIdx := d.start + d.done
	parts := strings.Split(d.partial+text, "\n")
	done := parts[:len(parts)-1]
	d.partial = parts[len(parts)-1]
	st := d.st
	op := t.put(lastIdx, 1, append(append([]string(nil), done...), d.partial), &st)
	// The state after the completed lines only (the partial one may change).
	st = d.st
	highlight(done, &st)
	d.st = st
	d.done += len(done)
	return op
}

// finishDraft replaces the draft of a finished block by its final lines.
func (t *Transcript) finishDraft(kind string, msgID string, lines []string) ([]Op, bool) {
	for i := len(t.drafts) - 1; i >= 0; i-- {
		d := t.drafts[i]
		if d.kind != kind || (d.message != msgID && d.message != "" && msgID != "") {
			continue
		}
		t.drafts = append(t.drafts[:i], t.drafts[i+1:]...)
		return t.put(d.start, d.count(), lines, nil), true
	}
	return nil, false
}

// keepDraft ends the draft of a finished block as it was streamed, when
// the block is large (size: its encoded text) or part of the draft went to
// the spill file: its text is the block's (the deltas add up to it), so it
// is not decoded and written again. It reports whether it did.
func (t *Transcript) keepDraft(kind string, msgID string, size int) bool {
	for i := len(t.drafts) - 1; i >= 0; i-- {
		d := t.drafts[i]
		if d.kind != kind || (d.message != msgID && d.message != "" && msgID != "") {
			continue
		}
		if size <= keptBlock && !d.spilled {
			return false
		}
		t.drafts = append(t.drafts[:i], t.drafts[i+1:]...)
		return true
	}
	return false
}

// keptBlock is the size above which a finished text block that was
// streamed keeps its draft instead of being written again.
const keptBlock = 64 << 10

// assistantBlock is a content block of an assistant line whose text is
// decoded only when it is shown anew (see keepDraft).
type assistantBlock struct {
	Type     string            `json:"type"`
	Text     claude.LazyString `json:"text"`
	Thinking claude.LazyString `json:"thinking"`
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Input    json.RawMessage   `json:"input"`
}

func (b assistantBlock) decoded() contentBlock {
	return contentBlock{Type: b.Type, Text: b.Text.String(), Thinking: b.Thinking.String(), ID: b.ID, Name: b.Name, Input: b.Input}
}

// ---- whole messages ----

func (t *Transcript) assistant(m claude.Message) []Op {
	var msg struct {
		ParentToolUseID *string `json:"parent_tool_use_id"`
		AgentID         string  `json:"agent_id"`
		SubagentType    string  `json:"subagent_type"`
		TaskDescription string  `json:"task_description"`
		ThinkingMS      float64 `json:"thinking_duration_ms"`
		Message         struct {
			ID      string           `json:"id"`
			Content []assistantBlock `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		return nil
	}
	if parent := t.parentOf(msg.ParentToolUseID); parent != "" {
		// A subagent's messages are not streamed: their text is shown whole.
		blocks := make([]contentBlock, len(msg.Message.Content))
		for i, b := range msg.Message.Content {
			blocks[i] = b.decoded()
		}
		return t.nestedAssistant(parent, msg.AgentID, msg.SubagentType, msg.TaskDescription, blocks)
	}
	t.replied()
	var ops []Op
	for _, lb := range msg.Message.Content {
		// A text draft holds the text (a thinking draft only counts words).
		if lb.Type == "text" && t.keepDraft("text", msg.Message.ID, lb.Text.Len()) {
			continue // streamed whole already
		}
		b := lb.decoded()
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			t.lastText = b.Text
			ops = append(ops, t.block("text", msg.Message.ID, sanitize.Lines(b.Text))...)
		case "thinking":
			head := notePrefix + "_thought"
			if msg.ThinkingMS > 0 {
				head += fmt.Sprintf(" for %.1f s", msg.ThinkingMS/1000)
			}
			head += "_"
			lines := []string{head}
			for _, l := range sanitize.Lines(b.Thinking) {
				lines = append(lines, detailFolded+l)
			}
			ops = append(ops, t.block("thinking", msg.Message.ID, lines)...)
		case "tool_use":
			ops = append(ops, t.toolUse(b)...)
		}
	}
	return ops
}

// block shows a finished text or thinking block of Claude's message id: in
// place of its streamed draft when there is one, else as new lines.
func (t *Transcript) block(kind, id string, lines []string) []Op {
	if fin, ok := t.finishDraft(kind, id, lines); ok {
		return fin
	}
	return append(t.claudeHeading(kind), t.add(lines...)...)
}

func (t *Transcript) toolUse(b contentBlock) []Op {
	ops := t.claudeHeading("tool")
	tc := t.newCall(b, 0)
	if p := planFile(b.Name, b.Input); p != "" {
		t.planPath = p
	}
	details := tc.inputLines
	tc.inputLines = nil
	if b.Name == "ExitPlanMode" {
		var in struct {
			Plan string `json:"plan"`
		}
		details = nil
		if json.Unmarshal(b.Input, &in) == nil && in.Plan != "" {
			t.plans[b.ID] = in.Plan
			for _, l := range sanitize.Lines(in.Plan) {
				details = append(details, detailFolded+l)
			}
		}
		tc.details, tc.inputs = len(details), len(details)
	}
	// A long input shown while it was written: the call takes its line.
	at, n := t.count(), 0
	if d := t.takeInput(b.ID); d != nil && d.start >= t.base {
		at, n = d.start, 1
	}
	tc.line = at
	ops = append(ops, t.put(at, n, append([]string{tc.summary + " …"}, details...), nil)...)
	t.remember(b.ID, tc) // after put: lines it inserts do not move it
	return ops
}

func (t *Transcript) remember(id string, tc *toolCall) {
	t.tools[id] = tc
	t.order = append(t.order, id)
	if len(t.order) > maxTools {
		delete(t.tools, t.order[0])
		t.order = t.order[1:]
	}
}

// inputDetails is a tool call's input for a person, folded under its line.
func inputDetails(tool string, input json.RawMessage) []string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	var out []string
	add := func(prefix, v string) {
		for i, l := range sanitize.Lines(v) {
			if i == 0 {
				out = append(out, detailFolded+prefix+l)
			} else {
				out = append(out, detailFolded+strings.Repeat(" ", len(prefix))+l)
			}
			if len(out) >= previewLines {
				out = append(out, detailFolded+"…")
				return
			}
		}
	}
	switch tool {
	case "Bash":
		if d := str("description"); d != "" {
			add("# ", d)
		}
		add("$ ", str("command"))
	case "Edit", "Update", "MultiEdit", "Write", "Read", "NotebookEdit":
		return nil // the target says it; the diff is in the proposal
	case "AskUserQuestion":
		if qs, ok := in["questions"].([]any); ok {
			for _, q := range qs {
				if m, ok := q.(map[string]any); ok {
					s, _ := m["question"].(string)
					add("? ", s)
				}
			}
		}
	default:
		b, _ := json.MarshalIndent(in, "", "  ")
		if len(in) > 0 {
			add("", string(b))
		}
	}
	return out
}

func planFile(tool string, input json.RawMessage) string {
	if tool != "Write" && tool != "Edit" {
		return ""
	}
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(input, &in) != nil || in.FilePath == "" {
		return ""
	}
	sep := string(filepath.Separator)
	if strings.Contains(in.FilePath, sep+".claude"+sep+"plans"+sep) && strings.HasSuffix(in.FilePath, ".md") {
		return in.FilePath
	}
	return ""
}

// toolResults marks each finished call ✓ or ✗ with its time, and puts its
// result beneath it: folded, or shown when it failed (and a question's
// answers); cut after previewLines, the whole kept in a file.
func (t *Transcript) toolResults(m claude.Message, parent string) []Op {
	var msg struct {
		ParentToolUseID *string `json:"parent_tool_use_id"`
		Message         struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Launched      launched `json:"tool_use_result"`
		StoreLaunched launched `json:"toolUseResult"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		// tool_use_result is not always an object (a string on errors).
		msg.Launched, msg.StoreLaunched = launched{}, launched{}
		var lean struct {
			ParentToolUseID *string `json:"parent_tool_use_id"`
			Message         struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(m.Raw, &lean) != nil {
			return nil
		}
		msg.ParentToolUseID, msg.Message.Content = lean.ParentToolUseID, lean.Message.Content
	}
	var blocks []contentBlock
	if json.Unmarshal(msg.Message.Content, &blocks) != nil {
		return nil // plain string content: the echo of our own prompt
	}
	if msg.Launched == (launched{}) {
		msg.Launched = msg.StoreLaunched
	}
	if parent == "" {
		parent = t.parentOf(msg.ParentToolUseID)
	}
	var ops []Op
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			tc, ok := t.tools[b.ToolUseID]
			if !ok {
				continue
			}
			if o, ok := t.taskResult(b, tc, msg.Launched); ok {
				ops = append(ops, o...)
				continue
			}
			outcome := "✓"
			if b.IsError {
				outcome = "✗"
			}
			line := tc.summary + " " + outcome
			if !t.history {
				line += fmt.Sprintf(" %.1f s", time.Since(tc.started).Seconds())
			}
			ops = append(ops, t.put(tc.line, 1, []string{line}, nil)...)
			if res := t.resultDetails(b, tc); len(res) > 0 {
				// Long gone from memory: at the end instead.
				_, o := t.insertIn(tc, res)
				ops = append(ops, o...)
			}
		case "text":
			if !strings.HasPrefix(b.Text, "[Request interrupted") {
				continue // a subagent's prompt: its call shows it
			}
			// The CLI's own mark of an interrupt the user asked for
			// ("[Request interrupted by user…]"): the one line that says so.
			if ac, ok := t.tools[parent]; ok && parent != "" {
				_, o := t.insertIn(ac, []string{nest(ac.depth+1) + notePrefix + InterruptedNote})
				ops = append(ops, o...)
				continue
			}
			ops = append(ops, t.note(InterruptedNote)...)
		}
	}
	return ops
}

// InterruptedNote is the transcript's one line for an interrupted turn.
const InterruptedNote = "Interrupted by you."

// parentOf is the call a message belongs to ("" for Claude's own).
func (t *Transcript) parentOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

var toolErrorTags = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "")

func (t *Transcript) resultDetails(b contentBlock, tc *toolCall) []string {
	text := strings.TrimSpace(toolErrorTags.Replace(resultText(b.Content)))
	var out []string
	// An image (a Read of a PNG) is one line shown beneath the call; gf
	// opens it.
	for i, img := range resultImages(b.Content) {
		line := nest(tc.depth) + detailOpen + imageLine(img)
		if path := t.saveImage(b.ToolUseID, i+1, img); path != "" && tc.full == "" {
			tc.full = path
			line += " (gf opens it)"
		}
		out = append(out, line)
	}
	if text == "" {
		return out
	}
	prefix := nest(tc.depth) + detailFolded
	if b.IsError || tc.name == "AskUserQuestion" {
		prefix = nest(tc.depth) + detailOpen
	}
	lines := sanitize.Lines(text)
	for i, l := range lines {
		if i == previewLines && len(lines) > previewLines+1 {
			more := fmt.Sprintf("%s… %d more lines", prefix, len(lines)-previewLines)
			if path := t.saveFull(b.ToolUseID, text); path != "" {
				tc.full = path
				more += " (gf opens the whole result)"
			}
			return append(out, more)
		}
		out = append(out, prefix+l)
	}
	return out
}

// saveFull keeps a whole tool result next to the spill file.
func (t *Transcript) saveFull(id, text string) string {
	if t.spill == "" {
		return ""
	}
	path := filepath.Join(filepath.Dir(t.spill), strings.TrimSuffix(filepath.Base(t.spill), ".md")+"-"+safeName(id)+".txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return ""
	}
	if err := os.WriteFile(path, []byte(text+"\n"), 0o600); err != nil {
		return ""
	}
	return path
}

// safeName keeps the letters, digits, _ and - of an id (a file name part).
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, id)
}

// ToolAt returns the file holding the whole result of the tool call whose
// lines include line (0-based), when its result was cut.
func (t *Transcript) ToolAt(line int) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tc := range t.tools {
		if line >= tc.line && line <= tc.line+tc.details && tc.full != "" {
			return tc.full, true
		}
	}
	return "", false
}

func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// Result records the end of a turn. interrupted says the user asked for
// it: the turn is then shown as interrupted, without the CLI's diagnostics.
func (t *Transcript) Result(m claude.Message, interrupted bool) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.result(m, interrupted)
}

func (t *Transcript) result(m claude.Message, interrupted bool) []Op {
	var r struct {
		Subtype    string            `json:"subtype"`
		IsError    bool              `json:"is_error"`
		DurationMS float64           `json:"duration_ms"`
		Cost       float64           `json:"total_cost_usd"`
		Result     claude.LazyString `json:"result"` // the reply's text again: read on an error only
		Errors     []string          `json:"errors"`
		Usage      struct {
			In    int `json:"input_tokens"`
			Out   int `json:"output_tokens"`
			Cache int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(m.Raw, &r) != nil {
		return nil
	}
	t.drafts = nil // whatever was not finished stays as it was written
	t.speaker, t.last = "", "footer"
	t.endTurn()
	status := "done"
	switch {
	case interrupted && r.Subtype != "" && r.Subtype != "success":
		status = "interrupted"
	case r.IsError || (r.Subtype != "" && r.Subtype != "success"):
		status = "error"
		if r.Subtype != "" && r.Subtype != "success" {
			status = sanitize.Line(r.Subtype)
		}
	}
	line := fmt.Sprintf("*%s · %.1f s", status, r.DurationMS/1000)
	if tokens := r.Usage.In + r.Usage.Out + r.Usage.Cache; tokens > 0 {
		line += fmt.Sprintf(" · %s tokens", thousands(tokens))
	}
	// total_cost_usd is the session's running total: the turn's own cost
	// is what it grew by (the tokens are the turn's already).
	turn := r.Cost - t.cost
	if turn < 0 {
		turn = r.Cost // a new claude process counts from 0
	}
	t.cost = r.Cost
	line += fmt.Sprintf(" · $%.4f*", turn)
	ops := t.add("", line)
	if status != "done" && status != "interrupted" {
		msg := r.Result.String()
		if msg == "" && len(r.Errors) > 0 {
			msg = strings.Join(r.Errors, "; ")
		}
		if msg != "" {
			ops = append(ops, t.note(append([]string{"**Error:**"}, sanitize.Lines(msg)...)...)...)
		}
	}
	return ops
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ToolTarget is a short, sanitized description of what a tool call touches:
// a path relative to cwd, a command, a pattern.
func ToolTarget(tool string, input json.RawMessage, cwd string) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string {
		s, _ := in[k].(string)
		return s
	}
	var target string
	switch {
	case str("file_path") != "":
		target = RelPath(str("file_path"), cwd)
	case str("notebook_path") != "":
		target = RelPath(str("notebook_path"), cwd)
	case str("command") != "":
		target = "`" + sanitize.Truncate(sanitize.Line(str("command")), 80) + "`"
		return target
	case str("pattern") != "":
		target = str("pattern")
	case str("url") != "":
		target = str("url")
	case str("query") != "":
		target = str("query")
	case str("path") != "":
		target = RelPath(str("path"), cwd)
	case tool == "AskUserQuestion":
		if qs, ok := in["questions"].([]any); ok && len(qs) > 0 {
			if q, ok := qs[0].(map[string]any); ok {
				target, _ = q["question"].(string)
			}
		}
	case tool == "ExitPlanMode":
		target = "plan ready for review"
	}
	return sanitize.Truncate(sanitize.Line(target), 80)
}

// RelPath shows p relative to cwd when it is inside it.
func RelPath(p, cwd string) string {
	if cwd != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}
