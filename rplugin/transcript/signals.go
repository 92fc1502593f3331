package transcript

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Status signals: what claude tells about the session that is not the
// conversation (a retry of the API, a compaction, a rate limit, a rule that
// refused a call, a hook that blocked one). Each is one note in the
// transcript, updated in place while it is the same story (the attempts of
// one retry), and the session's activity for the winbar while it lasts. A
// long tool input being written shows as "writing greet.py · 12 kB".

// signal turns a system message (or a rate_limit_event) into a note.
func (sl *statusLines) signal(t *Transcript, m claude.Message) []Op {
	if m.Type == "rate_limit_event" {
		return sl.rateLimit(t, m)
	}
	if m.System == nil || m.System.Signal == nil {
		return nil
	}
	s := *m.System.Signal
	switch m.Subtype {
	case "api_retry":
		why := sanitize.Line(s.Error)
		if why == "" && s.ErrorStatus != nil {
			why = fmt.Sprintf("HTTP %d", *s.ErrorStatus)
		}
		if why == "" {
			why = "no answer"
		}
		sl.setActivity(t, fmt.Sprintf("retrying %d/%d", s.Attempt, s.MaxRetries))
		return sl.noteInPlace(t, "retry", fmt.Sprintf("retrying · attempt %d/%d · %s · in %.1f s", s.Attempt, s.MaxRetries, why, s.RetryDelay/1000))
	case "status":
		switch {
		case s.Status != nil && *s.Status == "compacting":
			sl.setActivity(t, "compacting")
			return sl.noteInPlace(t, "compact", "compacting the conversation…")
		case s.CompactResult == "failed":
			sl.setActivity(t, "")
			text := "compacting failed"
			if e := sanitize.Line(s.CompactError); e != "" {
				text += ": " + e
			}
			return sl.noteInPlace(t, "compact", text)
		case s.CompactResult == "success":
			sl.setActivity(t, "")
			return sl.noteInPlace(t, "compact", "compacted the conversation")
		}
	case "compact_boundary":
		sl.setActivity(t, "")
		text := "compacted the conversation"
		if s.Meta.Trigger == "auto" {
			text += " (the context was full)"
		}
		if s.Meta.Pre > 0 && s.Meta.Post > 0 {
			text += fmt.Sprintf(" · %s → %s tokens", thousands(s.Meta.Pre), thousands(s.Meta.Post))
		}
		ops := sl.noteInPlace(t, "compact", text)
		delete(sl.anchors, "compact")
		return ops
	case "model_refusal_fallback":
		text := "the model declined; " + sanitize.Line(s.FallbackModel) + " answered instead"
		if c := sanitize.Truncate(sanitize.Line(s.Content), 200); c != "" {
			text += " · " + c
		}
		return t.note(text)
	case "model_refusal_no_fallback":
		return t.note("the model declined: " + sanitize.Truncate(sanitize.Line(s.Content), 200))
	case "informational":
		if c := sanitize.Truncate(sanitize.Line(s.Content), 300); c != "" {
			return t.note(c)
		}
	case "notification":
		if c := sanitize.Truncate(sanitize.Line(s.Text), 300); c != "" {
			return t.note(c)
		}
	case "permission_denied":
		return sl.denied(t, s.ToolName, s.ToolUseID, s.AgentID, s.Message)
	}
	return nil
}

// denied shows that claude's own rules refused a call (no permission
// request came): in the call's block, shown; as a note when the call is
// not known.
func (sl *statusLines) denied(t *Transcript, tool, toolUseID, agentID, message string) []Op {
	const why = "refused by your permission rules, without asking you"
	if tc, ok := t.calling.tools[toolUseID]; ok {
		_, ops := t.nesting.insertIn(t, tc, []string{nest(tc.depth) + detailOpen + why})
		return ops
	}
	text := why + ": " + sanitize.Line(tool)
	if m := sanitize.Truncate(sanitize.Line(message), 200); m != "" {
		text += " · " + m
	}
	if call, ok := t.nesting.agentCalls[agentID]; ok && agentID != "" {
		if ac, ok := t.calling.tools[call]; ok {
			_, ops := t.nesting.insertIn(t, ac, []string{nest(ac.depth+1) + notePrefix + text})
			return ops
		}
	}
	return t.note(text)
}

// rateLimit notes a rate limit claude reports, unless all is well.
func (sl *statusLines) rateLimit(t *Transcript, m claude.Message) []Op {
	if m.RateLimit == nil || m.RateLimit.Status == "" || m.RateLimit.Status == "allowed" {
		return nil
	}
	info := *m.RateLimit
	text := "rate limit close"
	if info.Status == "rejected" {
		text = "rate limited"
		sl.setActivity(t, "rate limited")
	}
	if typ := sanitize.Line(strings.ReplaceAll(info.Type, "_", " ")); typ != "" {
		text += " · " + typ
	}
	if u := info.Utilization; u > 0 {
		if u <= 1 {
			u *= 100
		}
		text += fmt.Sprintf(" · %.0f%% used", u)
	}
	if info.ResetsAt > 0 {
		text += " · resets " + time.Unix(int64(info.ResetsAt), 0).Format("15:04")
	}
	return sl.noteInPlace(t, "rate", text)
}

