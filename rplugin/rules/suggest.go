package rules

import (
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// Choice is one way to allow a request for longer than this once: what it
// allows, in words, and how claude is told. Rules go to the session's own
// rules (Session, sent with apply_flag_settings); a mode goes with the
// answer (setMode).
type Choice struct {
	Label string   `json:"label"` // e.g. "Bash(npm test *) this session"
	Rules []string `json:"rules"` // the rules, as written in settings
	Mode  string   `json:"mode,omitempty"`
	Wide  bool     `json:"wide"` // more than the CLI suggested: the whole tool or server
}

// Rule is the choice's rules joined for display ("" for a mode).
func (c Choice) Rule() string { return strings.Join(c.Rules, ", ") }

// SessionChoice is "Allow for session" for a request: the CLI's own
// suggested rule, for this session (e.g. Bash(npm test *)); "accept all
// edits" where the CLI suggests that mode; with no suggestion, a rule for
// exactly this request where one can be written (a Bash command, as it
// is). It is never wider than the request unless the CLI suggested so;
// ok is false when there is nothing to offer.
func SessionChoice(tool string, input toolcall.Fields, suggestions claude.Suggestions) (c Choice, ok bool) {
	for _, s := range suggestions {
		switch {
		case s.Type == "addRules" && (s.Behavior == "" || s.Behavior == "allow") && len(s.Rules) > 0:
			for _, r := range s.Rules {
				if _, err := Parse(Rule{Tool: r.ToolName, Content: r.RuleContent}.String()); err != nil {
					continue
				}
				c.Rules = append(c.Rules, Rule{Tool: r.ToolName, Content: r.RuleContent}.String())
			}
			if len(c.Rules) > 0 {
				c.Label = c.Rule() + " this session"
				return c, true
			}
		case s.Type == "setMode" && s.Mode == "acceptEdits":
			return Choice{Label: "accept all edits this session", Mode: "acceptEdits"}, true
		}
	}
	if r, ok := Exact(tool, input); ok {
		return Choice{Label: r + " this session (exactly this)", Rules: []string{r}}, true
	}
	return Choice{}, false
}

// Exact is a rule that covers exactly this request, where one can be
// written: a Bash command as it is (claude matches a rule without a
// wildcard to the whole command). A command the rule syntax would read
// differently (a trailing *, parentheses, a line break) has none.
func Exact(tool string, in toolcall.Fields) (string, bool) {
	if tool != "Bash" {
		return "", false
	}
	cmd := strings.TrimSpace(in.Command)
	if cmd == "" || cmd != in.Command || strings.HasSuffix(cmd, "*") || strings.ContainsAny(cmd, "()\n\r") {
		return "", false
	}
	r := Rule{Tool: tool, Content: cmd}.String()
	if _, err := Parse(r); err != nil {
		return "", false
	}
	return r, true
}

// ToolChoice allows every call of tool for the session.
func ToolChoice(tool string) Choice {
	return Choice{Label: "every " + tool + " call this session", Rules: []string{tool}, Wide: true}
}

// Server is the MCP server of an mcp__<server>__<tool> name ("" for other
// tools). known, when not "", is the server's name as the request names
// it (mcp_server.name): it wins over what the tool name spells.
func Server(tool, known string) string {
	if !strings.HasPrefix(tool, "mcp__") {
		return ""
	}
	if known != "" {
		return known
	}
	rest := strings.TrimPrefix(tool, "mcp__")
	server, _, _ := strings.Cut(rest, "__")
	return server
}

// ServerRule is the rule covering every tool of an MCP server, "" when
// the server's name cannot be written in one.
func ServerRule(server string) string {
	if server == "" {
		return ""
	}
	r, err := Parse("mcp__" + server)
	if err != nil || r.Content != "" {
		return ""
	}
	return r.String()
}

// Suggested is the rule text to offer for "Always…", and what it covers in
// words: the CLI's suggested rule, else one for exactly this request, else
// the tool (every call of it).
func Suggested(tool string, input toolcall.Fields, suggestions claude.Suggestions) (rule, what string) {
	for _, s := range suggestions {
		if s.Type == "addRules" && (s.Behavior == "" || s.Behavior == "allow") && len(s.Rules) > 0 {
			r := s.Rules[0]
			return Rule{Tool: r.ToolName, Content: r.RuleContent}.String(), "claude's suggestion"
		}
	}
	if r, ok := Exact(tool, input); ok {
		return r, "exactly this request"
	}
	return tool, "every " + tool + " call"
}

// Destinations a rule can be saved to, in the order the form offers them.
var Destinations = []string{"session", "localSettings", "projectSettings", "userSettings"}

// ValidDestination reports whether d is one of Destinations.
func ValidDestination(d string) bool {
	for _, x := range Destinations {
		if x == d {
			return true
		}
	}
	return false
}

// SuggestedDirs are the folders claude suggests allowing for the session
// (addDirectories): a write outside the session's folders comes with one
// (checked on 2.1.328). Only absolute paths are kept.
func SuggestedDirs(suggestions claude.Suggestions) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range suggestions {
		if s.Type != "addDirectories" {
			continue
		}
		for _, d := range s.Directories {
			if strings.HasPrefix(d, "/") && !seen[d] && !strings.ContainsAny(d, "\x00\n\r") {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}
