package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/modes"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Every session is started with --permission-mode: the user's choice,
// never claude's default of the day.
func TestSessionStartsInTheChosenMode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		asked    string
		option   string
		settings map[string]string // file (under the project, or ~ for home) -> content
		want     string
		note     string // in the transcript ("" = none)
	}{
		{"nothing chosen", "", "", nil, "default", ""},
		{"the option", "", "acceptEdits", nil, "acceptEdits", "Permission mode: acceptEdits (the permission_mode option)."},
		{"the folder's local settings over the user's", "", "", map[string]string{
			".claude/settings.local.json": `{"permissions":{"defaultMode":"plan"}}`,
			"~/.claude/settings.json":     `{"permissions":{"defaultMode":"acceptEdits"}}`,
		}, "plan", "Permission mode: plan (permissions.defaultMode in .claude/settings.local.json)."},
		{"the user's settings", "", "", map[string]string{"~/.claude/settings.json": `{"permissions":{"defaultMode":"dontAsk"}}`}, "dontAsk",
			"Permission mode: dontAsk (permissions.defaultMode in ~/.claude/settings.json)."},
		{"the option over the settings", "", "default", map[string]string{".claude/settings.json": `{"permissions":{"defaultMode":"auto"}}`}, "default", ""},
		{"new --plan over everything", "plan", "acceptEdits", nil, "plan", "Permission mode: plan (this session's flag)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			cfgs := m.configs()
			m.configure(Options{PermissionMode: tc.option})
			for f, content := range tc.settings {
				p := filepath.Join(m.dir, f)
				if rest, ok := strings.CutPrefix(f, "~/"); ok {
					p = filepath.Join(m.env()["HOME"], rest)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			info, err := m.app.NewSession(NewParams{Cwd: m.dir, Mode: tc.asked})
			if err != nil {
				t.Fatal(err)
			}
			if got := (*cfgs)[0].PermissionMode; got != tc.want {
				t.Fatalf("--permission-mode %q, want %q", got, tc.want)
			}
			if info.Mode != tc.want {
				t.Fatalf("the session says %q", info.Mode)
			}
			if tc.note != "" {
				m.rec.wait(t, "the mode in the transcript", func([]ui.Event) bool {
					return strings.Contains(m.rec.transcriptText(info.ID), tc.note)
				})
			}
		})
	}
}

func TestUnknownModeInSettingsIsSaid(t *testing.T) {
	m := newMem(t)
	if err := os.MkdirAll(filepath.Join(m.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.write(".claude/settings.json", `{"permissions":{"defaultMode":"yolo"}}`)
	cfgs := m.configs()
	m.session("")
	if got := (*cfgs)[0].PermissionMode; got != "default" {
		t.Fatalf("--permission-mode %q", got)
	}
	m.rec.wait(t, "a warning", func([]ui.Event) bool {
		for _, n := range m.rec.notes() {
			if strings.Contains(n, `.claude/settings.json: permissions.defaultMode "yolo" is not a mode claude knows; sessions start in default`) {
				return true
			}
		}
		return false
	})
}

func status(c *claudetest.Conn, mode string) {
	c.PushJSON(map[string]any{"type": "system", "subtype": "status", "status": nil, "permissionMode": mode})
}

// barrier pushes a message after what the test pushed and waits until the
// app handled it: what came before it (in claude's order) was handled too.
func barrier(t *testing.T, m *mem, sid int, c *claudetest.Conn) {
	t.Helper()
	mark := fmt.Sprintf("barrier-%d", time.Now().UnixNano())
	c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": mark, "content": []any{
		map[string]any{"type": "text", "text": mark}}}})
	eventually(t, "the barrier handled", func() bool { return strings.Contains(m.rec.transcriptText(sid), mark) })
}

func modeRequests(c *claudetest.Conn) []string {
	var out []string
	for _, w := range c.Written() {
		if w.Subtype == "set_permission_mode" {
			req, _ := w.Value["request"].(map[string]any)
			out = append(out, req["mode"].(string))
		}
	}
	return out
}

// A mode claude reports that the user did not choose is set back at once,
// said loudly, and once per episode.
func TestModeMismatchIsSetBack(t *testing.T) {
	m := newMem(t)
	info, c := m.session("")
	status(c, "auto")
	if !c.Wait(5*time.Second, func([]claudetest.Written) bool { return len(modeRequests(c)) == 1 }) {
		t.Fatal("no set_permission_mode")
	}
	if got := modeRequests(c); got[0] != "default" {
		t.Fatalf("set back to %v", got)
	}
	m.rec.wait(t, "the warning", func([]ui.Event) bool {
		for _, n := range m.rec.notes() {
			if strings.Contains(n, "claude switched session 1 to auto by itself; you chose default (in auto claude's classifier runs tools without asking): setting it back") {
				return true
			}
		}
		return false
	})
	m.rec.wait(t, "the transcript", func([]ui.Event) bool {
		tx := m.rec.transcriptText(info.ID)
		return strings.Contains(tx, "**claude switched to auto by itself** (you chose default): set back; until then every tool asks you.")
	})
	// It worked: a later report of default is quiet, another switch is a
	// new episode.
	status(c, "default")
	status(c, "bypassPermissions")
	if !c.Wait(5*time.Second, func([]claudetest.Written) bool { return len(modeRequests(c)) == 2 }) {
		t.Fatalf("requests %v", modeRequests(c))
	}
}

