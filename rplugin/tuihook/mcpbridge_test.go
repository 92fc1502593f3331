package tuihook

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The MCP bridge: each request is the session's mcp_message and its answer
// is written back; a notification reaches the host and gets no line; with
// no host a request gets a JSON-RPC error (claude never waits forever).
func TestMCPBridge(t *testing.T) {
	_, c, env := setup(t)
	inR, inW := io.Pipe()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- RunMCP(context.Background(), inR, &out, &errOut, func(k string) string { return env[k] })
	}()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	n := next(t, c)
	if n.Subtype != "mcp_message" {
		t.Fatalf("got %+v", n)
	}
	if err := c.RespondControl(n.RequestID, map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	m := next(t, c)
	if m.Subtype != "mcp_message" || !strings.Contains(string(m.Raw), `"server_name":"nvim"`) || !strings.Contains(string(m.Raw), `"tools/list"`) {
		t.Fatalf("got %s", m.Raw)
	}
	if err := c.RespondControl(m.RequestID, map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": 7, "result": map[string]any{"tools": []any{}}}}); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the bridge hangs")
	}
	if got := strings.TrimSpace(out.String()); got != `{"id":7,"jsonrpc":"2.0","result":{"tools":[]}}` {
		t.Fatalf("wrote %q", got)
	}

	// No host there: an error answer, at once.
	var out2 bytes.Buffer
	noHost := map[string]string{EnvSocket: filepath.Join(t.TempDir(), "none.sock"), EnvToken: "x"}
	RunMCP(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`+"\n"), &out2, io.Discard,
		func(k string) string { return noHost[k] })
	if !strings.Contains(out2.String(), `"id":"a"`) || !strings.Contains(out2.String(), `"error"`) {
		t.Fatalf("wrote %q", out2.String())
	}
}
