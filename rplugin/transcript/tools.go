package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

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

	// headline sums up the result ("2 errors"), for tools the host answers
	headline string

	// The line as last written, without what is live on it (hooks.go): a
	// hook running on the call, the elapsed time claude reports.
	text     string
	hook     *hookRun
	progress int             // seconds, from tool_progress
	finished bool            // its result came
	input    json.RawMessage // kept for the tools of the session's world (today.go)

	// subject is what a permission rule for the call speaks of (a Bash
	// command, a file path, a URL); unasked, for a call that ran without
	// a can_use_tool, says what let it (package unasked).
	subject string
	unasked string
}

// maxSubject bounds the subject kept per call.
const maxSubject = 4096

// subjectOf is what a permission rule for a call of tool speaks of.
func subjectOf(tool string, input json.RawMessage) string {
	switch tool {
	case "Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "WebFetch":
	default:
		return ""
	}
	in, _ := claude.FieldsOf(input)
	s := in.Command + in.FilePath + in.NotebookPath + in.URL
	if len(s) > maxSubject {
		return ""
	}
	return s
}

// MarkAsked records that claude asked the user about tool call id (a
// can_use_tool came for it): its result needs no word on what let it run.
func (t *Transcript) MarkAsked(id string) {
	if id == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calling.asked.add(id)
}

// Unasked returns tool call id's tool and subject when it ran (or runs)
// without claude asking the user; ok is false for a call that was asked
// about, or that the transcript does not know.
func (t *Transcript) Unasked(id string) (tool, subject string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tc, known := t.calling.tools[id]
	if !known || t.calling.asked.has(id) {
		return "", "", false
	}
	return tc.name, tc.subject, true
}

// ExplainUnasked puts on tool call id's line what let it run unasked, once
// its result comes ("· unasked: acceptEdits mode").
func (t *Transcript) ExplainUnasked(id, why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tc, ok := t.calling.tools[id]; ok {
		tc.unasked = sanitize.Truncate(sanitize.Line(why), 120)
	}
}

// idSet is a set of ids that forgets the oldest beyond maxTools.
type idSet struct {
	ids   map[string]bool
	order []string
}

func (s *idSet) add(id string) {
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	if s.ids[id] {
		return
	}
	s.ids[id] = true
	s.order = append(s.order, id)
	if len(s.order) > maxTools {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *idSet) has(id string) bool { return s.ids[id] }

// maxTools bounds the tool calls whose lines are remembered (for "the whole
// result" and outcomes arriving late).
const maxTools = 2000

// previewLines is how many lines of a tool's result the transcript shows;
// the rest is one "… N more lines" line and a file the user can open.
const previewLines = 20

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

func (cl *toolCalls) toolUse(t *Transcript, b contentBlock) []Op {
	ops := t.nesting.claudeHeading(t, "tool")
	tc := t.nesting.newCall(t, b, 0)
	if p := planFile(b.Name, b.Input); p != "" {
		t.planPath = p
	}
	details := tc.inputLines
	tc.inputLines = nil
	if b.Name == "ExitPlanMode" {
		details = nil
		if in, err := claude.FieldsOf(b.Input); err == nil && in.Plan != "" {
			t.plans[b.ID] = in.Plan
			for _, l := range sanitize.Lines(in.Plan) {
				details = append(details, detailFolded+l)
			}
		}
		tc.details, tc.inputs = len(details), len(details)
	}
	// A long input shown while it was written: the call takes its line.
	at, n := t.page.count(t), 0
	if d := t.status.takeInput(t, b.ID); d != nil && d.start >= t.page.base {
		at, n = d.start, 1
	}
	tc.line = at
	tc.text = tc.summary + " …"
	ops = append(ops, t.put(at, n, append([]string{tc.text}, details...), nil)...)
	cl.remember(t, b.ID, tc) // after put: lines it inserts do not move it
	return ops
}

// toolName is how a tool is named for a person: an MCP tool
// (mcp__server__tool) by its server and name ("nvim diagnostics").
func toolName(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if server, tool, ok := strings.Cut(rest, "__"); ok && server != "" && tool != "" {
			return server + " " + tool
		}
	}
	return name
}

// ToolHeadline sums up the result of tool call id in its line ("▸ nvim
// diagnostics a.lua · 2 errors ✓"): for tools the host answers itself, which
// know what they found before claude reports the result (the line shows it
// with the outcome).
func (t *Transcript) ToolHeadline(id, headline string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tc, ok := t.calling.tools[id]; ok {
		tc.headline = sanitize.Truncate(sanitize.Line(headline), 60)
	}
}

