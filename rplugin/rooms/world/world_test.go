package world

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

func TestMCPServerNamesWhatThereIs(t *testing.T) {
	s := session.New(2, t.TempDir(), "", nil)
	none := session.New(3, t.TempDir(), "", nil)
	init := `{"type":"system","subtype":"init","mcp_servers":[{"name":"docs","status":"failed"},{"name":"claudenova","status":"connected"}]}`
	m, err := claude.ParseLine([]byte(init))
	if err != nil || m.System == nil {
		t.Fatal(err)
	}
	if !s.World.FromInit(m.System.Init) {
		t.Fatal("init brought no servers")
	}
	st, err := replies.DecodeMCPStatus(json.RawMessage(`{"mcpServers":[{"name":"docs","status":"failed"},{"name":"claudenova","status":"connected","source":"sdk"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s.World.FromStatus(st)
	for _, tc := range []struct {
		name string
		s    *session.Session
		want string
	}{
		{"", s, "which MCP server?"},
		{"nope", s, `session 2 has no MCP server "nope" (it has docs, claudenova)`},
		{"nope", none, "(claude reports none)"},
		{"claudenova", s, "the editor's own server"},
		{"docs", s, ""},
	} {
		_, err := mcpServer(tc.s, tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestServerOutcome(t *testing.T) {
	for _, tc := range []struct {
		servers []world.MCPServer
		want    string
	}{
		{[]world.MCPServer{{Name: "docs", Status: "connected", Tools: 3}}, "docs · connected (3 tools)"},
		{[]world.MCPServer{{Name: "docs", Status: "failed", Error: "no such command"}}, "docs · failed: no such command"},
		{nil, "docs is no longer listed by claude"},
	} {
		if got := serverOutcome("docs", tc.servers)["message"]; got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
