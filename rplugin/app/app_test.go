package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/ahead"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/permissions"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/store"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

var fakeClaude string

func TestMain(m *testing.M) { testkit.MainWithFakeClaude(m, &fakeClaude) }

// recorder is a ui.Sink that keeps events and wakes waiters on each one.
type recorder struct {
	mu      sync.Mutex
	events  []ui.Event
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) Send(name string, data any) {
	if lv, ok := data.(ui.Live); ok {
		data = lv.Live() // what the outbox would deliver now
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ui.Event{Name: name, Data: data})
	close(r.changed)
	r.changed = make(chan struct{})
}

// names lists the events other than transcript and session updates.
func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Name != ui.EvTranscript && e.Name != ui.EvSession && e.Name != ui.EvWorld {
			out = append(out, e.Name)
		}
	}
	return out
}

// wait blocks until cond holds for the events (or fails the test).
func (r *recorder) wait(t *testing.T, what string, cond func([]ui.Event) bool) {
	t.Helper()
	// A bound for a hang, not a speed: a 10 MB proposal staged under the
	// race detector beside the e2e suite took longer than 10 s.
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		evs := append([]ui.Event(nil), r.events...)
		ch := r.changed
		r.mu.Unlock()
		if cond(evs) {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; events %v", what, r.names())
		}
	}
}

// notes returns the texts of notify events.
func (r *recorder) notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Name == ui.EvNotify {
			out = append(out, fmt.Sprint(e.Data.(map[string]any)["msg"]))
		}
	}
	return out
}

