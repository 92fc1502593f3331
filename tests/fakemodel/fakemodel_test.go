package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// ---- SSE parsing helpers ----

type sseEvent struct {
	Name string
	Data map[string]any
}

func parseSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Errorf("event %q has data type %v", name, d["type"])
			}
			out = append(out, sseEvent{name, d})
		case line == "":
		default:
			t.Errorf("unexpected SSE line %q", line)
		}
	}
	return out
}

// assembled is a reply rebuilt from SSE events the way a client does.
type assembled struct {
	Events     []string
	Blocks     []map[string]any // text blocks have "text", tool_use "input" (decoded)
	StopReason string
	Usage      map[string]any
	Model      string
}

func assemble(t *testing.T, evs []sseEvent) assembled {
	t.Helper()
	var a assembled
	partial := map[int]string{}
	for _, e := range evs {
		a.Events = append(a.Events, e.Name)
		switch e.Name {
		case "message_start":
			m := e.Data["message"].(map[string]any)
			a.Model, _ = m["model"].(string)
			if m["role"] != "assistant" || m["type"] != "message" {
				t.Errorf("message_start message = %v", m)
			}
		case "content_block_start":
			i := int(e.Data["index"].(float64))
			if i != len(a.Blocks) {
				t.Errorf("content_block_start index %d, want %d", i, len(a.Blocks))
			}
			cb := e.Data["content_block"].(map[string]any)
			a.Blocks = append(a.Blocks, cb)
		case "content_block_delta":
			i := int(e.Data["index"].(float64))
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				a.Blocks[i]["text"] = a.Blocks[i]["text"].(string) + d["text"].(string)
			case "input_json_delta":
				partial[i] += d["partial_json"].(string)
			default:
				t.Errorf("unknown delta %v", d)
			}
		case "content_block_stop":
			i := int(e.Data["index"].(float64))
			if p, ok := partial[i]; ok {
				var in any
				if err := json.Unmarshal([]byte(p), &in); err != nil {
					t.Errorf("block %d input %q: %v", i, p, err)
				}
				a.Blocks[i]["input"] = in
			}
		case "message_delta":
			a.StopReason = e.Data["delta"].(map[string]any)["stop_reason"].(string)
			a.Usage = e.Data["usage"].(map[string]any)
		}
	}
	return a
}

