package e2e

import (
	"strings"
	"testing"
	"time"
)

// :ClaudeNova model completes the session's models and switches the running
// session; the next request to the model uses the new one. effort takes the
// model's levels; auto is a mode (claude's refusal is shown in its words).
func TestModelAndEffort(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		var names []string
		e.Lua(&names, "return vim.fn.getcompletion('ClaudeNova model ', 'cmdline')")
		for _, want := range []string{"default", "opus", "sonnet", "haiku"} {
			if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
				t.Fatalf("model completion %v lacks %s", names, want)
			}
		}
		e.Cmd("ClaudeNova model claude-haiku-9")
		e.Eventually(30*time.Second, "session on the new model", func() bool {
			for _, s := range e.Sessions() {
				if s["id"] == int64(sid) && s["model"] == "claude-haiku-9" {
					return true
				}
			}
			return false
		})
		before := len(e.Model.RequestLog())
		e.sendLua(sid, "which model")
		e.Eventually(60*time.Second, "answered", func() bool { return strings.Contains(e.Transcript(sid), "You said: which model") })
		log := e.Model.RequestLog()
		used := false
		for _, r := range log[before:] {
			if r.Model == "claude-haiku-9" && r.Stream {
				used = true
			}
		}
		if !used {
			t.Fatalf("the next request did not use the model: %+v", log[before:])
		}
		if !strings.Contains(e.Transcript(sid), "Model: claude-haiku-9") {
			t.Error("the switch is not in the transcript")
		}
		var levels []string
		e.Lua(&levels, "return vim.fn.getcompletion('ClaudeNova effort ', 'cmdline')")
		if !strings.Contains(strings.Join(levels, " "), "high") {
			t.Fatalf("effort completion %v", levels)
		}
		e.Cmd("ClaudeNova effort high")
		e.Eventually(20*time.Second, "effort noted", func() bool { return strings.Contains(e.Transcript(sid), "Effort: high") })
		var bad string
		e.Lua(&bad, "local ok, err = pcall(require('claudenova').set_effort, 'ludicrous'); return tostring(err)")
		if !strings.Contains(bad, `effort "ludicrous"`) {
			t.Errorf("a bad level: %q", bad)
		}
		var modes []string
		e.Lua(&modes, "return vim.fn.getcompletion('ClaudeNova mode ', 'cmdline')")
		if !strings.Contains(strings.Join(modes, " "), "auto") {
			t.Errorf("mode completion %v lacks auto", modes)
		}
	})
}

// :ClaudeNova usage shows what claude reports about the session.
func TestUsageFloat(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.startIdle("")
		e.Cmd("ClaudeNova usage")
		var lines []string
		e.Eventually(20*time.Second, "usage float", func() bool {
			e.Lua(&lines, "if vim.b.claudenova_surface ~= 'usage' then return {} end return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
			return len(lines) > 0
		})
		text := strings.Join(lines, "\n")
		for _, want := range []string{"Cost        $", "Model       ", "Plan limits none reported"} {
			if !strings.Contains(text, want) {
				t.Fatalf("usage lacks %q:\n%s", want, text)
			}
		}
	})
}