// transcriptText is session id's transcript as the front end has it after
// every update sent (each op replaces Count lines at Index).
func (r *recorder) transcriptText(id int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lines []string
	for _, e := range r.events {
		if u, ok := e.Data.(*bufops.Update); ok && e.Name == ui.EvTranscript && u.Session == id {
			for _, op := range u.Ops {
				at := min(max(op.Index, 0), len(lines))
				end := min(at+op.Count, len(lines))
				lines = slices.Replace(lines, at, end, op.Lines...)
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// mem is an App whose sessions run on in-memory claudes.
type mem struct {
	t     *testing.T
	app   *App
	rec   *recorder
	dir   string
	home  string // claude's home folder (env)
	mu    sync.Mutex
	conns []*claudetest.Conn
	// onControl, when set, answers the control requests of the claudes
	// started from then on (from their first one).
	onControl func(subtype string, fields map[string]any) (json.RawMessage, error)
}

func newMem(t *testing.T) *mem {
	t.Helper()
	m := &mem{t: t, rec: newRecorder(), dir: t.TempDir(), home: t.TempDir()}
	m.app = New(m.rec, nil)
	m.app.start = func(claude.Config, *slog.Logger) (claude.Conn, error) {
		c := claudetest.New()
		m.mu.Lock()
		c.OnControl = m.onControl
		m.conns = append(m.conns, c)
		m.mu.Unlock()
		return c, nil
	}
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Env: m.env()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.app.Shutdown)
	return m
}

// env is claude's environment in these tests: a home of their own, so
// that no settings of the machine's user are read.
func (m *mem) env() map[string]string {
	return map[string]string{"HOME": m.home}
}

// session starts a session and returns its in-memory claude.
func (m *mem) session(prompt string) (session.Info, *claudetest.Conn) {
	m.t.Helper()
	info, err := m.app.NewSession(NewParams{Prompt: prompt, Cwd: m.dir})
	if err != nil {
		m.t.Fatal(err)
	}
	m.mu.Lock()
	c := m.conns[len(m.conns)-1]
	m.mu.Unlock()
	// A session opens by asking for its MCP servers: a test starts once it
	// has (its own controls then come after it).
	if !c.Wait(10*time.Second, func(ws []claudetest.Written) bool {
		for _, w := range ws {
			if w.Subtype == "mcp_status" {
				return true
			}
		}
		return false
	}) {
		m.t.Fatal("the session did not ask for its MCP servers")
	}
	return info, c
}

func (m *mem) waitPending(n int) []RequestView {
	m.t.Helper()
	m.rec.wait(m.t, fmt.Sprintf("%d pending", n), func([]ui.Event) bool { return len(m.app.Pending()) >= n })
	return m.app.Pending()
}

func (m *mem) write(name, content string) string {
	m.t.Helper()
	p := filepath.Join(m.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		m.t.Fatal(err)
	}
	return p
}

// answer waits for the single answer to requestID and returns its result.
func answer(t *testing.T, c *claudetest.Conn, requestID string) map[string]any {
	t.Helper()
	if !c.Wait(10*time.Second, func(ws []claudetest.Written) bool {
		for _, w := range ws {
			if w.Type == "control_response" && w.RequestID == requestID {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no answer to %s", requestID)
	}
	as := c.Answers(requestID)
	if len(as) != 1 {
		t.Fatalf("%d answers to %s", len(as), requestID)
	}
	return as[0].Result()
}

func decision(b string) approval.Decision { return approval.Decision{Behavior: b} }

func TestRegisteredBeforeSurfacedAndAnsweredOnce(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("r1", "Bash", map[string]any{"command": "ls"}, nil)
	p := m.waitPending(1)[0]
	m.rec.wait(t, "present", func([]ui.Event) bool { return len(m.rec.names()) >= 2 })
	if got := m.rec.names(); got[0] != ui.EvRequestAdded || got[1] != ui.EvPresent {
		t.Fatalf("events %v: the row must come before the surface", got)
	}
	d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow_session")})
	if err != nil || !d.Decided {
		t.Fatalf("decide: %+v %v", d, err)
	}
	// pending and decide agree at once.
	if n := len(m.app.Pending()); n != 0 {
		t.Fatalf("%d pending right after the decision", n)
	}
	d, err = m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("deny")})
	if err != nil || d.Decided || d.Reason != ErrNotPending.Error() {
		t.Fatalf("second decision: %+v %v", d, err)
	}
	// No suggestion: "for the session" is exactly this command, handed to
	// claude as a session rule before the answer, which carries none.
	a := answer(t, c, "r1")
	if a["behavior"] != "allow" || a["updatedPermissions"] != nil {
		t.Fatalf("answer %v", a)
	}
	if got := flagsBefore(t, c, "r1"); got != `{"allow":["Bash(ls)"],"deny":[]}` {
		t.Fatalf("session rules before the answer: %s", got)
	}
}

// flagsBefore is the permissions of the last apply_flag_settings written
// before the answer to requestID ("" when none).
func flagsBefore(t *testing.T, c *claudetest.Conn, requestID string) string {
	t.Helper()
	last := ""
	for _, w := range c.Written() {
		if w.Type == "control_response" && w.RequestID == requestID {
			return last
		}
		if w.Type == "control_request" && w.Subtype == "apply_flag_settings" {
			req, _ := w.Value["request"].(map[string]any)
			settings, _ := req["settings"].(map[string]any)
			b, _ := json.Marshal(settings["permissions"])
			last = string(b)
		}
	}
	t.Fatalf("no answer to %s", requestID)
	return ""
}

// controlLines is what was written other than prompts.
func controlLines(c *claudetest.Conn) []claudetest.Written {
	var out []claudetest.Written
	for _, w := range c.Written() {
		// mcp_status is asked when a session opens: it changes nothing.
		if w.Type != "user" && w.Subtype != "mcp_status" {
			out = append(out, w)
		}
	}
	return out
}

// lastFlags is the permissions of the last apply_flag_settings written.
func lastFlags(c *claudetest.Conn) string {
	last := ""
	for _, w := range c.Written() {
		if w.Type == "control_request" && w.Subtype == "apply_flag_settings" {
			req, _ := w.Value["request"].(map[string]any)
			settings, _ := req["settings"].(map[string]any)
			b, _ := json.Marshal(settings["permissions"])
			last = string(b)
		}
	}
	return last
}

func TestSurfaceOnlyFlowsAreNotBypassed(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("q1", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{
		"question": "Which?", "header": "H", "multiSelect": true,
		"options": []any{map[string]any{"label": "A"}, map[string]any{"label": "B"}, map[string]any{"label": "C"}},
	}}}, map[string]any{"requires_user_interaction": true})
	q := m.waitPending(1)[0]
	if q.Surface != "question" {
		t.Fatalf("surface %s", q.Surface)
	}
	// A bare allow from the sidebar re-presents instead of answering.
	d, err := m.app.Decide(DecideParams{ID: q.ID, Via: "sidebar", Decision: decision("allow")})
	if err != nil || d.Decided || !strings.Contains(d.Reason, "needs its own answer") {
		t.Fatalf("sidebar allow on a question: %+v %v", d, err)
	}
	if len(m.app.Pending()) != 1 || len(c.Answers("q1")) != 0 {
		t.Fatal("sidebar allow answered a question")
	}
	if err := m.app.Answer(q.ID, []QuestionAnswer{{Selected: []int{0, 2}, Other: "D"}}); err != nil {
		t.Fatal(err)
	}
	in, _ := answer(t, c, "q1")["updatedInput"].(map[string]any)
	if got := in["answers"].(map[string]any)["Which?"]; got != "A, C, D" {
		t.Fatalf("answers %v", in["answers"])
	}
	c.Ask("p1", "ExitPlanMode", map[string]any{"plan": "1. x"}, map[string]any{"requires_user_interaction": true})
	p := m.waitPending(1)[0]
	if p.Surface != "plan" || p.Plan != "1. x" {
		t.Fatalf("plan request %+v", p)
	}
	if err := m.app.PlanDecide(PlanParams{ID: p.ID, Approve: true, Mode: "plan"}); err == nil {
		t.Fatal("approved a plan into plan mode")
	}
	if err := m.app.PlanDecide(PlanParams{ID: p.ID, Approve: true, Mode: "acceptEdits", Plan: "1. x\n2. y"}); err != nil {
		t.Fatal(err)
	}
	a := answer(t, c, "p1")
	in, _ = a["updatedInput"].(map[string]any)
	perms, _ := a["updatedPermissions"].([]any)
	if in["plan"] != "1. x\n2. y" || len(perms) != 1 || perms[0].(map[string]any)["mode"] != "acceptEdits" {
		t.Fatalf("plan answer %v", a)
	}
}

func TestWithdrawnRequestsAreNeverAnswered(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("c1", "Bash", map[string]any{"command": "ls"}, nil)
	p := m.waitPending(1)[0]
	c.PushJSON(map[string]any{"type": "control_cancel_request", "request_id": "c1"})
	c.PushJSON(map[string]any{"type": "control_request", "request_id": "u1", "request": map[string]any{"subtype": "mystery"}})
	if !c.Wait(10*time.Second, func(ws []claudetest.Written) bool { return len(c.Answers("u1")) == 1 }) {
		t.Fatal("unknown control request got no error response")
	}
	if e := c.Answers("u1")[0]; e.Subtype != "error" || !strings.Contains(fmt.Sprint(e.Value), "does not support control request mystery") {
		t.Fatalf("unknown control answer %+v", e.Value)
	}
	if len(m.app.Pending()) != 0 {
		t.Fatal("cancelled request still pending")
	}
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow")}); d.Decided {
		t.Fatal("decided a withdrawn request")
	}
	if n := len(c.Answers("c1")); n != 0 {
		t.Fatalf("withdrawn request answered %d times", n)
	}
	if got := m.rec.names(); got[len(got)-1] != ui.EvRequestRemoved {
		t.Fatalf("events %v", got)
	}
}

func TestConfigureValidates(t *testing.T) {
	a := New(newRecorder(), nil)
	for _, o := range []Options{
		{ReviewEdits: "sometimes", Storage: "/tmp/x"},
		{Storage: ""},
		{Storage: "relative/dir"},
	} {
		if err := a.Configure(o); err == nil {
			t.Errorf("Configure(%+v) accepted", o)
		}
	}
	if err := a.Configure(Options{Storage: "relative"}); err == nil || !strings.Contains(err.Error(), "option 'storage' must be an absolute path") {
		t.Errorf("relative storage: %v", err)
	}
	if _, err := a.NewSession(NewParams{Mode: "yolo"}); err == nil || !strings.Contains(err.Error(), "unknown permission mode") {
		t.Fatalf("bad mode: %v", err)
	}
	if _, err := a.NewSession(NewParams{Cwd: "/definitely/not/here"}); err == nil {
		t.Fatal("missing cwd accepted")
	}
}

// editProposal starts a session whose claude asks to Edit a file with
// content, replacing old by new; it returns the pending view and the conn.
func (m *mem) editProposal(name, content, old, new string) (RequestView, *claudetest.Conn, string) {
	m.t.Helper()
	path := m.write(name, content)
	_, c := m.session("go")
	c.Ask("e1", "Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new}, nil)
	p := m.waitPending(1)[0]
	if p.Surface != "proposal" || p.Staged == "" {
		m.t.Fatalf("not a proposal: %+v", p)
	}
	return p, c, path
}

// save writes content to the staged file, as :w in the proposal would.
func save(t *testing.T, staged, content string) {
	t.Helper()
	if err := os.WriteFile(staged, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// applyAnswer replays the CLI's edit of an allow answer on the file and
// returns what the CLI would write.
func applyAnswer(t *testing.T, a map[string]any, tool, path string) string {
	t.Helper()
	if a["behavior"] != "allow" {
		t.Fatalf("answer %v, want allow", a)
	}
	in, _ := json.Marshal(a["updatedInput"])
	c, err := proposal.Reconstruct(tool, in, "", proposal.ReadFile)
	if err != nil {
		t.Fatalf("the CLI could not apply %s: %v", in, err)
	}
	return string(c.Proposed)
}

func TestProposalSavedAppliesTheBuffer(t *testing.T) {
	m := newMem(t)
	p, c, path := m.editProposal("a.txt", "one\ntwo\nthree\n", "two", "TWO")
	save(t, p.Staged, "one\nTWO\nthree, by the user\n")
	if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
		t.Fatal(err)
	}
	if got := applyAnswer(t, answer(t, c, "e1"), "Edit", path); got != "one\nTWO\nthree, by the user\n" {
		t.Fatalf("the CLI would write %q", got)
	}
	if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil || len(c.Answers("e1")) != 1 {
		t.Fatalf("a second save answered again: %v", err)
	}
}

func TestProposalWipedDenies(t *testing.T) {
	m := newMem(t)
	p, c, path := m.editProposal("w.txt", "keep\n", "keep", "change")
	if err := m.app.ProposalWiped(SaveParams{ID: p.ID}); err != nil {
		t.Fatal(err)
	}
	if a := answer(t, c, "e1"); a["behavior"] != "deny" || !strings.Contains(fmt.Sprint(a["message"]), "rejected") {
		t.Fatalf("answer %v", a)
	}
	if _, err := os.Stat(p.Staged); !os.IsNotExist(err) {
		t.Fatalf("staged file left behind: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep\n" {
		t.Fatalf("file changed: %q", b)
	}
}

func rebaseEvents(r *recorder) []RebaseEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RebaseEvent
	for _, e := range r.events {
		if ev, ok := e.Data.(RebaseEvent); ok {
			out = append(out, ev)
		}
	}
	return out
}

func TestRebase(t *testing.T) {
	const orig = "a\nb\nc\nd\ne\nf\ng\n"
	tests := []struct {
		name          string
		old, new      string // Claude's edit
		outside       string // the file after someone else changed it
		saved         string // the user's buffer at the first :w
		wantStaged    string // the proposal after the rebase
		wantConflicts int
		resolved      string // what the user saves next ("" = wantStaged)
		wantFile      string // what the CLI writes on the next :w
	}{
		{name: "outside change, proposal unedited",
			old: "b\n", new: "B\n", outside: "zero\n" + orig, saved: "a\nB\nc\nd\ne\nf\ng\n",
			wantStaged: "zero\na\nB\nc\nd\ne\nf\ng\n", wantFile: "zero\na\nB\nc\nd\ne\nf\ng\n"},
		{name: "user edits elsewhere, both kept",
			old: "b\n", new: "B\n", outside: orig + "tail\n", saved: "a\nB\nc\nd\ne\nF by user\ng\n",
			wantStaged: "a\nB\nc\nd\ne\nF by user\ng\ntail\n", wantFile: "a\nB\nc\nd\ne\nF by user\ng\ntail\n"},
		{name: "same lines conflict",
			old: "b\n", new: "B\n", outside: "a\nb\nc\nd\nE outside\nf\ng\n", saved: "a\nB\nc\nd\nE user\nf\ng\n",
			wantConflicts: 1, resolved: "a\nB\nc\nd\nE merged\nf\ng\n", wantFile: "a\nB\nc\nd\nE merged\nf\ng\n"},
		{name: "claude's change no longer applies",
			old: "b\n", new: "B\n", outside: "a\nX\nc\n", saved: "a\nB\nc\nd\ne\nf\ng\n",
			wantStaged: "a\nB\nc\nd\ne\nf\ng\n", wantFile: "a\nB\nc\nd\ne\nf\ng\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMem(t)
			p, c, path := m.editProposal("r.txt", orig, tt.old, tt.new)
			save(t, p.Staged, tt.saved)
			m.write("r.txt", tt.outside)
			if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
				t.Fatal(err)
			}
			if n := len(c.Answers("e1")); n != 0 {
				t.Fatalf("answered on the save that found the outside change")
			}
			evs := rebaseEvents(m.rec)
			if len(evs) != 1 || len(evs[0].Conflicts) != tt.wantConflicts {
				t.Fatalf("rebase events %+v", evs)
			}
			staged, _ := os.ReadFile(p.Staged)
			if tt.wantConflicts == 0 && string(staged) != tt.wantStaged {
				t.Fatalf("staged after rebase %q, want %q", staged, tt.wantStaged)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.outside {
				t.Fatalf("the file on disk changed: %q", b)
			}
			if tt.wantConflicts > 0 {
				if !strings.Contains(string(staged), "<<<<<<< your edits") {
					t.Fatalf("no conflict markers in %q", staged)
				}
				// Saving with the markers applies nothing.
				if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil || len(c.Answers("e1")) != 0 {
					t.Fatalf("applied with conflict markers: %v", err)
				}
				if notes := m.rec.notes(); !strings.Contains(notes[len(notes)-1], "conflict markers") {
					t.Fatalf("notes %v", notes)
				}
			}
			next := tt.resolved
			if next == "" {
				next = string(staged)
			}
			save(t, p.Staged, next)
			if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
				t.Fatal(err)
			}
			if got := applyAnswer(t, answer(t, c, "e1"), "Edit", path); got != tt.wantFile {
				t.Fatalf("the CLI would write %q, want %q", got, tt.wantFile)
			}
		})
	}
}

// gate is an OnControl that blocks until released, like a claude that is
// slow to answer.
type gate struct {
	release chan struct{}
	seen    chan string
}

func newGate() *gate { return &gate{release: make(chan struct{}), seen: make(chan string, 8)} }

func (g *gate) on(subtype string, _ map[string]any) (json.RawMessage, error) {
	g.seen <- subtype
	<-g.release
	return json.RawMessage(`{}`), nil
}

func TestSetModeReturnsAtOnceAndIsNotedOnce(t *testing.T) {
	m := newMem(t)
	info, c := m.session("")
	g := newGate()
	c.OnControl = g.on
	out, err := m.app.Rooms().Modes.Set(info.ID, "acceptEdits")
	if err != nil || !out.Done {
		t.Fatalf("SetMode: %+v %v", out, err)
	}
	if sub := <-g.seen; sub != "set_permission_mode" {
		t.Fatalf("control %s", sub)
	}
	// claude's status arrives before its answer (the order 2.1.328 uses
	// varies): either way the switch is noted once.
	c.PushJSON(map[string]any{"type": "system", "subtype": "status", "permissionMode": "acceptEdits"})
	m.rec.wait(t, "mode noted", func([]ui.Event) bool {
		return strings.Contains(m.rec.transcriptText(info.ID), "Permission mode: acceptEdits")
	})
	close(g.release)
	c.PushJSON(map[string]any{"type": "system", "subtype": "status", "permissionMode": "acceptEdits"})
	if _, err := m.app.Rooms().Modes.Set(info.ID, "bogus"); err == nil {
		t.Fatal("bogus mode accepted")
	}
	// Flush: a later note proves the earlier ones were delivered.
	m.app.desk.Note(mustSession(t, m.app, info.ID), "end")
	m.rec.wait(t, "end", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "end") })
	if n := strings.Count(m.rec.transcriptText(info.ID), "Permission mode: acceptEdits"); n != 1 {
		t.Fatalf("mode noted %d times", n)
	}
}

