package rules

import (
	"encoding/json"
	"errors"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"Bash", "Bash", ""},
		{"Bash(npm test:*)", "Bash(npm test:*)", ""},
		{"  WebFetch(domain:example.com) ", "WebFetch(domain:example.com)", ""},
		{"mcp__github__create_issue", "mcp__github__create_issue", ""},
		{"", "", "empty"},
		{"Bash(touch:*", "", "does not end"},
		{"Bash()", "", "empty parentheses"},
		{"bash thing(x)", "", "not a tool name"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) = %v, %v; want error %q", tt.in, r, err, tt.err)
			}
			continue
		}
		if err != nil || r.String() != tt.want {
			t.Errorf("Parse(%q) = %q, %v", tt.in, r, err)
		}
	}
}

func TestSessionChoice(t *testing.T) {
	tests := []struct {
		name, tool, input, suggestions string
		ok                             bool
		label, mode                    string
		rules                          []string
	}{
		{"the CLI's rule", "Bash", `{"command":"npm test"}`, `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test *"}],"behavior":"allow","destination":"localSettings"}]`,
			true, "Bash(npm test *) this session", "", []string{"Bash(npm test *)"}},
		{"two rules", "Bash", `{"command":"ls && pwd"}`, `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"},{"toolName":"Bash","ruleContent":"pwd:*"}],"behavior":"allow","destination":"localSettings"}]`,
			true, "Bash(ls:*), Bash(pwd:*) this session", "", []string{"Bash(ls:*)", "Bash(pwd:*)"}},
		{"accept edits", "Edit", `{}`, `[{"type":"setMode","mode":"acceptEdits","destination":"session"}]`, true, "accept all edits this session", "acceptEdits", nil},
		{"no suggestion: exactly the command", "Bash", `{"command":"rm -rf build"}`, ``, true, "Bash(rm -rf build) this session (exactly this)", "", []string{"Bash(rm -rf build)"}},
		{"no suggestion, a wildcard command", "Bash", `{"command":"echo *"}`, ``, false, "", "", nil},
		{"no suggestion, parentheses", "Bash", `{"command":"(rm y)"}`, ``, false, "", "", nil},
		{"no suggestion, two lines", "Bash", `{"command":"a\nb"}`, ``, false, "", "", nil},
		{"no suggestion, empty list", "Bash", `{"command":"rm -rf ~ --x"}`, `[]`, true, "Bash(rm -rf ~ --x) this session (exactly this)", "", []string{"Bash(rm -rf ~ --x)"}},
		{"no suggestion, not Bash", "mcp__gh__create_issue", `{"title":"x"}`, ``, false, "", "", nil},
		{"a deny suggestion is no allow", "Bash", `{"command":"x("}`, `[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"deny"}]`, false, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := SessionChoice(tt.tool, fieldsOf(tt.input), suggestionsOf(t, tt.suggestions))
			if ok != tt.ok || c.Label != tt.label || c.Mode != tt.mode || strings.Join(c.Rules, "|") != strings.Join(tt.rules, "|") || c.Wide {
				t.Errorf("SessionChoice = %+v, %v", c, ok)
			}
		})
	}
	if c := ToolChoice("Bash"); !c.Wide || c.Label != "every Bash call this session" || c.Rule() != "Bash" {
		t.Errorf("ToolChoice = %+v", c)
	}
	if s, w := Suggested("Bash", toolcall.Fields{}, suggestionsOf(t, `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a.txt"}],"behavior":"allow"}]`)); s != "Bash(touch a.txt)" || w != "claude's suggestion" {
		t.Errorf("Suggested = %q, %q", s, w)
	}
	if s, w := Suggested("Bash", fieldsOf(`{"command":"make"}`), nil); s != "Bash(make)" || w != "exactly this request" {
		t.Errorf("Suggested without a suggestion = %q, %q", s, w)
	}
	if s, w := Suggested("mcp__x__y", fieldsOf(`{}`), nil); s != "mcp__x__y" || w != "every mcp__x__y call" {
		t.Errorf("Suggested for an MCP tool = %q, %q", s, w)
	}
}

