package unasked

import "testing"

func TestWhy(t *testing.T) {
	allow := []Rule{
		{"Bash(touch:*)", ".claude/settings.local.json"},
		{"Bash(npm test *)", "this session"},
		{"Edit(src/**)", "~/.claude/settings.json"},
		{"WebFetch(domain:example.com)", ".claude/settings.json"},
		{"mcp__docs", "this session"},
	}
	ctx := func(mode string) Context { return Context{Mode: mode, Allow: allow, Cwd: "/p"} }
	meta := func(rt string) Decision { return Decision{Decision: "accept", Source: "config", ReasonType: rt} }
	for _, tc := range []struct {
		name string
		call Call
		d    Decision
		ctx  Context
		want string
	}{
		{"a read says nothing", Call{"Read", "/p/a.txt"}, meta("mode"), ctx("default"), ""},
		{"a read in acceptEdits says nothing either", Call{"Read", "/p/a.txt"}, meta("mode"), ctx("acceptEdits"), ""},
		{"the user's answer", Call{"Bash", "rm x"}, Decision{Decision: "accept", Source: "user_temporary"}, ctx("default"), ""},
		{"a Write in acceptEdits", Call{"Write", "/p/b.txt"}, meta("mode"), ctx("acceptEdits"), "acceptEdits mode"},
		{"rm -rf build in acceptEdits", Call{"Bash", "rm -rf build"}, meta("subcommandResults"), ctx("acceptEdits"), "acceptEdits mode"},
		{"a rule in a settings file", Call{"Bash", "touch y1"}, meta("subcommandResults"), ctx("default"), "rule Bash(touch:*) (.claude/settings.local.json)"},
		{"a session rule with a wildcard", Call{"Bash", "npm test --watch=false"}, meta("rule"), ctx("default"), "rule Bash(npm test *) (this session)"},
		{"a read-only command", Call{"Bash", "ls -la && git status"}, meta("subcommandResults"), ctx("default"), "read-only"},
		{"a compound only partly covered", Call{"Bash", "touch a && rm b"}, meta("subcommandResults"), ctx("default"), "claude's read-only check"},
		{"a file rule with **", Call{"Edit", "/p/src/deep/x.go"}, meta("rule"), ctx("default"), "rule Edit(src/**) (~/.claude/settings.json)"},
		{"a file rule not matching", Call{"Edit", "/p/docs/x.md"}, meta("rule"), ctx("default"), "an allow rule in claude's settings"},
		{"a domain rule", Call{"WebFetch", "https://example.com/a"}, meta("rule"), ctx("default"), "rule WebFetch(domain:example.com) (.claude/settings.json)"},
		{"a server's rule", Call{"mcp__docs__search", ""}, meta("rule"), ctx("default"), "rule mcp__docs (this session)"},
		{"a hook", Call{"Bash", "make"}, meta("hook"), ctx("default"), "a PreToolUse hook allowed it"},
		{"auto's classifier", Call{"Bash", "make"}, meta("classifier"), ctx("auto"), "auto mode (claude's classifier)"},
		{"bypassPermissions", Call{"Bash", "make"}, meta("mode"), ctx("bypassPermissions"), "bypassPermissions mode"},
		{"an older claude, acceptEdits", Call{"Write", "/p/b.txt"}, Decision{}, ctx("acceptEdits"), "acceptEdits mode"},
		{"an older claude, a rule", Call{"Bash", "touch z"}, Decision{}, ctx("default"), "rule Bash(touch:*) (.claude/settings.local.json)"},
		{"an older claude, a read-only command", Call{"Bash", "cat a.txt"}, Decision{}, ctx("default"), "read-only"},
		{"an older claude, nothing known", Call{"WebSearch", ""}, Decision{}, ctx("default"), ""},
		{"the editor's own tools", Call{"mcp__nvim__diagnostics", ""}, meta("rule"), ctx("default"), ""},
		{"something new", Call{"Bash", "make"}, meta("sandboxThing"), ctx("default"), "claude's settings (sandboxThing)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Why(tc.call, tc.d, tc.ctx); got != tc.want {
				t.Fatalf("Why = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ls -la": true, "git log --oneline | head": true, "find . -name x": true, "echo hi": true,
		"find . -delete": false, "rm -rf build": false, "echo hi > f": false, "cat $(rm x)": false, "": false,
		"git push": false, "ls && touch x": false,
	} {
		if got := ReadOnly(cmd); got != want {
			t.Errorf("ReadOnly(%q) = %v", cmd, got)
		}
	}
}