func mustSession(t *testing.T, a *App, id int) *session.Session {
	s, ok := a.sessions.Get(id)
	if !ok {
		t.Fatalf("no session %d", id)
	}
	return s
}

func TestInterrupt(t *testing.T) {
	m := newMem(t)
	info, c := m.session("")
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "s1", "permissionMode": "default"})
	m.rec.wait(t, "idle", func([]ui.Event) bool { return mustSession(t, m.app, info.ID).State() == session.StateIdle })
	out, err := m.app.Rooms().Controls.Interrupt(info.ID)
	if err != nil || out.Done || !strings.Contains(out.Message, "nothing to interrupt") {
		t.Fatalf("idle interrupt: %+v %v", out, err)
	}
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "SLOW"}); err != nil {
		t.Fatal(err)
	}
	g := newGate()
	c.OnControl = g.on
	out, err = m.app.Rooms().Controls.Interrupt(info.ID)
	if err != nil || !out.Done {
		t.Fatalf("interrupt: %+v %v", out, err)
	}
	<-g.seen // Interrupt returned while claude had not answered yet
	close(g.release)
	// Claude marks the interrupt in the conversation: the one line that
	// says so in the transcript.
	c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}}})
	// 2.1.328 ends an interrupted turn with a diagnostic in errors.
	c.PushJSON(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true,
		"errors": []string{"[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"}})
	m.rec.wait(t, "idle again", func([]ui.Event) bool { return mustSession(t, m.app, info.ID).State() == session.StateIdle })
	m.rec.wait(t, "noted", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "Interrupted by you.") })
	if tr := m.rec.transcriptText(info.ID); strings.Count(tr, "nterrupted by") != 1 {
		t.Fatalf("the interrupt is not noted exactly once:\n%s", tr)
	}
	for _, n := range m.rec.notes() {
		t.Errorf("notification for an interrupt the user asked for: %s", n)
	}
	if tr := m.rec.transcriptText(info.ID); strings.Contains(tr, "ede_diagnostic") || !strings.Contains(tr, "*interrupted") {
		t.Fatalf("transcript:\n%s", tr)
	}
	// A turn that ends with a real error still says so.
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "again"}); err != nil {
		t.Fatal(err)
	}
	c.PushJSON(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": "API Error: 400 bad"})
	m.rec.wait(t, "error notified", func([]ui.Event) bool { return len(m.rec.notes()) == 1 })
}

