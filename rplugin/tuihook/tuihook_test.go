package tuihook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

const writeInput = `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default",` +
	`"hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/p/a.txt","content":"hi\n"},` +
	`"permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}`

// shortDir is a temp folder with a path short enough for a unix socket.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "tuih")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "s")
}

type hookRun struct {
	out, errOut bytes.Buffer
	done        chan int
}

// runHook runs the hook subcommand on input with env, in the background.
func runHook(env map[string]string, input string) *hookRun {
	h := &hookRun{done: make(chan int, 1)}
	go func() {
		h.done <- Run(context.Background(), strings.NewReader(input), &h.out, &h.errOut, func(k string) string { return env[k] })
	}()
	return h
}

func (h *hookRun) wait(t *testing.T) {
	t.Helper()
	select {
	case code := <-h.done:
		if code != 0 {
			t.Fatalf("hook exited %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("hook hangs")
	}
}

func next(t *testing.T, c *Conn) claude.Message {
	t.Helper()
	select {
	case m, ok := <-c.Messages():
		if !ok {
			t.Fatal("messages closed")
		}
		return m
	case <-time.After(20 * time.Second):
		t.Fatal("no message")
	}
	return claude.Message{}
}

func setup(t *testing.T) (*Server, *Conn, map[string]string) {
	t.Helper()
	srv, err := Listen(shortDir(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c := newConn([]string{"claude"}, "/p", "default", nil)
	t.Cleanup(func() { c.end(nil) })
	token, err := srv.Add(c)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c, map[string]string{EnvSocket: srv.Path(), EnvToken: token}
}

func TestHookWithoutAHostDecidesNothing(t *testing.T) {
	srv, _, env := setup(t)
	tests := []struct {
		name  string
		env   map[string]string
		input string
	}{
		{"no environment", nil, writeInput},
		{"no socket there", map[string]string{EnvSocket: filepath.Join(t.TempDir(), "none.sock"), EnvToken: "x"}, writeInput},
		{"a file, not a socket", map[string]string{EnvSocket: writeFile(t), EnvToken: "x"}, writeInput},
		{"wrong token", map[string]string{EnvSocket: srv.Path(), EnvToken: "not-the-token"}, writeInput},
		{"malformed input", env, `{"tool_name":`},
		{"another event", env, strings.Replace(writeInput, `"PermissionRequest"`, `"SessionStart"`, 1)},
		{"input not an object", env, strings.Replace(writeInput, `"tool_input":{"file_path":"/p/a.txt","content":"hi\n"}`, `"tool_input":"x"`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := runHook(tt.env, tt.input)
			h.wait(t)
			if h.out.Len() != 0 {
				t.Fatalf("printed a decision: %s", h.out.String())
			}
			if !strings.Contains(h.errOut.String(), "no decision") {
				t.Fatalf("stderr does not say why: %q", h.errOut.String())
			}
		})
	}
}

func writeFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHookGetsTheEditorsDecision(t *testing.T) {
	tests := []struct {
		name   string
		result claude.PermissionResult
		want   string
	}{
		{"allow with the user's text", claude.Allow(json.RawMessage(`{"file_path":"/p/a.txt","content":"mine\n"}`)),
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"file_path":"/p/a.txt","content":"mine\n"}}}}`},
		{"deny with a message", claude.Deny("not now"),
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not now"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, env := setup(t)
			c.Running(1 << 30) // no such process: never signalled here
			if m := next(t, c); m.Type != "system" || m.Subtype != "init" || m.System == nil || m.System.PermissionMode != "default" {
				t.Fatalf("first message %+v", m)
			}
			h := runHook(env, writeInput)
			m := next(t, c)
			if m.Type != "control_request" || m.Subtype != "can_use_tool" || m.Permission == nil {
				t.Fatalf("got %+v", m)
			}
			if m.Permission.ToolName != "Write" || !strings.Contains(string(m.Permission.Input), `"content":"hi\n"`) ||
				len(m.Permission.Suggestions) != 1 {
				t.Fatalf("request %+v", m.Permission)
			}
			if err := c.Respond(m.RequestID, tt.result); err != nil {
				t.Fatal(err)
			}
			h.wait(t)
			if got := strings.TrimSpace(h.out.String()); got != tt.want {
				t.Fatalf("printed %s\nwant    %s", got, tt.want)
			}
			if err := c.Respond(m.RequestID, tt.result); err == nil {
				t.Fatal("answered twice")
			}
		})
	}
}

func TestAHookThatGoesAwayWithdrawsItsRequest(t *testing.T) {
	_, c, env := setup(t)
	nc, err := net.Dial("unix", env[EnvSocket])
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(ask{Token: env[EnvToken], Input: json.RawMessage(writeInput)})
	if _, err := nc.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	m := next(t, c)
	if m.Subtype != "can_use_tool" {
		t.Fatalf("got %+v", m)
	}
	nc.Close() // the user answered in the terminal
	cancel := next(t, c)
	if cancel.Type != "control_cancel_request" || cancel.RequestID != m.RequestID {
		t.Fatalf("got %+v", cancel)
	}
	if err := c.Respond(m.RequestID, claude.Deny("late")); err == nil {
		t.Fatal("a withdrawn request was answered")
	}
}

func TestTheTUIEndingLeavesHooksWithoutADecision(t *testing.T) {
	_, c, env := setup(t)
	c.Running(0) // Neovim knew no pid
	c.Running(0) // told twice: once is enough
	if m := next(t, c); m.Subtype != "init" {
		t.Fatalf("got %+v", m)
	}
	h := runHook(env, writeInput)
	if m := next(t, c); m.Subtype != "can_use_tool" {
		t.Fatalf("got %+v", m)
	}
	c.Exited(1)
	h.wait(t)
	if h.out.Len() != 0 {
		t.Fatalf("printed %s", h.out.String())
	}
	for range c.Messages() {
	}
	if c.ExitErr() == nil {
		t.Fatal("exit 1 is no error")
	}
	// An error answer gives no decision either.
	_, c2, env2 := setup(t)
	h2 := runHook(env2, writeInput)
	m := next(t, c2)
	if err := c2.RespondError(m.RequestID, "unsupported"); err != nil {
		t.Fatal(err)
	}
	h2.wait(t)
	if h2.out.Len() != 0 {
		t.Fatalf("printed %s", h2.out.String())
	}
}

func TestArgvPassesModeHookAndPrompt(t *testing.T) {
	argv, err := Argv(claude.Config{Command: "npx claude", PermissionMode: "default", Args: []string{"--add-dir", "x"}, Worktree: "fix-it"},
		"/bin/claudenova", nil, "-do this")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(argv, "|")
	if !strings.HasPrefix(got, "npx|claude|--settings|") || !strings.Contains(got, "|--permission-mode|default|--worktree|fix-it|--add-dir|x|--|-do this") {
		t.Fatalf("argv %q", argv)
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(argv[3]), &settings); err != nil {
		t.Fatal(err)
	}
	pr := settings.Hooks["PermissionRequest"]
	if len(pr) != 1 || pr[0].Matcher != "*" || pr[0].Hooks[0].Command != "/bin/claudenova hook" {
		t.Fatalf("settings %s", argv[3])
	}
}

func TestSocketFolderMustBePrivate(t *testing.T) {
	d := shortDir(t)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(d, nil); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Fatalf("listened in a folder open to others: %v", err)
	}
}

func TestSocketFolderFitsASocketPath(t *testing.T) {
	long := "/" + strings.Repeat("x", 120)
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/7"}, "/run/user/7/claudenova"},
		{map[string]string{"XDG_RUNTIME_DIR": long, "TMPDIR": "/tmp/t"}, "/tmp/t/claudenova-"},
		{map[string]string{"XDG_RUNTIME_DIR": long, "TMPDIR": long}, "/tmp/claudenova-"},
		{nil, "/tmp/claudenova-"},
	}
	for _, tt := range tests {
		got := Dir(func(k string) string { return tt.env[k] })
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("Dir(%v) = %q, want %q…", tt.env, got, tt.want)
		}
	}
}

// FuzzServe: whatever a process sends the socket without the session's
// token, it gets no decision and no session hears of it.
func FuzzServe(f *testing.F) {
	f.Add([]byte(`{"token":"x","input":` + writeInput + "}\n"))
	f.Add([]byte("{\n"))
	f.Add([]byte(`{"token":"","input":null}` + "\n"))
	dir, err := os.MkdirTemp("", "tuif")
	if err != nil {
		f.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv, err := Listen(filepath.Join(dir, "s"), nil)
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	c := newConn(nil, "/p", "default", nil)
	defer c.end(nil)
	if _, err := srv.Add(c); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		nc, err := net.Dial("unix", srv.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_, _ = nc.Write(append(b, '\n'))
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, _ := io.ReadAll(nc)
		if len(got) != 0 {
			t.Fatalf("a decision for a stranger: %s", got)
		}
		select {
		case m := <-c.Messages():
			t.Fatalf("the session heard of it: %+v", m)
		default:
		}
	})
}

// notify sends a notice hook (PostToolUse, Stop…) and waits for it.
func notify(t *testing.T, env map[string]string, input string) {
	t.Helper()
	h := runHook(env, input)
	h.wait(t)
	if h.out.Len() != 0 {
		t.Fatalf("a notice printed %s", h.out.String())
	}
}

func TestDecidedInTheTerminalWithdraws(t *testing.T) {
	bash := func(event, cmd string) string {
		return `{"hook_event_name":"` + event + `","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`
	}
	_, c, env := setup(t)
	one := runHook(env, bash("PermissionRequest", "echo 1"))
	m1 := next(t, c)
	two := runHook(env, bash("PermissionRequest", "echo 2"))
	m2 := next(t, c)
	// echo 2 ran: the user allowed it in the terminal.
	notify(t, env, `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo 2"},"tool_response":{}}`)
	if m := next(t, c); m.Type != "control_cancel_request" || m.RequestID != m2.RequestID {
		t.Fatalf("got %+v, want %s withdrawn", m, m2.RequestID)
	}
	two.wait(t)
	if two.out.Len() != 0 {
		t.Fatalf("printed %s", two.out.String())
	}
	// echo 3 failed once allowed there: withdrawn too.
	three := runHook(env, bash("PermissionRequest", "echo 3"))
	m3 := next(t, c)
	notify(t, env, `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"echo 3"},"error":"exit 3"}`)
	if m := next(t, c); m.Type != "control_cancel_request" || m.RequestID != m3.RequestID {
		t.Fatalf("got %+v, want %s withdrawn", m, m3.RequestID)
	}
	three.wait(t)
	// The turn ended: nothing waits any more, the session is idle.
	notify(t, env, `{"hook_event_name":"Stop"}`)
	if m := next(t, c); m.Type != "control_cancel_request" || m.RequestID != m1.RequestID {
		t.Fatalf("got %+v, want %s withdrawn", m, m1.RequestID)
	}
	if m := next(t, c); m.Subtype != "session_state_changed" || m.System == nil || m.System.State != "idle" {
		t.Fatalf("got %+v, want idle", m)
	}
	one.wait(t)
	if err := c.Respond(m1.RequestID, claude.Allow(nil)); err == nil {
		t.Fatal("a request decided in the terminal was answered")
	}
	notify(t, env, `{"hook_event_name":"UserPromptSubmit","prompt":"go on\nand on"}`)
	// No title of its own: the host names an unnamed session after it.
	if m := next(t, c); m.Subtype != "prompt_typed" || m.System.Prompt != "go on\nand on" {
		t.Fatalf("got %+v, want the prompt (its turn begins)", m)
	}
	if m := next(t, c); m.Subtype != "session_state_changed" || m.System.State != "running" {
		t.Fatalf("got %+v, want running", m)
	}
	notify(t, env, `{"hook_event_name":"UserPromptSubmit","prompt":"later"}`)
	if m := next(t, c); m.Subtype != "prompt_typed" {
		t.Fatalf("got %+v, want the second prompt", m)
	}
}

func TestAnAllowedChangeTellsClaudeBesideItsResult(t *testing.T) {
	_, c, env := setup(t)
	h := runHook(env, writeInput)
	m := next(t, c)
	amended := json.RawMessage(`{"file_path":"/p/a.txt","content":"mine\n"}`)
	if err := c.Respond(m.RequestID, claude.Allow(amended)); err != nil {
		t.Fatal(err)
	}
	h.wait(t)
	post := runHook(env, `{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"content":"mine\n","file_path":"/p/a.txt"},"tool_response":{}}`)
	cb := next(t, c)
	id, in := claude.HookCallback(cb)
	if cb.Subtype != "hook_callback" || id != claude.ChangeHook || in.ToolUseID != m.RequestID || in.Event != "PostToolUse" {
		t.Fatalf("got %+v (%s, %+v)", cb, id, in)
	}
	note := map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PostToolUse", "additionalContext": "the user changed it"}}
	if err := c.RespondControl(cb.RequestID, note); err != nil {
		t.Fatal(err)
	}
	post.wait(t)
	if got := strings.TrimSpace(post.out.String()); got != `{"hookSpecificOutput":{"additionalContext":"the user changed it","hookEventName":"PostToolUse"}}` {
		t.Fatalf("printed %s", got)
	}
	// Then its result, as a stream-json claude's (the change is recorded
	// as any other).
	res := next(t, c)
	if tr := claude.ToolResultsOf(res); len(tr.Results) != 1 || tr.Results[0].ToolUseID != m.RequestID || string(tr.Structured) != `{}` {
		t.Fatalf("got %s", res.Raw)
	}
	// A change no request was asked for (a mode let it run): the host's
	// hook still answers, with no request's note; an empty answer prints
	// nothing.
	other := runHook(env, `{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/b.txt"},"tool_response":{}}`)
	cb = next(t, c)
	if _, in := claude.HookCallback(cb); in.ToolUseID != "" {
		t.Fatalf("tool_use_id %q", in.ToolUseID)
	}
	if err := c.RespondControl(cb.RequestID, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	other.wait(t)
	if other.out.Len() != 0 {
		t.Fatalf("printed %s", other.out.String())
	}
}

func TestSessionRulesTravelWithTheNextAllow(t *testing.T) {
	_, c, env := setup(t)
	apply := func(allow, deny []string) {
		t.Helper()
		ch, err := c.Begin("apply_flag_settings", map[string]any{"settings": map[string]any{
			"permissions": map[string]any{"allow": allow, "deny": deny}}})
		if err != nil {
			t.Fatal(err)
		}
		if r := <-ch; r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	decide := func(result claude.PermissionResult) string {
		t.Helper()
		h := runHook(env, writeInput)
		m := next(t, c)
		if err := c.Respond(m.RequestID, result); err != nil {
			t.Fatal(err)
		}
		h.wait(t)
		return strings.TrimSpace(h.out.String())
	}
	apply([]string{"Bash", "Bash(npm test:*)"}, []string{"Bash(rm:*)"})
	// A deny carries none (claude ignores them there): they wait.
	if got := decide(claude.Deny("no")); strings.Contains(got, "updatedPermissions") {
		t.Fatalf("a deny carried rules: %s", got)
	}
	want := `"updatedPermissions":[{"behavior":"allow","destination":"session","rules":[{"toolName":"Bash"},{"ruleContent":"npm test:*","toolName":"Bash"}],"type":"addRules"},` +
		`{"behavior":"deny","destination":"session","rules":[{"ruleContent":"rm:*","toolName":"Bash"}],"type":"addRules"}]`
	if got := decide(claude.Allow(nil)); !strings.Contains(got, want) {
		t.Fatalf("printed %s\nwant it to hold %s", got, want)
	}
	// Given once; a rule removed in the rules view leaves the TUI too.
	apply([]string{"Bash"}, []string{"Bash(rm:*)"})
	want = `"updatedPermissions":[{"behavior":"allow","destination":"session","rules":[{"ruleContent":"npm test:*","toolName":"Bash"}],"type":"removeRules"}]`
	if got := decide(claude.Allow(nil)); !strings.Contains(got, want) {
		t.Fatalf("printed %s\nwant it to hold %s", got, want)
	}
	if got := decide(claude.Allow(nil)); strings.Contains(got, "updatedPermissions") {
		t.Fatalf("rules given twice: %s", got)
	}
	if _, err := c.Begin("interrupt", nil); err == nil {
		t.Fatal("the TUI took a control request")
	}
}

func TestTwoTUIsEachGetTheirOwnAnswers(t *testing.T) {
	srv, c1, env1 := setup(t)
	c2 := newConn([]string{"claude"}, "/q", "default", nil)
	t.Cleanup(func() { c2.end(nil) })
	token2, err := srv.Add(c2)
	if err != nil {
		t.Fatal(err)
	}
	env2 := map[string]string{EnvSocket: srv.Path(), EnvToken: token2}
	h1 := runHook(env1, writeInput)
	h2 := runHook(env2, strings.Replace(writeInput, `"hi\n"`, `"two\n"`, 1))
	m1, m2 := next(t, c1), next(t, c2)
	if !strings.Contains(string(m2.Permission.Input), "two") || strings.Contains(string(m1.Permission.Input), "two") {
		t.Fatalf("requests crossed: %s / %s", m1.Permission.Input, m2.Permission.Input)
	}
	if err := c2.Respond(m2.RequestID, claude.Deny("second")); err != nil {
		t.Fatal(err)
	}
	if err := c1.Respond(m1.RequestID, claude.Deny("first")); err != nil {
		t.Fatal(err)
	}
	h1.wait(t)
	h2.wait(t)
	if !strings.Contains(h1.out.String(), `"first"`) || !strings.Contains(h2.out.String(), `"second"`) {
		t.Fatalf("answers crossed: %s / %s", h1.out.String(), h2.out.String())
	}
}
