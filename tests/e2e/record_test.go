package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The recordings the front end's unit tests replay (tests/lua/recordings):
// the event stream the host sent to Neovim in a real session (the real
// claude CLI, the fake model), batch by batch, with the run's folders made
// placeholders ({{project}}, {{storage}}, {{home}}). They are made again with
//
//	CLAUDENOVA_RECORD_FIXTURES=1 go test ./tests/e2e -run TestRecordFrontEndFixtures
//
// and otherwise this test does nothing.
func TestRecordFrontEndFixtures(t *testing.T) {
	if os.Getenv("CLAUDENOVA_RECORD_FIXTURES") == "" {
		t.Skip("set CLAUDENOVA_RECORD_FIXTURES=1 to record the front end's fixtures")
	}
	v := versions(t)[len(versions(t))-1]
	out := filepath.Join(root, "tests", "lua", "recordings")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// record runs one flow, in an Env with the options given (if any).
	record := func(name string, run func(e *Env), opts ...Options) {
		t.Run(name, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "stream.jsonl")
			var o Options
			if len(opts) > 0 {
				o = opts[0]
			}
			o.NvimEnv = append(o.NvimEnv, "CLAUDENOVA_RECORD="+rec)
			e := NewEnv(t, v, o)
			run(e)
			b, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			b = bytes.ReplaceAll(b, []byte(e.Project), []byte("{{project}}"))
			b = bytes.ReplaceAll(b, []byte(e.Storage), []byte("{{storage}}"))
			b = bytes.ReplaceAll(b, []byte(e.Home), []byte("{{home}}"))
			b = bytes.ReplaceAll(b, []byte(claudeBin(t)), []byte("claude"))
			b = bytes.ReplaceAll(b, []byte(filepath.Dir(e.Home)), []byte("{{base}}"))
			// A path cut short in a name ("SEQ [[… /tmp/TestRecord…") is
			// no longer the base whole: its start goes too.
			b = bytes.ReplaceAll(b, []byte(filepath.Join(os.TempDir(), "TestRecordFrontEndFixtures")), []byte("{{base}}"))
			if err := os.WriteFile(filepath.Join(out, name+".jsonl"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A command in the panel, answered, in a session named for people.
	record("bash", func(e *Env) {
		id := e.newSession(Seq(bash("touch hello.txt", "make a file"), Step("say", map[string]any{"text": "Made it."})))
		e.Lua(nil, "require('claudenova').rename('make a file', ...)", id)
		e.waitPanel()
		e.Input("a")
		e.WaitIdle(id)
	})
	// An edit: the proposal of a file, applied as it is.
	record("edit", appliedEdit)
	// Two sessions, one waiting on a command while the other streams.
	record("two", func(e *Env) {
		a := e.newSession(Seq(bash("touch a.txt", "first")))
		e.Lua(nil, "require('claudenova').rename('alpha', ...)", a)
		b := e.newSession("STREAM 30")
		e.Lua(nil, "require('claudenova').rename('bravo', ...)", b)
		e.WaitIdle(b)
		e.Eventually(10*time.Second, "alpha waits", func() bool { st, _ := e.SessionState(a); return st == "waiting" })
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.transcript').ensure(...), 0, -1, false)", b)
		if !strings.Contains(strings.Join(lines, "\n"), "chunk 000029") {
			t.Fatalf("bravo's transcript: %q", lines)
		}
	})
	// The views of a session after an applied edit: what the prompt
	// changed, the rules in effect, the MCP servers.
	record("views", func(e *Env) {
		e.WriteFile(".claude/settings.local.json", `{"permissions":{"allow":["Bash(git status:*)"],"deny":["Bash(rm -rf:*)"]}}`)
		appliedEdit(e)
		e.Cmd("ClaudeNova changes")
		e.Eventually(10*time.Second, "the changes view", func() bool { return vim(e, "return vim.b.claudenova_surface or ''") == "changes" })
		e.Cmd("tabclose")
		e.Cmd("ClaudeNova rules")
		e.Eventually(10*time.Second, "the rules view", func() bool { return vim(e, "return vim.bo.filetype") == "claudenova-rules" })
		e.Cmd("close")
		e.Cmd("ClaudeNova mcp")
		e.Eventually(10*time.Second, "the MCP view", func() bool { return strings.HasPrefix(vim(e, "return vim.bo.filetype"), "claudenova-mcp") })
		e.Cmd("close")
		// Who wrote each line of greet.py, and a comment on Claude's line.
		e.Cmd("edit greet.py")
		e.Cmd("ClaudeNova blame")
		e.Eventually(10*time.Second, "the blame signs", func() bool {
			return vim(e, "return tostring(#vim.fn.sign_getplaced(0, { group = '*' })[1].signs + #vim.api.nvim_buf_get_extmarks(0, -1, 0, -1, {}))") != "0"
		})
		e.Cmd("2")
		e.Cmd("ClaudeNova comment say hello with a comma")
		e.Eventually(10*time.Second, "the comment shown", func() bool {
			return vim(e, "return tostring(#vim.api.nvim_buf_get_extmarks(0, require('claudenova.surfaces.comments').ns, 0, -1, {}))") != "0"
		})
		e.Cmd("ClaudeNova comments")
		e.Eventually(10*time.Second, "the comments list", func() bool { return vim(e, "return vim.b.claudenova_surface or ''") == "comments" })
	})
	// Work under way: a checklist, a scheduled job and a background
	// command's output, in the sidebar and in the task's view.
	record("work", func(e *Env) {
		id := e.newSession(Seq(
			Step("TaskCreate", map[string]any{"subject": "tick three times", "description": "in the background"}),
			Step("TaskCreate", map[string]any{"subject": "say it is done", "description": "when it ends"}),
			Step("TaskUpdate", map[string]any{"taskId": "1", "status": "in_progress", "activeForm": "Ticking"}),
			Step("CronCreate", map[string]any{"cron": "*/5 * * * *", "prompt": "check the build", "recurring": true}),
			Step("Bash", map[string]any{"command": "for i in 1 2 3; do echo tick $i; done", "description": "tick three times", "run_in_background": true}),
		))
		e.Lua(nil, "require('claudenova').rename('tick along', ...)", id)
		tk := e.allowTask(id, "tick three times", func(x Task) bool { return x.Status != "running" })
		e.WaitIdle(id)
		e.Cmd("ClaudeNova sidebar")
		e.Lua(nil, "require('claudenova.surfaces.tasks').open(...)", tk.ID)
		e.Eventually(10*time.Second, "the task's output", func() bool { return strings.Contains(e.bufLines(0), "tick 3") })
	}, Options{ClaudeEnv: map[string]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}})
	// A question with two options, answered in the float picker.
	record("question", func(e *Env) {
		id := e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{
			question("Which library should parse the dates: the standard one or a faster one?", "Library", false, "time", "dateparse")}})))
		e.Lua(nil, "require('claudenova').rename('parse the dates', ...)", id)
		p := e.WaitPending(1)[0]
		if p.Surface != "question" {
			t.Fatalf("surface %q", p.Surface)
		}
	}, Options{Setup: map[string]any{"questions": map[string]any{"ui": "float"}}})
	// A plan to approve, in a session started in plan mode.
	record("plan", func(e *Env) {
		path := e.WriteFile("plan.txt", "alpha\n")
		id := e.newSession("--plan " + planSeq(e, path))
		e.Lua(nil, "require('claudenova').rename('plan the change', ...)", id)
		p := e.WaitPending(1)[0]
		if p.Surface != "plan" {
			t.Fatalf("surface %q", p.Surface)
		}
		e.Eventually(20*time.Second, "the plan open", func() bool { return e.PlanBuf(p.ID) != 0 })
	})
}

// appliedEdit runs a session that edits greet.py, and applies the proposal
// as it is.
func appliedEdit(e *Env) {
	e.WriteFile("greet.py", "def greet(name):\n    return \"hello \" + name\n")
	id := e.newSession(`SEQ [["Read", {"file_path": "{{cwd}}/greet.py"}], ` +
		`["Edit", {"file_path": "{{cwd}}/greet.py", "old_string": "\"hello \" + name", "new_string": "f\"hello {name}\""}, "An f-string reads better."]]`)
	e.Lua(nil, "require('claudenova').rename('tidy greet.py', ...)", id)
	_, buf := e.WaitProposal()
	focusBuf(e, buf)
	e.Cmd("write")
	e.WaitIdle(id)
}
