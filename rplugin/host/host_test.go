package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/app"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tuihook"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/neovim/go-client/nvim/plugin"
)

type sink struct{}

func (sink) Send(string, any) {}

// testHost is a Host around an app whose claudes are in memory.
func testHost(t *testing.T) (*Host, *[]*claudetest.Conn) {
	t.Helper()
	a := app.New(sink{}, nil)
	var conns []*claudetest.Conn
	a.UseStarter(func(cfg claude.Config, log *slog.Logger) (claude.Conn, error) {
		if cfg.Open != nil { // a TUI session
			return cfg.Open(cfg, log)
		}
		c := claudetest.New()
		conns = append(conns, c)
		return c, nil
	})
	t.Cleanup(a.Shutdown)
	tui := tuiRoom(a, nil)
	t.Cleanup(tui.Close)
	return &Host{App: a, tui: tui, log: slog.New(slog.DiscardHandler)}, &conns
}

func decodeReply(t *testing.T, s string) ui.Answer {
	t.Helper()
	var r ui.Answer
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("reply %q: %v", s, err)
	}
	return r
}

func TestCallRejectsBadInput(t *testing.T) {
	h := Register(plugin.New(nil), slog.New(slog.DiscardHandler))
	tests := []struct {
		args []string
		want string
	}{
		{nil, "takes a method name"},
		{[]string{"a", "b", "c", "d"}, "takes a method name"},
		{[]string{"no_such_method"}, `unknown method "no_such_method"`},
		{[]string{"decide", "{not json"}, "bad arguments"},
		{[]string{"new", `{"cwd": 12}`}, "bad arguments"},
	}
	for _, tt := range tests {
		out, err := h.request(tt.args)
		if err != nil {
			t.Fatalf("request(%q) returned an RPC error: %v", tt.args, err)
		}
		if r := decodeReply(t, out); r.OK || !strings.Contains(r.Error, tt.want) {
			t.Errorf("request(%q) = %+v, want an error with %q", tt.args, r, tt.want)
		}
	}
	out, err := h.request([]string{"version"})
	if r := decodeReply(t, out); err != nil || !r.OK || r.Result != Version {
		t.Errorf("version = %q, %v", out, err)
	}
}

