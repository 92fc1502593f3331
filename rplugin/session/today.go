package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Today's tools as a person reads them: the tools claude 2.1.x offers
// besides files and commands (inputs in the SDK's sdk-tools.d.ts, results
// as claude 2.1.328 sends them in tool_use_result). Their line says what
// they do (approval.Target) and, once they ran, what came of it: when a
// cron job or a wake-up fires, the worktree the session is in now, whether
// a message reached its agent. Their input is shown as words, not JSON.

// worldTools are the tools whose input the session's world needs once
// their result comes (the app reads them with Transcript.ToolCall).
var worldTools = map[string]bool{
	"CronCreate": true, "CronDelete": true, "CronList": true, "ScheduleWakeup": true,
	"TodoWrite": true, "TaskCreate": true, "TaskUpdate": true,
	"EnterWorktree": true, "ExitWorktree": true, "TaskStop": true, "SendMessage": true,
}

// maxKeptInput bounds the input kept for a world tool.
const maxKeptInput = 64 << 10

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

// todayDetails is the input of a today's tool for a person (nil for the
// others: inputDetails shows them).
func todayDetails(tool string, in map[string]any) ([]string, bool) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	var out []string
	add := func(prefix, v string) {
		for i, l := range sanitize.Lines(v) {
			if len(out) >= previewLines {
				out = append(out, detailFolded+"…")
				return
			}
			if i == 0 {
				out = append(out, detailFolded+prefix+l)
			} else {
				out = append(out, detailFolded+strings.Repeat(" ", len([]rune(prefix)))+l)
			}
		}
	}
	switch tool {
	case "CronCreate":
		add("prompt: ", str("prompt"))
		how := "every match"
		if r, ok := in["recurring"].(bool); ok && !r {
			how = "once, at the next match"
		}
		if d, _ := in["durable"].(bool); d {
			how += ", kept across restarts"
		}
		add("cron: ", str("cron")+" ("+how+")")
	case "ScheduleWakeup":
		if p := str("prompt"); p != "" {
			add("prompt: ", p)
		}
	case "Monitor":
		if c := str("command"); c != "" {
			add("$ ", c)
		}
		if t, ok := in["timeout_ms"].(float64); ok && t > 0 {
			add("for at most ", approval.Delay(t/1000))
		}
	case "TodoWrite":
		var todos []Todo
		if list, ok := in["todos"].([]any); ok {
			for _, x := range list {
				if m, ok := x.(map[string]any); ok {
					c, _ := m["content"].(string)
					st, _ := m["status"].(string)
					act, _ := m["activeForm"].(string)
					todos = append(todos, cleanTodo(Todo{Text: c, Status: st, Active: act}))
				}
			}
		}
		for _, l := range Checklist(todos) {
			add("", l)
		}
	case "TaskCreate":
		add("", str("description"))
	case "TaskUpdate":
		if d := str("description"); d != "" {
			add("", d)
		}
	case "SendMessage":
		for _, k := range []string{"message", "content", "text"} {
			if v := str(k); v != "" {
				add("", v)
				break
			}
		}
	case "ReportFindings":
		if fs, ok := in["findings"].([]any); ok {
			for _, x := range fs {
				m, _ := x.(map[string]any)
				file, _ := m["file"].(string)
				if line, ok := m["line"].(float64); ok && line > 0 {
					file += fmt.Sprintf(":%d", int(line))
				}
				sum, _ := m["short_summary"].(string)
				if sum == "" {
					sum, _ = m["summary"].(string)
				}
				add("", file+" "+sum)
			}
		}
	case "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "ListAgents", "TaskStop", "TaskList", "TaskGet", "EnterPlanMode":
	default:
		return nil, false
	}
	return out, true
}

// todayQuiet says a today's tool's successful result is not worth its
// lines: its line says it all, or the text is instructions for Claude.
func todayQuiet(tc *toolCall, isError bool) bool {
	if isError {
		return false
	}
	switch tc.name {
	case "CronCreate", "CronDelete", "ScheduleWakeup", "TodoWrite", "TaskCreate", "TaskUpdate", "EnterWorktree", "ExitWorktree", "Monitor", "SendMessage":
		return true
	}
	return false
}

