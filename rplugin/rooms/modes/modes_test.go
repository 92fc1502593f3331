package modes

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/unasked"
)

type notes struct {
	mu  sync.Mutex
	msg []string
}

func (n *notes) Send(name string, data any) {
	if name != ui.EvNotify {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.msg = append(n.msg, data.(map[string]any)["msg"].(string))
}

func room(t *testing.T, cfg string) (*Room, *notes) {
	t.Helper()
	n := &notes{}
	home := claude.Home{Dir: cfg, Global: filepath.Join(cfg, ".claude.json")}
	return New(desk.New(n, session.NewManager(), nil), Deps{
		ClaudeHome: func() claude.Home { return home },
		Home:       func() string { return cfg },
		AllowRules: func(*session.Session) []unasked.Rule { return nil },
		Stop:       func(int) { t.Error("a session was stopped") },
	}), n
}

func TestStartModeSaysWhereItCameFrom(t *testing.T) {
	cfg, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"permissions":{"defaultMode":"acceptEdits"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, n := room(t, cfg)
	for _, tc := range []struct {
		asked, option, mode, where string
	}{
		{"plan", "default", "plan", ""},
		{"", "default", "default", ""},
		{"", "", "acceptEdits", "permissions.defaultMode in ~/settings.json"},
	} {
		src := r.Start(tc.asked, tc.option, cwd)
		if src.Mode != tc.mode || (tc.where != "" && src.Where != tc.where) {
			t.Errorf("Start(%q, %q) = %+v, want %s from %q", tc.asked, tc.option, src, tc.mode, tc.where)
		}
	}
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"permissions":{"defaultMode":"yolo"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if src := r.Start("", "", cwd); src.Mode != "default" || len(n.msg) != 1 || !strings.Contains(n.msg[0], `"yolo" is not a mode claude knows`) {
		t.Errorf("a bad defaultMode: %+v, told %q", src, n.msg)
	}
}

func TestTheChosenModeRunsAsItSays(t *testing.T) {
	r, _ := room(t, t.TempDir())
	s := session.New(1, t.TempDir(), "acceptEdits", nil)
	for _, m := range []string{"", "acceptEdits"} {
		if got := r.HookAnswer(s, claude.HookInput{Event: "PreToolUse", ToolName: "Edit", PermissionMode: m}); len(got) != 0 {
			t.Errorf("mode %q: %v, want no decision", m, got)
		}
	}
	if _, err := r.Set(1, "sudo"); err == nil {
		t.Error("an unknown mode was taken")
	}
}

func TestAVersionOutsideTheWindowIsToldOnce(t *testing.T) {
	r, n := room(t, t.TempDir())
	for i := range 3 {
		r.CheckVersion(session.New(i+1, t.TempDir(), "", nil), "1.0.0")
	}
	if len(n.msg) != 1 || !strings.Contains(n.msg[0], "claude 1.0.0 is older than claude-nova supports") {
		t.Errorf("told %q", n.msg)
	}
}
