package rules

import (
	"encoding/json"
	"strings"
)

// Choice is one way to allow a request for more than this once: what it
// allows, in words, and the permission updates that say it to claude.
type Choice struct {
	Label   string `json:"label"` // e.g. "Bash(npm test *) this session"
	Rule    string `json:"rule"`  // the rule text ("" for a mode)
	Updates []any  `json:"-"`     // updatedPermissions of the allow answer
	Wide    bool   `json:"wide"`  // the whole tool, every call
	Mode    string `json:"mode,omitempty"`
}

type suggestion struct {
	Type     string `json:"type"`
	Behavior string `json:"behavior"`
	Mode     string `json:"mode"`
	Rules    []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
}

func parseSuggestions(raw json.RawMessage) []suggestion {
	var s []suggestion
	_ = json.Unmarshal(raw, &s)
	return s
}

// SessionChoice is "Allow for session" for a request: the CLI's own
// suggested rule with its destination changed to this session (e.g.
// Bash(npm test *)), or "accept all edits" where the CLI suggests that
// mode, or, with no suggestion, every call of the tool.
func SessionChoice(tool string, suggestions json.RawMessage) Choice {
	for _, s := range parseSuggestions(suggestions) {
		switch {
		case s.Type == "addRules" && (s.Behavior == "" || s.Behavior == "allow") && len(s.Rules) > 0:
			var names []string
			var rs []any
			for _, r := range s.Rules {
				rule := Rule{Tool: r.ToolName, Content: r.RuleContent}
				names = append(names, rule.String())
				rs = append(rs, rule.Update())
			}
			return Choice{
				Label: strings.Join(names, ", ") + " this session",
				Rule:  strings.Join(names, ", "),
				Updates: []any{map[string]any{"type": "addRules", "rules": rs, "behavior": "allow",
					"destination": "session"}},
			}
		case s.Type == "setMode" && s.Mode == "acceptEdits":
			return Choice{Label: "accept all edits this session", Mode: "acceptEdits",
				Updates: []any{map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"}}}
		}
	}
	return ToolChoice(tool)
}

// ToolChoice allows every call of tool for the session.
func ToolChoice(tool string) Choice {
	return Choice{
		Label: "every " + tool + " call this session", Rule: tool, Wide: true,
		Updates: []any{map[string]any{"type": "addRules", "rules": []any{Rule{Tool: tool}.Update()},
			"behavior": "allow", "destination": "session"}},
	}
}

// Suggested is the rule text to offer for "Always…": the CLI's suggested
// rule, else the tool with the request's main argument (a path), else the
// tool.
func Suggested(tool string, suggestions json.RawMessage) string {
	for _, s := range parseSuggestions(suggestions) {
		if s.Type == "addRules" && (s.Behavior == "" || s.Behavior == "allow") && len(s.Rules) > 0 {
			r := s.Rules[0]
			return Rule{Tool: r.ToolName, Content: r.RuleContent}.String()
		}
	}
	return tool
}

// Destinations a rule can be saved to, in the order the form offers them.
var Destinations = []struct {
	Name, Label string
}{
	{"session", "this session"},
	{"localSettings", "this project, just me (.claude/settings.local.json)"},
	{"projectSettings", "this project, shared (.claude/settings.json)"},
	{"userSettings", "all my projects (~/.claude/settings.json)"},
}

// ValidDestination reports whether d is one of Destinations.
func ValidDestination(d string) bool {
	for _, x := range Destinations {
		if x.Name == d {
			return true
		}
	}
	return false
}
