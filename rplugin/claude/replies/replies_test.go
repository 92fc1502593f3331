package replies

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Each control answer decodes to its type; a bad shape is an error naming
// the control request, never a zero value taken as an answer.
func TestDecodeResponses(t *testing.T) {
	tests := []struct {
		name    string
		decode  func(json.RawMessage) (any, error)
		raw     string
		want    any
		wantErr bool
	}{
		{"init", func(r json.RawMessage) (any, error) { return DecodeInit(r) },
			`{"commands":[{"name":"review","description":"Review","argumentHint":"[pr]"}],"models":[{"value":"opus","displayName":"Opus","supportedEffortLevels":["low","high"]}]}`,
			InitAnswer{Commands: []SlashCommand{{Name: "review", Description: "Review", ArgumentHint: "[pr]"}},
				Models: []ModelInfo{{Value: "opus", DisplayName: "Opus", EffortLevels: []string{"low", "high"}}}}, false},
		{"init bad", func(r json.RawMessage) (any, error) { return DecodeInit(r) }, `{"commands":"x"}`, nil, true},
		{"context", func(r json.RawMessage) (any, error) { return DecodeContextUsage(r) },
			`{"categories":[{"name":"Messages","tokens":10,"kind":"used"}],"totalTokens":10,"maxTokens":200,"percentage":5}`,
			ContextUsage{Categories: []ContextCategory{{Name: "Messages", Tokens: 10, Kind: "used"}}, Total: 10, Max: 200, Percent: 5}, false},
		{"context without a window", func(r json.RawMessage) (any, error) { return DecodeContextUsage(r) }, `{"totalTokens":10}`, nil, true},
		{"set_model", func(r json.RawMessage) (any, error) { return DecodeModelSet(r) }, `{"model":"claude-opus"}`, ModelSet{Model: "claude-opus"}, false},
		{"cancel", func(r json.RawMessage) (any, error) { return DecodeCancelled(r) }, `{"cancelled":true}`, Cancelled{Cancelled: true}, false},
		{"task output", func(r json.RawMessage) (any, error) { return DecodeTaskOutput(r) }, `{"output":"done"}`, TaskOutput{Output: "done"}, false},
		{"task output bad", func(r json.RawMessage) (any, error) { return DecodeTaskOutput(r) }, `[1]`, nil, true},
		{"rewind", func(r json.RawMessage) (any, error) { return DecodeRewindFiles(r) },
			`{"canRewind":true,"filesChanged":["a.go"],"insertions":2,"deletions":1}`,
			RewindFiles{CanRewind: true, FilesChanged: []string{"a.go"}, Insertions: 2, Deletions: 1}, false},
		{"mcp status bad", func(r json.RawMessage) (any, error) { return DecodeMCPStatus(r) }, `{"mcpServers":"nope"}`, nil, true},
		{"usage", func(r json.RawMessage) (any, error) { return DecodeUsage(r) }, `{"five_hour":{"utilization":3}}`,
			UsageAnswer{"five_hour": map[string]any{"utilization": float64(3)}}, false},
		{"usage not an object", func(r json.RawMessage) (any, error) { return DecodeUsage(r) }, `null`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.decode(json.RawMessage(tt.raw))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("took %s: %+v", tt.raw, got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// mcp_server_errors comes as a list or a map; anything else reads as none.
func TestServerErrorsShapes(t *testing.T) {
	tests := []struct {
		raw  string
		want ServerErrors
	}{
		{`[{"name":"docs","message":"bad config"}]`, ServerErrors{{Name: "docs", Message: "bad config"}}},
		{`[{"server":"docs","error":"timeout","type":"connect"}, {}]`, ServerErrors{{Name: "docs", Type: "connect", Message: "timeout"}}},
		{`{"b":"two","a":{"message":"one"}}`, ServerErrors{{Name: "a", Message: "one"}, {Name: "b", Message: "two"}}},
		{`null`, nil},
		{`7`, nil},
	}
	for _, tt := range tests {
		var got ServerErrors
		if err := json.Unmarshal([]byte(tt.raw), &got); err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}

func FuzzDecodeResponses(f *testing.F) {
	f.Add([]byte(`{"mcpServers":[{"name":"x","tools":[{"name":"t"}]}]}`))
	f.Add([]byte(`{"b":"two","a":{"message":"one"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, _ = DecodeInit(raw)
		_, _ = DecodeMCPStatus(raw)
		_, _ = DecodeContextUsage(raw)
		var e ServerErrors
		_ = json.Unmarshal(raw, &e)
	})
}
