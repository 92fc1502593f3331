package gitai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestFormatWritesTheStandardsLayout(t *testing.T) {
	a := Agent{SessionID: "sess-1", Model: "claude-x", Name: "fix greet", Turn: 2, Prompt: "make it louder"}
	n, ok := Build("abc123", "Ada <ada@example.com>", map[string][]Line{
		"src/greet.go":    {{N: 3, Agent: a}, {N: 4, Agent: a}, {N: 5, Agent: a}, {N: 9, Agent: a}, {N: 7, Agent: a, Amended: true}},
		"docs/a file.txt": {{N: 1, Agent: a}},
	}, Options{})
	if !ok {
		t.Fatal("no note")
	}
	text, err := Format(n)
	if err != nil {
		t.Fatal(err)
	}
	sk, hk := AttestKey("sess-1", 2), HumanKey("Ada <ada@example.com>")
	head := fmt.Sprintf("\"docs/a file.txt\"\n  %s 1\nsrc/greet.go\n", sk)
	// Claude's entries first, then the human's.
	head += "  " + sk + " 3-5,9\n  " + hk + " 7\n---\n"
	if !strings.HasPrefix(text, head) {
		t.Fatalf("note:\n%s\nwant it to begin:\n%s", text, head)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(text[len(head):]), &meta); err != nil {
		t.Fatal(err)
	}
	s := meta["sessions"].(map[string]any)[SessionKey("sess-1")].(map[string]any)
	if s["agent_id"].(map[string]any)["tool"] != "claude" || s["human_author"] != "Ada <ada@example.com>" {
		t.Fatalf("session record %v", s)
	}
	if meta["humans"].(map[string]any)[hk].(map[string]any)["author"] != "Ada <ada@example.com>" {
		t.Fatalf("humans %v", meta["humans"])
	}
	if _, ok := Build("abc", "x", map[string][]Line{"a": nil}, Options{}); ok {
		t.Fatal("a note for a commit with no Claude line")
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		err        bool
	}{
		{"ours", "a.go\n  k1 1-2,4\n---\n{\"schema_version\":\"authorship/3.0.0\",\"base_commit_sha\":\"x\",\"prompts\":{}}\n", false},
		{"no attestations", "---\n{\"schema_version\":\"authorship/3.0.0\",\"base_commit_sha\":\"x\",\"prompts\":{}}\n", false},
		{"no divider", "a.go\n  k1 1\n", true},
		{"another format", "---\n{\"schema_version\":\"something/1\",\"prompts\":{}}", true},
		{"entry first", "  k1 1\n---\n{\"schema_version\":\"authorship/3.0.0\",\"prompts\":{}}", true},
		{"bad range", "a\n  k1 x-2\n---\n{\"schema_version\":\"authorship/3.0.0\",\"prompts\":{}}", true},
		{"zero line", "a\n  k1 0\n---\n{\"schema_version\":\"authorship/3.0.0\",\"prompts\":{}}", true},
		{"plain text note", "reviewed by bob", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.text)
			if (err != nil) != tc.err {
				t.Fatalf("err %v, want error %v", err, tc.err)
			}
			if err != nil && !errors.Is(err, ErrNotGitAI) {
				t.Fatalf("err %v is not ErrNotGitAI", err)
			}
		})
	}
}

