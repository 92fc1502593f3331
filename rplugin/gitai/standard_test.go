package gitai

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

var (
	sessionKeyRE = regexp.MustCompile(`^s_[0-9a-f]{14}::t_[0-9a-f]{14}$`)
	humanKeyRE   = regexp.MustCompile(`^h_[0-9a-f]{14}$`)
)

// The note follows the standard as amended (2026-05): Claude's lines under
// session keys s_<14 hex>::t_<14 hex> resolving to metadata.sessions
// (records without stats), the user's amended lines under h_<14 hex> in
// metadata.humans, prompts an empty map, git_ai_version a string; the
// prompt's text only when the user chose to share it.
func TestTheNoteFollowsTheStandardAsAmended(t *testing.T) {
	a := Agent{SessionID: "sess-1", Model: "claude-x", Name: "fix greet", Turn: 2, Prompt: "the token is hunter2"}
	b := Agent{SessionID: "sess-1", Model: "claude-x", Name: "fix greet", Turn: 3, Prompt: "again"}
	files := map[string][]Line{"src/greet.go": {{N: 1, Agent: a}, {N: 2, Agent: b}, {N: 3, Agent: a, Amended: true}}}
	for _, tc := range []struct {
		mode     PromptMode
		wantText bool
	}{{PromptsRef, false}, {"", false}, {PromptsText, true}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			n, ok := Build("abc123", "Ada <ada@example.com>", files, Options{Prompts: tc.mode, Version: "0.1.0"})
			if !ok {
				t.Fatal("no note")
			}
			text, err := Format(n)
			if err != nil {
				t.Fatal(err)
			}
			head, meta, _ := strings.Cut(text, "\n---\n")
			sessions := map[string]bool{}
			traces := map[string]bool{}
			for _, l := range strings.Split(head, "\n")[1:] {
				key := strings.Fields(l)[0]
				switch {
				case sessionKeyRE.MatchString(key):
					s, tr, _ := strings.Cut(key, "::")
					sessions[s], traces[tr] = true, true
				case humanKeyRE.MatchString(key):
				default:
					t.Fatalf("key %q is not the standard's:\n%s", key, text)
				}
			}
			if len(sessions) != 1 || len(traces) != 2 {
				t.Fatalf("one session, a trace per prompt; got %v %v:\n%s", sessions, traces, text)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(meta), &m); err != nil {
				t.Fatal(err)
			}
			var version string
			if err := json.Unmarshal(m["git_ai_version"], &version); err != nil || version != "claude-nova.nvim 0.1.0" {
				t.Fatalf("git_ai_version %s (%v)", m["git_ai_version"], err)
			}
			if string(m["prompts"]) != "{}" {
				t.Fatalf("prompts %s, want {}", m["prompts"])
			}
			var ss map[string]map[string]json.RawMessage
			if err := json.Unmarshal(m["sessions"], &ss); err != nil {
				t.Fatal(err)
			}
			for s := range sessions {
				rec, ok := ss[s]
				if !ok {
					t.Fatalf("%s not in sessions:\n%s", s, text)
				}
				for _, f := range []string{"total_additions", "accepted_lines", "overriden_lines", "messages"} {
					if _, ok := rec[f]; ok {
						t.Fatalf("a session record with %s:\n%s", f, text)
					}
				}
				if !strings.Contains(string(rec["agent_id"]), `"id": "sess-1"`) {
					t.Fatalf("agent_id %s", rec["agent_id"])
				}
			}
			if strings.Contains(text, "hunter2") != tc.wantText {
				t.Fatalf("prompts %q: the prompt's text in the note is %v:\n%s", tc.mode, !tc.wantText, text)
			}
			// Read back: who wrote line 2, which prompt.
			back, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			ag, ok := back.Agent(back.Who("src/greet.go", 2))
			if !ok || ag.SessionID != "sess-1" || ag.Turn != 3 || ag.Model != "claude-x" || ag.Name != "fix greet" || !back.Ours() {
				t.Fatalf("agent %+v %v", ag, ok)
			}
			if tc.wantText != (ag.Prompt == "again") {
				t.Fatalf("prompt read back %q", ag.Prompt)
			}
			if !strings.HasPrefix(back.Who("src/greet.go", 3), "h_") {
				t.Fatalf("the amended line is %q's", back.Who("src/greet.go", 3))
			}
			if ai, human := back.Counts(); ai != 2 || human != 1 {
				t.Fatalf("counts %d %d", ai, human)
			}
		})
	}
}

