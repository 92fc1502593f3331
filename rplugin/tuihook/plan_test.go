package tuihook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// planLine is a transcript line of the model's ExitPlanMode call.
func planLine(id, plan string, sidechain bool) string {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "isSidechain": sidechain, "message": map[string]any{
		"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "ExitPlanMode", "input": map[string]any{"plan": plan}}},
	}})
	return string(b) + "\n"
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func planInput(transcript string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": transcript, "cwd": "/p", "permission_mode": "plan",
		"hook_event_name": "PermissionRequest", "tool_name": "ExitPlanMode", "tool_input": map[string]any{}})
	return string(b)
}

// A plan's request: the plan, stripped from the hook's input, comes from
// the transcript as the model's call (the one not asked about yet; a
// subagent's is not the session's), then the request.
func TestAPlanIsReadFromTheTranscript(t *testing.T) {
	_, c, env := setup(t)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	appendTo(t, tr, `{"type":"user","message":{"role":"user","content":"plan it"}}`+"\n"+planLine("toolu_1", "# First\n1. a", false))
	tests := []struct {
		name, later, want string
	}{
		{"the call in the transcript", "", "# First\n1. a"},
		// The second call is written after the hook started (claude
		// writes its transcript about a second late); a subagent's is
		// not it.
		{"a later call, written late", planLine("toolu_x", "not mine", true) + planLine("toolu_2", "# Second", false), "# Second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := runHook(env, planInput(tr))
			if tt.later != "" {
				time.Sleep(3 * planPoll) // the hook looks at least once before
				appendTo(t, tr, tt.later)
			}
			m := next(t, c)
			if m.Type != "assistant" || m.Assistant == nil {
				t.Fatalf("got %+v", m)
			}
			raw, _ := json.Marshal(m.Assistant)
			if !strings.Contains(string(raw), `"name":"ExitPlanMode"`) || !strings.Contains(string(raw), mustJSON(tt.want)) {
				t.Fatalf("the model's call %s", raw)
			}
			req := next(t, c)
			if req.Subtype != "can_use_tool" || req.Permission == nil || !strings.Contains(string(raw), `"id":"`+req.Permission.ToolUseID+`"`) {
				t.Fatalf("request %+v for the call %s", req.Permission, raw)
			}
			// An approval without an edit still carries an updatedInput:
			// claude's dialog stays open without one.
			if err := c.Respond(req.RequestID, claude.PermissionResult{Behavior: "allow"}); err != nil {
				t.Fatal(err)
			}
			h.wait(t)
			if !strings.Contains(h.out.String(), `"updatedInput":{}`) {
				t.Fatalf("printed %s", h.out.String())
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A question answered in the terminal: claude's PostToolUse reports the
// input with the answers in it; the editor's picker is withdrawn all the
// same.
func TestAQuestionAnsweredInTheTerminalWithdraws(t *testing.T) {
	_, c, env := setup(t)
	q := `{"questions":[{"question":"Which lib?","header":"Lib","multiSelect":false,"options":[{"label":"A","description":"a"}]}]}`
	h := runHook(env, `{"hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":`+q+`}`)
	m := next(t, c)
	if m.Subtype != "can_use_tool" {
		t.Fatalf("got %+v", m)
	}
	answered := strings.TrimSuffix(q, "}") + `,"answers":{"Which lib?":"A"}}`
	notify(t, env, `{"hook_event_name":"PostToolUse","tool_name":"AskUserQuestion","tool_input":`+answered+`,"tool_response":{}}`)
	if m2 := next(t, c); m2.Type != "control_cancel_request" || m2.RequestID != m.RequestID {
		t.Fatalf("got %+v, want %s withdrawn", m2, m.RequestID)
	}
	h.wait(t)
	if h.out.Len() != 0 {
		t.Fatalf("printed %s", h.out.String())
	}
}

// planMiss names what it found: the transcript's size, whether the call is
// in it, and the folder's other transcripts that have one.
func TestPlanMissSaysWhereThePlanWas(t *testing.T) {
	dir := t.TempDir()
	mine, other, plain := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	appendTo(t, mine, "{}\n")
	appendTo(t, other, planLine("toolu_1", "the plan", false))
	appendTo(t, plain, "{}\n")
	for _, tc := range []struct {
		path string
		want string
	}{
		{mine, "transcript 3 bytes, names ExitPlanMode: false; other transcripts of its folder that do: [b.jsonl]"},
		{other, "names ExitPlanMode: true; other transcripts of its folder that do: []"},
		{filepath.Join(dir, "gone.jsonl"), "transcript -1 bytes, names ExitPlanMode: false; other transcripts of its folder that do: [b.jsonl]"},
	} {
		if got := planMiss(tc.path); !strings.Contains(got, tc.want) {
			t.Errorf("planMiss(%s) = %q, want %q in it", filepath.Base(tc.path), got, tc.want)
		}
	}
}
