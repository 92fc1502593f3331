package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

var testTools = []Tool{{Name: "echo", Description: "echo", InputSchema: json.RawMessage(`{"type":"object"}`),
	Annotations: &Annotations{ReadOnlyHint: true}}}

func echo(ctx context.Context, c Call) Result {
	if c.Name == "echo" && strings.Contains(string(c.Arguments), "wait") {
		<-ctx.Done()
		return Failure("cancelled: " + ctx.Err().Error())
	}
	if strings.Contains(string(c.Arguments), "panic") {
		panic("boom")
	}
	return Text(c.ToolUseID + " " + string(c.Arguments))
}

// serve runs one message and waits for its single reply.
func serve(t *testing.T, s *Server, msg string) map[string]any {
	t.Helper()
	var mu sync.Mutex
	var replies []json.RawMessage
	done := make(chan struct{})
	s.Serve([]byte(msg), func(b json.RawMessage) {
		mu.Lock()
		replies = append(replies, b)
		mu.Unlock()
		close(done)
	})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("no reply to %s", msg)
	}
	s.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(replies) != 1 {
		t.Fatalf("%d replies to %s", len(replies), msg)
	}
	var v map[string]any
	if err := json.Unmarshal(replies[0], &v); err != nil {
		t.Fatalf("reply is not JSON: %s", replies[0])
	}
	if v["jsonrpc"] != "2.0" {
		t.Fatalf("reply without jsonrpc 2.0: %s", replies[0])
	}
	return v
}

func TestServe(t *testing.T) {
	s := New(Info{Name: "nvim", Version: "1", Instructions: "hi"}, testTools, echo, time.Second, nil)
	for _, tc := range []struct {
		name, msg string
		check     func(t *testing.T, v map[string]any)
	}{
		{"initialize negotiates a known version", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
			func(t *testing.T, v map[string]any) {
				r := v["result"].(map[string]any)
				if r["protocolVersion"] != "2025-06-18" || r["instructions"] != "hi" || v["id"] != 0.0 {
					t.Fatalf("%v", v)
				}
				if _, ok := r["capabilities"].(map[string]any)["tools"]; !ok {
					t.Fatalf("no tools capability: %v", r)
				}
			}},
		{"initialize of an unknown version gets the newest", `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
			func(t *testing.T, v map[string]any) {
				if v["result"].(map[string]any)["protocolVersion"] != Versions[0] || v["id"] != "a" {
					t.Fatalf("%v", v)
				}
			}},
		{"a notification gets an empty result", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			func(t *testing.T, v map[string]any) {
				if _, ok := v["id"]; ok || v["result"] == nil {
					t.Fatalf("%v", v)
				}
			}},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			func(t *testing.T, v map[string]any) {
				tools := v["result"].(map[string]any)["tools"].([]any)
				if len(tools) != 1 || tools[0].(map[string]any)["name"] != "echo" {
					t.Fatalf("%v", v)
				}
			}},
		{"ping", `{"jsonrpc":"2.0","id":7,"method":"ping"}`,
			func(t *testing.T, v map[string]any) {
				if v["result"] == nil || v["error"] != nil {
					t.Fatalf("%v", v)
				}
			}},
		{"tools/call with the tool_use id", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":1},"_meta":{"claudecode/toolUseId":"toolu_1"}}}`,
			func(t *testing.T, v map[string]any) {
				c := v["result"].(map[string]any)["content"].([]any)[0].(map[string]any)
				if c["text"] != `toolu_1 {"x":1}` || v["id"] != 2.0 {
					t.Fatalf("%v", v)
				}
			}},
		{"tools/call without arguments", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`,
			func(t *testing.T, v map[string]any) {
				c := v["result"].(map[string]any)["content"].([]any)[0].(map[string]any)
				if c["text"] != ` {}` {
					t.Fatalf("%v", v)
				}
			}},
		{"unknown tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rm"}}`,
			errCode(CodeInvalidParams)},
		{"arguments not an object", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
			errCode(CodeInvalidParams)},
		{"a panicking tool is an error result", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"panic":1}}}`,
			func(t *testing.T, v map[string]any) {
				r := v["result"].(map[string]any)
				if r["isError"] != true {
					t.Fatalf("%v", v)
				}
			}},
		{"a slow tool ends at the timeout", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"wait":1}}}`,
			func(t *testing.T, v map[string]any) {
				r := v["result"].(map[string]any)
				if r["isError"] != true || !strings.Contains(r["content"].([]any)[0].(map[string]any)["text"].(string), "deadline") {
					t.Fatalf("%v", v)
				}
			}},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"resources/list"}`, errCode(CodeMethodNotFound)},
		{"not JSON", `{"jsonrpc":`, errCode(CodeParse)},
		{"a response", `{"jsonrpc":"2.0","id":9,"result":{}}`, errCode(CodeInvalidRequest)},
		{"a batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, errCode(CodeInvalidRequest)},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, errCode(CodeInvalidRequest)},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, serve(t, s, tc.msg)) })
	}
}

func errCode(code int) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		t.Helper()
		e, ok := v["error"].(map[string]any)
		if !ok || e["code"] != float64(code) {
			t.Fatalf("want error %d, got %v", code, v)
		}
		if _, ok := v["id"]; !ok {
			t.Fatalf("an error reply needs an id (null when unknown): %v", v)
		}
	}
}

func TestCancelled(t *testing.T) {
	s := New(Info{Name: "nvim"}, testTools, echo, time.Minute, nil)
	got := make(chan json.RawMessage, 1)
	s.Serve([]byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"wait":1}}}`),
		func(b json.RawMessage) { got <- b })
	// The call is registered before Serve returns: the cancel finds it.
	serve(t, s, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`)
	select {
	case b := <-got:
		if !strings.Contains(string(b), "context canceled") {
			t.Fatalf("%s", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not reply")
	}
}

func TestManifest(t *testing.T) {
	s := New(Info{Name: "nvim", Version: "0.1.0"}, testTools, echo, time.Second, nil)
	b, err := json.Marshal(s.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Init struct {
			ProtocolVersion string         `json:"protocolVersion"`
			Capabilities    map[string]any `json:"capabilities"`
			ServerInfo      map[string]any `json:"serverInfo"`
		} `json:"initializeResult"`
		Tools struct {
			Tools []Tool `json:"tools"`
		} `json:"toolsListResult"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Init.ProtocolVersion != Versions[0] || m.Init.ServerInfo["name"] != "nvim" || len(m.Tools.Tools) != 1 {
		t.Fatalf("%s", b)
	}
}