func TestSplitString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want []string
	}{
		{"", 4, nil},
		{"abc", 4, []string{"abc"}},
		{"abcdefgh", 4, []string{"abcd", "efgh"}},
		{"abcdefghi", 4, []string{"abcd", "efgh", "i"}},
		{"aéé", 2, []string{"a", "é", "é"}}, // never split a UTF-8 sequence
	} {
		if got := splitString(tc.in, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitString(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestSSEEncoding(t *testing.T) {
	long := strings.Repeat("0123456789", 10)
	for _, tc := range []struct {
		name       string
		reply      Reply
		wantEvents []string
		wantBlocks []map[string]any
	}{
		{
			name:  "text",
			reply: TextReply("You said: hi"),
			wantEvents: []string{"message_start", "ping", "content_block_start", "content_block_delta",
				"content_block_stop", "message_delta", "message_stop"},
			wantBlocks: []map[string]any{{"type": "text", "text": "You said: hi"}},
		},
		{
			name:  "long text is split into several deltas",
			reply: TextReply(long),
			wantEvents: []string{"message_start", "ping", "content_block_start", "content_block_delta",
				"content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			wantBlocks: []map[string]any{{"type": "text", "text": long}},
		},
		{
			name:  "tool_use",
			reply: ToolUseReply("toolu_s0", "Bash", json.RawMessage(`{"command":"echo hi > out.txt","description":"write something long enough to be split"}`)),
			wantEvents: []string{"message_start", "ping", "content_block_start", "content_block_delta",
				"content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			wantBlocks: []map[string]any{{"type": "tool_use", "id": "toolu_s0", "name": "Bash",
				"input": map[string]any{"command": "echo hi > out.txt", "description": "write something long enough to be split"}}},
		},
		{
			name:  "empty tool input",
			reply: ToolUseReply("toolu_s1", "ExitPlanMode", nil),
			wantEvents: []string{"message_start", "ping", "content_block_start", "content_block_delta",
				"content_block_stop", "message_delta", "message_stop"},
			wantBlocks: []map[string]any{{"type": "tool_use", "id": "toolu_s1", "name": "ExitPlanMode", "input": map[string]any{}}},
		},
		{
			name:  "explicit chunks",
			reply: Reply{Blocks: []Block{{Type: "text", TextChunks: []string{"a", "b", "c"}}}, StopReason: "end_turn"},
			wantEvents: []string{"message_start", "ping", "content_block_start", "content_block_delta",
				"content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			wantBlocks: []map[string]any{{"type": "text", "text": "abc"}},
		},
		{
			name: "two blocks",
			reply: Reply{Blocks: []Block{{Type: "text", Text: "let me"}, {Type: "tool_use", ID: "toolu_x", Name: "Read",
				Input: json.RawMessage(`{"file_path":"/a"}`)}}, StopReason: "tool_use"},
			wantEvents: []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop",
				"content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"},
			wantBlocks: []map[string]any{{"type": "text", "text": "let me"},
				{"type": "tool_use", "id": "toolu_x", "name": "Read", "input": map[string]any{"file_path": "/a"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			flushes := 0
			sw := &SSEWriter{W: &buf, Flush: func() { flushes++ }}
			if err := sw.WriteStream("msg_1", "claude-x", 10, tc.reply, 40); err != nil {
				t.Fatal(err)
			}
			evs := parseSSE(t, &buf)
			a := assemble(t, evs)
			if !reflect.DeepEqual(a.Events, tc.wantEvents) {
				t.Errorf("events = %v\nwant %v", a.Events, tc.wantEvents)
			}
			if flushes != len(evs) {
				t.Errorf("%d flushes for %d events", flushes, len(evs))
			}
			if !reflect.DeepEqual(a.Blocks, tc.wantBlocks) {
				t.Errorf("blocks = %v\nwant %v", a.Blocks, tc.wantBlocks)
			}
			if a.StopReason != tc.reply.StopReason || a.Model != "claude-x" {
				t.Errorf("stop_reason %q model %q", a.StopReason, a.Model)
			}
			if a.Usage["output_tokens"] == nil || a.Usage["input_tokens"] != 10.0 {
				t.Errorf("usage = %v", a.Usage)
			}
			// The non-streaming body has the same content.
			var m struct {
				Type       string           `json:"type"`
				Content    []map[string]any `json:"content"`
				StopReason string           `json:"stop_reason"`
			}
			if err := json.Unmarshal(MessageJSON("msg_1", "claude-x", 10, tc.reply), &m); err != nil {
				t.Fatal(err)
			}
			if m.Type != "message" || m.StopReason != tc.reply.StopReason || !reflect.DeepEqual(m.Content, tc.wantBlocks) {
				t.Errorf("non-streaming = %+v", m)
			}
		})
	}
}

// ---- request builders for the scenario table ----

func txt(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
func toolUse(id string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}}
}
func toolRes(id, content string, isErr bool) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}
}
func user(blocks ...map[string]any) map[string]any {
	return map[string]any{"role": "user", "content": blocks}
}
func asst(blocks ...map[string]any) map[string]any {
	return map[string]any{"role": "assistant", "content": blocks}
}

const reminder = "<system-reminder>\nAs you answer the user's questions, you can use the following context: SEQ [[\"X\",{}]]\n</system-reminder>\n"

var tools = []any{map[string]any{"name": "Bash"}}

func mkReq(t *testing.T, extra map[string]any, msgs ...map[string]any) *request {
	t.Helper()
	body := map[string]any{"model": "claude-test", "stream": true, "max_tokens": 1000, "tools": tools,
		"system":   []any{txt("You are Claude Code.\n - Primary working directory: /home/dev/proj\n - Platform: linux")},
		"messages": msgs}
	for k, v := range extra {
		body[k] = v
	}
	var r request
	if err := json.Unmarshal(mustJSON(body), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestDecide(t *testing.T) {
	seq2 := `SEQ [["Bash",{"command":"echo hi","description":"d"}],["Edit",{"file_path":"/x","old_string":"a","new_string":"b"}]]`
	demo := []Step{NewStep("Read", map[string]any{"file_path": "{{cwd}}/a.txt"})}
	named := map[string][]Step{"add a welcome": {NewStep("Read", map[string]any{"file_path": "{{cwd}}/w.py"})}}
	for _, tc := range []struct {
		name      string
		req       *request
		always    bool
		wantKind  string
		wantText  string // text of the first block, for text replies
		wantTool  string // tool name
		wantID    string
		wantInput string // JSON
		wantDelay time.Duration
	}{
		{name: "plain string content", req: mkReq(t, nil, map[string]any{"role": "user", "content": "hello"}),
			wantKind: "text", wantText: "You said: hello"},
		{name: "reminder blocks are not the prompt", req: mkReq(t, nil, user(txt(reminder), txt("hello"))),
			wantKind: "text", wantText: "You said: hello"},
		{name: "reminder inside the prompt block", req: mkReq(t, nil, user(txt(reminder+"hi there"))),
			wantKind: "text", wantText: "You said: hi there"},
		{name: "system role messages are ignored", req: mkReq(t, nil, user(txt("hello")), map[string]any{"role": "system", "content": []any{txt("Working directory: /x")}}),
			wantKind: "text", wantText: "You said: hello"},
		{name: "SEQ step 1", req: mkReq(t, nil, user(txt(reminder), txt(seq2))),
			wantKind: "tool", wantTool: "Bash", wantID: "toolu_s0", wantInput: `{"command":"echo hi","description":"d"}`},
		{name: "SEQ step 2 after one result", req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "ok", false))),
			wantKind: "tool", wantTool: "Edit", wantID: "toolu_s1", wantInput: `{"file_path":"/x","old_string":"a","new_string":"b"}`},
		{name: "a prompt sent mid-turn as a user message (2.1.332) joins the turn", req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")),
			user(toolRes("toolu_s0", "ok", false), txt("The user sent a new message while you were working:\nhello\n\nIMPORTANT: address it"))),
			wantKind: "tool", wantTool: "Edit", wantID: "toolu_s1"},
		{name: "a prompt sent mid-turn as a system message (2.1.328) joins the turn", req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")),
			user(toolRes("toolu_s0", "ok", false)), map[string]any{"role": "system", "content": []any{txt("The user sent a new message while you were working:\nhello")}}),
			wantKind: "tool", wantTool: "Edit", wantID: "toolu_s1"},
		{name: "SEQ step 2 after a denied step", req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "nope", true), txt(reminder))),
			wantKind: "tool", wantTool: "Edit", wantID: "toolu_s1"},
		{name: "SEQ finished", req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "ok", false)),
			asst(toolUse("toolu_s1")), user(toolRes("toolu_s1", "ok", false))),
			wantKind: "text", wantText: "all done"},
		{name: "later turn SEQ counts results after it, ids stay unique",
			req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "ok", false)),
				asst(toolUse("toolu_s1")), user(toolRes("toolu_s1", "ok", false)), asst(txt("all done")),
				user(txt(reminder), txt(`SEQ [["Read",{"file_path":"/r"}]]`))),
			wantKind: "tool", wantTool: "Read", wantID: "toolu_s2", wantInput: `{"file_path":"/r"}`},
		{name: "later plain prompt after a script",
			req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "ok", false)),
				asst(txt("all done")), user(txt("thanks"))),
			wantKind: "text", wantText: "You said: thanks"},
		{name: "prompt after an interrupt, merged with the marker",
			req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")),
				user(toolRes("toolu_s0", "rejected", true), txt("[Request interrupted by user for tool use]"), txt("go on"))),
			wantKind: "text", wantText: "You said: go on"},
		{name: "interrupt marker alone keeps the script",
			req: mkReq(t, nil, user(txt(seq2)), asst(toolUse("toolu_s0")),
				user(toolRes("toolu_s0", "rejected", true), txt("[Request interrupted by user for tool use]"))),
			wantKind: "tool", wantTool: "Edit", wantID: "toolu_s1"},
		{name: "bad SEQ", req: mkReq(t, nil, user(txt(`SEQ [["Bash"]]`))), wantKind: "error"},
		{name: "DEMO uses the default script with cwd", req: mkReq(t, nil, user(txt("DEMO"))),
			wantKind: "tool", wantTool: "Read", wantID: "toolu_s0", wantInput: `{"file_path":"/home/dev/proj/a.txt"}`},
		{name: "cwd placeholder in SEQ", req: mkReq(t, nil, user(txt(`SEQ [["Write",{"file_path":"{{cwd}}/n.txt","content":"x"}]]`))),
			wantKind: "tool", wantTool: "Write", wantInput: `{"file_path":"/home/dev/proj/n.txt","content":"x"}`},
		{name: "a named script runs for its prompt", req: mkReq(t, nil, user(txt("add a welcome"))),
			wantKind: "tool", wantTool: "Read", wantInput: `{"file_path":"/home/dev/proj/w.py"}`},
		{name: "dir placeholder: the folder's name", req: mkReq(t, nil, user(txt(`SEQ [["Write",{"file_path":"{{cwd}}/n.txt","content":"by {{dir}}"}]]`))),
			wantKind: "tool", wantTool: "Write", wantInput: `{"file_path":"/home/dev/proj/n.txt","content":"by proj"}`},
		{name: "last placeholder: a group of the latest matching result", req: mkReq(t, nil,
			user(txt(`SEQ [["CronCreate",{"cron":"* * * * *","prompt":"p"}],["CronDelete",{"id":"{{last:job ([0-9a-f]+)}}"}]]`)),
			asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "Scheduled recurring job b2b5d660 (Every minute).", false))),
			wantKind: "tool", wantTool: "CronDelete", wantInput: `{"id":"b2b5d660"}`},
		{name: "last placeholder without a match is empty", req: mkReq(t, nil,
			user(txt(`SEQ [["Bash",{"command":"ls"}],["CronDelete",{"id":"{{last:job ([0-9a-f]+)}}"}]]`)),
			asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "a.txt", false))),
			wantKind: "tool", wantTool: "CronDelete", wantInput: `{"id":""}`},
		{name: "AlwaysScript turns plain prompts into the script", req: mkReq(t, nil, user(txt("do it"))), always: true,
			wantKind: "tool", wantTool: "Read", wantID: "toolu_s0"},
		{name: "AlwaysScript then done", req: mkReq(t, nil, user(txt("do it")), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "1\thello", false))),
			always: true, wantKind: "text", wantText: "all done"},
		{name: "STREAM", req: mkReq(t, nil, user(txt("STREAM 3"))), wantKind: "stream"},
		{name: "SLOW", req: mkReq(t, nil, user(txt("SLOW 250"))), wantKind: "slow", wantText: "slow done", wantDelay: 250 * time.Millisecond},
		{name: "bad SLOW", req: mkReq(t, nil, user(txt("SLOW x"))), wantKind: "error"},
		{name: "SEQD streams the step slowly", req: mkReq(t, nil, user(txt(`SEQD 30 [["Read",{"file_path":"/r"}]]`))),
			wantKind: "tool", wantTool: "Read", wantID: "toolu_s0", wantInput: `{"file_path":"/r"}`},
		{name: "bad SEQD", req: mkReq(t, nil, user(txt(`SEQD x [["Read",{}]]`))), wantKind: "error"},
		{name: "OVERLOAD", req: mkReq(t, nil, user(txt("OVERLOAD 2 hi"))), wantKind: "overload", wantText: "recovered: hi"},
		{name: "bad OVERLOAD", req: mkReq(t, nil, user(txt("OVERLOAD x"))), wantKind: "error"},
		{name: "a subagent's ids are its own", req: mkReq(t, map[string]any{"system": "x-anthropic-billing-header: cc_is_subagent=true;"}, user(txt(seq2))),
			wantKind: "tool", wantTool: "Bash", wantID: fmt.Sprintf("toolu_a%08x_0", crc32.ChecksumIEEE([]byte(seq2)))},
		{name: "a subagent says it is done", req: mkReq(t, map[string]any{"system": "cc_is_subagent=true"}, user(txt(`SEQ []`))),
			wantKind: "text", wantText: "subagent done"},
		{name: "a fork subagent's directive is its prompt", req: mkReq(t, map[string]any{"system": "cc_is_subagent=true"}, user(txt("hello")), asst(txt("x")),
			user(txt("<fork-boilerplate>\nYou are a worker fork.\n</fork-boilerplate>\n\nYour directive: "+seq2))),
			wantKind: "tool", wantTool: "Bash"},
		{name: "no tools: side request", req: mkReq(t, map[string]any{"tools": nil}, user(txt("hello"))),
			wantKind: "side", wantText: "ok"},
		{name: "session title (structured output)", req: mkReq(t, map[string]any{"tools": nil,
			"system":        "Generate a title. Return JSON with a single \"title\" field.",
			"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}, "required": []any{"title"}}}}},
			user(txt("<session>\nhello\n</session>"))),
			wantKind: "side", wantText: `{"title":"Fake session"}`},
		{name: "compaction (sent with tools)", req: mkReq(t, nil, user(txt(seq2)), asst(txt("x")),
			user(txt("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n..."))),
			always: true, wantKind: "side", wantText: compactionSummary},
		{name: "bash prefix (older CLIs)", req: mkReq(t, map[string]any{"tools": nil, "system": "policy"},
			user(txt("<policy_spec>...</policy_spec>\nCommand: git status\n"))),
			wantKind: "side", wantText: "git"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decide(tc.req, scriptConfig{DefaultScript: demo, AlwaysScript: tc.always, FallbackCwd: "/fallback", Scripts: named})
			if p.Kind != tc.wantKind {
				t.Fatalf("kind = %q (%+v), want %q", p.Kind, p, tc.wantKind)
			}
			if len(p.Reply.Blocks) != 1 {
				t.Fatalf("blocks = %+v", p.Reply.Blocks)
			}
			b := p.Reply.Blocks[0]
			switch {
			case tc.wantTool != "":
				if b.Type != "tool_use" || b.Name != tc.wantTool || p.Reply.StopReason != "tool_use" {
					t.Errorf("reply = %+v, want tool %s", p.Reply, tc.wantTool)
				}
				if tc.wantID != "" && b.ID != tc.wantID {
					t.Errorf("id = %q, want %q", b.ID, tc.wantID)
				}
				if tc.wantInput != "" && string(b.Input) != tc.wantInput {
					t.Errorf("input = %s, want %s", b.Input, tc.wantInput)
				}
			case tc.wantText != "":
				if b.Type != "text" || b.fullText() != tc.wantText || p.Reply.StopReason != "end_turn" {
					t.Errorf("reply = %+v, want text %q", p.Reply, tc.wantText)
				}
			}
			if tc.name == "SEQD streams the step slowly" && p.Reply.ChunkDelay != 30*time.Millisecond {
				t.Errorf("chunk delay = %v", p.Reply.ChunkDelay)
			}
			if p.Delay != tc.wantDelay {
				t.Errorf("delay = %v, want %v", p.Delay, tc.wantDelay)
			}
		})
	}
}