func TestCompress(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want []Range
	}{
		{[]int{5, 3, 4, 9, 9, 1}, []Range{{1, 1}, {3, 5}, {9, 9}}},
		{[]int{0, -2, 2}, []Range{{2, 2}}},
		{nil, nil},
	} {
		if got := RangesOf(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RangesOf(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestAPathTheFormatCannotHoldIsRefused(t *testing.T) {
	for _, p := range []string{"a\"b", "a\nb", `with space\back`, ""} {
		if Writable(p) {
			t.Errorf("Writable(%q)", p)
		}
		if _, err := Format(Note{Files: []File{{Path: p, Entries: []Entry{{Key: "k", Ranges: []Range{{1, 1}}}}}}}); err == nil {
			t.Errorf("Format wrote %q", p)
		}
	}
}

// strictRead parses a note the way the strictest reader of the standard
// does (comarch/git-byline's interop decoder, as read): the first line
// equal to "---" divides; entries are indented by exactly two spaces and
// have exactly two fields; a quoted path is unquoted with Go's rules and
// an unquoted one may hold no whitespace; ranges are at least 1, strictly
// increasing and not overlapping; keys are routed as the amended standard
// says ("s_<14 hex>::t_<14 hex>" to "sessions" by the part before "::",
// "h_<14 hex>" to "humans", 16 hex digits to "prompts"), each must be
// there; the JSON has no field the standard does not name, schema_version
// is exactly authorship/3.0.0, git_ai_version a string when present, every
// prompt has its four counters and no session record has any.
func strictRead(text string) (map[string]map[string][][2]int, error) {
	head, meta, ok := strings.Cut(text, "\n---\n")
	if !ok {
		if !strings.HasPrefix(text, "---\n") {
			return nil, errors.New("no divider")
		}
		head, meta = "", strings.TrimPrefix(text, "---\n")
	}
	out := map[string]map[string][][2]int{}
	var cur string
	keys := map[string]bool{}
	for _, l := range strings.Split(head, "\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "  ") {
			if strings.HasPrefix(l, "   ") || cur == "" {
				return nil, fmt.Errorf("entry %q", l)
			}
			f := strings.Fields(l)
			if len(f) != 2 {
				return nil, fmt.Errorf("entry %q: %d fields", l, len(f))
			}
			last := 0
			for _, part := range strings.Split(f[1], ",") {
				a, b, isRange := strings.Cut(part, "-")
				from, err := strconv.Atoi(a)
				to := from
				if err == nil && isRange {
					to, err = strconv.Atoi(b)
				}
				if err != nil || from < 1 || to < from || from <= last {
					return nil, fmt.Errorf("ranges %q", f[1])
				}
				last = to
				out[cur][f[0]] = append(out[cur][f[0]], [2]int{from, to})
			}
			keys[f[0]] = true
			continue
		}
		p := l
		if strings.HasPrefix(l, `"`) {
			uq, err := strconv.Unquote(l)
			if err != nil {
				return nil, fmt.Errorf("path %q: %v", l, err)
			}
			p = uq
		} else if strings.ContainsAny(l, " \t") {
			return nil, fmt.Errorf("unquoted path with whitespace %q", l)
		}
		cur = p
		out[cur] = map[string][][2]int{}
	}
	type agent struct {
		Tool  string `json:"tool"`
		ID    string `json:"id"`
		Model string `json:"model"`
	}
	type prompt struct {
		AgentID          *agent            `json:"agent_id"`
		HumanAuthor      *string           `json:"human_author"`
		MessagesURL      *string           `json:"messages_url"`
		TotalAdditions   *int              `json:"total_additions"`
		TotalDeletions   *int              `json:"total_deletions"`
		AcceptedLines    *int              `json:"accepted_lines"`
		OverridenLines   *int              `json:"overriden_lines"`
		CustomAttributes map[string]string `json:"custom_attributes"`
	}
	type session struct {
		AgentID          *agent            `json:"agent_id"`
		HumanAuthor      *string           `json:"human_author"`
		CustomAttributes map[string]string `json:"custom_attributes"`
	}
	var m struct {
		SchemaVersion string                             `json:"schema_version"`
		GitAIVersion  json.RawMessage                    `json:"git_ai_version"`
		BaseCommitSHA string                             `json:"base_commit_sha"`
		Prompts       map[string]prompt                  `json:"prompts"`
		Humans        map[string]struct{ Author string } `json:"humans"`
		Sessions      map[string]session                 `json:"sessions"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(meta)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("metadata: %v", err)
	}
	if m.SchemaVersion != "authorship/3.0.0" || m.BaseCommitSHA == "" || m.Prompts == nil {
		return nil, fmt.Errorf("metadata %+v", m)
	}
	if v := m.GitAIVersion; v != nil && (len(v) < 2 || v[0] != '"') {
		return nil, fmt.Errorf("git_ai_version %s is not a string", v)
	}
	for k, p := range m.Prompts {
		if p.AgentID == nil || p.AgentID.Tool == "" || p.TotalAdditions == nil || p.TotalDeletions == nil || p.AcceptedLines == nil || p.OverridenLines == nil {
			return nil, fmt.Errorf("prompt %s: %+v", k, p)
		}
	}
	for k, s := range m.Sessions {
		if s.AgentID == nil || s.AgentID.Tool == "" || !regexp.MustCompile(`^s_[0-9a-f]{14}$`).MatchString(k) {
			return nil, fmt.Errorf("session %s: %+v", k, s)
		}
	}
	for k := range keys {
		switch {
		case regexp.MustCompile(`^h_[0-9a-f]{14}$`).MatchString(k):
			if _, ok := m.Humans[k]; !ok {
				return nil, fmt.Errorf("human %s not in humans", k)
			}
		case regexp.MustCompile(`^s_[0-9a-f]{14}::t_[0-9a-f]{14}$`).MatchString(k):
			if _, ok := m.Sessions[k[:16]]; !ok {
				return nil, fmt.Errorf("session %s not in sessions", k)
			}
		case regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(k):
			if _, ok := m.Prompts[k]; !ok {
				return nil, fmt.Errorf("prompt %s not in prompts", k)
			}
		default:
			return nil, fmt.Errorf("key %q is none of the standard's", k)
		}
	}
	return out, nil
}

// The readers of the standard read what the writer writes: the strict one
// above, and the lenient way (split on "\n---\n", entries by any leading
// whitespace, the first field a key and the second the ranges).
func TestReadersReadTheNote(t *testing.T) {
	a := Agent{SessionID: "s", Model: "m", Turn: 1, Prompt: "p\nwith \"quotes\""}
	files := map[string][]Line{
		"a.go":          {{N: 1, Agent: a}, {N: 2, Agent: a}, {N: 4, Agent: a, Amended: true}},
		"dir/b c.lua":   {{N: 10, Agent: a}},
		"ünïcode/d.txt": {{N: 3, Agent: Agent{SessionID: "t", Turn: 0}}},
	}
	n, _ := Build("0123456789abcdef0123456789abcdef01234567", "Ada <a@b>", files, Options{Prompts: PromptsText, Version: "1"})
	text, err := Format(n)
	if err != nil {
		t.Fatal(err)
	}
	got, err := strictRead(text)
	if err != nil {
		t.Fatalf("the strict reader: %v\n%s", err, text)
	}
	if r := got["a.go"][AttestKey("s", 1)]; !reflect.DeepEqual(r, [][2]int{{1, 2}}) {
		t.Fatalf("a.go: %v", got["a.go"])
	}
	if r := got["dir/b c.lua"][AttestKey("s", 1)]; !reflect.DeepEqual(r, [][2]int{{10, 10}}) {
		t.Fatalf("b c.lua: %v", got)
	}
	if r := got["a.go"][HumanKey("Ada <a@b>")]; !reflect.DeepEqual(r, [][2]int{{4, 4}}) {
		t.Fatalf("amended: %v", got["a.go"])
	}
	// The lenient reader.
	head, _, ok := strings.Cut(text, "\n---\n")
	if !ok {
		t.Fatal("no \\n---\\n")
	}
	files2 := 0
	for _, l := range strings.Split(head, "\n") {
		if !strings.HasPrefix(l, " ") && l != "" {
			files2++
		}
	}
	if files2 != 3 {
		t.Fatalf("the lenient reader counts %d files", files2)
	}
	// And this package reads it back.
	back, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if back.Who("dir/b c.lua", 10) != AttestKey("s", 1) || back.Who("a.go", 3) != "" || !back.Ours() {
		t.Fatalf("read back %+v", back)
	}
}

// FuzzFormat: any path and lines the writer accepts are read back as
// written, by Parse and by the strict reader.
func FuzzFormat(f *testing.F) {
	f.Add("a.go", "1,2,3,7")
	f.Add("with space.txt", "5,4,100")
	f.Add("x\ty", "1")
	f.Add(`q"uote`, "2")
	f.Add("---", "1")
	f.Fuzz(func(t *testing.T, path, nums string) {
		var lines []Line
		var want []int
		for _, s := range strings.Split(nums, ",") {
			if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 1e6 {
				lines = append(lines, Line{N: n, Agent: Agent{SessionID: "s", Turn: 1}})
				want = append(want, n)
			}
		}
		n, ok := Build("sha", "A <a>", map[string][]Line{path: lines}, Options{})
		text, err := Format(n)
		if !Writable(path) {
			if ok && err == nil {
				t.Fatalf("wrote path %q", path)
			}
			return
		}
		if err != nil {
			t.Fatalf("Format: %v", err)
		}
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, text)
		}
		if !ok {
			if len(back.Files) != 0 {
				t.Fatalf("files %v", back.Files)
			}
			return
		}
		if len(back.Files) != 1 || back.Files[0].Path != path {
			t.Fatalf("files %+v, want %q", back.Files, path)
		}
		if !reflect.DeepEqual(back.Files[0].Entries[0].Ranges, RangesOf(want)) {
			t.Fatalf("ranges %v, want %v", back.Files[0].Entries[0].Ranges, RangesOf(want))
		}
		if _, err := strictRead(text); err != nil && strings.TrimSpace(path) == path {
			t.Fatalf("strict reader: %v\n%s", err, text)
		}
	})
}
