package rules

import (
	"encoding/json"
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

// The matching table checked against claude 2.1.328.
func TestBashMatches(t *testing.T) {
	cmds := []string{"touch a.txt", "touch", "touch a.txt b.txt", "touchy"}
	tests := []struct {
		rule string
		want []bool
	}{
		{"Bash(touch:*)", []bool{true, true, true, false}},
		{"Bash(touch *)", []bool{true, true, true, false}},
		{"Bash(touch)", []bool{false, true, false, false}},
		{"Bash(touch*)", []bool{true, true, true, true}},
		{"Bash(touch a.txt)", []bool{true, false, false, false}},
		{"Bash", []bool{true, true, true, true}},
	}
	for _, tt := range tests {
		r, _ := Parse(tt.rule)
		for i, c := range cmds {
			in, _ := json.Marshal(map[string]string{"command": c})
			if got := r.Matches("Bash", in, "/p"); got != tt.want[i] {
				t.Errorf("%s on %q = %v", tt.rule, c, got)
			}
		}
	}
	r, _ := Parse("Bash(rm:*)")
	for c, want := range map[string]bool{"rm x": true, "ls && rm x": false, "rm a; rm b": true, "echo rm": false} {
		in, _ := json.Marshal(map[string]string{"command": c})
		if got := r.Matches("Bash", in, "/p"); got != want {
			t.Errorf("Bash(rm:*) on %q = %v", c, got)
		}
	}
}

func TestPathAndDomainMatches(t *testing.T) {
	tests := []struct {
		rule, tool, key, value string
		want                   bool
	}{
		{"Edit(src/**)", "Edit", "file_path", "/p/src/a/b.go", true},
		{"Edit(src/*.go)", "Edit", "file_path", "/p/src/a/b.go", false},
		{"Read(//etc/**)", "Read", "file_path", "/etc/hostname", true},
		{"WebFetch(domain:example.com)", "WebFetch", "url", "https://docs.example.com/x", true},
		{"WebFetch(domain:example.com)", "WebFetch", "url", "https://example.org/x", false},
		{"Write", "Edit", "file_path", "/p/a", false},
	}
	for _, tt := range tests {
		r, _ := Parse(tt.rule)
		in, _ := json.Marshal(map[string]string{tt.key: tt.value})
		if got := r.Matches(tt.tool, in, "/p"); got != tt.want {
			t.Errorf("%s on %s %s = %v", tt.rule, tt.tool, tt.value, got)
		}
	}
}

func TestSessionChoice(t *testing.T) {
	tests := []struct {
		tool, suggestions, label string
		wide                     bool
	}{
		{"Bash", `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test *"}],"behavior":"allow","destination":"localSettings"}]`, "Bash(npm test *) this session", false},
		{"Edit", `[{"type":"setMode","mode":"acceptEdits","destination":"session"}]`, "accept all edits this session", false},
		{"Bash", ``, "every Bash call this session", true},
	}
	for _, tt := range tests {
		c := SessionChoice(tt.tool, json.RawMessage(tt.suggestions))
		if c.Label != tt.label || c.Wide != tt.wide {
			t.Errorf("%s %s: %+v", tt.tool, tt.suggestions, c)
		}
		b, _ := json.Marshal(c.Updates)
		if !strings.Contains(string(b), `"destination":"session"`) {
			t.Errorf("updates %s", b)
		}
	}
	if s := Suggested("Bash", json.RawMessage(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a.txt"}],"behavior":"allow"}]`)); s != "Bash(touch a.txt)" {
		t.Errorf("Suggested = %q", s)
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
