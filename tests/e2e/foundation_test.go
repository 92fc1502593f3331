package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// newSession runs `:ClaudeNova new` and returns the session id.
func (e *Env) newSession(args string) int {
	e.t.Helper()
	e.Cmd("ClaudeNova new " + args)
	var id int
	e.Lua(&id, "return require('claudenova.store.state').current or 0")
	if id == 0 {
		e.t.Fatalf("no session started; notes: %v", e.Notes())
	}
	return id
}

func TestHelloTranscript(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) { helloTranscript(t, v, Options{}) })
}

// helloTranscript is TestHelloTranscript with options o (the jobstart smoke set runs it too).
func helloTranscript(t *testing.T, v nvimVersion, o Options) {
	e := NewEnv(t, v, o)
	start := e.curBufName()
	// new without a prompt opens the prompt input; the user types.
	id := e.newSession("")
	e.Eventually(5*time.Second, "prompt input", func() bool { return strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
	e.WaitMode("i")
	e.Input("hello   spaced  out<C-s>")
	e.Eventually(60*time.Second, "assistant reply in the transcript", func() bool {
		return strings.Contains(e.Transcript(id), "You said: hello   spaced  out")
	})
	tr := e.Transcript(id)
	for _, want := range []string{"## You", "hello", "## Claude", "done ·"} {
		if !strings.Contains(tr, want) {
			e.Eventually(10*time.Second, "transcript has "+want, func() bool { return strings.Contains(e.Transcript(id), want) })
		}
	}
	// The transcript never took the cursor: it is back where the user was.
	if name := e.curBufName(); name != start {
		t.Errorf("focus moved to %q", name)
	}
	// Five more sessions: still one transcript window in the tab.
	for i := 0; i < 5; i++ {
		e.newSession("again")
	}
	var n int
	e.Lua(&n, `local n = 0
		for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
			if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session then n = n + 1 end
		end
		return n`)
	if n != 1 {
		t.Fatalf("%d transcript windows in the tab", n)
	}
}

func TestTwoSessionsKeepTheirOwnTranscripts(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a := e.newSession("alpha-one")
		b := e.newSession("bravo-two")
		if a == b {
			t.Fatalf("same session id %d", a)
		}
		e.Eventually(60*time.Second, "both replies", func() bool {
			return strings.Contains(e.Transcript(a), "You said: alpha-one") && strings.Contains(e.Transcript(b), "You said: bravo-two")
		})
		if strings.Contains(e.Transcript(a), "bravo") || strings.Contains(e.Transcript(b), "alpha") {
			t.Errorf("transcripts mixed:\nA:\n%s\nB:\n%s", e.Transcript(a), e.Transcript(b))
		}
	})
}

func TestStopLeavesNoProcess(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		id := e.newSession("hi")
		e.Eventually(60*time.Second, "reply", func() bool { return strings.Contains(e.Transcript(id), "You said: hi") })
		if len(e.ClaudePids()) == 0 {
			t.Fatal("no claude process found while the session runs")
		}
		e.Cmd("ClaudeNova stop")
		e.Eventually(10*time.Second, "claude gone", func() bool { return len(e.ClaudePids()) == 0 })
		e.Eventually(10*time.Second, "session exited", func() bool {
			st, _ := e.SessionState(id)
			return st == "exited"
		})
	})
}