// todayHeadline sums up a today's tool's result on its line ("" when there
// is nothing to say): from claude's tool_use_result.
func todayHeadline(tc *toolCall, result json.RawMessage, isError bool, now time.Time) string {
	if isError || len(result) == 0 || result[0] != '{' {
		return ""
	}
	var r struct {
		// CronCreate, CronDelete
		ID        string  `json:"id"`
		Human     string  `json:"humanSchedule"`
		Recurring *bool   `json:"recurring"`
		NextFire  float64 `json:"nextFireAt"`
		// CronList
		Jobs []json.RawMessage `json:"jobs"`
		// ScheduleWakeup
		ScheduledFor float64 `json:"scheduledFor"`
		Clamped      bool    `json:"wasClamped"`
		Stopped      bool    `json:"stopped"`
		// EnterWorktree, ExitWorktree
		WorktreePath string `json:"worktreePath"`
		Branch       string `json:"worktreeBranch"`
		OriginalCwd  string `json:"originalCwd"`
		Action       string `json:"action"`
		// SendMessage
		Success *bool  `json:"success"`
		Display string `json:"display"`
		// ListAgents
		Listing  string `json:"listing"`
		Sections []struct {
			Rows []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"rows"`
		} `json:"sections"`
		// TaskCreate, TaskUpdate
		Task struct {
			ID      string `json:"id"`
			Subject string `json:"subject"`
		} `json:"task"`
		StatusChange *struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"statusChange"`
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	when := func(ms float64) string { return WhenShown(time.UnixMilli(int64(ms)), now) }
	switch tc.name {
	case "CronCreate":
		s := ""
		if r.NextFire > 0 {
			s = "next " + when(r.NextFire)
		}
		if h := sanitize.Line(r.Human); h != "" {
			s = strings.TrimPrefix(s+" · "+strings.ToLower(h[:1])+h[1:], " · ")
		}
		if r.ID != "" {
			s += " · job " + sanitize.Line(r.ID)
		}
		return s
	case "CronDelete":
		return "deleted"
	case "CronList":
		switch len(r.Jobs) {
		case 0:
			return "no jobs"
		case 1:
			return "1 job"
		}
		return fmt.Sprintf("%d jobs", len(r.Jobs))
	case "ScheduleWakeup":
		if r.Stopped {
			return "loop stopped"
		}
		if r.ScheduledFor > 0 {
			s := "fires at " + when(r.ScheduledFor)
			if r.Clamped {
				s += " (delay clamped)"
			}
			return s
		}
	case "EnterWorktree":
		if p := sanitize.Line(r.WorktreePath); p != "" {
			s := "now in " + p
			if b := sanitize.Line(r.Branch); b != "" {
				s += " (" + b + ")"
			}
			return s
		}
	case "ExitWorktree":
		if p := sanitize.Line(r.OriginalCwd); p != "" {
			return "back in " + p
		}
	case "SendMessage":
		if r.Display != "" {
			return sanitize.Truncate(sanitize.Line(r.Display), 80)
		}
		if r.Success != nil && *r.Success {
			return "sent"
		}
	case "ListAgents":
		// 2.1.328 gives the rows too: sections[].rows[] {name, ref, type,
		// status}; the listing is the same for the model.
		var names []string
		for _, sec := range r.Sections {
			for _, row := range sec.Rows {
				if n := sanitize.Truncate(sanitize.Line(row.Name), 30); n != "" {
					if st := sanitize.Line(row.Status); st != "" {
						n += " (" + st + ")"
					}
					names = append(names, n)
				}
			}
		}
		if len(names) > 0 {
			return joinNames(names)
		}
		return agentsHeadline(r.Listing)
	case "TaskCreate":
		if r.Task.ID != "" {
			return "#" + sanitize.Line(r.Task.ID)
		}
	case "TaskUpdate":
		if c := r.StatusChange; c != nil {
			return sanitize.Line(strings.ReplaceAll(c.From, "_", " ")) + " → " + sanitize.Line(strings.ReplaceAll(c.To, "_", " "))
		}
	}
	return ""
}

// agentsHeadline names the agents a ListAgents listing reaches (at most a
// few), or says there is none.
func agentsHeadline(listing string) string {
	if strings.Contains(listing, "No reachable agents") {
		return "no other agent reachable"
	}
	var names []string
	for _, l := range strings.Split(listing, "\n") {
		if !strings.HasPrefix(l, "  ") {
			continue // the rows of a section are indented ("  cwd-16 [e1c6c9]  ·  interactive")
		}
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), "- "), "• "))
		if i := strings.IndexAny(name, "—([·"); i > 0 {
			name = strings.TrimSpace(name[:i])
		}
		if name = sanitize.Truncate(sanitize.Line(name), 30); name != "" {
			names = append(names, name)
		}
	}
	return joinNames(names)
}

// joinNames lists at most four names, then how many more.
func joinNames(names []string) string {
	switch {
	case len(names) == 0:
		return ""
	case len(names) > 4:
		return strings.Join(names[:4], ", ") + fmt.Sprintf(" and %d more", len(names)-4)
	}
	return strings.Join(names, ", ")
}

// Checklist puts the session's checklist under tool call id (after a
// TodoWrite, TaskCreate or TaskUpdate changed it): the transcript shows
// the list as it is at that point.
func (t *Transcript) Checklist(id string, todos []Todo) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	tc, ok := t.tools[id]
	if !ok || tc.name == "TodoWrite" || len(todos) == 0 {
		return nil // TodoWrite's input is the list: its details show it
	}
	lines := []string{fmt.Sprintf("checklist · %d/%d done", Done(todos), len(todos))}
	for _, l := range Checklist(todos) {
		lines = append(lines, "  "+l)
	}
	_, ops := t.insertIn(tc, prefixed(nest(tc.depth)+detailFolded, lines))
	return ops
}