// A note this plugin wrote before (legacy bare 16-hex prompt keys, the
// prompt's text in custom_attributes, git_ai_version null) is still read.
const oldOurs = `a.txt
  5d1c0c5f0f1b2e3a 2
  h_0123456789abcd 3
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": null,
  "base_commit_sha": "abc",
  "prompts": {
    "5d1c0c5f0f1b2e3a": {
      "agent_id": {"tool": "claude", "id": "sid-9", "model": "m"},
      "human_author": "t <t@example.com>",
      "total_additions": 2, "total_deletions": 0, "accepted_lines": 1, "overriden_lines": 1,
      "custom_attributes": {"prompt": "louder", "session_name": "s", "turn": "4", "writer": "claude-nova.nvim"}
    }
  },
  "humans": {"h_0123456789abcd": {"author": "t <t@example.com>"}}
}
`

// A note of the fork that writes authorship/3.1.0 (x_user_id,
// git_ai_version), sessions and legacy prompts mixed.
const fork31 = `b.go
  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 1-2
  0123456789abcdef 5
  h_cccccccccccccc 7
---
{
  "schema_version": "authorship/3.1.0",
  "git_ai_version": "2.0.1",
  "x_user_id": "u-42",
  "base_commit_sha": "def",
  "prompts": {"0123456789abcdef": {"agent_id": {"tool": "cursor", "id": "c1", "model": "gpt"},
    "total_additions": 1, "total_deletions": 0, "accepted_lines": 1, "overriden_lines": 0}},
  "humans": {"h_cccccccccccccc": {"author": "Bo <bo@example.com>"}},
  "sessions": {"s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "codex", "id": "x1", "model": "o"}}}
}
`

func TestOldAndForeignNotesAreRead(t *testing.T) {
	n, err := Parse(oldOurs)
	if err != nil {
		t.Fatal(err)
	}
	ag, ok := n.Agent(n.Who("a.txt", 2))
	if !ok || ag.SessionID != "sid-9" || ag.Turn != 4 || ag.Prompt != "louder" || ag.Name != "s" || !n.Ours() {
		t.Fatalf("old note: %+v %v", ag, ok)
	}
	if _, ok := n.Agent(n.Who("a.txt", 3)); ok {
		t.Fatal("a human's line read as an agent's")
	}
	f, err := Parse(fork31)
	if err != nil {
		t.Fatalf("3.1.0: %v", err)
	}
	if ag, ok := f.Agent(f.Who("b.go", 2)); !ok || ag.Tool != "codex" || ag.SessionID != "x1" {
		t.Fatalf("3.1.0 session: %+v %v", ag, ok)
	}
	if ag, ok := f.Agent(f.Who("b.go", 5)); !ok || ag.Tool != "cursor" {
		t.Fatalf("3.1.0 legacy prompt: %+v %v", ag, ok)
	}
	if f.Ours() || f.Meta.Humans["h_cccccccccccccc"].Author != "Bo <bo@example.com>" {
		t.Fatalf("3.1.0 meta %+v", f.Meta)
	}
	// Ours joins theirs with their fields kept.
	ours, _ := Build("def", "Ada <a@b>", map[string][]Line{"b.go": {{N: 9, Agent: Agent{SessionID: "me", Turn: 1}}}}, Options{})
	joined, err := AddTo(fork31, ours)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Parse(joined)
	if err != nil || !strings.Contains(joined, `"x_user_id": "u-42"`) || !j.Ours() {
		t.Fatalf("joined (%v):\n%s", err, joined)
	}
	if ag, ok := j.Agent(j.Who("b.go", 9)); !ok || ag.SessionID != "me" {
		t.Fatalf("our line in the joined note: %+v %v\n%s", ag, ok, joined)
	}
}