func TestInterruptAndResume(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		id := e.newSession("hello there")
		e.WaitIdle(id)
		var claudeID string
		e.Lua(&claudeID, "return require('claudenova.store.state').sessions[...].claude_id", id)
		if claudeID == "" {
			t.Fatal("no claude session id")
		}
		e.Cmd("ClaudeNova send SLOW 60000")
		e.Eventually(30*time.Second, "turn running", func() bool {
			st, _ := e.SessionState(id)
			return st == "running"
		})
		// The SLOW request reached the model (it would answer a minute later).
		e.Eventually(30*time.Second, "the slow request at the model", func() bool {
			for _, r := range e.Model.RequestLog() {
				if r.Kind == "slow" {
					return true
				}
			}
			return false
		})
		e.Cmd("ClaudeNova interrupt")
		e.Eventually(45*time.Second, "turn ended by interrupt", func() bool {
			st, _ := e.SessionState(id)
			return st == "idle" && strings.Contains(e.Transcript(id), "Interrupted")
		})
		if strings.Contains(e.Transcript(id), "slow done") {
			t.Fatal("the slow turn completed despite the interrupt")
		}
		e.Cmd("ClaudeNova stop")
		e.Eventually(10*time.Second, "stopped", func() bool { return len(e.ClaudePids()) == 0 })

		e.Cmd("ClaudeNova resume " + claudeID)
		var rid int
		e.Lua(&rid, "return require('claudenova.store.state').current")
		if rid == id {
			t.Fatal("resume did not start a new session")
		}
		e.Cmd("ClaudeNova send again")
		e.Eventually(60*time.Second, "resumed reply", func() bool { return strings.Contains(e.Transcript(rid), "You said: again") })
		var got string
		e.Lua(&got, "return require('claudenova.store.state').sessions[...].claude_id", rid)
		if got != claudeID {
			t.Errorf("resumed session id %q, want %q", got, claudeID)
		}
	})
}

func TestWrongCommandIsNamed(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Claude: "no-such-claude-xyz --flag", NoModel: true})
		_ = e.CmdErr("ClaudeNova new hi")
		e.Eventually(10*time.Second, "error naming the command", func() bool {
			return e.NoteContaining("no-such-claude-xyz") && e.NoteContaining("not found")
		})
	})
}

func TestClaudeExitingEarlyIsReported(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		script := writeScript(t, `{"start":"immediate"}`, `{"stderr":"Invalid API key · Please run /login"}`, `{"exit":1}`)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		_ = e.CmdErr("ClaudeNova new hi")
		e.Eventually(15*time.Second, "one-line error with what claude said", func() bool {
			return e.NoteContaining("exited unexpectedly") && e.NoteContaining("Invalid API key")
		})
		// The transcript keeps the whole story, command line included.
		e.Eventually(5*time.Second, "command line in the transcript", func() bool {
			return strings.Contains(e.Transcript(1), filepath.Base(fakeClaudePath)+" -p")
		})
	})
}

func TestMalformedLineIsSkipped(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		script := writeScript(t,
			`{"raw":"this is { not json"}`,
			`{"raw":"{\"no_type\":1}"}`,
			`{"emit":{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"still alive"}]}}}`,
			`{"result":{}}`,
		)
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		id := e.newSession("go")
		e.Eventually(15*time.Second, "text after the malformed line", func() bool { return strings.Contains(e.Transcript(id), "still alive") })
		e.Eventually(5*time.Second, "malformed line logged", func() bool { return strings.Contains(e.LogText(), "skipped malformed line") })
	})
}

// ask is a fake claude step asking permission for tool with input.
func ask(tool, requestID string, input map[string]any) string {
	a := map[string]any{"tool_name": tool, "input": input}
	if requestID != "" {
		a["request_id"] = requestID
	}
	b, _ := json.Marshal(map[string]any{"ask": a})
	return string(b)
}

// writeScriptAt writes a fake claude script to path (before claude starts).
func writeScriptAt(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeScript writes a fake claude script (JSON Lines) and returns its path.
func writeScript(t *testing.T, lines ...string) string {
	t.Helper()
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("bad script line %s", l)
		}
	}
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestManifestMatchesBinary(t *testing.T) {
	out, err := exec.Command(filepath.Join(root, "bin", "claudenova"), "-manifest", "claudenova").Output()
	if err != nil {
		t.Fatalf("claudenova -manifest: %v (run make first)", err)
	}
	checked, err := os.ReadFile(filepath.Join(root, "rplugin", "manifest.vim"))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(checked) {
		t.Fatalf("rplugin/manifest.vim drifted from the binary; run `make manifest`.\nbinary:\n%s\nchecked in:\n%s", out, checked)
	}
}

func TestVersionsAgree(t *testing.T) {
	out, err := exec.Command(filepath.Join(root, "bin", "claudenova"), "-version").Output()
	if err != nil {
		t.Fatal(err)
	}
	lua, _ := os.ReadFile(filepath.Join(root, "lua", "claudenova", "core", "version.lua"))
	m := regexp.MustCompile(`"([^"]+)"`).FindSubmatch(lua)
	if m == nil || strings.TrimSpace(string(out)) != string(m[1]) {
		t.Fatalf("host version %q, lua version %q", strings.TrimSpace(string(out)), m)
	}
}