func TestServer(t *testing.T) {
	tests := []struct{ tool, known, server, rule string }{
		{"mcp__github__create_issue", "", "github", "mcp__github"},
		{"mcp__github__create_issue", "github", "github", "mcp__github"},
		{"mcp__my-server__x", "", "my-server", "mcp__my-server"},
		{"mcp__claude_ai_Gmail__send", "claude_ai_Gmail", "claude_ai_Gmail", "mcp__claude_ai_Gmail"},
		{"Bash", "", "", ""},
		{"mcp__bad name__x", "", "bad name", ""},
	}
	for _, tt := range tests {
		if s := Server(tt.tool, tt.known); s != tt.server || ServerRule(s) != tt.rule {
			t.Errorf("Server(%q, %q) = %q, rule %q", tt.tool, tt.known, s, ServerRule(s))
		}
	}
}

// The whole lists go each time (an apply replaces the lists it names, so
// a removed rule is not enforced any more); the flag rules claude started
// with stay.
func TestSessionRules(t *testing.T) {
	s := Session{Base: Permissions{Allow: []string{"Bash(ls:*)"}}}
	if b, _ := json.Marshal(s.Settings()); string(b) != `{"permissions":{"allow":["Bash(ls:*)"],"deny":[]}}` {
		t.Fatalf("empty: %s", b)
	}
	if !s.Add("deny", "Bash(rm:*)") || s.Add("deny", "Bash(rm:*)") || !s.Add("allow", "Bash(touch:*)") || s.Add("ask", "X") {
		t.Fatal("Add")
	}
	if b, _ := json.Marshal(s.Settings()); string(b) != `{"permissions":{"allow":["Bash(ls:*)","Bash(touch:*)"],"deny":["Bash(rm:*)"]}}` {
		t.Fatalf("settings %s", b)
	}
	if !s.Has("deny", "Bash(rm:*)") || !s.Remove("deny", "Bash(rm:*)") || s.Remove("deny", "Bash(rm:*)") || s.Has("deny", "Bash(rm:*)") {
		t.Fatal("Remove")
	}
	if b, _ := json.Marshal(s.Settings()); string(b) != `{"permissions":{"allow":["Bash(ls:*)","Bash(touch:*)"],"deny":[]}}` {
		t.Fatalf("after remove %s", b)
	}
}