func TestStopReturnsAtOnceAndWithdraws(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	c.Ask("s1", "Bash", map[string]any{"command": "ls"}, nil)
	m.waitPending(1)
	out, err := m.app.Stop(info.ID)
	if err != nil || !out.Done {
		t.Fatalf("stop: %+v %v", out, err)
	}
	if len(m.app.Pending()) != 0 {
		t.Fatal("pending after stop")
	}
	m.rec.wait(t, "exited", func([]ui.Event) bool { return mustSession(t, m.app, info.ID).State() == session.StateExited })
	if len(c.Answers("s1")) != 0 {
		t.Fatal("a withdrawn request was answered")
	}
}

// A gesture on one session is never held up by a large answer that another
// session's claude is slow to read (real processes: the fake claude stops
// reading its input).
func TestBigAnswerDoesNotBlockOtherSessions(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("0123456789abcdef\n", 10<<20/17)), 0o644); err != nil {
		t.Fatal(err)
	}
	scriptA := filepath.Join(dir, "a.jsonl")
	scriptB := filepath.Join(dir, "b.jsonl")
	logB := filepath.Join(dir, "b.log")
	os.WriteFile(scriptA, []byte(`{"ask_nowait":{"tool_name":"Write","request_id":"wa","input":{"file_path":"`+big+`","content":"x\n"}}}`+"\n"+`{"hang":true}`+"\n"), 0o644)
	os.WriteFile(scriptB, []byte(`{"ask":{"tool_name":"Bash","request_id":"rb","input":{"command":"ls"}}}`+"\n"), 0o644)
	rec := newRecorder()
	a := New(rec, nil)
	t.Cleanup(a.Shutdown)
	start := func(script, log string) session.Info {
		env := map[string]string{"FAKECLAUDE_SCRIPT": script}
		if log != "" {
			env["FAKECLAUDE_LOG"] = log
		}
		if err := a.Configure(Options{Cmd: fakeClaude, Storage: filepath.Join(dir, "storage"), Env: env}); err != nil {
			t.Fatal(err)
		}
		info, err := a.NewSession(NewParams{Prompt: "go", Cwd: dir})
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	sa := start(scriptA, "")
	rec.wait(t, "A's proposal", func([]ui.Event) bool { return len(a.Pending()) == 1 })
	pa := a.Pending()[0]
	// The user saves A's proposal as a 10 MB file: the answer carries it
	// whole, and A's claude does not read it.
	save(t, pa.Staged, strings.Repeat("user's line of text\n", 10<<20/20))
	if _, err := a.ProposalSaved(SaveParams{ID: pa.ID}); err != nil {
		t.Fatal(err)
	}
	sb := start(scriptB, logB)
	rec.wait(t, "B's request", func([]ui.Event) bool {
		for _, p := range a.Pending() {
			if p.Session == sb.ID {
				return true
			}
		}
		return false
	})
	for _, p := range a.Pending() {
		if p.Session == sb.ID {
			d, err := a.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow")})
			if err != nil || !d.Decided {
				t.Fatalf("decide B: %+v %v", d, err)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(testkit.AnswersFor(logB, "rb")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("B's answer did not arrive while A's big answer was pending")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = sa
}

// Claude is told what the user changed beside the tool's result: our
// PostToolUse hook carries the note as additional context (claude puts it
// right after the tool_result); nothing is said when the user changed
// nothing, and nothing is sent as a message from the user.
func TestClaudeIsToldWhatTheUserChanged(t *testing.T) {
	notes := feedback.Review{Notes: []feedback.Note{{Range: feedback.Range{Hunk: 1, From: 2, To: 2}, Text: "shout it"}}}
	tests := []struct {
		name     string
		saved    string
		review   feedback.Review
		behavior string
		told     []string // in the hook's additional context (nil = none)
	}{
		{"unchanged", "one\nTWO\nthree\n", feedback.Review{}, "allow", nil},
		{"edited", "one\nTWO\nthree, by you\n", feedback.Review{}, "allow", []string{"[claude-nova] The user changed your edit of a.txt", "+three, by you"}},
		{"unchanged with a note", "one\nTWO\nthree\n", notes, "allow", []string{"as you proposed it", "shout it"}},
		{"all rejected with a note", "one\ntwo\nthree\n", notes, "deny", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMem(t)
			m.configure(Options{Feedback: FeedbackOptions{Diagnostics: boolp(false)}})
			p, c, path := m.editProposal("a.txt", "one\ntwo\nthree\n", "two", "TWO")
			save(t, p.Staged, tt.saved)
			if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID, Review: tt.review}); err != nil {
				t.Fatal(err)
			}
			a := answer(t, c, "e1")
			if a["behavior"] != tt.behavior {
				t.Fatalf("answer %v", a)
			}
			if users := c.UserTexts()[1:]; len(users) != 0 { // the first is the prompt
				t.Fatalf("told as a message from the user: %q", users)
			}
			if tt.behavior == "deny" {
				if !strings.Contains(fmt.Sprint(a["message"]), "rejected all changes to a.txt") || !strings.Contains(fmt.Sprint(a["message"]), "shout it") {
					t.Fatalf("deny message %v", a["message"])
				}
				return
			}
			hookCallbackFor(c, "h1", changeHook, "Edit", path, "toolu_e1")
			r := hookAnswer(t, c, "h1")
			out, _ := r["hookSpecificOutput"].(map[string]any)
			ctx, _ := out["additionalContext"].(string)
			if len(tt.told) == 0 {
				if len(r) != 0 {
					t.Fatalf("told %v", r)
				}
				return
			}
			if out["hookEventName"] != "PostToolUse" {
				t.Fatalf("hook answer %v", r)
			}
			for _, w := range tt.told {
				if !strings.Contains(ctx, w) {
					t.Fatalf("the note lacks %q:\n%s", w, ctx)
				}
			}
			// Once: the hook of another call of the same id says nothing.
			hookCallbackFor(c, "h2", changeHook, "Edit", path, "toolu_e1")
			if r := hookAnswer(t, c, "h2"); len(r) != 0 {
				t.Fatalf("told twice: %v", r)
			}
		})
	}
}

// A claude that runs no PostToolUse hook for the call: the note goes as a
// message once the result is in (and not for a failed call).
func TestToldWithoutTheHook(t *testing.T) {
	for _, failed := range []bool{false, true} {
		m := newMem(t)
		p, c, _ := m.editProposal("a.txt", "one\ntwo\n", "two", "TWO")
		save(t, p.Staged, "one\nTWO, by you\n")
		if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
			t.Fatal(err)
		}
		answer(t, c, "e1")
		c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_e1", "content": "ok", "is_error": failed},
		}}})
		c.PushJSON(map[string]any{"type": "result", "subtype": "success"}) // a sync point: handled after the message
		m.rec.wait(t, "the turn's end", func([]ui.Event) bool { return m.app.sessions.All()[0].State() == session.StateIdle })
		users := c.UserTexts()[1:]
		switch {
		case failed && len(users) != 0:
			t.Fatalf("told after a failed call: %q", users)
		case !failed && (len(users) != 1 || !strings.Contains(users[0], "The user changed your edit of a.txt")):
			t.Fatalf("told %q", users)
		}
	}
}