func TestSetupValidation(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true, NoSetup: true})
		cases := []struct{ opts, want string }{
			{`{review_edits = "yes"}`, `option 'review_edits' must be one of "proposal", "panel"`},
			{`{cmd = 42}`, `option 'cmd' must be a string, got number`},
			{`{sidebar = {width = "wide"}}`, `option 'sidebar.width' must be a number`},
			{`{keymaps = {sidebar = {allow = 1}}}`, `option 'keymaps.sidebar.allow' must be a string or false`},
			{`{args = {1}}`, `option 'args[1]' must be a string`},
			{`{env = {FOO = 1}}`, `option 'env' must map strings to strings`},
			{`"nope"`, `setup() takes a table`},
			{`{download = true}`, `option 'download' must be a table or false, got boolean`},
			{`{download = {url = ""}}`, `option 'download.url' must not be empty`},
			{`{notify_away = {command = {}}}`, `option 'notify_away.command' must name a command`},
			{`{notify_away = {command = "notify-send"}}`, `option 'notify_away.command' must be a list`},
			{`{worktree = {setup = 1}}`, `option 'worktree.setup' must be a list of commands or a script's path, got number`},
			{`{worktree = {setup = {"npm ci", 2}}}`, `option 'worktree.setup[2]' must be a string`},
			{`{worktree = {copy = {"../secrets"}}}`, `option 'worktree.copy' must list patterns relative to the project's top folder`},
			{`{worktree = {setup_timeout = 0}}`, `option 'worktree.setup_timeout' must be more than 0`},
		}
		for _, c := range cases {
			var msg string
			e.Lua(&msg, `local ok, err = pcall(require('claudenova').setup, assert(loadstring("return "..(...)))())
				return ok and "" or tostring(err)`, c.opts)
			if !strings.Contains(msg, c.want) {
				t.Errorf("setup(%s): error %q, want it to contain %q", c.opts, msg, c.want)
			}
		}
		var warned bool
		e.Lua(&warned, `require('claudenova').setup({ colour = 1 })
			for _, n in ipairs(_G.claudenova_test.notes) do
				if n.msg:find("unknown option 'colour'", 1, true) then return true end
			end
			return false`)
		if !warned {
			t.Error("unknown option did not warn")
		}
		// false is short for turning a table of switches off.
		var off []any
		e.Lua(&off, `local cfg = require('claudenova').setup({ download = false, notify_away = false })
			return { cfg.download.enabled, cfg.download.url ~= "", cfg.notify_away.terminal, cfg.notify_away.bell, cfg.notify_away.command == nil }`)
		if fmt.Sprint(off) != "[false true false false true]" {
			t.Errorf("download = false, notify_away = false give %v", off)
		}
	})
}

func TestHealth(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true})
		e.Cmd("checkhealth claudenova")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		text := strings.Join(lines, "\n")
		out, err := exec.Command(claudeBin(t), "--version").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Neovim 0.1", "host binary", "claude: " + strings.TrimSpace(string(out)), "storage is writable"} {
			if !strings.Contains(text, want) {
				t.Errorf("health output lacks %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "ERROR") {
			t.Errorf("health reports an error:\n%s", text)
		}
	})
}