func TestStreamChunks(t *testing.T) {
	p := decide(mkReq(t, nil, user(txt("STREAM 1000"))), scriptConfig{})
	chunks := p.Reply.Blocks[0].TextChunks
	if len(chunks) != 1000 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i, c := range chunks {
		if len(c) != 40 || !strings.HasSuffix(c, "\n") {
			t.Fatalf("chunk %d = %q (%d bytes)", i, c, len(c))
		}
	}
}

func TestScriptJSON(t *testing.T) {
	steps, err := ParseScript([]byte(`[["Read",{"file_path":"/a"}],["ExitPlanMode",{}]]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{{Tool: "Read", Input: json.RawMessage(`{"file_path":"/a"}`)}, {Tool: "ExitPlanMode", Input: json.RawMessage(`{}`)}}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps = %+v", steps)
	}
	b, _ := json.Marshal(steps)
	if string(b) != `[["Read",{"file_path":"/a"}],["ExitPlanMode",{}]]` {
		t.Errorf("marshal = %s", b)
	}
	for _, bad := range []string{`{}`, `[["Read"]]`, `[[1,{}]]`, `[["Read",[1]]]`, `[["",{}]]`} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) succeeded", bad)
		}
	}
	if b, _ := json.Marshal(DemoScript()); !strings.Contains(string(b), `"Edit"`) {
		t.Errorf("demo script = %s", b)
	}
}

// ---- HTTP level ----

type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func post(t *testing.T, ctx context.Context, url string, body any) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(mustJSON(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestServerHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lb := &logBuf{}
	srv := New(Options{Logger: log.New(lb, "", 0)})
	addr, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.URL() != "http://"+addr || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("addr %q url %q", addr, srv.URL())
	}

	seq := `SEQ [["Bash",{"command":"x"}],["Bash",{"command":"y"}],["Bash",{"command":"z"}]]`
	msgs := []any{user(txt(seq)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "out", false)),
		asst(toolUse("toolu_s1")), user(map[string]any{"type": "tool_result", "tool_use_id": "toolu_s1", "is_error": true,
			"content": []any{txt("line1"), txt("nope")}})}

	// Streaming, with ?beta=true.
	resp := post(t, ctx, srv.URL()+"/v1/messages?beta=true", map[string]any{"model": "m1", "stream": true, "tools": tools, "messages": msgs})
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("content-type %q", ct)
	}
	a := assemble(t, parseSSE(t, resp.Body))
	resp.Body.Close()
	if a.StopReason != "tool_use" || a.Blocks[0]["id"] != "toolu_s2" || a.Model != "m1" {
		t.Errorf("stream reply = %+v", a)
	}

	// Non-streaming, same conversation (results are deduplicated).
	resp = post(t, ctx, srv.URL()+"/v1/messages", map[string]any{"model": "m1", "stream": false, "tools": tools, "messages": msgs})
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if m["stop_reason"] != "tool_use" || m["type"] != "message" {
		t.Errorf("non-stream reply = %v", m)
	}

	if n := srv.Requests(); n != 2 {
		t.Errorf("Requests() = %d", n)
	}
	want := []ToolResult{{"toolu_s0", "out", false}, {"toolu_s1", "line1\nnope", true}}
	if got := srv.ToolResults(); !reflect.DeepEqual(got, want) {
		t.Errorf("ToolResults() = %+v", got)
	}
	tr, err := srv.WaitToolResult(ctx, "toolu_s1")
	if err != nil || !tr.IsError {
		t.Errorf("WaitToolResult = %+v, %v", tr, err)
	}
	short, c2 := context.WithTimeout(ctx, 50*time.Millisecond)
	if _, err := srv.WaitToolResult(short, "toolu_s9"); err == nil {
		t.Error("WaitToolResult for a missing id succeeded")
	}
	c2()

	// Inspection endpoint.
	r2, err := http.Get(srv.URL() + "/_fake/tool_results")
	if err != nil {
		t.Fatal(err)
	}
	var got []ToolResult
	json.NewDecoder(r2.Body).Decode(&got)
	r2.Body.Close()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("/_fake/tool_results = %+v", got)
	}

	// Other endpoints answer harmlessly and are logged.
	for _, c := range []struct{ method, path string }{{"POST", "/v1/messages/count_tokens?beta=true"},
		{"HEAD", "/api/hello"}, {"GET", "/api/whatever"}, {"GET", "/v1/models"}} {
		req, _ := http.NewRequestWithContext(ctx, c.method, srv.URL()+c.path, strings.NewReader(`{"messages":[]}`))
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("%s %s: %d", c.method, c.path, r.StatusCode)
		}
	}
	if !strings.Contains(lb.String(), "unknown request HEAD /api/hello") {
		t.Errorf("unknown path not logged:\n%s", lb.String())
	}
	if n := srv.Requests(); n != 2 {
		t.Errorf("Requests() = %d after other endpoints", n)
	}

	// Bad JSON is an API error, not a crash.
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/v1/messages", strings.NewReader("{"))
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 400 {
		t.Errorf("bad JSON: %d", r.StatusCode)
	}
}

// OVERLOAD n: the first n requests of the prompt get 529, the next the reply.
func TestOverloadAnswers529ThenRecovers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := New(Options{})
	if _, err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := map[string]any{"model": "m", "stream": false, "tools": tools, "messages": []any{user(txt("OVERLOAD 2 hello"))}}
	for i, want := range []int{529, 529, 200} {
		resp := post(t, ctx, srv.URL()+"/v1/messages", body)
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("request %d: status %d, want %d (%v)", i+1, resp.StatusCode, want, m)
		}
		if want == 529 {
			if e, _ := m["error"].(map[string]any); e["type"] != "overloaded_error" {
				t.Fatalf("529 body %v", m)
			}
			continue
		}
		if c, _ := m["content"].([]any); len(c) != 1 || c[0].(map[string]any)["text"] != "recovered: hello" {
			t.Fatalf("reply %v", m)
		}
	}
}

func TestSlowEndsWhenClientGoesAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lb := &logBuf{}
	srv := New(Options{Logger: log.New(lb, "", 0)})
	if _, err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// A short SLOW completes.
	t0 := time.Now()
	resp := post(t, ctx, srv.URL()+"/v1/messages", map[string]any{"stream": true, "tools": tools, "messages": []any{user(txt("SLOW 100"))}})
	a := assemble(t, parseSSE(t, resp.Body))
	resp.Body.Close()
	if d := time.Since(t0); d < 100*time.Millisecond || a.Blocks[0]["text"] != "slow done" {
		t.Errorf("SLOW 100 took %v, reply %+v", d, a)
	}

	// A long SLOW ends as soon as the client disconnects.
	rctx, rcancel := context.WithCancel(ctx)
	resp = post(t, rctx, srv.URL()+"/v1/messages", map[string]any{"stream": true, "tools": tools, "messages": []any{user(txt("SLOW 60000"))}})
	// message_start arrives before the wait.
	br := bufio.NewReader(resp.Body)
	line, _ := br.ReadString('\n')
	if line != "event: message_start\n" {
		t.Errorf("first line %q", line)
	}
	t0 = time.Now()
	rcancel()
	resp.Body.Close()
	for !strings.Contains(lb.String(), "client went away") {
		if time.Since(t0) > 5*time.Second {
			t.Fatalf("SLOW handler did not notice the disconnect:\n%s", lb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("SLOW handler ended %v after the disconnect", time.Since(t0))
}

func TestCloseOnContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(Options{})
	if _, err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := http.Get(srv.URL() + "/_fake/tool_results")
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server still answering after ctx was canceled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv.Close() // idempotent
}

// The tour's features: what Claude says with a step and when done, the
// reply to a plain prompt, a task notification's turn, a plan sent back.
func TestTourScript(t *testing.T) {
	tour := `SEQ [["Bash",{"command":"ls"},"Step 1: a command"],` +
		`["ExitPlanMode",{"plan":"# Plan"},"Step 2: a plan"],` +
		`["Edit",{"file_path":"/x","old_string":"a","new_string":"b"}],` +
		`["say",{"text":"That was the tour."}]]`
	plan := func(id string) map[string]any {
		return map[string]any{"type": "tool_use", "id": id, "name": "ExitPlanMode", "input": map[string]any{}}
	}
	const keep = "The user wants you to keep planning and not exit plan mode yet. Their feedback: smaller steps"
	notif := txt("<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n<task-id>b1</task-id>\n" +
		"<status>completed</status>\n<summary>Background command \"count\" completed (exit code 0)</summary>\n</task-notification>\n</system-reminder>")
	first := []map[string]any{user(txt(tour)), asst(txt("Step 1: a command"), toolUse("toolu_s0")), user(toolRes("toolu_s0", "ok", false))}
	with := func(more ...map[string]any) []map[string]any {
		return append(append([]map[string]any{}, first...), more...)
	}
	for _, tc := range []struct {
		name   string
		msgs   []map[string]any
		plain  string
		say    string // the text block before the call ("" none)
		tool   string
		text   string // a text reply
		inPlan string // the plan input holds this
	}{
		{name: "a step says what it shows", msgs: []map[string]any{user(txt(tour))}, say: "Step 1: a command", tool: "Bash"},
		{name: "the plan", msgs: first, say: "Step 2: a plan", tool: "ExitPlanMode"},
		{name: "a plan sent back comes again, revised", msgs: with(asst(plan("toolu_s1")), user(toolRes("toolu_s1", keep, true))),
			say: "I revised the plan after your feedback (1). Approve it, or send it back again.", tool: "ExitPlanMode", inPlan: "- smaller steps"},
		{name: "an approved plan goes on", msgs: with(asst(plan("toolu_s1")), user(toolRes("toolu_s1", "User has approved", false))), tool: "Edit"},
		{name: "a plan refused otherwise goes on", msgs: with(asst(plan("toolu_s1")), user(toolRes("toolu_s1", "not in plan mode", true))), tool: "Edit"},
		{name: "the closing words", msgs: with(asst(plan("toolu_s1")), user(toolRes("toolu_s1", "ok", false)),
			asst(toolUse("toolu_s2")), user(toolRes("toolu_s2", "ok", false))), text: "That was the tour."},
		{name: "a task's notification turn", msgs: with(asst(plan("toolu_s1")), user(toolRes("toolu_s1", "ok", false)),
			asst(toolUse("toolu_s2")), user(toolRes("toolu_s2", "ok", false)), asst(txt("That was the tour.")), user(notif)),
			text: `Noted: Background command "count" completed (exit code 0).`},
		{name: "a plain prompt gets the plain reply, not the tour", msgs: []map[string]any{user(txt("what now?"))}, plain: "Try SEQ.", text: "Try SEQ."},
		{name: "a plain prompt after the tour", msgs: with(asst(txt("x")), user(txt("hello"))), plain: "Try SEQ.", text: "Try SEQ."},
		{name: "a notification after a plain prompt", msgs: []map[string]any{user(txt("hi")), asst(txt("Try SEQ.")), user(notif)}, plain: "Try SEQ.",
			text: `Noted: Background command "count" completed (exit code 0).`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decide(mkReq(t, nil, tc.msgs...), scriptConfig{PlainReply: tc.plain})
			bs := p.Reply.Blocks
			if tc.text != "" {
				if len(bs) != 1 || bs[0].fullText() != tc.text {
					t.Fatalf("reply %+v, want %q", bs, tc.text)
				}
				return
			}
			if tc.say != "" {
				if len(bs) != 2 || bs[0].Type != "text" || bs[0].Text != tc.say {
					t.Fatalf("reply %+v, want the text %q first", bs, tc.say)
				}
				bs = bs[1:]
			}
			if len(bs) != 1 || bs[0].Name != tc.tool {
				t.Fatalf("reply %+v, want %s", p.Reply.Blocks, tc.tool)
			}
			if tc.inPlan != "" && !strings.Contains(string(bs[0].Input), tc.inPlan) {
				t.Errorf("plan input %s lacks %q", bs[0].Input, tc.inPlan)
			}
		})
	}
	for _, bad := range []string{`[["say",{"text":"x"}],["Read",{}]]`, `[["say",{}]]`, `[["Read",{},3]]`, `[["Read",{},"a","b"]]`} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) succeeded", bad)
		}
	}
	steps, err := ParseScript([]byte(`[["Read",{"file_path":"/a"},"look"],["say",{"text":"done"}]]`))
	if err != nil || len(steps) != 2 || steps[0].Say != "look" {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	if b, _ := json.Marshal(steps); string(b) != `[["Read",{"file_path":"/a"},"look"],["say",{"text":"done"}]]` {
		t.Errorf("marshal = %s", b)
	}
}

// A task that ends while a script runs is mentioned with the next step.
func TestTaskEndedMidScript(t *testing.T) {
	seq := `SEQ [["Bash",{"command":"a"}],["Bash",{"command":"b"},"Now b."]]`
	sys := map[string]any{"role": "system", "content": []any{txt("[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n<summary>Agent \"x\" completed</summary>\n</task-notification>")}}
	p := decide(mkReq(t, nil, user(txt(seq)), asst(toolUse("toolu_s0")), user(toolRes("toolu_s0", "ok", false)), sys), scriptConfig{})
	bs := p.Reply.Blocks
	if len(bs) != 2 || bs[0].Text != "Noted: Agent \"x\" completed.\n\nNow b." || bs[1].Name != "Bash" {
		t.Fatalf("reply %+v", bs)
	}
}