func TestWipedWithNotesDeniesWithThem(t *testing.T) {
	m := newMem(t)
	p, c, _ := m.editProposal("w.txt", "keep\n", "keep", "change")
	review := feedback.Review{Notes: []feedback.Note{{Text: "not this way"}}}
	if err := m.app.ProposalWiped(SaveParams{ID: p.ID, Review: review}); err != nil {
		t.Fatal(err)
	}
	if a := answer(t, c, "e1"); a["behavior"] != "deny" || !strings.Contains(fmt.Sprint(a["message"]), "not this way") {
		t.Fatalf("answer %v", a)
	}
}

// "Always…": an allow rule for a file travels with the answer (claude
// writes it); a rule for the session goes to claude with
// apply_flag_settings before the answer, the whole list each time; a deny
// rule for a file is written by the plugin (claude ignores rules on a deny)
// and every claude re-reads its settings at once; a bad rule sends nothing.
// Removing a rule sends the lists without it.
func TestAlwaysRules(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("r1", "Bash", map[string]any{"command": "touch a"}, map[string]any{"permission_suggestions": []any{map[string]any{
		"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "touch a"}}, "behavior": "allow", "destination": "localSettings"}}})
	p := m.waitPending(1)[0]
	if p.Suggested != "Bash(touch a)" || p.SessionChoice != "Bash(touch a) this session" || p.ToolChoice != "every Bash call this session" {
		t.Fatalf("choices %q %q %q", p.Suggested, p.SessionChoice, p.ToolChoice)
	}
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "allow", Rules: []string{"Bash(touch:*"}, Destination: "localSettings"}}); err == nil {
		t.Fatal("a bad rule was accepted")
	}
	if w := controlLines(c); len(w) != 0 {
		t.Fatalf("something was sent for a bad rule: %+v", w)
	}
	d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "allow", Rules: []string{"Bash(touch:*)"}, Destination: "localSettings"}})
	if err != nil || !d.Decided {
		t.Fatalf("%+v %v", d, err)
	}
	perms, _ := answer(t, c, "r1")["updatedPermissions"].([]any)
	if b, _ := json.Marshal(perms); string(b) != `[{"behavior":"allow","destination":"localSettings","rules":[{"ruleContent":"touch:*","toolName":"Bash"}],"type":"addRules"}]` {
		t.Fatalf("updatedPermissions %s", b)
	}
	// A deny rule for the session: claude gets it before the deny.
	c.Ask("r2", "Bash", map[string]any{"command": "rm x"}, nil)
	p = m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "deny", Rules: []string{"Bash(rm:*)"}, Destination: "session"}}); err != nil {
		t.Fatal(err)
	}
	if a := answer(t, c, "r2"); a["behavior"] != "deny" {
		t.Fatalf("answer %v", a)
	}
	if got := flagsBefore(t, c, "r2"); got != `{"allow":[],"deny":["Bash(rm:*)"]}` {
		t.Fatalf("session rules before the deny: %s", got)
	}
	// "s" with the CLI's suggestion: the rule joins the session's list.
	c.Ask("r3", "Bash", map[string]any{"command": "npm test"}, map[string]any{"permission_suggestions": []any{map[string]any{
		"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "npm test *"}}, "behavior": "allow", "destination": "localSettings"}}})
	p = m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Via: "sidebar", Decision: decision("allow_session")}); err != nil {
		t.Fatal(err)
	}
	if a := answer(t, c, "r3"); a["updatedPermissions"] != nil {
		t.Fatalf("the session rule travelled with the answer: %v", a)
	}
	if got := flagsBefore(t, c, "r3"); got != `{"allow":["Bash(npm test *)"],"deny":["Bash(rm:*)"]}` {
		t.Fatalf("session rules before the answer: %s", got)
	}
	// A deny rule for the project, just me: written to the file, and the
	// session's lists sent again (claude re-reads its files on an apply).
	c.Ask("r4", "Bash", map[string]any{"command": "curl x"}, nil)
	p = m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "deny", Rules: []string{"Bash(curl:*)"}, Destination: "localSettings"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(m.dir, ".claude", "settings.local.json"))
	if !strings.Contains(string(b), `"Bash(curl:*)"`) || !strings.Contains(string(b), `"deny"`) {
		t.Fatalf("settings.local.json:\n%s", b)
	}
	if got := flagsBefore(t, c, "r4"); got != `{"allow":["Bash(npm test *)"],"deny":["Bash(rm:*)"]}` {
		t.Fatalf("no re-read before the deny: %s", got)
	}
	v, err := m.app.Rooms().Permissions.Rules(0, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range v.Rules {
		got[r.Source+" "+r.Behavior+" "+r.Rule] = true
	}
	for _, w := range []string{"session deny Bash(rm:*)", "session allow Bash(npm test *)", "localSettings deny Bash(curl:*)"} {
		if !got[w] {
			t.Fatalf("rules view lacks %q: %+v", w, v.Rules)
		}
	}
	if err := m.app.Rooms().Permissions.RemoveRule(permissions.RuleEntry{Rule: "Bash(curl:*)", Behavior: "deny", Source: "localSettings", Path: filepath.Join(m.dir, ".claude", "settings.local.json")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(m.dir, ".claude", "settings.local.json")); strings.Contains(string(b), "curl") {
		t.Fatalf("rule not removed:\n%s", b)
	}
	// Removing a session rule sends the lists without it.
	if err := m.app.Rooms().Permissions.RemoveRule(permissions.RuleEntry{Rule: "Bash(rm:*)", Behavior: "deny", Source: "session", Session: p.Session}); err != nil {
		t.Fatal(err)
	}
	if got := lastFlags(c); got != `{"allow":["Bash(npm test *)"],"deny":[]}` {
		t.Fatalf("after removal: %s", got)
	}
	if err := m.app.Rooms().Permissions.RemoveRule(permissions.RuleEntry{Rule: "Bash(rm:*)", Behavior: "deny", Source: "session", Session: p.Session}); err == nil {
		t.Fatal("removed twice")
	}
}

// A safety check (rm -rf ~): no lasting rule, no session-wide allow, no
// batch; each refusal says why and leaves the request pending, nothing is
// written to claude; allow once and deny still work.
func TestConsentHintsObeyed(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("r1", "Bash", map[string]any{"command": "rm -rf ~ --x"}, map[string]any{
		"permission_suggestions": []any{}, "decision_reason": "Dangerous rm operation on critical path: /home/u",
		"decision_reason_type": "safetyCheck", "classifier_approvable": false, "suppress_always_allow_rule": true})
	p := m.waitPending(1)[0]
	if p.SessionChoice != "" || p.ToolChoice != "" || p.Suggested != "" || p.ServerRule != "" || len(p.Scopes) != 0 {
		t.Fatalf("choices offered: %+v", p)
	}
	if !p.Hints.NoRules || !p.Hints.HumanOnly || p.Hints.Why == "" {
		t.Fatalf("hints %+v", p.Hints)
	}
	reason := ""
	for _, f := range p.Fields {
		if f.Label == "Reason" {
			reason = f.Value
		}
	}
	if !strings.Contains(reason, "Dangerous rm operation") {
		t.Fatalf("reason not shown: %+v", p.Fields)
	}
	for _, d := range []DecideParams{
		{ID: p.ID, Via: "command", Decision: approval.Decision{Behavior: "allow", Rules: []string{"Bash(rm:*)"}, Destination: "localSettings"}},
		{ID: p.ID, Via: "command", Decision: decision("allow_session")},
		{ID: p.ID, Via: "command", Decision: decision("allow_tool")},
		{ID: p.ID, Via: "batch", Decision: decision("allow")},
	} {
		got, err := m.app.Decide(d)
		if err != nil || got.Decided || got.Reason == "" {
			t.Fatalf("%+v: %+v %v", d, got, err)
		}
	}
	if w := controlLines(c); len(w) != 0 || len(m.app.Pending()) != 1 {
		t.Fatalf("written %+v, pending %d", w, len(m.app.Pending()))
	}
	if _, err := os.Stat(filepath.Join(m.dir, ".claude")); err == nil {
		t.Fatal("a settings file was written")
	}
	if d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("deny")}); err != nil || !d.Decided {
		t.Fatalf("deny: %+v %v", d, err)
	}
	if a := answer(t, c, "r1"); a["behavior"] != "deny" {
		t.Fatalf("answer %v", a)
	}
	// default_to_no: no one-key approve from the sidebar (its panel opens).
	c.Ask("r2", "Bash", map[string]any{"command": "touch a"}, map[string]any{"default_to_no": true})
	p = m.waitPending(1)[0]
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: "sidebar", Decision: decision("allow")}); d.Decided || !strings.Contains(d.Reason, "single key") {
		t.Fatalf("one key allowed it: %+v", d)
	}
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow")}); !d.Decided {
		t.Fatalf("its panel: %+v", d)
	}
}

