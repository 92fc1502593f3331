package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// MCPMessage is the body of an mcp_message control request: a JSON-RPC
// message for one of the SDK MCP servers the host declared.
type MCPMessage struct {
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
}

// DecodeMCPMessage reads an mcp_message control request.
func DecodeMCPMessage(m Message) (MCPMessage, error) {
	var env struct {
		Request *MCPMessage `json:"request"`
	}
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return MCPMessage{}, fmt.Errorf("mcp_message: %w", err)
	}
	if env.Request == nil {
		return MCPMessage{}, errors.New("mcp_message: no request body")
	}
	if env.Request.ServerName == "" {
		return MCPMessage{}, errors.New("mcp_message: no server_name")
	}
	if len(bytes.TrimSpace(env.Request.Message)) == 0 {
		return MCPMessage{}, errors.New("mcp_message: no message")
	}
	return *env.Request, nil
}