func TestFlagBase(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"permissions":{"deny":["Bash(curl:*)"]}}`), 0o644)
	tests := []struct {
		argv        []string
		allow, deny string
	}{
		{[]string{"claude", "-p"}, "", ""},
		{[]string{"claude", "--settings", `{"permissions":{"allow":["Bash(ls:*)"]}}`}, "Bash(ls:*)", ""},
		{[]string{"claude", "--settings=s.json"}, "", "Bash(curl:*)"},
		{[]string{"claude", "--settings", "missing.json"}, "", ""},
		{[]string{"claude", "--settings", "{bad"}, "", ""},
	}
	for _, tt := range tests {
		p := FlagBase(tt.argv, dir)
		if strings.Join(p.Allow, ",") != tt.allow || strings.Join(p.Deny, ",") != tt.deny {
			t.Errorf("FlagBase(%q) = %+v", tt.argv, p)
		}
	}
}

func TestSettingsEdit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".claude", "settings.local.json")
	// Created when missing.
	if err := Add(p, "deny", "Bash(rm:*)"); err != nil {
		t.Fatal(err)
	}
	if got, _ := Read(p); len(got.Deny) != 1 || got.Deny[0] != "Bash(rm:*)" {
		t.Fatalf("after Add: %+v", got)
	}
	// Other keys keep their values and places.
	os.Chmod(p, 0o600)
	os.WriteFile(p, []byte(`{"model":"m","env":{"A":"1"},"permissions":{"allow":["Bash(ls:*)"],"defaultMode":"plan"},"zzz":[1,2]}`), 0o600)
	if err := Add(p, "allow", "Bash(touch:*)"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(p, "allow", "Bash(ls:*)"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !(strings.Index(s, `"model"`) < strings.Index(s, `"env"`) && strings.Index(s, `"env"`) < strings.Index(s, `"permissions"`) && strings.Index(s, `"permissions"`) < strings.Index(s, `"zzz"`)) {
		t.Fatalf("order changed:\n%s", s)
	}
	perms := v["permissions"].(map[string]any)
	if perms["defaultMode"] != "plan" || len(perms["allow"].([]any)) != 1 || perms["allow"].([]any)[0] != "Bash(touch:*)" {
		t.Fatalf("permissions %v", perms)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// A malformed file is never rewritten.
	bad := []byte(`{"permissions": {"allow": ["Bash(ls:*)",]}}`)
	os.WriteFile(p, bad, 0o644)
	if err := Remove(p, "allow", "Bash(ls:*)"); err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Fatalf("malformed: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != string(bad) {
		t.Fatal("malformed file rewritten")
	}
	if _, err := Read(p); err == nil {
		t.Fatal("Read accepted a malformed file")
	}
	if err := Remove(filepath.Join(dir, "nope.json"), "allow", "X"); err == nil {
		t.Fatal("removing from a missing file succeeded")
	}
}

// A symlinked settings file (kept with the user's dotfiles) stays a
// symlink: its target gets the rule, other keys kept; the file keeps its
// indentation; a file that changed while the rule was saved is not
// written over.
func TestSettingsWriter(t *testing.T) {
	dir := t.TempDir()
	dots := filepath.Join(dir, "dotfiles", "settings.local.json")
	os.MkdirAll(filepath.Dir(dots), 0o755)
	os.WriteFile(dots, []byte("{\n\t\"env\": {\n\t\t\"KEEP\": \"1\"\n\t}\n}\n"), 0o600)
	link := filepath.Join(dir, "project", ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink("../../dotfiles/settings.local.json", link); err != nil {
		t.Fatal(err)
	}
	if err := Add(link, "deny", "Bash(rm:*)"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	want := "{\n\t\"env\": {\n\t\t\"KEEP\": \"1\"\n\t},\n\t\"permissions\": {\n\t\t\"deny\": [\n\t\t\t\"Bash(rm:*)\"\n\t\t]\n\t}\n}\n"
	if b, _ := os.ReadFile(dots); string(b) != want {
		t.Fatalf("target:\n%s", b)
	}
	if fi, _ := os.Stat(dots); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// A dangling link: the target is created.
	dangling := filepath.Join(dir, "d.json")
	os.Symlink(filepath.Join(dir, "made", "here.json"), dangling)
	os.MkdirAll(filepath.Join(dir, "made"), 0o755)
	if err := Add(dangling, "allow", "Read"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made", "here.json")); !strings.Contains(string(b), `"Read"`) {
		t.Fatalf("dangling target: %s", b)
	}
	// Four spaces stay four spaces.
	four := filepath.Join(dir, "four.json")
	os.WriteFile(four, []byte("{\n    \"model\": \"x\"\n}"), 0o644)
	Add(four, "allow", "Read")
	if b, _ := os.ReadFile(four); !strings.Contains(string(b), "\n    \"permissions\": {\n        \"allow\"") {
		t.Fatalf("indentation:\n%s", b)
	}
	// Changed meanwhile: nothing written, the other save kept.
	other := []byte(`{"model":"theirs"}`)
	err := edit(four, "deny", true, func() { os.WriteFile(four, other, 0o644) }, func(l []string) []string { return append(l, "X") })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("changed meanwhile: %v", err)
	}
	if b, _ := os.ReadFile(four); string(b) != string(other) {
		t.Fatalf("the other save was overwritten: %s", b)
	}
	created := filepath.Join(dir, "new", "settings.json")
	err = edit(created, "deny", true, func() { os.MkdirAll(filepath.Dir(created), 0o755); os.WriteFile(created, other, 0o644) }, func(l []string) []string { return append(l, "X") })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("created meanwhile: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(four)); len(ents) != 6 {
		for _, e := range ents {
			t.Log(e.Name())
		}
		t.Fatalf("temporary files left behind")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(npm test:*)", "WebFetch(domain:x)", "(", "A("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(r.String())
		if err != nil || again != r {
			t.Fatalf("Parse(%q) = %+v; round trip %+v %v", s, r, again, err)
		}
	})
}

// suggestionsOf decodes permission_suggestions as claude's messages are
// decoded ("" is none).
func suggestionsOf(t *testing.T, raw string) claude.Suggestions {
	t.Helper()
	if raw == "" {
		return nil
	}
	var s claude.Suggestions
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fieldsOf is a tool input's fields, as a request carries them.
func fieldsOf(raw string) toolcall.Fields { return toolcall.Decode(json.RawMessage(raw)).Fields }