// An answer that cannot be queued (claude stopped reading) leaves the
// request pending and says so; once claude reads again it is answered.
func TestFullQueueKeepsTheRequest(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("r1", "Bash", map[string]any{"command": "ls"}, nil)
	p := m.waitPending(1)[0]
	c.SetBackedUp(true)
	d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow")})
	if err != nil || d.Decided || !strings.Contains(d.Reason, "still pending") {
		t.Fatalf("decide: %+v %v", d, err)
	}
	if len(m.app.Pending()) != 1 {
		t.Fatal("the request left the registry without an answer")
	}
	for _, n := range m.rec.names() {
		if n == ui.EvRequestRemoved {
			t.Fatal("the UI was told the request left")
		}
	}
	c.SetBackedUp(false)
	if d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("allow")}); err != nil || !d.Decided {
		t.Fatalf("second try: %+v %v", d, err)
	}
	answer(t, c, "r1")
}

// An MCP server's form: registered and presented like a request, answered
// once with the user's typed answers (checked against the schema), or
// declined; a cancel from claude withdraws it.
func TestElicitation(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.PushJSON(map[string]any{"type": "control_request", "request_id": "e1", "request": map[string]any{
		"subtype": "elicitation", "mcp_server_name": "tracker", "message": "Which project?",
		"requested_schema": json.RawMessage(`{"type":"object","properties":{"project":{"type":"string","enum":["a","b"]},"count":{"type":"integer","minimum":1},"urgent":{"type":"boolean"}},"required":["project"]}`),
		"property_order":   []string{"urgent", "project", "count"},
	}})
	p := m.waitPending(1)[0]
	if p.Surface != "elicit" || p.Form == nil || len(p.Form.Fields) != 3 || p.Form.Fields[0].Name != "urgent" || p.Form.Fields[1].Choices[1] != "b" || !p.Form.Fields[1].Required {
		t.Fatalf("form %+v", p.Form)
	}
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: "sidebar", Decision: decision("allow")}); d.Decided {
		t.Fatal("a sidebar key answered a form")
	}
	for _, bad := range []map[string]any{{"count": "2"}, {"project": "c"}, {"project": "a", "count": "0"}, {"project": "a", "urgent": "maybe"}} {
		if err := m.app.Elicit(ElicitParams{ID: p.ID, Action: "accept", Content: bad}); err == nil {
			t.Fatalf("accepted %v", bad)
		}
	}
	if err := m.app.Elicit(ElicitParams{ID: p.ID, Action: "accept", Content: map[string]any{"project": "b", "count": "3", "urgent": "yes"}}); err != nil {
		t.Fatal(err)
	}
	a := c.Answers("e1")
	if len(a) != 1 {
		t.Fatalf("%d answers", len(a))
	}
	if b, _ := json.Marshal(a[0].Result()); string(b) != `{"action":"accept","content":{"count":3,"project":"b","urgent":true}}` {
		t.Fatalf("answer %s", b)
	}
	c.PushJSON(map[string]any{"type": "control_request", "request_id": "e2", "request": map[string]any{
		"subtype": "elicitation", "mcp_server_name": "tracker", "message": "Log in", "mode": "url", "url": "https://example.com/auth"}})
	p = m.waitPending(1)[0]
	if p.Form.URL != "https://example.com/auth" {
		t.Fatalf("url form %+v", p.Form)
	}
	if d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("deny")}); err != nil || !d.Decided {
		t.Fatalf("decline: %+v %v", d, err)
	}
	if b, _ := json.Marshal(c.Answers("e2")[0].Result()); string(b) != `{"action":"decline"}` {
		t.Fatalf("decline answer %s", b)
	}
	c.PushJSON(map[string]any{"type": "control_request", "request_id": "e3", "request": map[string]any{
		"subtype": "elicitation", "mcp_server_name": "tracker", "message": "again"}})
	m.waitPending(1)
	c.PushJSON(map[string]any{"type": "control_cancel_request", "request_id": "e3"})
	m.rec.wait(t, "withdrawn", func([]ui.Event) bool { return len(m.app.Pending()) == 0 })
	if len(c.Answers("e3")) != 0 {
		t.Fatal("a withdrawn form was answered")
	}
}

