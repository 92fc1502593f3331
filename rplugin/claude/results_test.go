package claude

import (
	"reflect"
	"testing"
)

func TestToolResultsOf(t *testing.T) {
	tests := []struct {
		name       string
		m          Message
		results    []ToolResult
		structured string
	}{
		{
			name: "a live result with its meta and structured result",
			m: Message{Type: "user", Raw: []byte(`{"type":"user","message":{"role":"user","content":[` +
				`{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"x"},` +
				`{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"no"}]},` +
				`"tool_result_meta":[{"id":"t1","permission_decision":{"decision":"allow","source":"config","reason_type":"mode"}}],` +
				`"tool_use_result":{"filePath":"/p/a.go","originalFile":null}}`)},
			results: []ToolResult{
				{ToolUseID: "t1", Decision: PermissionDecision{Decision: "allow", Source: "config", ReasonType: "mode"}},
				{ToolUseID: "t2", IsError: true},
			},
			structured: `{"filePath":"/p/a.go","originalFile":null}`,
		},
		{
			name: "claude's store names the structured result toolUseResult",
			m: Message{Type: "user", Raw: []byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3"}]},` +
				`"toolUseResult":{"filePath":"b.go","originalFile":"old"}}`)},
			results:    []ToolResult{{ToolUseID: "t3"}},
			structured: `{"filePath":"b.go","originalFile":"old"}`,
		},
		{
			name: "a block without an id is no result",
			m:    Message{Type: "user", Raw: []byte(`{"message":{"content":[{"type":"tool_result"}]}}`)},
		},
		{
			name: "a prompt carries none",
			m:    Message{Type: "user", Raw: []byte(`{"type":"user","message":{"content":"hello"}}`)},
		},
		{
			name: "nor does another type",
			m:    Message{Type: "assistant", Raw: []byte(`{"message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]}}`)},
		},
		{
			name: "broken JSON",
			m:    Message{Type: "user", Raw: []byte(`{"tool_result": [`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ToolResultsOf(tt.m)
			if !reflect.DeepEqual(got.Results, tt.results) {
				t.Errorf("results %+v, want %+v", got.Results, tt.results)
			}
			if string(got.Structured) != tt.structured {
				t.Errorf("structured %s, want %s", got.Structured, tt.structured)
			}
		})
	}
}

func FuzzToolResultsOf(f *testing.F) {
	f.Add([]byte(`{"message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]},"tool_use_result":{}}`))
	f.Add([]byte(`{"message":{"content":"tool_result"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, r := range ToolResultsOf(Message{Type: "user", Raw: raw}).Results {
			if r.ToolUseID == "" {
				t.Fatalf("a result without an id from %q", raw)
			}
		}
	})
}