// Every method of the table reaches the app with its arguments decoded.
func TestMethodTableWiring(t *testing.T) {
	// The TUI's socket in a folder of the test's (a short path: a socket's
	// is bounded).
	run, err := os.MkdirTemp("", "cnh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	t.Setenv("XDG_RUNTIME_DIR", run)
	h, conns := testHost(t)
	dir := t.TempDir()
	calls := []struct {
		method, payload string
		check           func(r ui.Answer) bool
	}{
		{"configure", `{"storage":"` + filepath.Join(dir, "st") + `"}`, func(r ui.Answer) bool { return r.OK }},
		{"new", `{"cwd":"` + dir + `","prompt":"hi"}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["id"] == float64(1)
		}},
		{"send", `{"session":1,"prompt":"again"}`, func(r ui.Answer) bool { return r.OK }},
		{"sessions", ``, func(r ui.Answer) bool { l, _ := r.Result.([]any); return r.OK && len(l) == 1 }},
		{"select", `{"session":1}`, func(r ui.Answer) bool { return r.OK }},
		{"transcript", `{"session":1}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			l, _ := m["lines"].([]any)
			return r.OK && len(l) > 0 && m["first"] == float64(0)
		}},
		{"pending", ``, func(r ui.Answer) bool { return r.OK }},
		{"mode", `{"session":1,"mode":"acceptEdits"}`, func(r ui.Answer) bool { return r.OK }},
		{"mode", `{"session":1,"mode":"bogus"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "unknown permission mode") }},
		{"interrupt", `{"session":1}`, func(r ui.Answer) bool { return r.OK }},
		{"present", `{"id":"1:none"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no longer pending") }},
		{"decide", `{"id":"1:none","behavior":"allow"}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["decided"] == false
		}},
		{"answer", `{"id":"1:none","answers":[]}`, func(r ui.Answer) bool { return !r.OK }},
		{"plan", `{"id":"1:none","approve":true}`, func(r ui.Answer) bool { return !r.OK }},
		{"proposal_saved", `{"id":"1:none"}`, func(r ui.Answer) bool { return r.OK }},
		{"proposal_wiped", `{"id":"1:none"}`, func(r ui.Answer) bool { return r.OK }},
		{"log", `{"level":"info","msg":"hello"}`, func(r ui.Answer) bool { return r.OK }},
		{"user_saved", `{"path":"/p/a.txt"}`, func(r ui.Answer) bool { return r.OK }},
		{"tool_reply", `{"token":"none","ok":true,"result":{}}`, func(r ui.Answer) bool { return r.OK }},
		{"tool_reply", `{"token":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "bad arguments") }},
		{"tool_output", `{"session":1,"line":0}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no cut tool result") }},
		{"rules", `{"session":1}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["session"] == float64(1)
		}},
		{"remove_rule", `{"rule":"Bash","behavior":"allow","source":"session","session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "has no allow rule Bash") }},
		{"elicit", `{"id":"1:nope","action":"decline"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no longer pending") }},
		{"rename", `{"session":1,"name":"fix the login test"}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && strings.Contains(fmt.Sprint(m["message"]), "fix the login test")
		}},
		{"commands", `{"session":1}`, func(r ui.Answer) bool { return r.OK }},
		{"resumable", `{"cwd":"` + dir + `"}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["sessions"] != nil
		}},
		{"checkpoints", `{"session":1,"token":"t1"}`, func(r ui.Answer) bool { return r.OK }},
		{"rewind", `{"session":1,"token":"t2"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "which checkpoint") }},
		{"changes", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "has not changed a file yet") }},
		{"undo_hunk", `{"session":1,"turn":"x","path":"/nope","hunk":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no turn") }},
		{"task_output", `{"id":"nope","token":"t3"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no such task: nope") }},
		{"stop_task", `{"id":"nope","token":"t4"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no such task: nope") }},
		{"task_at", `{"session":1,"line":0}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no task on this line") }},
		{"models", `{"session":1}`, func(r ui.Answer) bool { return r.OK }},
		{"set_model", `{"session":1,"model":"haiku"}`, func(r ui.Answer) bool { return r.OK }},
		{"set_effort", `{"session":1,"effort":"high"}`, func(r ui.Answer) bool { return r.OK }},
		{"usage", `{"session":1,"token":"t5"}`, func(r ui.Answer) bool { return r.OK }},
		{"queued", `{"session":1}`, func(r ui.Answer) bool { return r.OK }},
		{"cancel_queued", `{"id":"nope","token":"t6"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "not queued") }},
		{"steer", `{"session":1,"prompt":" "}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "empty prompt") }},
		{"forget", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "stop it first") }},
		{"complete", `{"session":1,"kind":"/","query":"co","token":1}`, func(r ui.Answer) bool { return r.OK }},
		{"complete", `{"session":1,"kind":"#","query":"x","token":2}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "kind must be @ or /") }},
		{"boundaries", ``, func(r ui.Answer) bool {
			l, _ := r.Result.([]any)
			return r.OK && len(l) == 1
		}},
		{"mcp", `{"session":1}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["session"] == float64(1)
		}},
		{"mcp_all", ``, func(r ui.Answer) bool { l, _ := r.Result.([]any); return r.OK && len(l) == 1 }},
		{"mcp_refresh", `{"session":1,"token":"t7"}`, func(r ui.Answer) bool { return r.OK }},
		{"mcp_reconnect", `{"session":1,"server":"docs","token":"t8"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, `no MCP server "docs"`) }},
		{"mcp_toggle", `{"session":1,"server":"","token":"t9"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "which MCP server") }},
		{"agents_refresh", ``, func(r ui.Answer) bool { return r.OK }},
		{"review_round", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "Claude has changed no file since") }},
		{"comment_add", `{"session":1,"path":"/elsewhere/x.go","from":1,"to":1,"text":"why"}`, func(r ui.Answer) bool {
			return !r.OK && strings.Contains(r.Error, "outside the session's folder")
		}},
		{"comment_edit", `{"session":1,"id":"nope","delete":true}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, `no comment "nope"`) }},
		{"comments", `{"session":1}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["round"] == float64(1)
		}},
		{"comments_move", `{"session":1,"moves":[{"id":"nope","from":2,"to":2}]}`, func(r ui.Answer) bool { return r.OK }},
		{"comments_send", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no comments to send") }},
		{"blame", `{"session":1,"path":"/nope/x.go","text":"a\nb\n"}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			return r.OK && m["known"] == false && m["yours"] == float64(2)
		}},
		{"provenance", `{"cwd":"/nope","rev":"HEAD","token":"t22"}`, func(r ui.Answer) bool { return r.OK }}, // its answer comes later: git
		{"provenance_push", `{"cwd":"/nope","token":"t23"}`, func(r ui.Answer) bool { return r.OK }},         // its answer comes later: git
		{"merge", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "has no worktree") }},
		{"branch_changes", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "has no worktree") }},
		{"compare", `{"session":1,"cwd":"/nope","token":"t20"}`, func(r ui.Answer) bool { return r.OK }}, // its answer comes later
		{"merge_remove", `{"session":1,"force":true}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "has no worktree") }},
		{"merge_branch", `{"branch":""}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "name the worktree's branch") }},
		{"merge_apply", `{"session":1}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "has no worktree") }},
		{"pr_draft", `{"session":1,"token":"t24"}`, func(r ui.Answer) bool { return r.OK }}, // its answer comes later: git
		{"pr_commit", `{"id":"nope","message":"x"}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no longer open") }},
		{"worktrees", `{"cwd":"/nope","token":"t21"}`, func(r ui.Answer) bool { return r.OK }}, // its answer comes later
		{"tui", `{"cwd":"` + dir + `","prompt":"hi"}`, func(r ui.Answer) bool {
			m, _ := r.Result.(map[string]any)
			argv := fmt.Sprint(m["argv"])
			env, _ := m["env"].(map[string]any)
			return r.OK && strings.Contains(argv, "--settings") && strings.HasSuffix(argv, "-- hi]") && env[tuihook.EnvToken] != nil
		}},
		{"sessions", ``, func(r ui.Answer) bool {
			l, _ := r.Result.([]any)
			tui, _ := l[len(l)-1].(map[string]any)
			return r.OK && len(l) == 2 && tui["kind"] == "tui"
		}},
		{"tui_running", `{"session":2,"pid":0}`, func(r ui.Answer) bool { return r.OK }},
		{"tui_exited", `{"session":2,"code":0}`, func(r ui.Answer) bool { return r.OK }},
		{"tui_exited", `{"session":2,"code":0}`, func(r ui.Answer) bool { return !r.OK && strings.Contains(r.Error, "no TUI session") }},
		{"stop", `{"session":1}`, func(r ui.Answer) bool { return r.OK }},
		{"shutdown", ``, func(r ui.Answer) bool { return r.OK }},
	}
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c.method] = true
		out, err := h.request([]string{c.method, c.payload})
		if err != nil {
			t.Fatalf("%s: RPC error %v", c.method, err)
		}
		if r := decodeReply(t, out); !c.check(r) {
			t.Errorf("%s %s: %+v", c.method, c.payload, r)
		}
	}
	var missing []string
	for m := range methods {
		if !seen[m] && m != "version" {
			missing = append(missing, m)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("methods without a wiring test: %v", missing)
	}
	if len(*conns) != 1 {
		t.Fatalf("%d claudes started", len(*conns))
	}
	var users []string
	for _, w := range (*conns)[0].Written() {
		if w.Type == "user" {
			users = append(users, w.Value["message"].(map[string]any)["content"].(string))
		}
	}
	if strings.Join(users, ",") != "hi,again" {
		t.Errorf("prompts written %v", users)
	}
	_ = os.Remove(dir)
}

