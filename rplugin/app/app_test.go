package app

import (
	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

var fakeClaude string

func TestMain(m *testing.M) { testkit.MainWithFakeClaude(m, &fakeClaude) }

// recorder is a ui.Sink that keeps events.
type recorder struct {
	mu     sync.Mutex
	events []ui.Event
}

func (r *recorder) Send(name string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ui.Event{Name: name, Data: data})
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Name != ui.EvTranscript && e.Name != ui.EvSession {
			out = append(out, e.Name)
		}
	}
	return out
}

type fixture struct {
	t   *testing.T
	app *App
	rec *recorder
	log string
	dir string
}

func newFixture(t *testing.T, script ...string) *fixture {
	t.Helper()
	dir := t.TempDir()
	sp, log := filepath.Join(dir, "script.jsonl"), filepath.Join(dir, "fake.log")
	if err := os.WriteFile(sp, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	a := New(rec, nil)
	if err := a.Configure(Options{Cmd: fakeClaude, Storage: filepath.Join(dir, "storage"),
		Env: map[string]string{"FAKECLAUDE_SCRIPT": sp, "FAKECLAUDE_LOG": log}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	f := &fixture{t: t, app: a, rec: rec, log: log, dir: dir}
	if _, err := a.NewSession(NewParams{Prompt: "go", Cwd: dir}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) waitPending(n int) []RequestView {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if p := f.app.Pending(); len(p) >= n {
			return p
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatalf("waited for %d pending; events %v", n, f.rec.names())
	return nil
}

// answers returns the PermissionResults the fake claude received for id.
func (f *fixture) answers(id string) []map[string]any {
	var out []map[string]any
	for _, a := range testkit.AnswersFor(f.log, id) {
		out = append(out, a.Response)
	}
	return out
}

func (f *fixture) waitAnswers(id string, n int) []map[string]any {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if a := f.answers(id); len(a) >= n {
			return a
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatalf("no answer to %s", id)
	return nil
}

func TestRegisteredBeforeSurfacedAndAnsweredOnce(t *testing.T) {
	f := newFixture(t, `{"ask":{"tool_name":"Bash","request_id":"r1","input":{"command":"ls"}}}`)
	p := f.waitPending(1)[0]
	if got := f.rec.names(); len(got) < 2 || got[0] != ui.EvRequestAdded || got[1] != ui.EvPresent {
		t.Fatalf("events %v: the row must come before the surface", got)
	}
	if err := f.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow_session")}); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("deny")}); err != ErrNotPending {
		t.Fatalf("second decision: %v, want ErrNotPending", err)
	}
	a := f.waitAnswers("r1", 1)
	time.Sleep(100 * time.Millisecond)
	if n := len(f.answers("r1")); n != 1 {
		t.Fatalf("%d answers", n)
	}
	perms, _ := a[0]["updatedPermissions"].([]any)
	if a[0]["behavior"] != "allow" || len(perms) != 1 {
		t.Fatalf("answer %v", a[0])
	}
}

func TestSurfaceOnlyFlowsAreNotBypassed(t *testing.T) {
	f := newFixture(t,
		`{"ask":{"tool_name":"AskUserQuestion","request_id":"q1","requires_user_interaction":true,"input":{"questions":[{"question":"Which?","header":"H","multiSelect":true,"options":[{"label":"A"},{"label":"B"},{"label":"C"}]}]}}}`,
		`{"ask":{"tool_name":"ExitPlanMode","request_id":"p1","requires_user_interaction":true,"input":{"plan":"1. x"}}}`,
	)
	q := f.waitPending(1)[0]
	if q.Surface != "question" {
		t.Fatalf("surface %s", q.Surface)
	}
	// A bare allow from the sidebar re-presents instead of answering.
	if err := f.app.Decide(DecideParams{ID: q.ID, Via: "sidebar", Decision: decision("allow")}); err != nil {
		t.Fatal(err)
	}
	if len(f.app.Pending()) != 1 {
		t.Fatal("sidebar allow answered a question")
	}
	if err := f.app.Answer(q.ID, []QuestionAnswer{{Selected: []int{0, 2}, Other: "D"}}); err != nil {
		t.Fatal(err)
	}
	a := f.waitAnswers("q1", 1)[0]
	in, _ := a["updatedInput"].(map[string]any)
	if got := in["answers"].(map[string]any)["Which?"]; got != "A, C, D" {
		t.Fatalf("answers %v", in["answers"])
	}
	p := f.waitPending(1)[0]
	if p.Surface != "plan" || p.Plan != "1. x" {
		t.Fatalf("plan request %+v", p)
	}
	if err := f.app.PlanDecide(PlanParams{ID: p.ID, Approve: true, Mode: "plan"}); err == nil {
		t.Fatal("approved a plan into plan mode")
	}
	if err := f.app.PlanDecide(PlanParams{ID: p.ID, Approve: true, Mode: "acceptEdits", Plan: "1. x\n2. y"}); err != nil {
		t.Fatal(err)
	}
	a = f.waitAnswers("p1", 1)[0]
	in, _ = a["updatedInput"].(map[string]any)
	perms, _ := a["updatedPermissions"].([]any)
	if in["plan"] != "1. x\n2. y" || len(perms) != 1 || perms[0].(map[string]any)["mode"] != "acceptEdits" {
		t.Fatalf("plan answer %v", a)
	}
}

func TestWithdrawnRequestsAreNeverAnswered(t *testing.T) {
	f := newFixture(t,
		`{"ask_nowait":{"tool_name":"Bash","request_id":"c1","input":{"command":"ls"}}}`,
		`{"sleep_ms":200}`,
		`{"cancel":"c1"}`,
		`{"unknown_control":"mystery","wait":true,"timeout_ms":3000}`,
	)
	p := f.waitPending(1)[0]
	deadline := time.Now().Add(5 * time.Second)
	for len(f.app.Pending()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(f.app.Pending()) != 0 {
		t.Fatal("cancelled request still pending")
	}
	if err := f.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow")}); err != ErrNotPending {
		t.Fatalf("decide after cancel: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(f.answers("c1")); n != 0 {
		t.Fatalf("withdrawn request answered %d times", n)
	}
	b, _ := os.ReadFile(f.log)
	if !strings.Contains(string(b), "does not support control request mystery") {
		t.Fatal("unknown control request got no error response")
	}
}

func TestConfigureValidates(t *testing.T) {
	a := New(&recorder{}, nil)
	if err := a.Configure(Options{ReviewEdits: "sometimes"}); err == nil {
		t.Fatal("bad review_edits accepted")
	}
	if _, err := a.NewSession(NewParams{Mode: "yolo"}); err == nil || !strings.Contains(err.Error(), "unknown permission mode") {
		t.Fatalf("bad mode: %v", err)
	}
	if _, err := a.NewSession(NewParams{Cwd: "/definitely/not/here"}); err == nil {
		t.Fatal("missing cwd accepted")
	}
}

func decision(b string) approval.Decision { return approval.Decision{Behavior: b} }
