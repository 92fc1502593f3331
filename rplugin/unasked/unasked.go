// Package unasked says what let a tool call run without asking the user:
// the mode, a rule and where it lives, a hook. A call the user was asked
// about needs no such word; every other one that changes something or runs
// a command gets one on its transcript line ("▸ Bash `rm -rf build` ✓ ·
// unasked: acceptEdits mode").
//
// claude says part of it itself: since 2.1.300 a tool result carries
// tool_result_meta with its permission_decision (source "config", and a
// reason_type: mode, rule, subcommandResults, hook, classifier, …). Which
// rule, and where it lives, it does not say: this package finds the rule
// among the ones the plugin knows of. That matching is for words only;
// claude alone decides what runs (see package rules).
package unasked

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Call is a tool call that ran.
type Call struct {
	Tool string
	// Subject is what a rule for the tool speaks of: a Bash command, a
	// file path, a URL ("" for other tools).
	Subject string
}

// Decision is claude's permission_decision for the call (its
// tool_result_meta), empty when claude gave none.
type Decision struct {
	Decision   string `json:"decision"`    // accept, …
	Source     string `json:"source"`      // config, user_temporary, user_permanent, …
	ReasonType string `json:"reason_type"` // mode, rule, subcommandResults, hook, classifier, …
}

// Rule is an allow rule and where it lives, for a person ("this session",
// ".claude/settings.local.json", "~/.claude/settings.json").
type Rule struct {
	Rule  string
	Where string
}

// Context is what the session knows of its permissions.
type Context struct {
	Mode  string // the mode the call ran in
	Allow []Rule
	Cwd   string
}

// quiet are tools claude runs without asking in every mode, that change
// nothing on disk and run nothing: nothing to say about them.
var quiet = map[string]bool{
	"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true, "ToolSearch": true,
	"TodoWrite": true, "TaskCreate": true, "TaskUpdate": true, "TaskList": true, "TaskGet": true,
	"Task": true, "Agent": true, "ListAgents": true, "CronList": true, "EnterPlanMode": true,
	"ExitPlanMode": true, "AskUserQuestion": true, "Skill": true, "BashOutput": true,
}

// Why says what let call c run unasked ("" when it is a call nothing needs
// to be said of: a read, a tool that never asks).
func Why(c Call, d Decision, ctx Context) string {
	if quiet[c.Tool] || strings.HasPrefix(c.Tool, "mcp__nvim__") {
		return ""
	}
	if strings.HasPrefix(d.Source, "user") {
		return "" // the user allowed it (an answer of theirs)
	}
	rule := func() string {
		if r, ok := Matching(c, ctx.Allow, ctx.Cwd); ok {
			return "rule " + r.Rule + " (" + r.Where + ")"
		}
		return ""
	}
	permissive := ctx.Mode == "acceptEdits" || ctx.Mode == "bypassPermissions" || ctx.Mode == "auto"
	switch d.ReasonType {
	case "hook":
		return "a PreToolUse hook allowed it"
	case "classifier":
		return "auto mode (claude's classifier)"
	case "sandboxOverride":
		return "the sandbox"
	case "rule":
		if r := rule(); r != "" {
			return r
		}
		return "an allow rule in claude's settings"
	case "mode":
		if permissive {
			return ctx.Mode + " mode"
		}
		return "" // a read that default and plan allow
	case "subcommandResults":
		if r := rule(); r != "" {
			return r
		}
		if c.Tool == "Bash" && ReadOnly(c.Subject) {
			return "read-only"
		}
		if permissive {
			return ctx.Mode + " mode"
		}
		return "claude's read-only check"
	case "":
		// An older claude, or no word from it: what the plugin knows.
		if r := rule(); r != "" {
			return r
		}
		if permissive {
			return ctx.Mode + " mode"
		}
		if c.Tool == "Bash" && ReadOnly(c.Subject) {
			return "read-only"
		}
		return ""
	}
	if r := rule(); r != "" {
		return r
	}
	return "claude's settings (" + d.ReasonType + ")"
}

// Matching finds an allow rule that covers call c, for saying which one let
// it run (see the package comment).
func Matching(c Call, allow []Rule, cwd string) (Rule, bool) {
	for _, r := range allow {
		if covers(r.Rule, c, cwd) {
			return r, true
		}
	}
	return Rule{}, false
}

