package approval

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

func TestRouteOf(t *testing.T) {
	ok := func() error { return nil }
	fail := func() error { return errors.New("old_string not found in a.txt") }
	tests := []struct {
		name    string
		tool    string
		rui     bool
		review  ReviewEdits
		stage   func() error
		want    Surface
		wantWhy string
	}{
		{"question", "AskUserQuestion", true, ReviewProposal, ok, SurfaceQuestion, ""},
		{"plan", "ExitPlanMode", true, ReviewProposal, ok, SurfacePlan, ""},
		{"write", "Write", false, ReviewProposal, ok, SurfaceProposal, ""},
		{"edit", "Edit", false, ReviewProposal, ok, SurfaceProposal, ""},
		{"update", "Update", false, ReviewProposal, ok, SurfaceProposal, ""},
		{"multiedit", "MultiEdit", false, ReviewProposal, ok, SurfaceProposal, ""},
		{"edit unreconstructable", "Edit", false, ReviewProposal, fail, SurfacePanel, "cannot stage a proposal: old_string not found in a.txt"},
		{"edit in panel mode", "Edit", false, ReviewPanel, fail, SurfacePanel, ""},
		{"interactive tool we lack", "SomeWizard", true, ReviewProposal, ok, SurfaceDeny, NeedsOwnUIMessage("SomeWizard")},
		{"a person must answer a known tool", "Bash", true, ReviewProposal, ok, SurfacePanel, ""},
		{"a person must answer an MCP tool", "mcp__x__y", true, ReviewProposal, ok, SurfacePanel, ""},
		{"notebook", "NotebookEdit", false, ReviewProposal, ok, SurfaceProposal, ""},
		{"to the panel as it is", "NotebookEdit", false, ReviewProposal, func() error { return &ToPanel{Reason: "delete cell c2"} }, SurfacePanel, "delete cell c2"},
		{"bash", "Bash", false, ReviewProposal, ok, SurfacePanel, ""},
		{"mcp", "mcp__github__create_issue", false, ReviewProposal, ok, SurfacePanel, ""},
		{"webfetch", "WebFetch", false, ReviewProposal, ok, SurfacePanel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			staged := false
			stage := func() error { staged = true; return tt.stage() }
			pr := claude.PermissionRequest{ToolName: tt.tool, RequiresUserInteraction: tt.rui, Input: json.RawMessage(`{}`), In: toolcall.Decode(json.RawMessage(`{}`))}
			got := RouteOf(pr, tt.review, stage)
			if got.Surface != tt.want || got.Reason != tt.wantWhy {
				t.Errorf("Present = %+v, want %s %q", got, tt.want, tt.wantWhy)
			}
			if staged != (IsFileChange(tt.tool) && tt.review == ReviewProposal) {
				t.Errorf("stage called = %v", staged)
			}
		})
	}
}

