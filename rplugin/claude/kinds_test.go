package claude

import (
	"path/filepath"
	"testing"
)

// claude0 is no one's origin: what a message that is neither an assistant
// message nor a stream event says.
var claude0 Origin

func TestKindsDecodeOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want func(Message) bool
	}{
		{"claude's own reply", `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
			func(m Message) bool {
				a := m.Assistant
				return a != nil && a.MessageID == "m1" && len(a.Content) == 2 && a.Content[0].Text.String() == "hi" &&
					a.Content[1].Name == "Bash" && string(a.Content[1].Input) == `{"command":"ls"}` && !a.Subagent() && m.Origin() == a.Origin
			}},
		{"a subagent's reply", `{"type":"assistant","parent_tool_use_id":"t0","agent_id":"a1","subagent_type":"Explore","message":{"content":[]}}`,
			func(m Message) bool {
				return m.Assistant != nil && m.Assistant.Parent() == "t0" && m.Assistant.AgentID == "a1" && m.Origin().Subagent()
			}},
		{"a null parent is claude's own", `{"type":"stream_event","parent_tool_use_id":null,"api_message_id":"m","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}}}`,
			func(m Message) bool {
				return m.Stream != nil && !m.Stream.Subagent() && m.Stream.Event.Delta.Text == "x" && m.Stream.Event.Index == 1
			}},
		{"the echo of a prompt", `{"type":"user","uuid":"u1","isReplay":true,"message":{"content":"hello"}}`,
			func(m Message) bool {
				return m.User != nil && m.User.IsReplay && m.User.UUID == "u1" && m.User.Content == nil && m.Origin() == claude0
			}},
		{"tool results, the structured one a string", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"no"}]},"tool_use_result":"Error: no"}`,
			func(m Message) bool {
				u := m.User
				return u != nil && len(u.Results) == 1 && u.Results[0].IsError && string(u.Structured) == `"Error: no"` && string(u.Content[0].Content) == `"no"`
			}},
		{"a failed turn", `{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":1500,"errors":["boom"],"usage":{"input_tokens":3}}`,
			func(m Message) bool {
				r := m.Result
				return r != nil && r.Failed() && r.DurationMS == 1500 && r.Errors[0] == "boom" && r.Usage.In == 3
			}},
		{"a turn that went well", `{"type":"result","subtype":"success","result":"all done"}`,
			func(m Message) bool {
				return m.Result != nil && !m.Result.Failed() && m.Result.Text.String() == "all done"
			}},
		{"init", `{"type":"system","subtype":"init","session_id":"s","cwd":"/w","model":"m","permissionMode":"default","claude_code_version":"2.1.328","mcp_servers":[{"name":"nvim","status":"connected"}]}`,
			func(m Message) bool {
				s := m.System
				return s != nil && s.Cwd == "/w" && s.Version == "2.1.328" && s.PermissionMode == "default" && s.Init != nil &&
					s.Init.MCPServers[0].Name == "nvim" && s.Hook == nil && s.Signal == nil
			}},
		{"a hook", `{"type":"system","subtype":"hook_response","hook_id":"h","hook_name":"PreToolUse:Bash","exit_code":2}`,
			func(m Message) bool { return m.System != nil && m.System.Hook != nil && *m.System.Hook.ExitCode == 2 }},
		{"a task", `{"type":"system","subtype":"task_started","task_id":"b1","task_type":"local_bash"}`,
			func(m Message) bool { return m.System != nil && m.System.Task != nil && m.System.Task.TaskID == "b1" }},
		{"a signal", `{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"error_status":529}`,
			func(m Message) bool { return m.System != nil && m.System.Signal != nil && m.System.Signal.Attempt == 2 }},
		{"state", `{"type":"system","subtype":"session_state_changed","state":"idle"}`,
			func(m Message) bool { return m.System != nil && m.System.State == "idle" }},
		{"progress", `{"type":"tool_progress","tool_use_id":"t1","tool_name":"Bash","elapsed_time_seconds":3.5}`,
			func(m Message) bool { return m.Progress != nil && m.Progress.Elapsed == 3.5 }},
		{"a rate limit", `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1700000000}}`,
			func(m Message) bool { return m.RateLimit != nil && m.RateLimit.Status == "rejected" }},
		{"lifecycle", `{"type":"command_lifecycle","command_uuid":"u","state":"started"}`,
			func(m Message) bool { return m.Lifecycle != nil && m.Lifecycle.UUID == "u" }},
		{"an unknown kind is kept whole", `{"type":"brand_new","x":1}`,
			func(m Message) bool { return m.Undecoded == nil && string(m.Raw) == `{"type":"brand_new","x":1}` }},
		{"a body of the wrong shape is passed by, kept whole", `{"type":"assistant","message":{"content":"not blocks"}}`,
			func(m Message) bool { return m.Assistant == nil && m.Undecoded != nil && len(m.Raw) > 0 }},
		{"a system part of the wrong shape keeps the common fields", `{"type":"system","subtype":"hook_started","hook_id":7,"session_id":"s"}`,
			func(m Message) bool {
				return m.System != nil && m.System.SessionID == "s" && m.System.Hook == nil && m.Undecoded != nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseLine([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(m) {
				t.Fatalf("decoded %+v", m)
			}
		})
	}
}

// Every line the real CLI printed in the fixtures decodes into its kind.
func TestRealLinesDecode(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, glob := range []string{"*.jsonl", filepath.Join("versions", "*.jsonl")} {
		more, _ := filepath.Glob(filepath.Join("..", "transcript", "testdata", glob))
		files = append(files, more...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d fixtures", len(files))
	}
	kinds := map[string]int{}
	for _, f := range files {
		rel, _ := filepath.Rel("testdata", f)
		for _, line := range fixtureLines(t, rel) {
			m, err := ParseLine(line)
			if err != nil || m.Undecoded != nil {
				t.Fatalf("%s: %v %v\n%.300s", f, err, m.Undecoded, line)
			}
			typed := map[string]bool{"assistant": m.Assistant != nil, "user": m.User != nil, "result": m.Result != nil,
				"system": m.System != nil, "stream_event": m.Stream != nil, "tool_progress": m.Progress != nil,
				"rate_limit_event": m.RateLimit != nil, "command_lifecycle": m.Lifecycle != nil}
			if ok, known := typed[m.Type]; known && !ok {
				t.Fatalf("%s: a %s without its value", f, m.Type)
			}
			kinds[m.Type]++
		}
	}
	for _, k := range []string{"assistant", "user", "result", "system", "stream_event", "control_request"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the fixtures: %v", k, kinds)
		}
	}
}
