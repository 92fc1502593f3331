package approval

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

func TestPresent(t *testing.T) {
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
		{"bash", "Bash", false, ReviewProposal, ok, SurfacePanel, ""},
		{"mcp", "mcp__github__create_issue", false, ReviewProposal, ok, SurfacePanel, ""},
		{"webfetch", "WebFetch", false, ReviewProposal, ok, SurfacePanel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			staged := false
			stage := func() error { staged = true; return tt.stage() }
			pr := claude.PermissionRequest{ToolName: tt.tool, RequiresUserInteraction: tt.rui, Input: json.RawMessage(`{}`)}
			got := Present(pr, tt.review, stage)
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
	r := Pending{Perm: claude.PermissionRequest{ToolName: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}}
	tests := []struct {
		name string
		d    Decision
		want string
	}{
		{"allow echoes input", Decision{Behavior: Allow}, `{"behavior":"allow","updatedInput":{"command":"ls"}}`},
		{"allow session", Decision{Behavior: AllowSession}, `{"behavior":"allow","updatedInput":{"command":"ls"},"updatedPermissions":[{"behavior":"allow","destination":"session","rules":[{"toolName":"Bash"}],"type":"addRules"}]}`},
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
	g.Register(&Pending{ID: Key(2, "a"), Session: 2}, nil)
	g.Register(&Pending{ID: Key(3, "b"), Session: 3}, nil)
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
