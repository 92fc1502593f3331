package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Op is one change to a transcript buffer: append lines, or replace one line.
type Op struct {
	Op    string   `json:"op"` // "append" or "set"
	Index int      `json:"index"`
	Lines []string `json:"lines"`
}

// Update is a batch of operations on one session's transcript buffer.
type Update struct {
	Session int  `json:"session"`
	Ops     []Op `json:"ops"`
}

// maxUpdateLines bounds a coalesced update, so that no single delivery
// keeps Neovim busy for long.
const maxUpdateLines = 300

// Size is the number of lines the update carries (ui.Sized).
func (u *Update) Size() int {
	n := 0
	for _, op := range u.Ops {
		n += len(op.Lines)
	}
	return n
}

// Split cuts an update carrying more than max lines into several
// (ui.Splitter), so a 2000-line message reaches Neovim in short steps.
func (u *Update) Split(max int) []any {
	if u.Size() <= max {
		return []any{u}
	}
	var out []any
	cur := &Update{Session: u.Session}
	size := 0
	flush := func() {
		if len(cur.Ops) > 0 {
			out = append(out, cur)
		}
		cur, size = &Update{Session: u.Session}, 0
	}
	for _, op := range u.Ops {
		for op.Op == "append" && size+len(op.Lines) > max {
			n := max - size
			if n <= 0 {
				flush()
				continue
			}
			cur.Ops = append(cur.Ops, Op{Op: "append", Index: op.Index, Lines: op.Lines[:n]})
			op = Op{Op: "append", Index: op.Index + n, Lines: op.Lines[n:]}
			flush()
		}
		if len(op.Lines) == 0 && op.Op == "append" {
			continue
		}
		if size+len(op.Lines) > max {
			flush()
		}
		cur.Ops = append(cur.Ops, op)
		size += len(op.Lines)
	}
	flush()
	return out
}

// Coalesce absorbs a later update of the same session (ui.Coalescable):
// consecutive appends become one.
func (u *Update) Coalesce(next any) bool {
	n, ok := next.(*Update)
	if !ok || n.Session != u.Session || u.Size()+n.Size() > maxUpdateLines {
		return false
	}
	for _, op := range n.Ops {
		last := &u.Ops[len(u.Ops)-1]
		if op.Op == "append" && last.Op == "append" && op.Index == last.Index+len(last.Lines) {
			last.Lines = append(last.Lines, op.Lines...)
			continue
		}
		u.Ops = append(u.Ops, op)
	}
	return true
}

// Transcript is the markdown model of one session's conversation. It turns
// claude messages into buffer operations; the Lua side only applies them.
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
	tools    map[string]int    // tool_use_id -> line index of its summary
	toolText map[string]string // tool_use_id -> summary without outcome
	speaker  string            // who wrote the last block: "you", "claude", ""
	planPath string            // last plan file written under ~/.claude/plans/
	lastText string            // last assistant text (plan fallback)
	plans    map[string]string // tool_use_id -> plan text of an ExitPlanMode call
}

// NewTranscript returns an empty transcript for a session in cwd.
func NewTranscript(cwd string) *Transcript {
	return &Transcript{cwd: cwd, tools: map[string]int{}, toolText: map[string]string{}, plans: map[string]string{}}
}

// Spill makes the transcript keep about keep lines in memory and append
// older ones to path.
func (t *Transcript) Spill(path string, keep int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spill, t.keep = path, max(keep, 100)
}

// Snapshot is the whole transcript: lines [0, First) are in File, the rest
// in Lines.
type Snapshot struct {
	First int      `json:"first"`
	File  string   `json:"file,omitempty"`
	Lines []string `json:"lines"`
}

// Snapshot returns the transcript as it is now.
func (t *Transcript) Snapshot() Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	sn := Snapshot{First: t.base, Lines: append([]string(nil), t.lines...)}
	if t.base > 0 {
		sn.File = t.spill
	}
	return sn
}

