package claude

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

// startInMode starts the fake claude with --permission-mode want; its
// initialize answer names the mode it says it runs in.
func startInMode(t *testing.T, want, script string) (*Process, string) {
	t.Helper()
	dir := t.TempDir()
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "fake.log")
	p, err := Start(Config{Command: fakeClaude, Dir: dir, PermissionMode: want, Spawner: NewSpawner(),
		Env: []string{"FAKECLAUDE_SCRIPT=" + sp, "FAKECLAUDE_LOG=" + logPath}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	return p, logPath
}

// received lists what the fake read, as type/subtype.
func received(logPath string) []string {
	var out []string
	for _, e := range testkit.ReadLog(logPath) {
		if e["t"] == "recv" {
			out = append(out, fmt.Sprint(e["type"], "/", e["subtype"]))
		}
	}
	return out
}

// A claude that starts in another mode than the one asked for (2.1.300's
// default was auto) is set back before the first prompt is written.
func TestStartModeSetBackBeforeThePrompt(t *testing.T) {
	p, logPath := startInMode(t, "default", `{"config":{"control":{"initialize":{"response":{"commands":[],"current_permission_mode":"auto"}}}}}`+"\n"+`{"result":true}`+"\n")
	if err := p.SendUser("", "first prompt"); err != nil {
		t.Fatal(err)
	}
	next(t, p, "result")
	if _, err := p.InitResponse(); err != nil {
		t.Fatal(err)
	}
	if got := p.ModeSetBack(); got != "auto" {
		t.Fatalf("ModeSetBack %q", got)
	}
	got := received(logPath)
	want := []string{"control_request/initialize", "control_request/set_permission_mode", "user/<nil>"}
	if len(got) < 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("claude read %v, want %v first", got, want)
	}
}

// A claude that will not switch gets no prompt at all.
func TestStartModeRefusedSendsNoPrompt(t *testing.T) {
	p, logPath := startInMode(t, "default", `{"config":{"control":{"initialize":{"response":{"commands":[],"current_permission_mode":"bypassPermissions"}},`+
		`"set_permission_mode":{"error":"Cannot leave bypassPermissions"}}}}`+"\n"+`{"result":true}`+"\n")
	if err := p.SendUser("", "first prompt"); err != nil {
		t.Fatal(err)
	}
	<-p.Initialized()
	_, err := p.InitResponse()
	var me *ModeError
	if !errors.As(err, &me) || me.Want != "default" || me.Got != "bypassPermissions" || me.Reason != "Cannot leave bypassPermissions" {
		t.Fatalf("InitResponse error %v", err)
	}
	_ = p.SendUser("", "second prompt")
	// Stopped (its queued lines written first, then its stdin closed):
	// once it exited, everything it read is in its log.
	p.Stop(2 * time.Second)
	for _, r := range received(logPath) {
		if r == "user/<nil>" {
			t.Fatalf("a prompt reached claude: %v", received(logPath))
		}
	}
}

// A claude in the mode asked for is not asked to switch.
func TestStartModeRightIsLeftAlone(t *testing.T) {
	p, logPath := startInMode(t, "acceptEdits", `{"config":{"control":{"initialize":{"response":{"commands":[],"current_permission_mode":"acceptEdits"}}}}}`+"\n"+`{"result":true}`+"\n")
	if err := p.SendUser("", "first prompt"); err != nil {
		t.Fatal(err)
	}
	next(t, p, "result")
	if p.ModeSetBack() != "" {
		t.Fatal("set back")
	}
	for _, r := range received(logPath) {
		if r == "control_request/set_permission_mode" {
			t.Fatalf("asked to switch: %v", received(logPath))
		}
	}
}

// stdinOf is a stdin that keeps what is written to it.
type stdinOf struct{ *syncWriter }

func (stdinOf) Close() error { return nil }

// The writer with a refused mode, a prompt and a stop all ready at once
// (the stop queued right after the refusal, before the writer ran): Go's
// select picks among ready cases at random, so the stop, which writes the
// held lines, could be taken before the refusal. Many rounds: a writer that
// lets one prompt out fails.
func TestRefusedModeDropsPromptsWhateverTheWriterTakesFirst(t *testing.T) {
	for round := 0; round < 200; round++ {
		in := stdinOf{&syncWriter{}}
		p := &Process{stdin: in, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			out: make(chan outLine, 4), initDone: make(chan struct{}), done: make(chan struct{})}
		p.refused.Store(true)
		close(p.initDone)
		p.out <- outLine{b: []byte("{\"type\":\"user\"}\n"), user: true}
		closed := make(chan struct{})
		p.out <- outLine{close: closed}
		go p.writeLoop()
		<-closed
		if got := in.String(); got != "" {
			t.Fatalf("round %d: claude read %q after refusing the mode", round, got)
		}
	}
}
