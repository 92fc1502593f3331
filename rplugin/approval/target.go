package approval

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tools"
)

// Target is a short, sanitized description of what a tool call touches
// (see TargetOf), from its raw input.
func Target(tool string, input json.RawMessage, cwd string) string {
	return TargetOf(tool, toolcall.Decode(input), cwd)
}

// TargetOf is a short, sanitized description of what a tool call touches:
// a path relative to cwd, a command, a pattern. It reads the input as it
// was decoded once.
func TargetOf(tool string, input toolcall.Input, cwd string) string {
	in := tools.Input(input.Obj)
	str := in.Str
	if t, ok := tools.Of(tool); ok && t.Target != nil {
		return sanitize.Truncate(sanitize.Line(t.Target(in)), 80)
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