// claude will not go back: the session is stopped, saying why.
func TestModeMismatchRefusedStopsTheSession(t *testing.T) {
	m := newMem(t)
	m.onControl = func(subtype string, _ map[string]any) (json.RawMessage, error) {
		if subtype == "set_permission_mode" {
			return nil, errors.New("Cannot set permission mode to default")
		}
		return json.RawMessage(`{}`), nil
	}
	info, c := m.session("")
	status(c, "bypassPermissions")
	m.rec.wait(t, "stopped", func([]ui.Event) bool {
		s, _ := m.app.sessions.Get(info.ID)
		return s.Stopping() || s.State() == session.StateExited
	})
	m.rec.wait(t, "why", func([]ui.Event) bool {
		return strings.Contains(m.rec.transcriptText(info.ID), "**Stopped:** claude would not go back to default, the mode you chose, from bypassPermissions (claude says: Cannot set permission mode to default)")
	})
}

// The user's own switches are no mismatch, whichever way claude reports
// them first; plan (claude's EnterPlanMode) is none either.
func TestUsersSwitchIsNoMismatch(t *testing.T) {
	m := newMem(t)
	release := make(chan struct{})
	m.onControl = func(subtype string, _ map[string]any) (json.RawMessage, error) {
		if subtype == "set_permission_mode" {
			<-release
			return json.RawMessage(`{"mode":"acceptEdits"}`), nil
		}
		return json.RawMessage(`{}`), nil
	}
	info, c := m.session("")
	if _, err := m.app.Rooms().Modes.Set(info.ID, "acceptEdits"); err != nil {
		t.Fatal(err)
	}
	// claude's status comes before its answer.
	status(c, "acceptEdits")
	status(c, "plan")
	status(c, "acceptEdits")
	close(release)
	eventually(t, "the switch", func() bool {
		s, _ := m.app.sessions.Get(info.ID)
		return s.Modes.Chosen() == "acceptEdits" && s.Mode() == "acceptEdits"
	})
	barrier(t, m, info.ID, c)
	if got := modeRequests(c); len(got) != 1 || got[0] != "acceptEdits" {
		t.Fatalf("mode requests %v (only the user's)", got)
	}
	for _, n := range m.rec.notes() {
		if strings.Contains(n, "by itself") {
			t.Fatalf("warned: %s", n)
		}
	}
	// Now default is the one claude may not switch to by itself.
	status(c, "default")
	if !c.Wait(5*time.Second, func([]claudetest.Written) bool { return len(modeRequests(c)) == 2 }) {
		t.Fatalf("requests %v", modeRequests(c))
	}
}

