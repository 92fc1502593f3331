// Package rules handles Claude Code permission rules: their syntax
// ("Tool" or "Tool(content)"), the ways a request may be allowed for longer
// than once (the CLI's suggestion, the whole tool, an MCP server), a
// session's own rules, and the settings files that hold the others.
//
// The plugin never matches a rule against a request: claude does. Rules of
// a session are handed to claude with apply_flag_settings (see Session),
// rules of a settings file are written to the file; claude's own matcher
// enforces both (checked on 2.1.328: a deny Bash(rm:*) given that way
// refuses ls && rm -rf y, FOO=1 rm y, (rm y) and echo $(rm y)).
package rules

import (
	"fmt"
	"regexp"
	"strings"
)

// Rule is one permission rule.
type Rule struct {
	Tool    string
	Content string // "" for the whole tool
}

// String is the rule as written in settings files: Tool or Tool(content).
func (r Rule) String() string {
	if r.Content == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Content + ")"
}

// Update is the rule as a PermissionUpdate rule entry.
func (r Rule) Update() map[string]any {
	m := map[string]any{"toolName": r.Tool}
	if r.Content != "" {
		m["ruleContent"] = r.Content
	}
	return m
}

var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(__[A-Za-z0-9_.-]+)*$`)

// KnownTools are the tool names of claude 2.1.328 a rule is usually for.
var KnownTools = []string{"Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "WebFetch", "WebSearch",
	"Glob", "Grep", "LS", "Task", "TodoWrite", "BashOutput", "KillShell", "SlashCommand", "Skill"}

// Known reports whether tool is a known tool name or an MCP tool (mcp__…).
func Known(tool string) bool {
	if strings.HasPrefix(tool, "mcp__") {
		return true
	}
	for _, k := range KnownTools {
		if k == tool {
			return true
		}
	}
	return false
}

// Parse reads a rule written as Tool or Tool(content). Errors say what is
// wrong in words for the user.
func Parse(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("the rule is empty (write Tool or Tool(content), e.g. Bash(npm test:*))")
	}
	name, rest, hasParen := strings.Cut(s, "(")
	if !toolName.MatchString(name) {
		return Rule{}, fmt.Errorf("%q is not a tool name (write Tool or Tool(content), e.g. Bash(npm test:*))", name)
	}
	if !hasParen {
		return Rule{Tool: name}, nil
	}
	if !strings.HasSuffix(rest, ")") {
		return Rule{}, fmt.Errorf("the rule %q does not end with \")\"", s)
	}
	content := strings.TrimSuffix(rest, ")")
	if strings.TrimSpace(content) == "" {
		return Rule{}, fmt.Errorf("the rule %q has empty parentheses (write just %s for the whole tool)", s, name)
	}
	return Rule{Tool: name, Content: content}, nil
}
