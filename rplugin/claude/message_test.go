package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name, line            string
		typ, subtype, request string
		wantErr               bool
	}{
		{"system init", `{"type":"system","subtype":"init","session_id":"s"}`, "system", "init", "", false},
		{"can_use_tool", `{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`, "control_request", "can_use_tool", "r1", false},
		{"cancel", `{"type":"control_cancel_request","request_id":"r2"}`, "control_cancel_request", "", "r2", false},
		{"control_response", `{"type":"control_response","response":{"subtype":"success","request_id":"init-1","response":{}}}`, "control_response", "success", "init-1", false},
		{"unknown type kept", `{"type":"future_thing","x":1}`, "future_thing", "", "", false},
		{"malformed", `{"type":`, "", "", "", true},
		{"no type", `{"x":1}`, "", "", "", true},
		{"array", `[1,2]`, "", "", "", true},
		{"string", `"hi"`, "", "", "", true},
		{"bad request body", `{"type":"control_request","request_id":"r","request":"nope"}`, "", "", "", true},
		{"invalid utf8 inside string", "{\"type\":\"assistant\",\"t\":\"\xff\"}", "assistant", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseLine([]byte(tt.line))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (m.Type != tt.typ || m.Subtype != tt.subtype || m.RequestID != tt.request) {
				t.Fatalf("got %q %q %q", m.Type, m.Subtype, m.RequestID)
			}
		})
	}
}

// fixtureLines returns claude's stdout lines (<<) of a real transcript.
func fixtureLines(t testing.TB, name string) [][]byte {
	t.Helper()
	// Copied from shared/protocol/claude-code-2.1.328 (real CLI transcripts).
	p := filepath.Join("testdata", name)
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "<< ") {
			out = append(out, []byte(strings.TrimPrefix(l, "<< ")))
		}
	}
	return out
}

func TestFixturesDecode(t *testing.T) {
	want := map[string]struct {
		tool string
		rui  bool
	}{
		"ask-user-question.jsonl":  {"AskUserQuestion", true},
		"bash-allow-session.jsonl": {"Bash", false},
		"edit-allow-amended.jsonl": {"Edit", false},
		"exit-plan-mode.jsonl":     {"ExitPlanMode", true},
		"interrupt-pending.jsonl":  {"Bash", false},
		"write-deny.jsonl":         {"Write", false},
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			found := false
			for _, line := range fixtureLines(t, name) {
				m, err := ParseLine(line)
				if err != nil {
					t.Fatalf("real CLI line did not parse: %v\n%s", err, line)
				}
				if m.Type == "control_request" && m.Subtype == "can_use_tool" {
					pr, err := DecodePermissionRequest(m)
					if err != nil {
						t.Fatal(err)
					}
					if pr.ToolName != w.tool || pr.RequiresUserInteraction != w.rui || pr.RequestID == "" || !json.Valid(pr.Input) {
						t.Fatalf("decoded %+v", pr)
					}
					found = true
				}
			}
			if !found {
				t.Fatal("no can_use_tool in the fixture")
			}
		})
	}
}