// A plan approved into a mode switches to it: the user chose it there.
func TestApprovedPlanModeIsNoMismatch(t *testing.T) {
	m := newMem(t)
	info, c := m.session("")
	status(c, "plan")
	c.Ask("p1", "ExitPlanMode", map[string]any{"plan": "1. x"}, map[string]any{"requires_user_interaction": true})
	p := m.waitPending(1)[0]
	if err := m.app.PlanDecide(PlanParams{ID: p.ID, Approve: true, Mode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	status(c, "acceptEdits")
	eventually(t, "acceptEdits chosen", func() bool {
		s, _ := m.app.sessions.Get(info.ID)
		return s.Modes.Chosen() == "acceptEdits"
	})
	barrier(t, m, info.ID, c)
	if got := modeRequests(c); len(got) != 0 {
		t.Fatalf("mode requests %v", got)
	}
}

// Our PreToolUse hook: a call in a mode the user chose runs as that mode
// says; in any other, claude must ask the user.
func TestModeHookAsksInAModeNotChosen(t *testing.T) {
	m := newMem(t)
	_, c := m.session("")
	pre := func(id, mode string) map[string]any {
		c.PushJSON(map[string]any{"type": "control_request", "request_id": id, "request": map[string]any{
			"subtype": "hook_callback", "callback_id": modes.Hook, "tool_use_id": "toolu_1",
			"input": map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1",
				"permission_mode": mode, "tool_input": map[string]any{"command": "touch x"}},
		}})
		return hookAnswer(t, c, id)
	}
	for _, ok := range []string{"default", "plan"} {
		if r := pre("h-"+ok, ok); len(r) != 0 {
			t.Fatalf("%s: %v", ok, r)
		}
	}
	r := pre("h-auto", "auto")
	out, _ := r["hookSpecificOutput"].(map[string]any)
	if out["permissionDecision"] != "ask" || !strings.Contains(out["permissionDecisionReason"].(string), "claude runs in auto, which you did not choose (you chose default)") {
		t.Fatalf("answer %v", r)
	}
	// ... and the mode is set back.
	if !c.Wait(5*time.Second, func([]claudetest.Written) bool { return len(modeRequests(c)) == 1 }) {
		t.Fatal("not set back")
	}
}

// eventually polls cond (for state no event announces).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A call that ran without asking the user says on its line what let it:
// claude's word (tool_result_meta), the mode, the rule and its file.
func TestUnaskedCallsSayWhatLetThemRun(t *testing.T) {
	m := newMem(t)
	if err := os.MkdirAll(filepath.Join(m.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.write(".claude/settings.local.json", `{"permissions":{"allow":["Bash(touch:*)"]}}`)
	m.configure(Options{PermissionMode: "acceptEdits"})
	info, c := m.session("")
	call := func(id, tool string, input map[string]any) {
		c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}}}})
	}
	result := func(id, reason string) {
		c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}},
			"tool_result_meta": []any{map[string]any{"id": id, "permission_decision": map[string]any{"decision": "accept", "source": "config", "reason_type": reason}}}})
	}
	call("t1", "Bash", map[string]any{"command": "rm -rf build"})
	result("t1", "subcommandResults")
	call("t2", "Bash", map[string]any{"command": "touch y"})
	result("t2", "subcommandResults")
	call("t3", "Read", map[string]any{"file_path": filepath.Join(m.dir, "a.txt")})
	result("t3", "mode")
	// Asked: nothing to say.
	call("t4", "Bash", map[string]any{"command": "make"})
	c.Ask("r4", "Bash", map[string]any{"command": "make"}, map[string]any{"tool_use_id": "t4"})
	p := m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Decision: approval.Decision{Behavior: approval.Allow}}); err != nil {
		t.Fatal(err)
	}
	c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "t4", "content": "ok"}}},
		"tool_result_meta": []any{map[string]any{"id": "t4", "permission_decision": map[string]any{"decision": "accept", "source": "user_temporary"}}}})
	m.rec.wait(t, "the lines", func([]ui.Event) bool {
		return strings.Contains(m.rec.transcriptText(info.ID), "`make` ✓")
	})
	tx := m.rec.transcriptText(info.ID)
	for _, want := range []string{
		"`rm -rf build` · unasked: acceptEdits mode ✓",
		"`touch y` · unasked: rule Bash(touch:*) (.claude/settings.local.json) ✓",
	} {
		if !strings.Contains(tx, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tx)
		}
	}
	if strings.Count(tx, "unasked") != 2 {
		t.Errorf("a read or an asked call is marked:\n%s", tx)
	}
}

// claude's answer to set_permission_mode names the mode it took ({mode}:
// 2.1.300, 2.1.328 and 2.1.332 answer it); one other than asked is a
// refusal: the user's switch says why not, a set back stops the session.
func TestModeAnswerNamesAnotherMode(t *testing.T) {
	for _, c := range []struct {
		name   string
		user   bool   // the user's switch (else claude switched by itself)
		answer string // claude's answer
		want   string // in a note (user) or the transcript (set back)
	}{
		{"the user's switch", true, `{"mode":"default"}`, "session 1 stays in default; claude says: claude answered mode default, not acceptEdits"},
		{"a set back", false, `{"mode":"auto"}`, "**Stopped:** claude would not go back to default, the mode you chose, from bypassPermissions (claude says: claude answered mode auto, not default)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMem(t)
			m.onControl = func(subtype string, _ map[string]any) (json.RawMessage, error) {
				if subtype == "set_permission_mode" {
					return json.RawMessage(c.answer), nil
				}
				return json.RawMessage(`{}`), nil
			}
			info, c2 := m.session("")
			if c.user {
				if _, err := m.app.Rooms().Modes.Set(info.ID, "acceptEdits"); err != nil {
					t.Fatal(err)
				}
				m.rec.wait(t, "why not", func([]ui.Event) bool {
					return slices.ContainsFunc(m.rec.notes(), func(n string) bool { return strings.Contains(n, c.want) })
				})
				s, _ := m.app.sessions.Get(info.ID)
				if s.Modes.Chosen() != "default" || s.Mode() != "default" {
					t.Fatalf("chosen %s, mode %s", s.Modes.Chosen(), s.Mode())
				}
				return
			}
			status(c2, "bypassPermissions")
			m.rec.wait(t, "stopped, saying why", func([]ui.Event) bool {
				return strings.Contains(m.rec.transcriptText(info.ID), c.want)
			})
		})
	}
}