// A tool call whose answer comes later (a language server's) gets it from
// the tool_reply notification, matched by its token.
func TestToolReplyReachesTheWaitingCall(t *testing.T) {
	h, _ := testHost(t)
	tokens := make(chan string, 1)
	h.tools = editortools.NewBridge(func(token, tool, args string, wait int) (string, error) {
		tokens <- token
		return "", nil // pending
	})
	got := make(chan string, 1)
	go func() {
		out, err := h.tools.Call(context.Background(), "lsp_hover", map[string]any{"path": "/a.go"})
		got <- fmt.Sprintf("%s %v", out, err)
	}()
	token := <-tokens
	h.notify([]string{"tool_reply", `{"token":"` + token + `","ok":true,"result":{"hover":["func f()"]}}`})
	select {
	case s := <-got:
		if s != `{"hover":["func f()"]} <nil>` {
			t.Fatalf("call returned %s", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call never got its reply")
	}
}

func TestManifestDeclaresTheEntryPoints(t *testing.T) {
	p := plugin.New(nil)
	Register(p, nil)
	m := string(p.Manifest(Name))
	for _, want := range []string{"'name': 'ClaudeNovaRequest', 'sync': 1", "'name': 'ClaudeNovaNotify', 'sync': 0"} {
		if !strings.Contains(m, want) {
			t.Errorf("manifest lacks %s:\n%s", want, m)
		}
	}
}

// Every call's reply is one mark in the stream, with the call's token:
// at once, or, for a call that waits on claude, when its work is done; an
// error found before that work starts is replied at once.
func TestEveryReplyIsOneMarkWithTheCallsToken(t *testing.T) {
	batches := make(chan string, 64)
	o := ui.NewOutbox(func(b string) error { batches <- b; return nil }, slog.New(slog.DiscardHandler))
	a := app.New(o, nil)
	a.UseStarter(func(claude.Config, *slog.Logger) (claude.Conn, error) { return claudetest.New(), nil })
	t.Cleanup(func() { a.Shutdown(); o.Close() })
	h := &Host{App: a, outbox: o, log: slog.New(slog.DiscardHandler)}
	dir := t.TempDir()
	for _, c := range []struct{ method, args, token string }{
		{"configure", `{"storage":"` + filepath.Join(dir, "st") + `"}`, "c1"},
		{"new", `{"cwd":"` + dir + `","prompt":"hi"}`, "c2"},
		{"checkpoints", `{"session":1}`, "c3"}, // later: its work runs
		{"task_output", `{"id":"nope"}`, "c4"}, // later, refused before its work
	} {
		out, err := h.request([]string{c.method, c.args, c.token})
		if err != nil {
			t.Fatalf("%s: RPC error %v", c.method, err)
		}
		if c.token == "" {
			if r := decodeReply(t, out); !r.OK {
				t.Errorf("%s without a token = %s", c.method, out)
			}
			continue
		}
		if out != `{"queued":true}` {
			t.Errorf("%s = %s, want it queued", c.method, out)
		}
	}
	marks := map[string]ui.Mark{}
	for _, m := range marksOf(t, batches, "c1", "c2", "c3", "c4") {
		marks[m.Token] = m
	}
	if m := marks["c3"]; !m.Reply.OK || m.Method != "checkpoints" {
		t.Errorf("checkpoints' reply %+v", m)
	}
	if m := marks["c4"]; m.Reply.OK || !strings.Contains(m.Reply.Error, "nope") || m.Method != "task_output" {
		t.Errorf("task_output's reply %+v", m)
	}
	// Without a token: replied in the call (not queued behind others, so
	// made once the session is there), never as a mark with a token taken
	// from its arguments: the marks up to the next call's have none.
	out, err := h.request([]string{"checkpoints", `{"session":1,"token":"x"}`, ""})
	if r := decodeReply(t, out); err != nil || !r.OK {
		t.Errorf("checkpoints without a token = %s %v", out, err)
	}
	if _, err := h.request([]string{"sessions", `{}`, "c5"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range marksOf(t, batches, "c5") {
		if m.Token == "x" {
			t.Error("a token in the arguments was used for the reply")
		}
	}
}

// A call whose work panics is answered with an error naming it, and the
// host goes on answering.
func TestAPanickingCallIsAnsweredAndTheHostGoesOn(t *testing.T) {
	batches := make(chan string, 64)
	o := ui.NewOutbox(func(b string) error { batches <- b; return nil }, slog.New(slog.DiscardHandler))
	t.Cleanup(o.Close)
	h := &Host{App: nil, outbox: o, log: slog.New(slog.DiscardHandler)} // no app: a handler that uses it panics
	t.Cleanup(h.Close)
	for _, c := range [][]string{{"sessions", `{}`, "c1"}, {"version", `{}`, "c2"}} {
		if out, err := h.request(c); err != nil || out != `{"queued":true}` {
			t.Fatalf("%s = %s %v", c[0], out, err)
		}
	}
	marks := map[string]ui.Mark{}
	for _, m := range marksOf(t, batches, "c1", "c2") {
		marks[m.Token] = m
	}
	if m := marks["c1"]; m.Reply.OK || !strings.Contains(m.Reply.Error, "sessions") {
		t.Errorf("the panicking call's reply %+v", m.Reply)
	}
	if m := marks["c2"]; !m.Reply.OK {
		t.Errorf("the next call's reply %+v", m.Reply)
	}
}

// marksOf reads the batches an outbox delivers until each of tokens has its
// reply (a mark), and returns every mark read, in the order they came. A
// token replied twice fails the test; a bound of 30 s catches a hang.
func marksOf(t *testing.T, batches <-chan string, tokens ...string) []ui.Mark {
	t.Helper()
	want := map[string]bool{}
	for _, tok := range tokens {
		want[tok] = true
	}
	var got []ui.Mark
	seen := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for have := 0; have < len(tokens); {
		select {
		case b := <-batches:
			var evs []struct {
				Name string  `json:"event"`
				Data ui.Mark `json:"data"`
			}
			if err := json.Unmarshal([]byte(b), &evs); err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if ev.Name != ui.EvMark {
					continue
				}
				if tok := ev.Data.Token; tok != "" && seen[tok] {
					t.Errorf("two replies for %s", tok)
				}
				seen[ev.Data.Token] = true
				got = append(got, ev.Data)
				if want[ev.Data.Token] {
					have++
				}
			}
		case <-deadline:
			t.Fatalf("replies %v, want %v", got, tokens)
		}
	}
	return got
}
