package transcript

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// heading starts a block by who; a blank line separates blocks of
// different kinds and consecutive text blocks (so text after a list never
// runs into its last item); tool lines stay packed. Callers hold mu.
func (sy *saidLog) heading(t *Transcript, who, title, kind string) []Op {
	return sy.headingMarked(t, who, title, "", kind)
}

// headingMarked is heading with a mark after the title (and after
// "earlier" in history): "You · earlier · checkpoint 2 · 14:02".
func (sy *saidLog) headingMarked(t *Transcript, who, title, mark, kind string) []Op {
	var ops []Op
	if t.history {
		title += " · earlier"
	}
	if mark != "" {
		title += " · " + mark
	}
	if t.speaker != who {
		t.speaker = who
		if t.page.count(t) == 0 {
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

// Prompt records a prompt the user sent.
func (t *Transcript) Prompt(text string) []Op { return t.PromptMarked(text, "") }

// PromptMarked records a prompt with a mark after "You" in its heading
// (its checkpoint: "checkpoint 3 · 14:02").
func (t *Transcript) PromptMarked(text, mark string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker = ""
	t.inTurn = true
	ops := t.saying.headingMarked(t, "you", "You", sanitize.Line(mark), "text")
	return append(ops, t.add(sanitize.Lines(text)...)...)
}

// QueuedMark ends the heading of a prompt claude has not taken yet.
const QueuedMark = "queued"

// PromptQueued records a prompt sent while a turn runs: its heading is
// marked queued until Unqueue(id).
func (t *Transcript) PromptQueued(id, text, mark string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker = ""
	t.inTurn = true
	at := t.page.count(t)
	if at > 0 {
		at++ // a blank line before the heading
	}
	full := strings.TrimPrefix(mark+" · "+QueuedMark, " · ")
	ops := t.saying.headingMarked(t, "you", "You", sanitize.Line(full), "text")
	line := at
	t.queued[id] = &line
	t.queuedHead[id] = "## You · " + sanitize.Line(mark)
	if mark == "" {
		t.queuedHead[id] = "## You"
	}
	return append(ops, t.add(sanitize.Lines(text)...)...)
}

// Unqueue takes the queued mark off the heading of prompt id (claude took
// it); mark, when not "", takes its place ("withdrawn").
func (t *Transcript) Unqueue(id, mark string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.queued[id]
	head := t.queuedHead[id]
	delete(t.queued, id)
	delete(t.queuedHead, id)
	if !ok || *at < t.page.base || *at >= t.page.count(t) {
		return nil
	}
	if mark != "" {
		head += " · " + sanitize.Line(mark)
	}
	return t.put(*at, 1, []string{head}, nil)
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
	if t.page.count(t) > 0 {
		out = append(out, "")
	}
	for _, l := range lines {
		out = append(out, notePrefix+l)
	}
	return t.add(out...)
}

// ToldClaude is ToldBy's label for a message the plugin wrote to Claude
// for the user (what the user changed in a proposal, their notes).
const ToldClaude = "Told Claude"

// ToldBy records a message written to Claude, after who it is from
// (ToldClaude, "The editor told Claude"): its first line shows after the
// label, the rest (the diff) is folded beneath it.
func (t *Transcript) ToldBy(label, text string) []Op {
	lines := sanitize.Lines(strings.TrimPrefix(text, "[claude-nova] "))
	return t.folded("**"+sanitize.Line(label)+":** "+lines[0], strings.Join(lines[1:], "\n"))
}

// Folded records a note whose details (a diff) fold beneath its line.
func (t *Transcript) Folded(head, details string) []Op {
	return t.folded(notePrefix+sanitize.Line(head), details)
}

func (t *Transcript) folded(head, details string) []Op {
	out := []string{head}
	if details != "" {
		for _, l := range sanitize.Lines(details) {
			out = append(out, detailFolded+l)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.speaker, t.last = "", "note"
	if t.page.count(t) > 0 {
		out = append([]string{""}, out...)
	}
	return t.add(out...)
}

// maxSaid bounds the tool calls whose preamble is kept.
const maxSaid = 256

// maxSaidBytes bounds the preamble kept of one call: its end, what Claude
// said right before it asked (a long reply is in the transcript anyway).
const maxSaidBytes = 8 << 10

// saidTail is s, or its last maxSaidBytes from a line's start, after "…".
func saidTail(s string) string {
	if len(s) <= maxSaidBytes {
		return s
	}
	cut := len(s) - maxSaidBytes
	if i := strings.IndexByte(s[cut:], '\n'); i >= 0 {
		cut += i + 1
	} else {
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
	}
	return "…\n" + s[cut:]
}

// rememberSaid keeps what Claude said before each tool call of a message
// (the CLI may send a message's blocks as several messages with one id).
// Callers hold mu.
func (sy *saidLog) rememberSaid(t *Transcript, msgID string, blocks []claude.Block) {
	if msgID != sy.saidMsg {
		sy.saidMsg, sy.saidText = msgID, ""
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			// Only its end is kept: a long reply is not decoded whole.
			txt, cut := b.Text.Tail(maxSaidBytes)
			if txt = strings.TrimSpace(txt); cut && txt != "" {
				sy.saidText = "…\n" + txt
			} else if txt != "" {
				sy.saidText = saidTail(strings.TrimSpace(sy.saidText + "\n\n" + txt))
			}
		case "tool_use":
			if b.ID == "" {
				continue
			}
			if sy.saidText != "" {
				sy.said[b.ID] = sy.saidText
				sy.saidOrder = append(sy.saidOrder, b.ID)
				if len(sy.saidOrder) > maxSaid {
					delete(sy.said, sy.saidOrder[0])
					sy.saidOrder = sy.saidOrder[1:]
				}
			}
			sy.saidText = ""
		}
	}
}

// Said is what Claude said right before tool call id, in the same message
// ("" when nothing): a request shows it as its reason.
func (t *Transcript) Said(id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.saying.said[id]
}

func (sy *saidLog) assistant(t *Transcript, m claude.Message) []Op {
	msg := m.Assistant
	if msg == nil {
		return nil
	}
	sy.rememberSaid(t, msg.MessageID, msg.Content)
	if parent := msg.Parent(); parent != "" {
		// A subagent's messages are not streamed: their text is shown whole.
		blocks := make([]contentBlock, len(msg.Content))
		for i, b := range msg.Content {
			blocks[i] = blockOf(b)
		}
		return t.nesting.nestedAssistant(t, parent, msg.AgentID, msg.SubagentType, msg.TaskDescription, blocks)
	}
	t.status.replied(t)
	var ops []Op
	for _, lb := range msg.Content {
		// A text draft holds the text (a thinking draft only counts words).
		if lb.Type == "text" && t.streaming.keepDraft(t, "text", msg.MessageID, lb.Text.Len()) {
			continue // streamed whole already
		}
		b := blockOf(lb)
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			t.lastText = b.Text
			ops = append(ops, sy.block(t, "text", msg.MessageID, sanitize.Lines(b.Text))...)
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
			ops = append(ops, sy.block(t, "thinking", msg.MessageID, lines)...)
		case "tool_use":
			ops = append(ops, t.calling.toolUse(t, b)...)
		}
	}
	return ops
}

// block shows a finished text or thinking block of Claude's message id: in
// place of its streamed draft when there is one, else as new lines.
func (sy *saidLog) block(t *Transcript, kind, id string, lines []string) []Op {
	if fin, ok := t.streaming.finishDraft(t, kind, id, lines); ok {
		return fin
	}
	return append(t.nesting.claudeHeading(t, kind), t.add(lines...)...)
}

// Result records the end of a turn. interrupted says the user asked for
// it: the turn is then shown as interrupted, without the CLI's diagnostics.
func (t *Transcript) Result(m claude.Message, interrupted bool) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.saying.result(t, m, interrupted)
}

func (sy *saidLog) result(t *Transcript, m claude.Message, interrupted bool) []Op {
	r := m.Result
	if r == nil {
		return nil
	}
	t.streaming.drafts = nil // whatever was not finished stays as it was written
	t.speaker, t.last = "", "footer"
	t.status.endTurn(t)
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
	turn := r.CostUSD - t.cost
	if turn < 0 {
		turn = r.CostUSD // a new claude process counts from 0
	}
	t.cost = r.CostUSD
	line += fmt.Sprintf(" · $%.4f*", turn)
	ops := t.add("", line)
	if status != "done" && status != "interrupted" {
		msg := r.Text.String()
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

// saidLog is what Claude said before each tool call (tool_use id -> its
// words, oldest first), and the blocks of its messages and turns.
type saidLog struct {
	said      map[string]string // tool_use id -> what Claude said before the call
	saidOrder []string
	saidMsg   string // the message whose text is in saidText
	saidText  string
}
