package e2e

import (
	"strings"
	"testing"
	"time"
)

// A session runs in the mode the user chose, never in claude's default of
// the day (2.1.300 started in auto: a scripted Bash ran with no request):
// the mode is passed explicitly, and a Bash is asked before it runs.
func TestSessionRunsInTheChosenMode(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		id := e.newSession(Seq(bash("touch unasked.txt", "touch a file")))
		p := e.WaitPending(1)[0]
		if p.Tool != "Bash" || p.Session != id {
			t.Fatalf("pending %+v", p)
		}
		if e.fileExists("unasked.txt") {
			t.Fatal("the command ran before it was allowed")
		}
		if _, mode := e.SessionState(id); mode != "default" {
			t.Fatalf("mode %q", mode)
		}
		var cmdline string
		e.Lua(&cmdline, "for _, s in ipairs(require('claudenova').sessions()) do if s.id == ... then return s.cmdline end end", id)
		if !strings.Contains(cmdline, "--permission-mode default") {
			t.Fatalf("claude was started without the mode: %s", cmdline)
		}
		e.Lua(nil, "require('claudenova').decide(..., 'deny')", p.ID)
		e.WaitIdle(id)
		if e.fileExists("unasked.txt") {
			t.Fatal("a denied command ran")
		}
	})
}

// A claude that starts in another mode than the one chosen (here: an
// argument of the user's that names auto after ours) is set back before
// the first prompt, and says so; the command is still asked.
func TestModeSetBackBeforeThePrompt(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"args": []string{"--permission-mode", "auto"}}})
		id := e.newSession(Seq(bash("touch unasked.txt", "touch a file")))
		p := e.WaitPending(1)[0]
		if p.Tool != "Bash" {
			t.Fatalf("pending %+v", p)
		}
		if e.fileExists("unasked.txt") {
			t.Fatal("the command ran unasked")
		}
		e.Eventually(10*time.Second, "the warning", func() bool {
			return e.NoteContaining("claude started in auto, not default; it was set to default, the mode you chose, before your prompt")
		})
		mustContain(t, "transcript", e.Transcript(id), "claude started in auto, not default")
		e.Lua(nil, "require('claudenova').decide(..., 'deny')", p.ID)
		e.WaitIdle(id)
	})
}

// The folder's settings choose the mode when the plugin's option does not;
// a call that then runs unasked says what let it.
func TestSettingsModeAndWhatLetACallRun(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Files: map[string]string{
			".claude/settings.json": `{"permissions":{"defaultMode":"acceptEdits"}}`,
		}})
		path := e.Project + "/made.txt"
		id := e.newSession(Seq(Step("Write", map[string]any{"file_path": path, "content": "made\n"}), bash("rm -f made.txt", "remove it")))
		e.WaitIdle(id)
		if n := e.requestsAdded(); n != 0 {
			t.Fatalf("%d requests in acceptEdits", n)
		}
		tr := e.Transcript(id)
		mustContain(t, "transcript", tr, "Permission mode: acceptEdits (permissions.defaultMode in .claude/settings.json).",
			"▸ Write made.txt · unasked: acceptEdits mode ✓", "▸ Bash `rm -f made.txt` · unasked: acceptEdits mode ✓")
	})
}