func (cl *toolCalls) remember(t *Transcript, id string, tc *toolCall) {
	cl.tools[id] = tc
	cl.order = append(cl.order, id)
	if len(cl.order) > maxTools {
		delete(cl.tools, cl.order[0])
		cl.order = cl.order[1:]
	}
}

// inputDetails is a tool call's input for a person, folded under its line.
func inputDetails(tool string, input json.RawMessage) []string {
	in, _ := claude.InputObject(input)
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
	if lines, ok := todayDetails(tool, in); ok {
		return lines
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
		if strings.HasPrefix(tool, "mcp__nvim__") {
			return nil // the editor's own tools: the target says it all
		}
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
	in, err := claude.FieldsOf(input)
	if err != nil || in.FilePath == "" {
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
func (cl *toolCalls) toolResults(t *Transcript, m claude.Message, parent string) []Op {
	msg := m.User
	if msg == nil || msg.Content == nil {
		return nil // plain string content: the echo of our own prompt
	}
	blocks := make([]contentBlock, len(msg.Content))
	for i, b := range msg.Content {
		blocks[i] = blockOf(b)
	}
	// What started an agent or a background shell says so in the call's
	// structured result (not always an object: a string on errors).
	started := claude.LaunchedOf(msg.Structured)
	if parent == "" {
		parent = msg.Parent()
	}
	var ops []Op
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			tc, ok := cl.tools[b.ToolUseID]
			if !ok {
				continue
			}
			if o, ok := t.nesting.taskResult(t, b, tc, started); ok {
				ops = append(ops, o...)
				continue
			}
			outcome := "✓"
			if b.IsError {
				outcome = "✗"
			}
			tc.finished = true
			rewritten := msg.Rewritten(b.ToolUseID) // its structured result is not what the model read
			if h := todayHeadline(tc, msg.Structured, b.IsError, t.now()); h != "" && tc.headline == "" && !rewritten {
				tc.headline = h
			}
			line := tc.summary
			if tc.headline != "" {
				line += " · " + tc.headline
			}
			if tc.unasked != "" {
				line += " · unasked: " + tc.unasked
			}
			if rewritten {
				line += " · result changed by a plugin"
			}
			line += " " + outcome
			if !t.history {
				line += fmt.Sprintf(" %.1f s", t.now().Sub(tc.started).Seconds())
			}
			ops = append(ops, t.setLine(tc, line)...)
			if res := cl.resultDetails(t, b, tc); len(res) > 0 && !todayQuiet(tc, b.IsError) {
				// Long gone from memory: at the end instead.
				_, o := t.nesting.insertIn(t, tc, res)
				ops = append(ops, o...)
			}
		case "text":
			if !strings.HasPrefix(b.Text, "[Request interrupted") {
				continue // a subagent's prompt: its call shows it
			}
			// The CLI's own mark of an interrupt the user asked for
			// ("[Request interrupted by user…]"): the one line that says so.
			if ac, ok := cl.tools[parent]; ok && parent != "" {
				_, o := t.nesting.insertIn(t, ac, []string{nest(ac.depth+1) + notePrefix + InterruptedNote})
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

var toolErrorTags = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "")

func (cl *toolCalls) resultDetails(t *Transcript, b contentBlock, tc *toolCall) []string {
	text := strings.TrimSpace(toolErrorTags.Replace(claude.ResultText(b.Content)))
	var out []string
	// An image (a Read of a PNG) is one line shown beneath the call; gf
	// opens it.
	for i, img := range resultImages(b.Content) {
		line := nest(tc.depth) + detailOpen + imageLine(img)
		if path := cl.saveImage(t, b.ToolUseID, i+1, img); path != "" && tc.full == "" {
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
			if path := cl.saveFull(t, b.ToolUseID, text); path != "" {
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
func (cl *toolCalls) saveFull(t *Transcript, id, text string) string {
	if t.page.spill == "" {
		return ""
	}
	path := filepath.Join(filepath.Dir(t.page.spill), strings.TrimSuffix(filepath.Base(t.page.spill), ".md")+"-"+safeName(id)+".txt")
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
	for _, tc := range t.calling.tools {
		if line >= tc.line && line <= tc.line+tc.details && tc.full != "" {
			return tc.full, true
		}
	}
	return "", false
}

// toolCalls is the tool calls' lines (tool_use_id -> its call), oldest
// first (bounded), and which ones claude asked the user about.
type toolCalls struct {
	tools map[string]*toolCall // tool_use_id -> its lines
	order []string             // tool ids, oldest first (bounded)
	asked idSet                // tool ids claude asked the user about
}
