package approval

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Target is a short, sanitized description of what a tool call touches:
// a path relative to cwd, a command, a pattern.
func Target(tool string, input json.RawMessage, cwd string) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string {
		s, _ := in[k].(string)
		return s
	}
	if t, ok := todayTarget(tool, in, str); ok {
		return sanitize.Truncate(sanitize.Line(t), 80)
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
		if line, ok := in["line"].(float64); ok && line >= 1 {
			target += fmt.Sprintf(":%d", int(line))
			if col, ok := in["column"].(float64); ok && col >= 1 {
				target += fmt.Sprintf(":%d", int(col))
			}
		}
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

// todayTarget describes the calls of the tools claude 2.1.x offers that
// are neither files nor commands, as a person reads them (see the SDK's
// sdk-tools.d.ts for their inputs): when a wake-up fires, what a monitor
// watches, whom a message is for.
func todayTarget(tool string, in map[string]any, str func(string) string) (string, bool) {
	num := func(k string) (float64, bool) { f, ok := in[k].(float64); return f, ok }
	switch tool {
	case "CronCreate":
		t := str("cron")
		if r, ok := in["recurring"].(bool); ok && !r {
			t += " (once)"
		}
		if p := str("prompt"); p != "" {
			t += ": " + p
		}
		return t, true
	case "CronDelete":
		return str("id"), true
	case "CronList", "ListAgents", "TaskList", "EnterPlanMode":
		return "", true
	case "ScheduleWakeup":
		if stop, _ := in["stop"].(bool); stop {
			return "stop the loop", true
		}
		t := ""
		if d, ok := num("delaySeconds"); ok {
			t = "in " + Delay(d)
		}
		if r := str("reason"); r != "" {
			t = strings.TrimPrefix(t+": "+r, ": ")
		}
		return t, true
	case "Monitor":
		t := str("description")
		switch {
		case str("command") != "":
			t = strings.TrimPrefix(t+" · `"+sanitize.Truncate(sanitize.Line(str("command")), 60)+"`", " · ")
		default:
			if ws, ok := in["ws"].(map[string]any); ok {
				if u, _ := ws["url"].(string); u != "" {
					t = strings.TrimPrefix(t+" · "+u, " · ")
				}
			}
		}
		return t, true
	case "EnterWorktree":
		if p := str("path"); p != "" {
			return p, true
		}
		return str("name"), true
	case "ExitWorktree":
		t := str("action")
		if t == "remove" {
			t = "and remove it"
		} else if t == "keep" {
			t = "and keep it"
		}
		return t, true
	case "SendMessage":
		to := str("to")
		if to == "" {
			to = str("recipient")
		}
		if to == "" {
			return "", true
		}
		return "to " + to, true
	case "TaskStop":
		if id := str("task_id"); id != "" {
			return id, true
		}
		return str("shell_id"), true
	case "TaskCreate":
		return str("subject"), true
	case "TaskUpdate", "TaskGet":
		t := "#" + str("taskId")
		if sub := str("subject"); sub != "" {
			t += " " + sub
		}
		if st := str("status"); st != "" {
			t += " → " + strings.ReplaceAll(st, "_", " ")
		}
		return t, true
	case "TodoWrite":
		if todos, ok := in["todos"].([]any); ok {
			done := 0
			for _, x := range todos {
				if m, ok := x.(map[string]any); ok && m["status"] == "completed" {
					done++
				}
			}
			return fmt.Sprintf("%d/%d done", done, len(todos)), true
		}
		return "", true
	case "Workflow":
		if n := str("name"); n != "" {
			return n, true
		}
		if m := workflowMeta.FindStringSubmatch(str("script")); m != nil {
			return m[1], true
		}
		if p := str("scriptPath"); p != "" {
			return filepath.Base(p), true
		}
		return "", true
	case "ReportFindings":
		if fs, ok := in["findings"].([]any); ok {
			if len(fs) == 1 {
				return "1 finding", true
			}
			return fmt.Sprintf("%d findings", len(fs)), true
		}
		return "", true
	}
	return "", false
}

// workflowMeta finds a workflow script's name in its meta block.
var workflowMeta = regexp.MustCompile("meta\\s*=\\s*\\{[^}]*?name\\s*:\\s*[\"'`]([^\"'`]{1,80})[\"'`]")

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