// Lines returns a copy of the lines kept in memory (all of them unless the
// transcript spills).
func (t *Transcript) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// trim moves the oldest lines to the spill file once a quarter more than
// keep are in memory. Callers hold mu.
func (t *Transcript) trim() {
	if t.spill == "" || t.spillErr != nil || len(t.lines) <= t.keep+t.keep/4 {
		return
	}
	n := len(t.lines) - t.keep
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

func (t *Transcript) appendLines(ls ...string) Op {
	op := Op{Op: "append", Index: t.base + len(t.lines), Lines: ls}
	t.lines = append(t.lines, ls...)
	t.trim()
	return op
}

// count is the number of lines, spilled ones included. Callers hold mu.
func (t *Transcript) count() int { return t.base + len(t.lines) }

func (t *Transcript) heading(who, title string) []Op {
	if t.speaker == who {
		return nil
	}
	t.speaker = who
	if t.count() == 0 {
		return []Op{t.appendLines("## "+title, "")}
	}
	return []Op{t.appendLines("", "## "+title, "")}
}

// Prompt records a prompt the user sent.
func (t *Transcript) Prompt(text string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker = ""
	ops := t.heading("you", "You")
	return append(ops, t.appendLines(sanitize.Lines(text)...))
}

// Note records an informational or error line (already plain text).
func (t *Transcript) Note(text string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker = ""
	lines := sanitize.Lines(text)
	for i, l := range lines {
		lines[i] = "> " + l
	}
	if t.count() > 0 {
		lines = append([]string{""}, lines...)
	}
	return []Op{t.appendLines(lines...)}
}

// Told records a message the plugin wrote to Claude for the user (what the
// user changed in a proposal, their notes).
func (t *Transcript) Told(text string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker = ""
	lines := []string{"> **Your note to Claude:**"}
	for _, l := range sanitize.Lines(strings.TrimPrefix(text, "[claude-nova] ")) {
		lines = append(lines, "> "+l)
	}
	if t.count() > 0 {
		lines = append([]string{""}, lines...)
	}
	return []Op{t.appendLines(lines...)}
}

// Apply turns one claude message into buffer operations.
func (t *Transcript) Apply(m claude.Message) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch m.Type {
	case "assistant":
		return t.assistant(m)
	case "user":
		return t.toolResults(m)
	case "result":
		return t.result(m, false)
	}
	return nil
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (t *Transcript) assistant(m claude.Message) []Op {
	var msg struct {
		ParentToolUseID *string `json:"parent_tool_use_id"`
		Message         struct {
			Content []contentBlock `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		return nil
	}
	var ops []Op
	for _, b := range msg.Message.Content {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			t.lastText = b.Text
			ops = append(ops, t.heading("claude", "Claude")...)
			ops = append(ops, t.appendLines(sanitize.Lines(b.Text)...))
		case "tool_use":
			ops = append(ops, t.heading("claude", "Claude")...)
			summary := "- **" + sanitize.Line(b.Name) + "** " + ToolTarget(b.Name, b.Input, t.cwd)
			if p := planFile(b.Name, b.Input); p != "" {
				t.planPath = p
			}
			if b.Name == "ExitPlanMode" {
				var in struct {
					Plan string `json:"plan"`
				}
				if json.Unmarshal(b.Input, &in) == nil && in.Plan != "" {
					t.plans[b.ID] = in.Plan
				}
			}
			t.toolText[b.ID] = summary
			t.tools[b.ID] = t.count()
			ops = append(ops, t.appendLines(summary+" …"))
		}
	}
	return ops
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

func (t *Transcript) toolResults(m claude.Message) []Op {
	var msg struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(m.Raw, &msg) != nil {
		return nil
	}
	var blocks []contentBlock
	if json.Unmarshal(msg.Message.Content, &blocks) != nil {
		return nil // plain string content: the echo of our own prompt
	}
	var ops []Op
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			idx, ok := t.tools[b.ToolUseID]
			if !ok {
				continue
			}
			outcome := "✓"
			if b.IsError {
				outcome = "✗ " + sanitize.Truncate(sanitize.Line(resultText(b.Content)), 120)
			}
			line := t.toolText[b.ToolUseID] + " " + outcome
			if idx >= t.base {
				t.lines[idx-t.base] = line
			}
			delete(t.tools, b.ToolUseID)
			delete(t.toolText, b.ToolUseID)
			ops = append(ops, Op{Op: "set", Index: idx, Lines: []string{line}})
		case "text":
			if strings.HasPrefix(b.Text, "[Request interrupted") {
				t.speaker = ""
				ops = append(ops, t.appendLines("", "> "+sanitize.Line(b.Text)))
			}
		}
	}
	return ops
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
		return strings.Join(out, " ")
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
		Subtype    string   `json:"subtype"`
		IsError    bool     `json:"is_error"`
		DurationMS float64  `json:"duration_ms"`
		Cost       float64  `json:"total_cost_usd"`
		Result     string   `json:"result"`
		Errors     []string `json:"errors"`
	}
	if json.Unmarshal(m.Raw, &r) != nil {
		return nil
	}
	t.speaker = ""
	status := "done"
	if interrupted && r.Subtype != "" && r.Subtype != "success" {
		line := fmt.Sprintf("*interrupted · %.1f s · $%.4f*", r.DurationMS/1000, r.Cost)
		return []Op{t.appendLines("", line)}
	}
	if r.IsError || (r.Subtype != "" && r.Subtype != "success") {
		status = "error"
		if r.Subtype != "" && r.Subtype != "success" {
			status = sanitize.Line(r.Subtype)
		}
	}
	line := fmt.Sprintf("*%s · %.1f s · $%.4f*", status, r.DurationMS/1000, r.Cost)
	ops := []Op{t.appendLines("", line)}
	if status != "done" {
		msg := r.Result
		if msg == "" && len(r.Errors) > 0 {
			msg = strings.Join(r.Errors, "; ")
		}
		if msg != "" {
			ops = append(ops, t.appendLines("> **Error:** "+sanitize.Truncate(sanitize.Line(msg), 400)))
		}
	}
	return ops
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

// SessionID names the session of the update (ui.SessionScoped).
func (u *Update) SessionID() int { return u.Session }
