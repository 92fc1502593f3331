package mcp

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"
)

// FuzzMCPMessage feeds the messages of mcp_message control requests (as
// claude would write them) to the server: whatever the input, nothing
// panics and every message gets exactly one reply, which is valid JSON-RPC
// 2.0.
func FuzzMCPMessage(f *testing.F) {
	for _, seed := range []string{
		`{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}},"jsonrpc":"2.0","id":0}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"method":"tools/list","jsonrpc":"2.0","id":1}`,
		`{"method":"tools/call","params":{"name":"echo","arguments":{"path":"a.lua"},"_meta":{"claudecode/toolUseId":"toolu_s0","progressToken":2}},"jsonrpc":"2.0","id":2}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"id":{},"method":"x"}`,
		`[1,2]`,
		`"\u0000"`,
	} {
		f.Add([]byte(seed))
	}
	s := New(Info{Name: "nvim", Version: "0"}, testTools, echo, 50*time.Millisecond, nil)
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !json.Valid(msg) {
			return // it comes inside claude's JSON line: it is JSON
		}
		var n atomic.Int32
		done := make(chan json.RawMessage, 2)
		s.Serve(msg, func(b json.RawMessage) {
			n.Add(1)
			done <- b
		})
		var b json.RawMessage
		select {
		case b = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("no reply to %q", msg)
		}
		s.Wait()
		if n.Load() != 1 {
			t.Fatalf("%d replies to %q", n.Load(), msg)
		}
		var v struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(b, &v); err != nil || v.JSONRPC != "2.0" || (len(v.Result) == 0) == (len(v.Error) == 0) {
			t.Fatalf("bad reply %s to %q (%v)", b, msg, err)
		}
	})
}