func covers(rule string, c Call, cwd string) bool {
	tool, content, hasContent := strings.Cut(rule, "(")
	if tool != c.Tool {
		// A server's rule covers its tools: mcp__docs covers mcp__docs__search.
		return strings.HasPrefix(c.Tool, "mcp__") && !hasContent && strings.HasPrefix(c.Tool, tool+"__")
	}
	if !hasContent {
		return true
	}
	content = strings.TrimSuffix(content, ")")
	switch c.Tool {
	case "Bash":
		return commandCovered(content, c.Subject)
	case "Write", "Edit", "MultiEdit", "NotebookEdit", "Read":
		return pathCovered(content, c.Subject, cwd)
	case "WebFetch":
		domain, ok := strings.CutPrefix(content, "domain:")
		return ok && hostOf(c.Subject) == domain
	}
	return content == c.Subject
}

// commandCovered: every part of a compound command is covered by the rule
// (prefix:* form, a trailing-* wildcard, or the exact command).
func commandCovered(content, command string) bool {
	parts := Parts(command)
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if !partCovered(content, p) {
			return false
		}
	}
	return true
}

func partCovered(content, part string) bool {
	if prefix, ok := strings.CutSuffix(content, ":*"); ok {
		return part == prefix || strings.HasPrefix(part, prefix+" ")
	}
	if strings.Contains(content, "*") {
		re := "^" + strings.ReplaceAll(regexp.QuoteMeta(content), `\*`, ".*") + "$"
		ok, _ := regexp.MatchString(re, part)
		return ok
	}
	return part == content
}

var separators = regexp.MustCompile(`&&|\|\||;|\|`)

// Parts splits a command at &&, ||, ; and | into its simple commands.
func Parts(command string) []string {
	var out []string
	for _, p := range separators.Split(command, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pathCovered: a gitignore-style pattern of a rule against a file path
// (relative patterns against the session's folder; ** any folders).
func pathCovered(pattern, path, cwd string) bool {
	if path == "" {
		return false
	}
	switch {
	case strings.HasPrefix(pattern, "//"):
		pattern = pattern[1:]
	case strings.HasPrefix(pattern, "/"), strings.HasPrefix(pattern, "./"):
		pattern = filepath.Join(cwd, pattern)
	case !strings.HasPrefix(pattern, "~"):
		pattern = filepath.Join(cwd, "**", pattern)
	}
	re := "^" + strings.NewReplacer(`\*\*/`, "(.*/)?", `\*\*`, ".*", `\*`, "[^/]*", `\?`, "[^/]").Replace(regexp.QuoteMeta(pattern)) + "$"
	ok, _ := regexp.MatchString(re, path)
	return ok
}

func hostOf(url string) string {
	rest := url
	if _, after, ok := strings.Cut(url, "://"); ok {
		rest = after
	}
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// readOnlyCommands run nothing that changes the disk (the first word of
// each part of a command).
var readOnlyCommands = map[string]bool{
	"ls": true, "cat": true, "echo": true, "pwd": true, "head": true, "tail": true, "wc": true, "grep": true,
	"rg": true, "which": true, "date": true, "true": true, "false": true, "whoami": true, "stat": true,
	"file": true, "du": true, "df": true, "uname": true, "env": true, "printf": true, "sort": true, "uniq": true,
	"diff": true, "tree": true, "realpath": true, "dirname": true, "basename": true,
}

// ReadOnly reports whether every part of command reads only (a plain
// list: git status/log/diff/show too; find without -exec or -delete).
func ReadOnly(command string) bool {
	parts := Parts(command)
	if len(parts) == 0 || strings.ContainsAny(command, "<>`$") {
		return false
	}
	for _, p := range parts {
		f := strings.Fields(p)
		switch {
		case readOnlyCommands[f[0]]:
		case f[0] == "git" && len(f) > 1 && (f[1] == "status" || f[1] == "log" || f[1] == "diff" || f[1] == "show"):
		case f[0] == "find" && !strings.Contains(p, "-exec") && !strings.Contains(p, "-delete"):
		default:
			return false
		}
	}
	return true
}
