package editor

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
)

func TestParseReadsTakesEverySource(t *testing.T) {
	cwd, home := "/work/proj", "/home/u"
	raw := `{"effective":{"permissions":{"additionalDirectories":["/shared"]}},
	 "sources":[
	  {"source":"userSettings","settings":{"permissions":{"allow":["Read(~/notes/**)"],"deny":["Read(./.env)"],"additionalDirectories":["/shared","/more"]}}},
	  {"source":"projectSettings","settings":{"permissions":{"deny":["Bash(rm:*)","Read(**/secret.txt)"]}}}
	 ]}`
	r, err := parseReads(json.RawMessage(raw), cwd, home)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.dirs) != 2 || r.dirs[0] != "/shared" || r.dirs[1] != "/more" {
		t.Errorf("dirs %q, want /shared and /more once each", r.dirs)
	}
	if len(r.rules.Allow) != 1 || len(r.rules.Deny) != 2 {
		t.Errorf("rules %+v: want 1 Read allow, 2 Read deny (the Bash rule is not one)", r.rules)
	}
	if _, err := parseReads(json.RawMessage(`{"sources":7}`), cwd, home); err == nil {
		t.Error("a malformed answer was read")
	}
}

func TestOfferedFollowsTheOption(t *testing.T) {
	off := false
	for _, tc := range []struct {
		o    ToolsOptions
		none bool
	}{
		{ToolsOptions{}, false},
		{ToolsOptions{Enabled: &off}, true},
	} {
		if got := len(Offered(tc.o)) == 0; got != tc.none {
			t.Errorf("Offered(%+v): none=%v", tc.o, got)
		}
		f := InitializeFields(tc.o)
		if _, has := f["sdkMcpServers"]; has == tc.none {
			t.Errorf("InitializeFields(%+v) = %v", tc.o, f)
		}
	}
}

func TestFolderPolicyWithoutSession(t *testing.T) {
	dir := t.TempDir()
	r := New(nil, func() Options { return Options{Home: t.TempDir()} }, nil)
	pol := r.FolderPolicy(nil, dir)
	if c := pol.Check(filepath.Join(dir, "a.go")); c.Place != boundary.Inside {
		t.Errorf("a file in the editor's folder: %+v", c)
	}
	if c := pol.Check(filepath.Join(t.TempDir(), "b.go")); c.Place == boundary.Inside {
		t.Errorf("a file elsewhere is inside: %+v", c)
	}
}