func TestDecisionResult(t *testing.T) {
	r := Pending{Perm: claude.PermissionRequest{ToolName: "Bash", Input: json.RawMessage(`{"command":"ls"}`), In: toolcall.Decode(json.RawMessage(`{"command":"ls"}`))}}
	tests := []struct {
		name string
		d    Decision
		want string
	}{
		{"allow echoes input", Decision{Behavior: Allow}, `{"behavior":"allow","updatedInput":{"command":"ls"}}`},
		// Session rules go to claude with apply_flag_settings, not in the answer.
		{"allow session", Decision{Behavior: AllowSession}, `{"behavior":"allow","updatedInput":{"command":"ls"}}`},
		{"allow tool", Decision{Behavior: AllowTool}, `{"behavior":"allow","updatedInput":{"command":"ls"}}`},
		{"always, for the session", Decision{Behavior: Allow, Rules: []string{"Bash(ls:*)"}, Destination: "session"}, `{"behavior":"allow","updatedInput":{"command":"ls"}}`},
		{"always, to a file", Decision{Behavior: Allow, Rules: []string{"Bash(ls:*)"}, Destination: "localSettings"}, `{"behavior":"allow","updatedInput":{"command":"ls"},"updatedPermissions":[{"behavior":"allow","destination":"localSettings","rules":[{"ruleContent":"ls:*","toolName":"Bash"}],"type":"addRules"}]}`},
		{"deny default", Decision{Behavior: Deny}, `{"behavior":"deny","message":"` + DefaultDenyMessage + `"}`},
		{"deny message", Decision{Behavior: Deny, Message: "no"}, `{"behavior":"deny","message":"no"}`},
		{"plan mode", Decision{Behavior: Allow, Mode: "acceptEdits", UpdatedInput: json.RawMessage(`{}`)}, `{"behavior":"allow","updatedInput":{},"updatedPermissions":[{"destination":"session","mode":"acceptEdits","type":"setMode"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.d.Result(r)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
	edit := Pending{Perm: claude.PermissionRequest{ToolName: "Edit", Input: json.RawMessage(`{}`), In: toolcall.Decode(json.RawMessage(`{}`)),
		Suggestions: claude.Suggestions{{Type: "setMode", Mode: "acceptEdits", Destination: "session"}}}}
	if res, _ := (Decision{Behavior: AllowSession}).Result(edit); len(res.UpdatedPermissions) != 1 {
		t.Errorf("accept edits for the session: %+v", res)
	}
	if _, err := (Decision{Behavior: "maybe"}).Result(r); err == nil {
		t.Error("unknown behavior accepted")
	}
	if _, err := (Decision{Behavior: Allow, UpdatedInput: json.RawMessage(`{bad`)}).Result(r); err == nil {
		t.Error("invalid updated input accepted")
	}
}

func TestRegistryFinishOnce(t *testing.T) {
	g := NewRegistry()
	r := &Pending{ID: Key(1, "x"), Session: 1}
	announced := 0
	if !g.Register(r, func(Pending) { announced++ }) || g.Register(r, func(Pending) { announced++ }) || announced != 1 {
		t.Fatal("Register should accept once and announce once")
	}
	done := make(chan bool, 10)
	told := make(chan string, 10)
	for i := 0; i < 10; i++ {
		go func() {
			_, ok := g.Finish(r.ID, func(p Pending) { told <- p.ID })
			done <- ok
		}()
	}
	n := 0
	for i := 0; i < 10; i++ {
		if <-done {
			n++
		}
	}
	if n != 1 || len(told) != 1 {
		t.Fatalf("finished %d times, told %d times", n, len(told))
	}
	if g.Present(r.ID, func(Pending) { t.Fatal("presented after finish") }) {
		t.Fatal("Present of a finished request reported true")
	}
	g.Register(&Pending{ID: Key(2, "a"), Session: 2, Kind: stubKind{}}, nil)
	g.Register(&Pending{ID: Key(3, "b"), Session: 3, Kind: stubKind{}}, nil)
	if got := g.FinishSession(2, nil); len(got) != 1 || g.Count(0) != 1 || g.Count(3) != 1 {
		t.Fatalf("FinishSession: %d left %d", len(got), g.Count(0))
	}
}

// Events about one request reach the sink in the order it lived them, even
// when presenting and finishing race: never a "present" after "removed".
func TestRegistryPresentNeverFollowsFinish(t *testing.T) {
	for i := 0; i < 500; i++ {
		g := NewRegistry()
		var mu sync.Mutex
		var events []string
		rec := func(name string) func(Pending) {
			return func(Pending) { mu.Lock(); events = append(events, name); mu.Unlock() }
		}
		p := &Pending{ID: "1:r", Session: 1}
		g.Register(p, rec("added"))
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); g.Present(p.ID, rec("present")) }()
		go func() { defer wg.Done(); g.Finish(p.ID, rec("removed")) }()
		wg.Wait()
		if events[len(events)-1] != "removed" {
			t.Fatalf("run %d: events %v", i, events)
		}
	}
}

func TestRegistryRebaseChecksRevision(t *testing.T) {
	g := NewRegistry()
	g.Register(&Pending{ID: "1:r", Session: 1}, nil)
	if !g.Rebase("1:r", 0, nil, []int{3}, nil) {
		t.Fatal("rebase at rev 0 refused")
	}
	if g.Rebase("1:r", 0, nil, nil, nil) {
		t.Fatal("a stale rebase was accepted")
	}
	if p, _ := g.Get("1:r"); p.Rev != 1 || len(p.Conflicts) != 1 {
		t.Fatalf("after rebase %+v", p)
	}
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// The CLI's hints, obeyed wherever a request can be answered: what is
// refused stays pending, and the reason says why.
func TestRefusal(t *testing.T) {
	rmHome := claude.PermissionRequest{ToolName: "Bash", Input: json.RawMessage(`{"command":"rm -rf ~ --x"}`), In: toolcall.Decode(json.RawMessage(`{"command":"rm -rf ~ --x"}`)),
		Suggestions: claude.Suggestions{}, DecisionReason: "Dangerous rm operation on critical path: /home/u",
		DecisionReasonType: "safetyCheck", ClassifierApprovable: no(), SuppressAlwaysAllowRule: true}
	plain := claude.PermissionRequest{ToolName: "Bash", Input: json.RawMessage(`{"command":"touch a"}`), In: toolcall.Decode(json.RawMessage(`{"command":"touch a"}`))}
	askRule := plain
	askRule.MatchedAskRule = &claude.AskRule{Source: "localSettings", ToolName: "Bash", RuleContent: "touch:*"}
	stray := plain
	stray.DefaultToNo = true
	person := claude.PermissionRequest{ToolName: "Bash", Input: json.RawMessage(`{"command":"x"}`), In: toolcall.Decode(json.RawMessage(`{"command":"x"}`)), RequiresUserInteraction: true, DecisionReasonType: "classifier"}
	approvable := plain
	approvable.DecisionReasonType, approvable.ClassifierApprovable = "safetyCheck", yes()
	noSuggestion := claude.PermissionRequest{ToolName: "mcp__gh__create_issue", Input: json.RawMessage(`{"title":"x"}`), In: toolcall.Decode(json.RawMessage(`{"title":"x"}`))}
	rule := func(b string) Decision {
		return Decision{Behavior: b, Rules: []string{"Bash(rm:*)"}, Destination: "localSettings"}
	}
	tests := []struct {
		name string
		pr   claude.PermissionRequest
		d    Decision
		via  string
		want string // "" or a part of the refusal
	}{
		{"safety check: once", rmHome, Decision{Behavior: Allow}, ViaSurface, ""},
		{"safety check: once from the API", rmHome, Decision{Behavior: Allow}, ViaCommand, ""},
		{"safety check: deny", rmHome, Decision{Behavior: Deny}, ViaSidebar, ""},
		{"safety check: no allow rule", rmHome, rule(Allow), ViaCommand, "no lasting rule"},
		{"safety check: no deny rule", rmHome, rule(Deny), ViaCommand, "no lasting rule"},
		{"safety check: no session rule", rmHome, Decision{Behavior: Allow, Rules: []string{"Bash"}, Destination: "session"}, ViaSurface, "no lasting rule"},
		{"safety check: no allow for the session", rmHome, Decision{Behavior: AllowSession}, ViaSurface, "not be allowed for the session"},
		{"safety check: no whole tool", rmHome, Decision{Behavior: AllowTool}, ViaCommand, "not be allowed for the session"},
		{"safety check: not in a batch", rmHome, Decision{Behavior: Allow}, ViaBatch, "needs your own answer (a safety check only you can approve"},
		{"safety check: a batch may deny", rmHome, Decision{Behavior: Deny}, ViaBatch, ""},
		{"approvable check in a batch", approvable, Decision{Behavior: Allow}, ViaBatch, ""},
		{"ask rule: not in a batch", askRule, Decision{Behavior: Allow}, ViaBatch, "your ask rule Bash(touch:*) in localSettings"},
		{"ask rule: once", askRule, Decision{Behavior: Allow}, ViaSidebar, ""},
		{"ask rule: a rule may be made", askRule, rule(Allow), ViaSurface, ""},
		{"default to no: no one key", stray, Decision{Behavior: Allow}, ViaSidebar, "single key"},
		{"default to no: no session key", stray, Decision{Behavior: AllowSession}, ViaSidebar, "single key"},
		{"default to no: its panel", stray, Decision{Behavior: Allow}, ViaSurface, ""},
		{"default to no: not in a batch", stray, Decision{Behavior: Allow}, ViaBatch, "needs your own answer"},
		{"default to no: deny by key", stray, Decision{Behavior: Deny}, ViaSidebar, ""},
		{"a person: no rule", person, rule(Allow), ViaSurface, "no lasting rule"},
		{"a person: not by a key", person, Decision{Behavior: Allow}, ViaSidebar, "single key"},
		{"a person: its panel", person, Decision{Behavior: Allow}, ViaSurface, ""},
		{"plain: batch", plain, Decision{Behavior: Allow}, ViaBatch, ""},
		{"plain: exact session rule", plain, Decision{Behavior: AllowSession}, ViaSidebar, ""},
		{"plain: whole tool", plain, Decision{Behavior: AllowTool}, ViaSurface, ""},
		{"no suggestion: nothing for the session", noSuggestion, Decision{Behavior: AllowSession}, ViaSurface, "nothing to allow for the session"},
		{"no suggestion: the whole tool, labelled", noSuggestion, Decision{Behavior: AllowTool}, ViaSurface, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AskRefusal(Pending{Perm: tt.pr}, tt.d, tt.via)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Refusal = %q, want %q", got, tt.want)
			}
		})
	}
}

// The plugin allows by itself only what claude leaves to anyone.
func TestMayAutoAllow(t *testing.T) {
	ask := &claude.AskRule{Source: "localSettings", ToolName: "Bash", RuleContent: "touch:*"}
	for _, tt := range []struct {
		name string
		pr   claude.PermissionRequest
		want bool
	}{
		{"plain", claude.PermissionRequest{ToolName: "Bash"}, true},
		{"an approvable safety check", claude.PermissionRequest{ToolName: "Bash", ClassifierApprovable: yes(), DecisionReasonType: "safetyCheck"}, true},
		{"no lasting rule only", claude.PermissionRequest{ToolName: "Bash", SuppressAlwaysAllowRule: true}, true},
		{"a safety check only a person approves", claude.PermissionRequest{ToolName: "Bash", ClassifierApprovable: no()}, false},
		{"the user's ask rule", claude.PermissionRequest{ToolName: "Bash", MatchedAskRule: ask}, false},
		{"default to no", claude.PermissionRequest{ToolName: "Bash", DefaultToNo: true}, false},
		{"a person's answer", claude.PermissionRequest{ToolName: "Bash", RequiresUserInteraction: true}, false},
	} {
		if got := MayAutoAllow(tt.pr); got != tt.want {
			t.Errorf("%s: MayAutoAllow = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestHintsOf(t *testing.T) {
	h := HintsOf(claude.PermissionRequest{ToolName: "Bash", ClassifierApprovable: no(), SuppressAlwaysAllowRule: true, DecisionReasonType: "safetyCheck"})
	if !h.NoRules || h.Deliberate || !h.HumanOnly || h.Why != "a safety check only you can approve" {
		t.Errorf("safety check: %+v", h)
	}
	h = HintsOf(claude.PermissionRequest{ToolName: "Bash", MatchedAskRule: &claude.AskRule{Source: "userSettings", ToolName: "Bash", RuleContent: "git push\x1b[31m:*"}})
	if h.NoRules || !h.HumanOnly || strings.ContainsRune(h.Why, 0x1b) {
		t.Errorf("ask rule: %+v", h)
	}
	if h := HintsOf(claude.PermissionRequest{ToolName: "Bash"}); h != (Hints{}) {
		t.Errorf("no hints: %+v", h)
	}
}

// FinishIf removes a request only when its answer was queued: an answer
// that cannot be queued leaves it pending, and nobody is told it left.
func TestFinishIfKeepsWhatCouldNotBeAnswered(t *testing.T) {
	g := NewRegistry()
	g.Register(&Pending{ID: "1:a", Session: 1}, nil)
	told := 0
	_, pending, err := g.FinishIf("1:a", func(Pending) error { return errors.New("queue full") }, func(Pending) { told++ })
	if !pending || err == nil || told != 0 || g.Count(0) != 1 {
		t.Fatalf("a failed answer finished the request: %v %v %d %d", pending, err, told, g.Count(0))
	}
	_, pending, err = g.FinishIf("1:a", func(Pending) error { return nil }, func(Pending) { told++ })
	if !pending || err != nil || told != 1 || g.Count(0) != 0 {
		t.Fatalf("answer: %v %v %d", pending, err, told)
	}
	if _, pending, _ := g.FinishIf("1:a", func(Pending) error { t.Fatal("answered twice"); return nil }, nil); pending {
		t.Fatal("finished twice")
	}
}

// stubKind is a kind of request that is answered by no one here.
type stubKind struct{}

func (stubKind) Answer(Pending, Decision, string) (bool, error) { return false, nil }
func (stubKind) Withdrawn(Pending)                              {}
func (stubKind) Refusal(Pending, Decision, string) string       { return "" }
func (stubKind) Outlives() bool                                 { return false }
