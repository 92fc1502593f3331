package session

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
func (t *Transcript) signal(m claude.Message) []Op {
	if m.Type == "rate_limit_event" {
		return t.rateLimit(m)
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
		t.setActivity(fmt.Sprintf("retrying %d/%d", s.Attempt, s.MaxRetries))
		return t.noteInPlace("retry", fmt.Sprintf("retrying · attempt %d/%d · %s · in %.1f s", s.Attempt, s.MaxRetries, why, s.RetryDelay/1000))
	case "status":
		switch {
		case s.Status != nil && *s.Status == "compacting":
			t.setActivity("compacting")
			return t.noteInPlace("compact", "compacting the conversation…")
		case s.CompactResult == "failed":
			t.setActivity("")
			text := "compacting failed"
			if e := sanitize.Line(s.CompactError); e != "" {
				text += ": " + e
			}
			return t.noteInPlace("compact", text)
		case s.CompactResult == "success":
			t.setActivity("")
			return t.noteInPlace("compact", "compacted the conversation")
		}
	case "compact_boundary":
		t.setActivity("")
		text := "compacted the conversation"
		if s.Meta.Trigger == "auto" {
			text += " (the context was full)"
		}
		if s.Meta.Pre > 0 && s.Meta.Post > 0 {
			text += fmt.Sprintf(" · %s → %s tokens", thousands(s.Meta.Pre), thousands(s.Meta.Post))
		}
		ops := t.noteInPlace("compact", text)
		delete(t.anchors, "compact")
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
		return t.denied(s.ToolName, s.ToolUseID, s.AgentID, s.Message)
	}
	return nil
}

// denied shows that claude's own rules refused a call (no permission
// request came): in the call's block, shown; as a note when the call is
// not known.
func (t *Transcript) denied(tool, toolUseID, agentID, message string) []Op {
	const why = "refused by your permission rules, without asking you"
	if tc, ok := t.tools[toolUseID]; ok {
		_, ops := t.insertIn(tc, []string{nest(tc.depth) + detailOpen + why})
		return ops
	}
	text := why + ": " + sanitize.Line(tool)
	if m := sanitize.Truncate(sanitize.Line(message), 200); m != "" {
		text += " · " + m
	}
	if call, ok := t.agentCalls[agentID]; ok && agentID != "" {
		if ac, ok := t.tools[call]; ok {
			_, ops := t.insertIn(ac, []string{nest(ac.depth+1) + notePrefix + text})
			return ops
		}
	}
	return t.note(text)
}

// rateLimit notes a rate limit claude reports, unless all is well.
func (t *Transcript) rateLimit(m claude.Message) []Op {
	if m.RateLimit == nil || m.RateLimit.Status == "" || m.RateLimit.Status == "allowed" {
		return nil
	}
	info := *m.RateLimit
	text := "rate limit close"
	if info.Status == "rejected" {
		text = "rate limited"
		t.setActivity("rate limited")
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
	return t.noteInPlace("rate", text)
}

// noteInPlace writes a note for signal key, over the note the same signal
// wrote last in this turn.
func (t *Transcript) noteInPlace(key, text string) []Op {
	line := notePrefix + text
	if a := t.anchors[key]; a != nil && *a >= t.base && *a < t.count() {
		return t.put(*a, 1, []string{line}, nil)
	}
	ops := t.note(text)
	at := t.count() - 1
	t.anchors[key] = &at
	return ops
}

// replied records that Claude's reply came: a retry is over.
func (t *Transcript) replied() {
	delete(t.anchors, "retry")
	t.setActivity("")
}

// endTurn forgets the turn's signals (the next turn's are notes of their
// own). Callers hold mu.
func (t *Transcript) endTurn() {
	t.inTurn = false
	t.anchors = map[string]*int{}
	t.input = nil
	t.setActivity("")
}

func (t *Transcript) setActivity(a string) {
	if t.activity != a {
		t.activity, t.changed = a, true
	}
}

// Activity is what claude is doing now that the conversation does not
// show ("retrying 2/10", "compacting", "writing greet.py · 12 kB"; "" when
// nothing), and whether it changed since the last call.
func (t *Transcript) Activity() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := t.changed
	t.changed = false
	return t.activity, ch
}

// CurrentActivity is Activity without taking the change.
func (t *Transcript) CurrentActivity() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.activity
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

func (t *Transcript) startInput(msgID string, index int, id, name string) {
	t.input = &inputDraft{message: msgID, index: index, id: id, name: sanitize.Line(name)}
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
func (t *Transcript) growInput(msgID string, index int, partial string) []Op {
	d := t.input
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
	t.setActivity(text)
	if d.shown == nil {
		ops := t.claudeHeading("tool")
		d.shown = &draft{message: msgID, index: index, kind: "input", start: t.count(), began: t.now()}
		ops = append(ops, t.put(d.shown.start, 0, []string{notePrefix + text}, nil)...)
		t.drafts = append(t.drafts, d.shown)
		return ops
	}
	if d.shown.start < t.base {
		return nil
	}
	return t.put(d.shown.start, 1, []string{notePrefix + text}, nil)
}

// takeInput returns (and forgets) the line of tool call id's input being
// written, if it showed one.
func (t *Transcript) takeInput(id string) *draft {
	d := t.input
	if d == nil || d.id != id {
		return nil
	}
	t.input = nil
	t.setActivity("")
	if d.shown == nil {
		return nil
	}
	for i, x := range t.drafts {
		if x == d.shown {
			t.drafts = append(t.drafts[:i], t.drafts[i+1:]...)
			break
		}
	}
	return d.shown
}