// NotebookEdit is an editable proposal of the cell: the cell's current
// source is read from the notebook, the staged file has the language's
// extension, :w answers with the user's new_source.
func TestNotebookProposal(t *testing.T) {
	m := newMem(t)
	nb := m.write("n.ipynb", `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["x = 1\n","print(x)"]},{"cell_type":"markdown","id":"c2","source":"# T"}],"metadata":{"language_info":{"name":"python"}},"nbformat":4,"nbformat_minor":5}`)
	_, c := m.session("go")
	c.Ask("n1", "NotebookEdit", map[string]any{"notebook_path": nb, "cell_id": "c1", "new_source": "x = 2\nprint(x)"}, nil)
	p := m.waitPending(1)[0]
	if p.Surface != "proposal" || filepath.Base(p.Staged) != "n.c1.py" || p.Original != "x = 1\nprint(x)" || p.Cell != "cell c1 (python)" {
		t.Fatalf("proposal %+v", p)
	}
	save(t, p.Staged, "x = 3\nprint(x)  # mine")
	if d, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil || !d.Decided {
		t.Fatalf("saved: %+v %v", d, err)
	}
	in, _ := answer(t, c, "n1")["updatedInput"].(map[string]any)
	if in["new_source"] != "x = 3\nprint(x)  # mine" || in["cell_id"] != "c1" {
		t.Fatalf("updatedInput %v", in)
	}
	// A deletion is shown plainly in the panel, with the cell's source.
	c.Ask("n2", "NotebookEdit", map[string]any{"notebook_path": nb, "cell_id": "c2", "new_source": "", "edit_mode": "delete"}, nil)
	p = m.waitPending(1)[0]
	if p.Surface != "panel" || !strings.Contains(p.Reason, "delete cell c2 (markdown)") {
		t.Fatalf("delete %+v", p)
	}
	found := false
	for _, f := range p.Fields {
		found = found || (f.Label == "Cell source" && f.Value == "# T")
	}
	if !found {
		t.Fatalf("fields %+v", p.Fields)
	}
}

// One source for claude's config folder: with CLAUDE_CONFIG_DIR (in the
// env option), the user's settings, the folder trust and the session store
// are all looked up there.
func TestClaudeConfigDir(t *testing.T) {
	m := newMem(t)
	home, cfg := t.TempDir(), t.TempDir()
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Env: map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"permissions":{"deny":["Bash(rm:*)"]}}`), 0o644)
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"projects":{}}`), 0o644)
	trust, _ := json.Marshal(map[string]any{"projects": map[string]any{m.dir: map[string]any{"hasTrustDialogAccepted": true}}})
	os.WriteFile(filepath.Join(cfg, ".claude.json"), trust, 0o644)
	v, err := m.app.Rooms().Permissions.Rules(0, m.dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Untrusted {
		t.Error("trust was not read from CLAUDE_CONFIG_DIR/.claude.json")
	}
	found := false
	for _, r := range v.Rules {
		found = found || (r.Source == "userSettings" && r.Rule == "Bash(rm:*)" && r.Path == filepath.Join(cfg, "settings.json"))
	}
	if !found {
		t.Errorf("user rules not read from CLAUDE_CONFIG_DIR: %+v", v.Rules)
	}
	dir := store.Dir(cfg, m.dir)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "aaaaaaaa-0000-0000-0000-000000000001.jsonl"), []byte(`{"type":"user","message":{"role":"user","content":"from the config dir"}}`+"\n"), 0o600)
	list, err := m.app.Rooms().History.Resumable(m.dir)
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].FirstPrompt != "from the config dir" {
		t.Fatalf("resumable %+v %v", list, err)
	}
	// "All my projects" in the Always… form names that folder.
	_, c := m.session("go")
	c.Ask("r1", "Bash", map[string]any{"command": "make"}, nil)
	p := m.waitPending(1)[0]
	if s := p.Scopes[len(p.Scopes)-1]; s.Name != "userSettings" || s.Path != filepath.Join(cfg, "settings.json") {
		t.Errorf("scopes %+v", p.Scopes)
	}
}

// An MCP tool's ask shows its server and each argument as a field of its
// own, and offers the whole server as a rule.
func TestMCPRequestView(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	c.Ask("r1", "mcp__tracker__create_issue", map[string]any{"title": "Crash on save", "labels": []string{"bug"}, "priority": 2},
		map[string]any{"mcp_server": map[string]any{"name": "tracker", "source": "user"}, "display_name": "Create issue"})
	p := m.waitPending(1)[0]
	got := map[string]string{}
	for _, f := range p.Fields {
		got[f.Label] = f.Value
	}
	want := map[string]string{"MCP server": "tracker (user)", "Tool": "create_issue", "title": "Crash on save", "priority": "2", "labels": "[\n  \"bug\"\n]"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %s = %q, want %q (fields %+v)", k, got[k], v, p.Fields)
		}
	}
	if p.ServerRule != "mcp__tracker" || p.ServerChoice != "every tool of MCP server tracker" || !strings.HasPrefix(p.Title, "Create issue · ") {
		t.Errorf("view %+v", p)
	}
	if p.SessionChoice != "" {
		t.Errorf("no suggestion, yet a session choice: %q", p.SessionChoice)
	}
	d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "allow", Rules: []string{p.ServerRule}, Destination: "session"}})
	if err != nil || !d.Decided || d.Warning != "" {
		t.Fatalf("%+v %v", d, err)
	}
	if got := flagsBefore(t, c, "r1"); got != `{"allow":["mcp__tracker"],"deny":[]}` {
		t.Fatalf("session rules %s", got)
	}
}

