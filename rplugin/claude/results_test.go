package claude

import (
	"reflect"
	"testing"
)

func TestToolResultsOf(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		results    []ToolResult
		structured string
	}{
		{
			name: "a live result with its meta and structured result",
			line: `{"type":"user","message":{"role":"user","content":[` +
				`{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"x"},` +
				`{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"no"}]},` +
				`"tool_result_meta":[{"id":"t1","permission_decision":{"decision":"allow","source":"config","reason_type":"mode"}}],` +
				`"tool_use_result":{"filePath":"/p/a.go","originalFile":null}}`,
			results: []ToolResult{
				{ToolUseID: "t1", Decision: PermissionDecision{Decision: "allow", Source: "config", ReasonType: "mode"}},
				{ToolUseID: "t2", IsError: true},
			},
			structured: `{"filePath":"/p/a.go","originalFile":null}`,
		},
		{
			name: "claude's store names the structured result toolUseResult",
			line: `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3"}]},` +
				`"toolUseResult":{"filePath":"b.go","originalFile":"old"}}`,
			results:    []ToolResult{{ToolUseID: "t3"}},
			structured: `{"filePath":"b.go","originalFile":"old"}`,
		},
		{
			name: "a block without an id is no result",
			line: `{"type":"user","message":{"content":[{"type":"tool_result"}]}}`,
		},
		{
			name: "a prompt carries none",
			line: `{"type":"user","message":{"content":"hello"}}`,
		},
		{
			name: "nor does another type",
			line: `{"type":"assistant","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]}}`,
		},
		{
			name: "broken JSON",
			line: `{"type":"user","tool_result": [`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := ParseLine([]byte(tt.line))
			got := ToolResultsOf(m)
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
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]},"tool_use_result":{}}`))
	f.Add([]byte(`{"type":"user","message":{"content":"tool_result"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseLine(raw)
		if err != nil {
			return
		}
		for _, r := range ToolResultsOf(m).Results {
			if r.ToolUseID == "" {
				t.Fatalf("a result without an id from %q", raw)
			}
		}
	})
}