// :checkhealth names the supported window of claude versions: ok inside,
// a warning naming both ends and how to update for an older claude, a word
// (not a warning) for a newer one.
func TestHealthNamesTheWindow(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		for _, tc := range []struct {
			said       string
			want, nots []string
		}{
			{"2.0.0 (Claude Code)", []string{"WARNING claude: 2.0.0 (Claude Code) (", "is older than claude-nova supports (2.1.263 to 2.1.332)",
				"npm install -g @anthropic-ai/claude-code"}, []string{"OK claude:"}},
			{"2.1.250 (Claude Code)", []string{"is older than claude-nova supports (2.1.263 to 2.1.332)"}, nil},
			{"2.1.332 (Claude Code)", []string{"OK claude: 2.1.332 (Claude Code)", "supported claude versions: 2.1.263 to 2.1.332"}, []string{"WARNING claude"}},
			{"2.1.263 (Claude Code)", []string{"OK claude: 2.1.263 (Claude Code)"}, []string{"WARNING claude"}},
			{"2.1.262 (Claude Code)", []string{"is older than claude-nova supports (2.1.263 to 2.1.332)"}, nil},
			{"2.1.400 (Claude Code)", []string{"OK claude: 2.1.400 (Claude Code)", "claude 2.1.400 is newer than claude-nova was tested with (2.1.263 to 2.1.332); it is expected to work"},
				[]string{"WARNING claude"}},
		} {
			e := NewEnv(t, v, Options{NoModel: true})
			script := e.WriteFile("claude-"+strings.Fields(tc.said)[0], "#!/bin/sh\necho '"+tc.said+"'\n")
			if err := os.Chmod(script, 0o755); err != nil {
				t.Fatal(err)
			}
			e.Lua(nil, `require('claudenova').setup({ cmd = ... })`, script)
			e.Cmd("checkhealth claudenova")
			var lines []string
			e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
			text := strings.Join(lines, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s: health output lacks %q:\n%s", tc.said, w, text)
				}
			}
			for _, w := range tc.nots {
				if strings.Contains(text, w) {
					t.Errorf("%s: health output has %q:\n%s", tc.said, w, text)
				}
			}
		}
	})
}

func TestStartupDoesNothingUntilUsed(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true, NoSetup: true})
		var loaded []string
		e.Lua(&loaded, `local out = {}
			for name in pairs(package.loaded) do
				if name:find("^claudenova") then table.insert(out, name) end
			end
			table.insert(out, vim.fn.exists(":ClaudeNova") == 2 and "cmd" or "nocmd")
			return out`)
		if len(loaded) != 1 || loaded[0] != "cmd" {
			t.Errorf("at startup: %v (want only the :ClaudeNova command, no module loaded)", loaded)
		}
	})
}

func TestHelpTags(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true, NoSetup: true})
		for _, tag := range []string{"claudenova", ":ClaudeNova", "claudenova-proposals", "claudenova-config", "ClaudeNovaRequestAdded", "claudenova-sessions", "claudenova-context", "hl-ClaudeNovaSessionExited", "claudenova-rewind", "claudenova-changes"} {
			if err := e.CmdErr("help " + tag); err != nil {
				t.Errorf(":help %s: %v", tag, err)
			}
		}
		// The checked-in tags file is what :helptags makes of the doc.
		tmp := t.TempDir()
		b, _ := os.ReadFile(filepath.Join(root, "doc", "claudenova.txt"))
		_ = os.WriteFile(filepath.Join(tmp, "claudenova.txt"), b, 0o644)
		e.Cmd("helptags " + tmp)
		want, _ := os.ReadFile(filepath.Join(tmp, "tags"))
		got, _ := os.ReadFile(filepath.Join(root, "doc", "tags"))
		if string(want) != string(got) {
			t.Error("doc/tags is stale: run `make helptags`")
		}
	})
}

func TestHighlightsAreDefaultLinksThatSurviveColorschemes(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true, NoSetup: true})
		e.Cmd("ClaudeNova") // first use, no setup() call
		e.Cmd("colorscheme default")
		var link string
		e.Lua(&link, "return vim.api.nvim_get_hl(0, { name = 'ClaudeNovaTool' }).link or ''")
		if link != "Function" {
			t.Fatalf("ClaudeNovaTool links to %q after a colorscheme change", link)
		}
		// default = true: a user's own definition wins.
		e.Lua(nil, "vim.api.nvim_set_hl(0, 'ClaudeNovaTool', { fg = '#ff0000' }); require('claudenova.setup.highlights').setup()")
		var fg int
		e.Lua(&fg, "return vim.api.nvim_get_hl(0, { name = 'ClaudeNovaTool' }).fg or 0")
		if fg != 0xff0000 {
			t.Fatalf("user highlight overridden: fg %x", fg)
		}
	})
}

// The generated sections of the help (commands, options) match the code.
func TestDocsAreGenerated(t *testing.T) {
	for _, v := range versions(t) {
		out, err := exec.Command(v.bin, "--headless", "-u", "NONE", "-i", "NONE", "-l", filepath.Join(root, "scripts", "gendocs.lua"), "--check").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", v.name, err, out)
		}
	}
}
