// Package tools is what the plugin knows of claude's tools besides file
// changes and commands (their inputs in the SDK's sdk-tools.d.ts, their
// results as claude 2.1.328 sends them in tool_use_result): one entry per
// tool, in the file of its family. An entry says how a call is worded on
// one line (Target) and beneath it (Details), what its result says
// (Headline, Quiet), and what it changes in the session's world (Effect).
// Nothing else in the plugin switches on these tools' names.
package tools

import (
	"encoding/json"
	"fmt"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"time"
)

// Tool is one tool's entry. A nil func means the tool has nothing to say
// there.
type Tool struct {
	// Target is the call on one line: when a wake-up fires, what a
	// monitor watches, whom a message is for.
	Target func(in Input) string
	// Details is the input for a person, beneath the call: add writes
	// text (of any number of lines) after prefix. Without it the tool's
	// input shows nothing.
	Details func(in Input, add func(prefix, text string))
	// Headline sums up a successful result on the call's line (""
	// when there is nothing to say).
	Headline func(result Result, now time.Time) string
	// Quiet says a successful result is not worth its lines: the line
	// says it all, or the text is instructions for Claude.
	Quiet bool
	// Effect is what a successful call changed in the session's world.
	Effect func(c Call) Effect
	// KeepInput says the input is read again once the result comes
	// (by Effect, or to name what a call stopped or reached).
	KeepInput bool
}

// Of is the entry of tool name.
func Of(name string) (Tool, bool) {
	t, ok := known[name]
	return t, ok
}

// known is every entry, by tool name. Read only.
var known = map[string]Tool{
	"CronCreate":     cronCreate,
	"CronDelete":     cronDelete,
	"CronList":       cronList,
	"ScheduleWakeup": scheduleWakeup,
	"Monitor":        monitor,
	"EnterWorktree":  enterWorktree,
	"ExitWorktree":   exitWorktree,
	"TodoWrite":      todoWrite,
	"TaskCreate":     taskCreate,
	"TaskUpdate":     taskUpdate,
	"TaskGet":        taskGet,
	"TaskList":       quietly,
	"TaskStop":       taskStop,
	"SendMessage":    sendMessage,
	"ListAgents":     listAgents,
	"EnterPlanMode":  quietly,
	"Workflow":       workflow,
	"ReportFindings": reportFindings,
}

// quietly is a tool whose call says it all: no target, no details.
var quietly = Tool{Target: func(Input) string { return "" }, Details: none}

// Call is a successful call, for Effect.
type Call struct {
	ID     string // its tool_use_id
	In     Input
	Result Result
	Now    time.Time
}

// none is Details for a tool whose input is not worth showing.
func none(Input, func(string, string)) {}

// Input is a call's input, decoded.
type Input map[string]any

// DecodeInput decodes a call's input (empty when it is not an object).
func DecodeInput(raw json.RawMessage) Input {
	in, _ := claude.InputObject(raw)
	return in
}

// Str is the string field k ("" when it is not one).
func (in Input) Str(k string) string {
	s, _ := in[k].(string)
	return s
}

// Num is the number field k.
func (in Input) Num(k string) (float64, bool) {
	f, ok := in[k].(float64)
	return f, ok
}

// Bool is the boolean field k.
func (in Input) Bool(k string) (v, ok bool) {
	v, ok = in[k].(bool)
	return v, ok
}

// List is the list field k.
func (in Input) List(k string) ([]any, bool) {
	l, ok := in[k].([]any)
	return l, ok
}

// Result is a call's structured result (tool_use_result): an object on
// success; Decode reads it into the shape of its tool.
type Result json.RawMessage

// Decode reads the result into v; it reports false for anything but an
// object.
func (r Result) Decode(v any) bool {
	return len(r) > 0 && r[0] == '{' && json.Unmarshal(r, v) == nil
}

// Effect is what a call changed in the session's world. The zero value
// changes nothing.
type Effect struct {
	Schedule    *Schedule   // a job or wake-up to add (or replace by its id)
	Unschedule  string      // the id of a job that is gone
	Jobs        *[]Schedule // the whole list of cron jobs
	StopWakeups bool
	Todos       *[]Todo     // the whole checklist
	AddTodo     *Todo       // an item to add (or replace by its id)
	UpdateTodo  *TodoUpdate // an item changed
	MoveTo      *Move       // the folder the session works in now
}

// Move is the folder a session moved to (a worktree it entered, the
// folder it came back to) and its branch.
type Move struct{ Dir, Branch string }

// Delay is a number of seconds for a person: "45 s", "2 min", "1 h 30 min".
func Delay(secs float64) string {
	s := int(secs + 0.5)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%d min", s/60)
		}
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	h, m := s/3600, (s%3600)/60
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

// WhenShown is a time for a person, to the nearest minute: "21:05" today,
// "Tue 21:05" within a week, else "Dec 24 21:05". (A cron job's nextFireAt
// includes the scheduler's offset of a few seconds: 21:07:32 is the 21:08
// run the CLI names.)
func WhenShown(at, now time.Time) string {
	at, now = at.Add(30*time.Second).Truncate(time.Minute).Local(), now.Local()
	switch {
	case at.Year() == now.Year() && at.YearDay() == now.YearDay():
		return at.Format("15:04")
	case at.After(now) && at.Sub(now) < 6*24*time.Hour:
		return at.Format("Mon 15:04")
	}
	return at.Format("Jan 2 15:04")
}

// whenMS is WhenShown of unix milliseconds.
func whenMS(ms float64, now time.Time) string {
	return WhenShown(time.UnixMilli(int64(ms)), now)
}
