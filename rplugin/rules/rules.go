// Package rules handles Claude Code permission rules: their syntax
// ("Tool" or "Tool(content)"), which requests they match, the rule the CLI
// suggests for a request, and the settings files that hold them.
//
// Matching follows what claude 2.1.328 does (checked by driving it): for
// Bash, "Bash(touch:*)" and "Bash(touch *)" match the command touch with any
// arguments (and bare touch), "Bash(touch*)" any command starting with
// touch, "Bash(touch)" exactly touch; a bare "Bash" matches every command.
// For other tools the content is compared with the request's main argument
// (a path, URL or pattern), with * and ** globs and the "domain:" form of
// WebFetch. The plugin only matches rules to enforce the deny rules it added
// itself; the CLI enforces everything else.
package rules

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
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

// Matches reports whether r covers a request of tool with input (cwd
// resolves relative paths).
func (r Rule) Matches(tool string, input json.RawMessage, cwd string) bool {
	if r.Tool != tool {
		return false
	}
	if r.Content == "" {
		return true
	}
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch tool {
	case "Bash":
		return bashMatch(r.Content, str("command"))
	case "WebFetch":
		if d, ok := strings.CutPrefix(r.Content, "domain:"); ok {
			u, err := url.Parse(str("url"))
			return err == nil && (u.Hostname() == d || strings.HasSuffix(u.Hostname(), "."+d))
		}
		return glob(r.Content, str("url"))
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "LS", "Glob", "Grep":
		p := str("file_path")
		if p == "" {
			p = str("notebook_path")
		}
		if p == "" {
			p = str("path")
		}
		pat := r.Content
		switch {
		case strings.HasPrefix(pat, "//"):
			pat = pat[1:] // //abs/path is the absolute /abs/path
		case strings.HasPrefix(pat, "~/"):
			return false // the CLI's home, which need not be ours
		case !strings.HasPrefix(pat, "/"):
			pat = filepath.Join(cwd, pat)
		}
		if p != "" && !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return glob(pat, filepath.Clean(p))
	}
	for _, k := range []string{"command", "file_path", "url", "pattern", "query", "path"} {
		if v := str(k); v != "" {
			return glob(r.Content, v)
		}
	}
	return false
}

// bashMatch is the CLI's rule matching for one command: "x:*" and "x *"
// are word prefixes, "x*" a plain prefix, anything else exact. Compound
// commands (&&, ;, |) match only when every part does.
func bashMatch(content, command string) bool {
	command = strings.TrimSpace(command)
	if command == "" {
		return false
	}
	parts := splitCompound(command)
	for _, p := range parts {
		if !bashMatchOne(content, p) {
			return false
		}
	}
	return true
}

func bashMatchOne(content, cmd string) bool {
	switch {
	case strings.HasSuffix(content, ":*"):
		prefix := strings.TrimSuffix(content, ":*")
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	case strings.HasSuffix(content, " *"):
		prefix := strings.TrimSuffix(content, " *")
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	case strings.HasSuffix(content, "*"):
		return strings.HasPrefix(cmd, strings.TrimSuffix(content, "*"))
	}
	return cmd == content
}

var compound = regexp.MustCompile(`\s*(?:&&|\|\||;|\|)\s*`)

func splitCompound(cmd string) []string {
	var out []string
	for _, p := range compound.Split(cmd, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// glob matches s against a pattern where * is any run within a path
// segment and ** any run of segments.
func glob(pattern, s string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == s
	}
	if strings.Contains(pattern, "**") {
		var re strings.Builder
		re.WriteString("^")
		for i, part := range strings.Split(pattern, "**") {
			if i > 0 {
				re.WriteString(".*")
			}
			for j, seg := range strings.Split(part, "*") {
				if j > 0 {
					re.WriteString("[^/]*")
				}
				re.WriteString(regexp.QuoteMeta(seg))
			}
		}
		re.WriteString("$")
		ok, _ := regexp.MatchString(re.String(), s)
		return ok
	}
	ok, _ := path.Match(pattern, s)
	return ok
}
