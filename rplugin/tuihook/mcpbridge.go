package tuihook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
)

// A stream-json claude reaches the editor's MCP server over its control
// channel (mcp_message); the TUI has none, so it is given the server as a
// stdio MCP server (--mcp-config) whose command is this binary's "mcp"
// subcommand (RunMCP): each JSON-RPC message it reads is handed to the host
// over the hooks' socket, where the session's Conn makes it the
// mcp_message a stream-json claude would have sent; the answer is written
// back. The same editor tools, the same session, the same project boundary.

// MCPConfig is the --mcp-config that gives the TUI the editor's MCP server
// (command: this binary). The server inherits the TUI's environment (the
// socket and the session's secret), which never appears in an argv.
func MCPConfig(exe string) (string, error) {
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		editortools.Server: map[string]any{"type": "stdio", "command": exe, "args": []string{"mcp"}},
	}})
	if err != nil {
		return "", fmt.Errorf("encode the MCP config: %w", err)
	}
	return string(b), nil
}

// RunMCP is the "mcp" subcommand: the editor's MCP server for a TUI
// session, over stdio. It returns when stdin ends.
func RunMCP(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	path, token := getenv(EnvSocket), getenv(EnvToken)
	if path == "" || token == "" {
		fmt.Fprintln(stderr, "claudenova mcp: not started by claude-nova.nvim (no "+EnvSocket+")")
		return 1
	}
	var outMu sync.Mutex
	write := func(b []byte) {
		outMu.Lock()
		defer outMu.Unlock()
		_, _ = stdout.Write(append(bytes.TrimSpace(b), '\n'))
	}
	var wg sync.WaitGroup
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		msg := append(json.RawMessage(nil), line...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := relay(ctx, path, token, msg)
			id := requestID(msg)
			if id == nil {
				return // a notification: claude waits for no answer
			}
			if err != nil {
				fmt.Fprintln(stderr, "claudenova mcp:", err)
				resp = rpcError(id, "claude-nova.nvim: the editor did not answer: "+err.Error())
			}
			write(resp)
		}()
	}
	wg.Wait()
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "claudenova mcp: read:", err)
		return 1
	}
	return 0
}

// relay hands one JSON-RPC message to the host and returns its answer.
func relay(ctx context.Context, path, token string, msg json.RawMessage) (json.RawMessage, error) {
	b, err := roundTrip(ctx, path, ask{Token: token, MCP: msg})
	if err != nil {
		return nil, err
	}
	var r reply
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the editor's answer: %w", err)
	}
	var body struct {
		Response json.RawMessage `json:"mcp_response"`
	}
	if err := json.Unmarshal(r.Output, &body); err != nil || len(body.Response) == 0 {
		return nil, errors.New("the editor's answer holds no MCP response")
	}
	return body.Response, nil
}

// requestID is the id of a JSON-RPC request (nil for a notification or
// anything unreadable).
func requestID(msg json.RawMessage) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

// rpcError is a JSON-RPC error answer to request id.
func rpcError(id json.RawMessage, message string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": message}})
	return b
}
