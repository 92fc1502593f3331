package claude

import (
	"strings"
	"testing"
)

func TestDecodeMCPMessage(t *testing.T) {
	for _, tc := range []struct {
		line, server, err string
	}{
		{`{"type":"control_request","request_id":"r","request":{"subtype":"mcp_message","server_name":"nvim","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}}`, "nvim", ""},
		{`{"type":"control_request","request":{"subtype":"mcp_message","message":{}}}`, "", "no server_name"},
		{`{"type":"control_request","request":{"subtype":"mcp_message","server_name":"nvim"}}`, "", "no message"},
		{`{"type":"control_request"}`, "", "no request body"},
		{`{"type":"control_request","request":[]}`, "", "mcp_message"},
	} {
		m, err := ParseLine([]byte(tc.line))
		if err != nil {
			m = Message{Type: "control_request", Raw: []byte(tc.line)}
		}
		env, err := DecodeMCPMessage(m)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("%s: err %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || env.ServerName != tc.server {
			t.Fatalf("%s: %+v %v", tc.line, env, err)
		}
	}
}
