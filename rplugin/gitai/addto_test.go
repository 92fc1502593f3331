package gitai

import (
	"errors"
	"strings"
	"testing"
)

// theirNote is a note another agent's tool wrote, as git-ai lays it out,
// with a metadata field this plugin does not know.
const theirNote = `src/a.go
  1f2e3d4c5b6a7980 1-3
"docs/read me.md"
  1f2e3d4c5b6a7980 4
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "1.2.3",
  "base_commit_sha": "c0ffee",
  "prompts": {
    "1f2e3d4c5b6a7980": {
      "agent_id": {"tool": "cursor", "id": "s-1", "model": "gpt"},
      "human_author": "Ada <ada@example.com>",
      "total_additions": 4, "total_deletions": 0, "accepted_lines": 4, "overriden_lines": 0,
      "future_field": {"kept": true}
    }
  }
}
`

func ourNote(t *testing.T, sha string) Note {
	t.Helper()
	a := Agent{SessionID: "7f3a", Model: "claude-opus", Turn: 1, Prompt: "louder"}
	n, ok := Build(sha, "Ada <ada@example.com>", map[string][]Line{
		"src/a.go":   {{N: 2, Agent: a}, {N: 4, Agent: a}, {N: 5, Agent: a}, {N: 6, Agent: a, Amended: true}},
		"src/new.go": {{N: 1, Agent: a}},
	}, Options{})
	if !ok {
		t.Fatal("no note built")
	}
	return n
}

// Our lines join another tool's note: every line of theirs is kept as it
// was, ours go under their file's block (less what they attest), and the
// result reads as one note to the strictest reader.
func TestAddToAnotherToolsNote(t *testing.T) {
	ours := ourNote(t, "c0ffee")
	text, err := AddTo(theirNote, ours)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(text, "\n---\n")
	theirHead, _, _ := strings.Cut(theirNote, "\n---\n")
	// Their lines, in their order.
	i := 0
	for _, l := range strings.Split(head, "\n") {
		if i < len(strings.Split(theirHead, "\n")) && l == strings.Split(theirHead, "\n")[i] {
			i++
		}
	}
	if i != len(strings.Split(theirHead, "\n")) {
		t.Fatalf("their lines not kept in order:\n%s", text)
	}
	n, err := Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	key := AttestKey("7f3a", 1)
	human := HumanKey("Ada <ada@example.com>")
	for _, c := range []struct {
		path string
		line int
		want string
	}{
		{"src/a.go", 1, "1f2e3d4c5b6a7980"},
		{"src/a.go", 2, "1f2e3d4c5b6a7980"}, // theirs already: not taken
		{"src/a.go", 4, key},
		{"src/a.go", 5, key},
		{"src/a.go", 6, human},
		{"src/new.go", 1, key},
		{"docs/read me.md", 4, "1f2e3d4c5b6a7980"},
	} {
		if got := n.Who(c.path, c.line); got != c.want {
			t.Errorf("%s:%d is %q's, want %q\n%s", c.path, c.line, got, c.want, text)
		}
	}
	if strings.Count(head, "\nsrc/a.go\n")+strings.Count("\n"+head, "\nsrc/a.go\n") != 1 {
		t.Errorf("src/a.go has more than one block:\n%s", head)
	}
	if !strings.Contains(text, `"future_field"`) || !strings.Contains(text, `"git_ai_version": "1.2.3"`) {
		t.Errorf("their metadata was not kept:\n%s", text)
	}
	if !n.Ours() || n.Meta.Prompts["1f2e3d4c5b6a7980"].AgentID.Tool != "cursor" || n.Meta.Humans[human].Author == "" {
		t.Errorf("metadata %+v", n.Meta)
	}
	// The strictest reader refuses fields the standard does not name:
	// their note without its future field, with ours added, reads whole.
	plain := strings.Replace(theirNote, ",\n      \"future_field\": {\"kept\": true}", "", 1)
	if plain == theirNote {
		t.Fatal("the future field was not taken out")
	}
	joined, err := AddTo(plain, ours)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strictRead(joined); err != nil {
		t.Errorf("the strict reader: %v\n%s", err, joined)
	}
}

func TestAddToRefuses(t *testing.T) {
	tests := []struct {
		name   string
		theirs string
		sha    string
		want   error
	}{
		{"another format", "a plain text note\n", "c0ffee", ErrNotGitAI},
		{"another commit", theirNote, "beef", nil},
		{"every line theirs", strings.Replace(strings.Replace(theirNote, "  1f2e3d4c5b6a7980 1-3", "  1f2e3d4c5b6a7980 1-9", 1), "\"docs/read me.md\"", "src/new.go\n  1f2e3d4c5b6a7980 1\n\"docs/read me.md\"", 1), "c0ffee", ErrNothingToAdd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AddTo(tt.theirs, ourNote(t, tt.sha))
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
	// Our own prompt there already: refused, never doubled.
	ours := ourNote(t, "c0ffee")
	once, err := AddTo(theirNote, ours)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddTo(once, ours); err == nil {
		t.Fatal("added twice")
	}
}

// Whatever another tool's note holds, AddTo refuses it or writes a note
// that parses and keeps our lines where theirs are not.
func FuzzAddTo(f *testing.F) {
	f.Add(theirNote)
	f.Add("---\n{\"schema_version\":\"authorship/3.0.0\",\"base_commit_sha\":\"c0ffee\",\"prompts\":{}}\n")
	f.Add("src/a.go\n  k 1-2,9\n---\n{}\n")
	f.Fuzz(func(t *testing.T, theirs string) {
		ours := ourNote(t, "c0ffee")
		text, err := AddTo(theirs, ours)
		if err != nil {
			return
		}
		n, err := Parse(text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if !n.Ours() {
			t.Fatalf("ours not in:\n%s", text)
		}
	})
}