// noteInPlace writes a note for signal key, over the note the same signal
// wrote last in this turn.
func (sl *statusLines) noteInPlace(t *Transcript, key, text string) []Op {
	line := notePrefix + text
	if a := sl.anchors[key]; a != nil && *a >= t.page.base && *a < t.page.count(t) {
		return t.put(*a, 1, []string{line}, nil)
	}
	ops := t.note(text)
	at := t.page.count(t) - 1
	sl.anchors[key] = &at
	return ops
}

// replied records that Claude's reply came: a retry is over.
func (sl *statusLines) replied(t *Transcript) {
	delete(sl.anchors, "retry")
	sl.setActivity(t, "")
}

// endTurn forgets the turn's signals (the next turn's are notes of their
// own). Callers hold mu.
func (sl *statusLines) endTurn(t *Transcript) {
	t.inTurn = false
	sl.anchors = map[string]*int{}
	sl.input = nil
	sl.setActivity(t, "")
}

func (sl *statusLines) setActivity(t *Transcript, a string) {
	if sl.activity != a {
		sl.activity, sl.changed = a, true
	}
}

// Activity is what claude is doing now that the conversation does not
// show ("retrying 2/10", "compacting", "writing greet.py · 12 kB"; "" when
// nothing), and whether it changed since the last call.
func (t *Transcript) Activity() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := t.status.changed
	t.status.changed = false
	return t.status.activity, ch
}

// CurrentActivity is Activity without taking the change.
func (t *Transcript) CurrentActivity() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status.activity
}

// ---- a long tool input ----

// inputDraft is a tool_use block whose input is being streamed.
type inputDraft struct {
	message string
	index   int
	id      string
	name    string
	bytes   int
	head    []byte // the first bytes of the input (where file_path is)
	shown   *draft // its line, once it is long enough to show
	kb      int    // the size the line shows
}

// inputShown is the size from which a tool input being written shows.
const inputShown = 2 << 10

// inputHead bounds the bytes of an input kept to find its file path.
const inputHead = 1 << 10

func (sl *statusLines) startInput(t *Transcript, msgID string, index int, id, name string) {
	sl.input = &inputDraft{message: msgID, index: index, id: id, name: sanitize.Line(name)}
}

var filePathRE = regexp.MustCompile(`"(?:file_path|notebook_path)"\s*:\s*("(?:[^"\\]|\\.)*")`)

// what the input writes: its file, else its tool.
func (d *inputDraft) what(cwd string) string {
	if m := filePathRE.FindSubmatch(d.head); m != nil {
		if p, err := strconv.Unquote(string(m[1])); err == nil && p != "" {
			return sanitize.Truncate(sanitize.Line(approval.RelPath(p, cwd)), 80)
		}
	}
	return d.name + " input"
}

// growInput counts a delta of a tool input; past inputShown it shows (and
// updates, per kB) a line saying what is being written.
func (sl *statusLines) growInput(t *Transcript, msgID string, index int, partial string) []Op {
	d := sl.input
	if d == nil || d.message != msgID || d.index != index {
		return nil
	}
	d.bytes += len(partial)
	if room := inputHead - len(d.head); room > 0 {
		d.head = append(d.head, partial[:min(room, len(partial))]...)
	}
	if d.bytes < inputShown {
		return nil
	}
	kb := d.bytes >> 10
	if d.shown != nil && kb == d.kb {
		return nil
	}
	d.kb = kb
	text := fmt.Sprintf("writing %s · %d kB", d.what(t.cwd), kb)
	sl.setActivity(t, text)
	if d.shown == nil {
		ops := t.nesting.claudeHeading(t, "tool")
		d.shown = &draft{message: msgID, index: index, kind: "input", start: t.page.count(t), began: t.now()}
		ops = append(ops, t.put(d.shown.start, 0, []string{notePrefix + text}, nil)...)
		t.streaming.drafts = append(t.streaming.drafts, d.shown)
		return ops
	}
	if d.shown.start < t.page.base {
		return nil
	}
	return t.put(d.shown.start, 1, []string{notePrefix + text}, nil)
}

// takeInput returns (and forgets) the line of tool call id's input being
// written, if it showed one.
func (sl *statusLines) takeInput(t *Transcript, id string) *draft {
	d := sl.input
	if d == nil || d.id != id {
		return nil
	}
	sl.input = nil
	sl.setActivity(t, "")
	if d.shown == nil {
		return nil
	}
	for i, x := range t.streaming.drafts {
		if x == d.shown {
			t.streaming.drafts = append(t.streaming.drafts[:i], t.streaming.drafts[i+1:]...)
			break
		}
	}
	return d.shown
}

// statusLines is what claude says about itself: status notes updated in
// place (anchors: a signal's note line), a tool input being streamed, and
// what claude is doing now (activity, changed since it was read).
type statusLines struct {
	anchors  map[string]*int // signal -> the line of its note, updated in place
	input    *inputDraft     // a tool input being streamed
	activity string          // what claude is doing now, for the winbar
	changed  bool            // activity changed since Activity was read
}