// A Write rebased across an outside change merges three ways (what Claude
// read, the reviewed content, the disk now); the save after it denies with
// the reviewed content (the CLI would refuse the Write), and Claude's next
// Write of exactly those bytes is allowed without asking; other bytes ask.
func TestWriteRebaseAsksClaudeToWriteAgain(t *testing.T) {
	m := newMem(t)
	path := m.write("w.txt", "one\ntwo\n")
	_, c := m.session("go")
	c.Ask("w1", "Write", map[string]any{"file_path": path, "content": "one\nTWO\n"}, nil)
	p := m.waitPending(1)[0]
	m.write("w.txt", "zero\none\ntwo\n")
	if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
		t.Fatal(err)
	}
	const merged = "zero\none\nTWO\n"
	if staged, _ := os.ReadFile(p.Staged); string(staged) != merged {
		t.Fatalf("rebased Write %q drops the outside change; want %q", staged, merged)
	}
	if len(c.Answers("w1")) != 0 {
		t.Fatal("answered on the save that found the outside change")
	}
	d, err := m.app.ProposalSaved(SaveParams{ID: p.ID})
	if err != nil || !d.Decided {
		t.Fatalf("second save: %+v %v", d, err)
	}
	a := answer(t, c, "w1")
	msg, _ := a["message"].(string)
	if a["behavior"] != "deny" || !strings.Contains(msg, "Write exactly this content") || !strings.Contains(msg, merged) {
		t.Fatalf("answer %v", a)
	}
	// Other bytes are asked as usual; the approved ones are not.
	c.Ask("w2", "Write", map[string]any{"file_path": path, "content": merged + "more\n"}, nil)
	p2 := m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p2.ID, Decision: decision(approval.Deny)}); err != nil {
		t.Fatal(err)
	}
	c.Ask("w3", "Write", map[string]any{"file_path": path, "content": merged}, nil)
	if got := answer(t, c, "w3"); got["behavior"] != "allow" {
		t.Fatalf("the approved Write was answered %v", got)
	}
	if n := len(m.app.Pending()); n != 0 {
		t.Fatalf("%d pending: the approved Write was asked", n)
	}
	m.rec.wait(t, "the transcript says it was allowed unasked", func([]ui.Event) bool {
		return strings.Contains(m.rec.transcriptText(1), "without asking: exactly the content you approved")
	})
	// It allowed one Write: the same bytes again are asked.
	c.Ask("w4", "Write", map[string]any{"file_path": path, "content": merged}, nil)
	m.waitPending(1)
}

// A session claude has answered initialize for is ready until its first
// prompt (claude reports nothing else before one), then runs; a plan-mode
// session's file change says it comes before any approved plan.
func TestReadyUntilTheFirstPrompt(t *testing.T) {
	m := newMem(t)
	info, c := m.session("")
	m.rec.wait(t, "ready", func([]ui.Event) bool { return mustSession(t, m.app, info.ID).State() == session.StateReady })
	if _, err := m.app.Send(SendParams{Session: info.ID, Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	if st := mustSession(t, m.app, info.ID).State(); st != session.StateRunning {
		t.Fatalf("state %q after a prompt", st)
	}
	c.PushJSON(map[string]any{"type": "system", "subtype": "status", "permissionMode": "plan"})
	m.rec.wait(t, "plan mode", func([]ui.Event) bool { return mustSession(t, m.app, info.ID).Mode() == "plan" })
	p := m.write("p.txt", "one\n")
	c.Ask("w1", "Write", map[string]any{"file_path": p, "content": "two\n"}, nil)
	if v := m.waitPending(1)[0]; !v.PlanMode {
		t.Fatalf("a Write while planning is not marked: %+v", v)
	}
}

// A large file's proposal has the editor read the original while the host
// stages it: the ask comes before the request, names its id and the file.
// A small file's, or one reviewed in the panel, has no such ask.
func TestLargeOriginalReadAhead(t *testing.T) {
	prepared := func(m *mem) []map[string]string {
		var out []map[string]string
		m.rec.mu.Lock()
		defer m.rec.mu.Unlock()
		for _, ev := range m.rec.events {
			if ev.Name == ui.EvProposalPrepare {
				out = append(out, ev.Data.(map[string]string))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		size   int
		review string
		want   bool
	}{
		{"large", ahead.PrepareSize, "", true},
		{"small", ahead.PrepareSize - 1, "", false},
		{"large, reviewed in the panel", ahead.PrepareSize, "panel", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			if tc.review != "" {
				if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Env: m.env(), ReviewEdits: tc.review}); err != nil {
					t.Fatal(err)
				}
			}
			content := "first line\n" + strings.Repeat("x", tc.size-len("first line\n"))
			path := m.write("big.txt", content)
			_, c := m.session("go")
			c.Ask("e1", "Edit", map[string]any{"file_path": path, "old_string": "first line", "new_string": "FIRST LINE"}, nil)
			p := m.waitPending(1)[0]
			got := prepared(m)
			if !tc.want {
				if len(got) != 0 {
					t.Fatalf("asked to read ahead: %v", got)
				}
				return
			}
			if len(got) != 1 || got[0]["id"] != p.ID || got[0]["path"] != path {
				t.Fatalf("read-ahead asks %v; want one for %s %s", got, p.ID, path)
			}
			names := m.rec.names()
			if i, j := slices.Index(names, ui.EvProposalPrepare), slices.Index(names, ui.EvRequestAdded); i < 0 || j < 0 || i > j {
				t.Fatalf("events %v: the read-ahead must come before the request", names)
			}
		})
	}
}

// A Write rebased into a conflict writes its markers with the Write's own
// labels: a save with any of them left applies nothing and asks nothing of
// Claude (they were looked for with the Edit's labels, and Claude was asked
// to write the markers).
func TestRebasedWriteMarkersRefused(t *testing.T) {
	m := newMem(t)
	path := m.write("w.txt", "a\nb\nc\n")
	_, c := m.session("go")
	c.Ask("w1", "Write", map[string]any{"file_path": path, "content": "a\nB claude\nc\n"}, nil)
	p := m.waitPending(1)[0]
	if p.Surface != "proposal" || p.Staged == "" {
		t.Fatalf("not a proposal: %+v", p)
	}
	m.write("w.txt", "a\nB outside\nc\n")
	if _, err := m.app.ProposalSaved(SaveParams{ID: p.ID}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p.Staged)
	staged := string(b)
	if !strings.Contains(staged, "<<<<<<< Claude's write with your edits\n") {
		t.Fatalf("no conflict in %q", staged)
	}
	for _, tt := range []struct{ name, saved, line string }{
		{"as rebased", staged, `line 2: "<<<<<<< Claude's write with your edits"`},
		{"only >>>>>>> left", "a\nB outside\n>>>>>>> the file on disk now\nc\n", `line 3: ">>>>>>> the file on disk now"`},
	} {
		save(t, p.Staged, tt.saved)
		d, err := m.app.ProposalSaved(SaveParams{ID: p.ID})
		if err != nil || d.Decided || len(c.Answers("w1")) != 0 {
			t.Fatalf("%s: %+v %v, answers %v", tt.name, d, err, c.Answers("w1"))
		}
		if !strings.Contains(d.Reason, "conflict markers remain") || !strings.Contains(d.Reason, tt.line) {
			t.Fatalf("%s: %q", tt.name, d.Reason)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "a\nB outside\nc\n" {
		t.Fatalf("the file changed: %q", got)
	}
}
