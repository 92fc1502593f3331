package mode

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	local := Setting{Path: "/p/.claude/settings.local.json"}
	project := Setting{Path: "/p/.claude/settings.json"}
	user := Setting{Path: "/h/.claude/settings.json"}
	with := func(s Setting, m string) Setting { s.Mode = m; return s }
	for _, tc := range []struct {
		name          string
		asked, option string
		settings      []Setting
		want, where   string
		bad           int
	}{
		{"nothing anywhere", "", "", []Setting{local, project, user}, Default, "claude-nova's default", 0},
		{"the user's settings", "", "", []Setting{local, project, with(user, AcceptEdits)}, AcceptEdits, user.Path, 0},
		{"local beats project and user", "", "", []Setting{with(local, Plan), with(project, AcceptEdits), with(user, Auto)}, Plan, local.Path, 0},
		{"the option beats the settings", "", DontAsk, []Setting{with(local, Plan)}, DontAsk, "the permission_mode option", 0},
		{"a flag beats everything", Plan, AcceptEdits, []Setting{with(local, Auto)}, Plan, "this session's flag", 0},
		{"a value claude does not know is skipped", "", "", []Setting{with(local, "yolo"), with(project, AcceptEdits)}, AcceptEdits, project.Path, 1},
		{"only bad values", "", "", []Setting{with(local, "yolo")}, Default, "claude-nova's default", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, bad := Resolve(tc.asked, tc.option, tc.settings)
			if src.Mode != tc.want || src.Where != tc.where || len(bad) != tc.bad {
				t.Fatalf("got %+v (bad %v), want %s from %s (%d bad)", src, bad, tc.want, tc.where, tc.bad)
			}
		})
	}
}

func TestGuard(t *testing.T) {
	g := NewGuard("")
	if g.Chosen() != Default {
		t.Fatalf("chosen %q", g.Chosen())
	}
	for _, tc := range []struct {
		mode string
		ok   bool
	}{{Default, true}, {Plan, true}, {"", true}, {Auto, false}, {AcceptEdits, false}, {BypassPermissions, false}, {DontAsk, false}} {
		if g.Allows(tc.mode) != tc.ok {
			t.Errorf("chosen default: Allows(%q) = %v", tc.mode, !tc.ok)
		}
	}
	// The user switches: the new mode is fine before claude confirms it,
	// and the old one until then too.
	g.Propose(AcceptEdits)
	if !g.Allows(AcceptEdits) || !g.Allows(Default) {
		t.Fatal("a proposed mode, or the chosen one, refused")
	}
	if !g.Report(AcceptEdits) || g.Chosen() != AcceptEdits {
		t.Fatalf("report of the proposed mode: chosen %q", g.Chosen())
	}
	if g.Allows(Default) {
		t.Fatal("the old mode is still allowed after the switch")
	}
	// A refused proposal is forgotten.
	g.Propose(Auto)
	g.Drop(Auto)
	if g.Allows(Auto) {
		t.Fatal("a dropped proposal allowed")
	}
	// Plan is never chosen by claude's report of it.
	if !g.Report(Plan) || g.Chosen() != AcceptEdits {
		t.Fatalf("plan changed the choice: %q", g.Chosen())
	}
	// One episode per mismatch.
	if !g.Fixing(Auto) || g.Fixing(Auto) {
		t.Fatal("Fixing twice in one episode")
	}
	g.Done()
	if !g.Fixing(Auto) {
		t.Fatal("a new episode after Done")
	}
}

func TestCheck(t *testing.T) {
	for _, m := range All {
		if Check(m) != nil {
			t.Errorf("%s refused", m)
		}
	}
	if err := Check("yolo"); err == nil || err.Error() != `unknown permission mode "yolo" (one of default, acceptEdits, plan, auto, bypassPermissions, dontAsk)` {
		t.Fatalf("%v", err)
	}
}

// The front end offers the same modes (completion, validation).
func TestModesAgreeWithTheFrontEnd(t *testing.T) {
	b, err := os.ReadFile("../../lua/claudenova/setup/config.lua")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`local modes = \{([^}]*)\}`).FindSubmatch(b)
	if m == nil {
		t.Fatal("config.lua has no modes list")
	}
	var lua []string
	for _, q := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(m[1], -1) {
		lua = append(lua, string(q[1]))
	}
	if strings.Join(lua, ",") != strings.Join(All, ",") {
		t.Fatalf("config.lua's modes %v, the host's %v", lua, All)
	}
}

func TestAnswered(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"mode":"acceptEdits"}`, true},
		{`{}`, true}, // an answer that names none
		{`not json`, true},
		{`{"mode":"default"}`, false},
	} {
		if err := Answered(json.RawMessage(c.body), "acceptEdits"); (err == nil) != c.ok {
			t.Errorf("Answered(%s): %v", c.body, err)
		}
	}
}
