package app

import (
	"encoding/json"
	"testing"
)

// The view says how its request may be answered, in the words the host
// itself refuses with: the front end reads them and writes no rule again.
func TestRequestViewSaysHowItIsAnswered(t *testing.T) {
	type want struct {
		own                                bool
		ownRefusal, noAlways, noBatchAllow string
	}
	question := map[string]any{"questions": []any{map[string]any{
		"question": "Which?", "header": "H", "options": []any{map[string]any{"label": "A"}, map[string]any{"label": "B"}},
	}}}
	cases := []struct {
		name  string
		ask   func(c askFn)
		want  want
		sides []DecideParams // gestures whose refusal must be the view's words
	}{
		{
			name: "a plain command: any gesture answers it",
			ask:  func(c askFn) { c("r", "Bash", map[string]any{"command": "ls"}, nil) },
		},
		{
			name: "a question answers itself",
			ask:  func(c askFn) { c("r", "AskUserQuestion", question, nil) },
			want: want{own: true, ownRefusal: "a question needs its own answer: its surface is open", noAlways: "a question needs its own answer, not a rule"},
		},
		{
			name: "a plan answers itself",
			ask:  func(c askFn) { c("r", "ExitPlanMode", map[string]any{"plan": "1. x"}, nil) },
			want: want{own: true, ownRefusal: "a plan needs its own answer: its surface is open", noAlways: "a plan needs its own answer, not a rule"},
		},
		{
			name: "a safety check: never allowed by a batch, no lasting rule",
			ask: func(c askFn) {
				c("r", "Bash", map[string]any{"command": "rm -rf ~ --x"}, map[string]any{
					"decision_reason_type": "safetyCheck", "classifier_approvable": false, "suppress_always_allow_rule": true})
			},
			want: want{
				noBatchAllow: "it needs your own answer (a safety check only you can approve)",
				noAlways:     "claude asks that no lasting rule be made for this request (a safety check only you can approve): allow or deny it once",
			},
		},
		{
			name: "no lasting rule offered",
			ask: func(c askFn) {
				c("r", "Bash", map[string]any{"command": "make"}, map[string]any{"suppress_always_allow_rule": true})
			},
			want: want{noAlways: "claude asks that no lasting rule be made for this request (claude offers no lasting rule for it): allow or deny it once"},
		},
		{
			name: "a deliberate answer: not by a batch",
			ask: func(c askFn) {
				c("r", "Bash", map[string]any{"command": "touch a"}, map[string]any{"default_to_no": true})
			},
			want: want{noBatchAllow: "it needs your own answer (claude asks for a deliberate answer)"},
		},
		{
			name: "your own ask rule: not by a batch",
			ask: func(c askFn) {
				c("r", "Bash", map[string]any{"command": "git push"}, map[string]any{
					"matched_ask_rule": map[string]any{"tool_name": "Bash", "rule_content": "git push:*", "source": "userSettings"}})
			},
			want: want{noBatchAllow: "it needs your own answer (your ask rule Bash(git push:*) in userSettings)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMem(t)
			_, c := m.session("go")
			tc.ask(c.Ask)
			v := m.waitPending(1)[0]
			got := want{v.Own, v.OwnRefusal, v.NoAlways, v.NoBatchAllow}
			if got != tc.want {
				t.Fatalf("view says %+v, want %+v", got, tc.want)
			}
			if v.Own {
				// What the host answers a gesture from elsewhere.
				for _, via := range []string{"sidebar", "command", "batch"} {
					d, err := m.app.Decide(DecideParams{ID: v.ID, Via: via, Decision: decision("allow")})
					if err != nil || d.Decided || d.Reason != v.OwnRefusal {
						t.Fatalf("%s: %+v %v, want the reason %q", via, d, err, v.OwnRefusal)
					}
				}
			}
			if v.NoBatchAllow != "" {
				d, err := m.app.Decide(DecideParams{ID: v.ID, Via: "batch", Decision: decision("allow")})
				if err != nil || d.Decided || d.Reason != v.NoBatchAllow {
					t.Fatalf("batch allow: %+v %v, want the reason %q", d, err, v.NoBatchAllow)
				}
			}
		})
	}
	t.Run("a form answers itself", func(t *testing.T) {
		m := newMem(t)
		_, c := m.session("go")
		c.PushJSON(map[string]any{"type": "control_request", "request_id": "e1", "request": map[string]any{
			"subtype": "elicitation", "mcp_server_name": "tracker", "message": "Which project?",
			"requested_schema": json.RawMessage(`{"type":"object","properties":{"project":{"type":"string"}}}`),
		}})
		v := m.waitPending(1)[0]
		got := want{v.Own, v.OwnRefusal, v.NoAlways, v.NoBatchAllow}
		if w := (want{own: true, ownRefusal: "a form needs its own answer: its surface is open", noAlways: "a form needs its own answer, not a rule"}); got != w {
			t.Fatalf("view says %+v, want %+v", got, w)
		}
		if d, _ := m.app.Decide(DecideParams{ID: v.ID, Via: "sidebar", Decision: decision("deny")}); d.Decided || d.Reason != v.OwnRefusal {
			t.Fatalf("sidebar deny on a form: %+v", d)
		}
	})
	t.Run("a request no longer pending", func(t *testing.T) {
		m := newMem(t)
		if d, err := m.app.Decide(DecideParams{ID: "1:gone", Via: "sidebar", Decision: decision("allow")}); err != nil || d.Reason != ErrNotPending.Error() {
			t.Fatalf("%+v %v", d, err)
		}
	})
}

// askFn is the fake claude's Ask.
type askFn = func(id, tool string, input any, extra map[string]any)