func TestArgvNeverUsesAShell(t *testing.T) {
	argv, err := Argv(Config{Command: `npx "@anthropic-ai/claude-code" --x 'a b'`, Args: []string{"$(touch pwned)", "a;b"}, Resume: "id 1", PermissionMode: "plan", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(argv, "|")
	want := "npx|@anthropic-ai/claude-code|--x|a b|-p|--input-format|stream-json|--output-format|stream-json|--verbose|--permission-prompt-tool|stdio|--include-partial-messages|--replay-user-messages|--include-hook-events|--model|m|--permission-mode|plan|--resume|id 1|$(touch pwned)|a;b"
	if got != want {
		t.Fatalf("argv\n got %s\nwant %s", got, want)
	}
	for _, bad := range []string{"", "   ", `"unterminated`} {
		if _, err := Argv(Config{Command: bad}); err == nil {
			t.Errorf("Argv(%q) accepted", bad)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	for _, name := range []string{"ask-user-question.jsonl", "edit-allow-amended.jsonl", "interrupt-pending.jsonl"} {
		for _, l := range fixtureLines(f, name) {
			if len(l) < 4096 {
				f.Add(l)
			}
		}
	}
	f.Add([]byte(`{"type":"control_request","request_id":"../../x","request":{"subtype":"can_use_tool","tool_name":"Edit","input":null,"decision_reason":{"a":1}}}`))
	f.Add([]byte("{\"type\":\"assistant\",\"x\":\"\xff\x1b[2J\"}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := ParseLine(line)
		if err != nil {
			return
		}
		if m.Type == "" {
			t.Fatal("parsed a message without a type")
		}
		if m.Type == "control_request" && m.Subtype == "can_use_tool" {
			pr, err := DecodePermissionRequest(m)
			if err == nil && (pr.ToolName == "" || !json.Valid(pr.Input)) {
				t.Fatalf("decoded an unusable request: %+v", pr)
			}
		}
	})
}

// EncodeAnswer writes the same answer json.Marshal would, on one line.
func TestEncodeAnswer(t *testing.T) {
	for _, r := range []PermissionResult{
		Allow(json.RawMessage(`{"command":"ls"}`)),
		Allow(json.RawMessage("{\n  \"a\": 1\n}"), SessionRule("Bash")),
		Deny("no \"way\""),
		{Behavior: "allow"},
	} {
		b, err := EncodeAnswer("r-1", r)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(b, []byte("\n")) != 1 || b[len(b)-1] != '\n' {
			t.Fatalf("not one line: %q", b)
		}
		var got, want any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		wb, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": "r-1", "response": r}})
		_ = json.Unmarshal(wb, &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %s\nwant %s", b, wb)
		}
	}
}

// The hints of can_use_tool, as 2.1.328 sends them for rm -rf ~ (recorded),
// and read field by field when one has an unexpected type.
func TestDecodePermissionHints(t *testing.T) {
	line := `{"type":"control_request","request_id":"45ee","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"rm -rf ~ --x","description":"x"},"description":"x","permission_suggestions":[],"decision_reason":"Dangerous rm operation on critical path: /tmp/ph8_aipkjm","decision_reason_type":"safetyCheck","classifier_approvable":false,"tool_use_id":"toolu_s0","suppress_always_allow_rule":true}}`
	m, _ := ParseLine([]byte(line))
	pr, err := DecodePermissionRequest(m)
	if err != nil {
		t.Fatal(err)
	}
	if !pr.SuppressAlwaysAllowRule || pr.ClassifierApprovable == nil || *pr.ClassifierApprovable || pr.DecisionReasonType != "safetyCheck" || pr.DefaultToNo || pr.MatchedAskRule != nil {
		t.Fatalf("hints %+v", pr)
	}
	loose := `{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"mcp__gh__x","input":{},"decision_reason":{"odd":1},"default_to_no":true,"classifier_approvable":true,"matched_ask_rule":{"source":"userSettings","tool_name":"mcp__gh","rule_content":""},"mcp_server":{"name":"gh","source":"user"}}}`
	m, _ = ParseLine([]byte(loose))
	pr, err = DecodePermissionRequest(m)
	if err != nil {
		t.Fatal(err)
	}
	if !pr.DefaultToNo || pr.ClassifierApprovable == nil || !*pr.ClassifierApprovable || pr.MatchedAskRule == nil || pr.MatchedAskRule.String() != "mcp__gh" ||
		pr.MCPServer == nil || pr.MCPServer.Name != "gh" || pr.DecisionReason != `{"odd":1}` {
		t.Fatalf("lenient %+v", pr)
	}
	// An ask rule that cannot be read still forces a person's answer.
	odd := `{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"decision_reason":1,"matched_ask_rule":"Bash"}}`
	m, _ = ParseLine([]byte(odd))
	if pr, _ = DecodePermissionRequest(m); pr.MatchedAskRule == nil {
		t.Fatal("an unreadable ask rule was dropped")
	}
}

func TestDecodeElicitation(t *testing.T) {
	tests := []struct {
		line, mode, err string
	}{
		{`{"type":"control_request","request_id":"e1","request":{"subtype":"elicitation","mcp_server_name":"s","message":"m","requested_schema":{"type":"object"}}}`, "form", ""},
		{`{"type":"control_request","request_id":"e2","request":{"subtype":"elicitation","mcp_server_name":"s","message":"m","mode":"url","url":"https://x"}}`, "url", ""},
		{`{"type":"control_request","request_id":"e3","request":{"subtype":"elicitation","mode":"telepathy"}}`, "", "neither form nor url"},
		{`{"type":"control_request","request":{"subtype":"elicitation"}}`, "", "without request_id"},
	}
	for _, tt := range tests {
		m, err := ParseLine([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		er, err := DecodeElicitationRequest(m)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v", tt.line, err)
			}
			continue
		}
		if err != nil || er.Mode != tt.mode || er.Server != "s" {
			t.Errorf("%s: %+v %v", tt.line, er, err)
		}
	}
}

func lazy(t testing.TB, s string) LazyString {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var l LazyString
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLazyStringTail(t *testing.T) {
	lines := strings.Repeat("a line of text\n", 40) // 600 bytes
	for _, tc := range []struct {
		name, s string
		n       int
		want    string
		cut     bool
	}{
		{"short: whole", "one\ntwo", 100, "one\ntwo", false},
		{"long: from a line start", lines + "last line", 40, "a line of text\nlast line", true},
		{"no line break: whole", strings.Repeat("x", 300), 50, strings.Repeat("x", 300), false},
		// A backslash followed by n in the text is not a line break.
		{"an escaped backslash", strings.Repeat("y", 200) + `\n` + strings.Repeat("z", 30), 40, strings.Repeat("y", 200) + `\n` + strings.Repeat("z", 30), false},
		{"quotes and unicode after the cut", lines + `"é" ✓ 🙂`, 30, "\"é\" ✓ 🙂", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := lazy(t, tc.s).Tail(tc.n)
			if got != tc.want || cut != tc.cut {
				t.Fatalf("Tail(%d) = %q, %v; want %q, %v", tc.n, got, cut, tc.want, tc.cut)
			}
		})
	}
}

func FuzzLazyStringTail(f *testing.F) {
	f.Add("a\nb\nc\nd", 2)
	f.Add(`\n\\n\"`+"\n\n", 1)
	f.Add(strings.Repeat("é\n", 50), 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) || n < 0 || n > 1000 {
			return
		}
		l := lazy(t, s)
		got, cut := l.Tail(n)
		whole := l.String()
		if !strings.HasSuffix(whole, got) {
			t.Fatalf("Tail(%d) = %q, not an end of %q", n, got, whole)
		}
		if cut != (got != whole) || (cut && whole[len(whole)-len(got)-1] != '\n') {
			t.Fatalf("Tail(%d) = %q, cut %v: not from a line start of %q", n, got, cut, whole)
		}
	})
}

// A can_use_tool line is decoded whole by ParseLine, its tool input once:
// the request carries the input's fields and its bytes, which are the
// line's own (a large input is not copied).
func TestParseLineDecodesARequestOnce(t *testing.T) {
	line := []byte(`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","tool_use_id":"toolu_1","input":{"file_path":"/a/b.txt","content":"hi\n"},"decision_reason":"asked"}}`)
	m, err := ParseLine(line)
	if err != nil || m.Permission == nil || m.Undecoded != nil {
		t.Fatalf("%+v %v", m, err)
	}
	pr := m.Permission
	if pr.RequestID != "r1" || pr.ToolName != "Write" || pr.ToolUseID != "toolu_1" || pr.DecisionReason != "asked" {
		t.Fatalf("request %+v", pr)
	}
	if pr.In.Fields.FilePath != "/a/b.txt" || pr.In.Str("content") != "hi\n" || string(pr.Input) != `{"file_path":"/a/b.txt","content":"hi\n"}` {
		t.Fatalf("input %+v", pr.In)
	}
	if &pr.Input[0] != &line[bytes.Index(line, []byte(`{"file_path"`))] {
		t.Fatal("the input was copied out of its line")
	}
	got, err := DecodePermissionRequest(m)
	if err != nil || got.In.Fields.FilePath != "/a/b.txt" {
		t.Fatalf("DecodePermissionRequest: %+v %v", got, err)
	}
	// A field of another type: read field by field, the input still decoded.
	m, err = ParseLine([]byte(`{"type":"control_request","request_id":"r2","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"decision_reason":{"odd":1}}}`))
	if err != nil || m.Subtype != "can_use_tool" || m.Permission == nil || m.Permission.In.Fields.Command != "ls" {
		t.Fatalf("lenient: %+v %v", m, err)
	}
	// A message whose "request" is not a control request's body is read
	// as any other.
	m, err = ParseLine([]byte(`{"type":"system","subtype":"status","request":"text"}`))
	if err != nil || m.Type != "system" || m.Subtype != "status" || m.Permission != nil {
		t.Fatalf("system: %+v %v", m, err)
	}
	// Another control request is not read as one.
	m, err = ParseLine([]byte(`{"type":"control_request","request_id":"r3","request":{"subtype":"hook_callback","callback_id":"c","input":{"tool_input":{}}}}`))
	if err != nil || m.Subtype != "hook_callback" || m.Permission != nil {
		t.Fatalf("hook: %+v %v", m, err)
	}
}
