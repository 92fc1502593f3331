package permissions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

func TestTheRulesOfAFolderWithoutSession(t *testing.T) {
	cwd, cfg := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(cwd, ".claude", "settings.local.json")
	if err := os.WriteFile(local, []byte(`{"permissions":{"allow":["Bash(go test:*)"],"deny":["Read(./.env)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{not json`), 0o644); err != nil {
		t.Fatal(err)
	}
	home := claude.Home{Dir: cfg, Global: filepath.Join(cfg, ".claude.json")}
	r := New(desk.New(nowhere{}, session.NewManager(), nil), func() claude.Home { return home }, func() string { return cfg })
	v, err := r.Rules(0, cwd)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Untrusted || v.ByClaude || v.Session != 0 {
		t.Errorf("view %+v: want the files' view, untrusted", v)
	}
	got := map[string]string{}
	for _, e := range v.Rules {
		got[e.Rule] = e.Behavior + " " + e.Source
	}
	if got["Bash(go test:*)"] != "allow localSettings" || got["Read(./.env)"] != "deny localSettings" {
		t.Errorf("rules %v", got)
	}
	var broken bool
	for _, f := range v.Files {
		broken = broken || (f.Source == "userSettings" && f.Exists && f.Error != "")
	}
	if !broken {
		t.Errorf("files %+v: the unreadable user settings are not named", v.Files)
	}

	for _, tc := range []struct {
		e    RuleEntry
		want string
	}{
		{RuleEntry{Rule: "Bash(x)", Behavior: "allow", Source: "flagSettings"}, "cannot be removed here"},
		{RuleEntry{Rule: "Bash(x)", Behavior: "allow", Source: "session", Session: 5}, "no session 5"},
		{RuleEntry{Rule: "Bash(nope)", Behavior: "allow", Source: "localSettings", Path: local}, "nope"},
	} {
		if err := r.RemoveRule(tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RemoveRule(%+v): %v, want %q", tc.e, err, tc.want)
		}
	}
}

func TestAllowRulesSayWhereEachLives(t *testing.T) {
	cwd, cfg := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"permissions":{"allow":["WebSearch"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	home := claude.Home{Dir: cfg, Global: filepath.Join(cfg, ".claude.json")}
	r := New(desk.New(nowhere{}, session.NewManager(), nil), func() claude.Home { return home }, func() string { return cfg })
	s := session.New(1, cwd, "", nil)
	r.Start(1, rules.Permissions{Allow: []string{"Bash(ls)"}})
	where := map[string]string{}
	for _, x := range r.AllowRules(s) {
		where[x.Rule] = x.Where
	}
	if where["Bash(ls)"] != "claude's --settings" || where["WebSearch"] != "~/settings.json" {
		t.Errorf("allow rules %v", where)
	}
	r.Forget(1)
	for _, x := range r.AllowRules(s) {
		if x.Rule == "Bash(ls)" {
			t.Error("a forgotten session's rules are still listed")
		}
	}
}
