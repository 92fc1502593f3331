package approval

import (
	"encoding/json"
	"errors"
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
	r := &Request{Perm: claude.PermissionRequest{ToolName: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}}
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

func TestRegistryTakeOnce(t *testing.T) {
	g := NewRegistry()
	r := &Request{ID: Key(1, "x"), Session: 1}
	if !g.Add(r) || g.Add(r) {
		t.Fatal("Add should accept once")
	}
	done := make(chan bool, 10)
	for i := 0; i < 10; i++ {
		go func() { _, ok := g.Take(r.ID); done <- ok }()
	}
	n := 0
	for i := 0; i < 10; i++ {
		if <-done {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("taken %d times", n)
	}
	g.Add(&Request{ID: Key(2, "a"), Session: 2})
	g.Add(&Request{ID: Key(3, "b"), Session: 3})
	if got := g.TakeSession(2); len(got) != 1 || g.Len() != 1 {
		t.Fatalf("TakeSession: %d left %d", len(got), g.Len())
	}
}
