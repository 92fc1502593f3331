package transcript

import (
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

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

// streamEvent shows a text or thinking block while it is written
// (--include-partial-messages). The finished block (an assistant line)
// replaces its draft in place.
func (sd *streamDrafts) streamEvent(t *Transcript, m claude.Message) []Op {
	if m.Stream == nil || m.Stream.Parent() != "" {
		return nil // a subagent's messages are not streamed
	}
	se := m.Stream
	ev := se.Event
	msgID := se.MessageID
	switch ev.Type {
	case "content_block_start":
		switch ev.ContentBlock.Type {
		case "text", "thinking":
			return sd.startDraft(t, msgID, ev.Index, ev.ContentBlock.Type)
		case "tool_use":
			t.status.startInput(t, msgID, ev.Index, ev.ContentBlock.ID, ev.ContentBlock.Name)
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "input_json_delta":
			return t.status.growInput(t, msgID, ev.Index, ev.Delta.PartialJSON)
		case "text_delta":
			d, ops := sd.draftFor(t, msgID, ev.Index, "text")
			return append(ops, sd.grow(t, d, ev.Delta.Text)...)
		case "thinking_delta":
			d, ops := sd.draftFor(t, msgID, ev.Index, "thinking")
			d.words += len(strings.Fields(ev.Delta.Thinking))
			return append(ops, t.put(d.start, 1, []string{thinkingLine(d)}, nil)...)
		}
	}
	return nil
}

func thinkingLine(d *draft) string {
	return fmt.Sprintf("%s_thinking… (%d words)_", notePrefix, d.words)
}

func (sd *streamDrafts) startDraft(t *Transcript, msgID string, index int, kind string) []Op {
	t.status.setActivity(t, "")
	ops := t.nesting.claudeHeading(t, kind)
	d := &draft{message: msgID, index: index, kind: kind, start: t.page.count(t), began: t.now()}
	first := ""
	if kind == "thinking" {
		first = thinkingLine(d)
	}
	ops = append(ops, t.put(d.start, 0, []string{first}, nil)...)
	sd.drafts = append(sd.drafts, d) // after put: lines it inserts do not move it
	return ops
}

// draftFor finds (or starts, when the start event was not seen) a draft.
func (sd *streamDrafts) draftFor(t *Transcript, msgID string, index int, kind string) (*draft, []Op) {
	for _, d := range sd.drafts {
		if d.message == msgID && d.index == index {
			return d, nil
		}
	}
	ops := sd.startDraft(t, msgID, index, kind)
	return sd.drafts[len(sd.drafts)-1], ops
}

// grow adds streamed text to a draft: the lines it completes and its new
// last line replace the draft's old last line.
func (sd *streamDrafts) grow(t *Transcript, d *draft, text string) []Op {
	text = sanitize.Text(text)
	lastIdx := d.start + d.done
	parts := strings.Split(d.partial+text, "\n")
	done := parts[:len(parts)-1]
	d.partial = parts[len(parts)-1]
	st := d.st
	op := t.put(lastIdx, 1, append(append([]string(nil), done...), d.partial), &st)
	// The state after the completed lines only (the partial one may change).
	st = d.st
	bufops.Highlight(done, &st)
	d.st = st
	d.done += len(done)
	return op
}

// finishDraft replaces the draft of a finished block by its final lines.
func (sd *streamDrafts) finishDraft(t *Transcript, kind string, msgID string, lines []string) ([]Op, bool) {
	for i := len(sd.drafts) - 1; i >= 0; i-- {
		d := sd.drafts[i]
		if d.kind != kind || (d.message != msgID && d.message != "" && msgID != "") {
			continue
		}
		sd.drafts = append(sd.drafts[:i], sd.drafts[i+1:]...)
		return t.put(d.start, d.count(), lines, nil), true
	}
	return nil, false
}

// keepDraft ends the draft of a finished block as it was streamed, when
// the block is large (size: its encoded text) or part of the draft went to
// the spill file: its text is the block's (the deltas add up to it), so it
// is not decoded and written again. It reports whether it did.
func (sd *streamDrafts) keepDraft(t *Transcript, kind string, msgID string, size int) bool {
	for i := len(sd.drafts) - 1; i >= 0; i-- {
		d := sd.drafts[i]
		if d.kind != kind || (d.message != msgID && d.message != "" && msgID != "") {
			continue
		}
		if size <= keptBlock && !d.spilled {
			return false
		}
		sd.drafts = append(sd.drafts[:i], sd.drafts[i+1:]...)
		return true
	}
	return false
}

// keptBlock is the size above which a finished text block that was
// streamed keeps its draft instead of being written again.
const keptBlock = 64 << 10

// assistantBlock is a content block of an assistant line whose text is
// decoded only when it is shown anew (see keepDraft).
// blockOf is a content block with its text decoded.
func blockOf(b claude.Block) contentBlock {
	return contentBlock{Type: b.Type, Text: b.Text.String(), Thinking: b.Thinking.String(), ID: b.ID, Name: b.Name,
		Input: b.Input, ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError}
}

// ---- whole messages ----

// streamDrafts is the text and thinking blocks being streamed, oldest
// first.
type streamDrafts struct {
	drafts []*draft // blocks being streamed, oldest first
}
