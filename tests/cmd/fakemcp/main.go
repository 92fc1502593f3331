// Command fakemcp is a tiny MCP server over stdio (one JSON-RPC message a
// line), for tests of the MCP servers a user configures (.mcp.json): it
// offers the tools named by -tools, each answering with its arguments. It
// is built from the host's own MCP package, so it speaks what the CLI
// expects.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/mcp"
)

func main() {
	names := flag.String("tools", "lookup", "comma-separated tool names")
	flag.Parse()
	var tools []mcp.Tool
	for _, n := range strings.Split(*names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			tools = append(tools, mcp.Tool{Name: n, Description: "fake tool " + n,
				InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
		}
	}
	srv := mcp.New(mcp.Info{Name: "fakemcp", Version: "1"}, tools, func(_ context.Context, c mcp.Call) mcp.Result {
		return mcp.Text(c.Name + " " + string(c.Arguments))
	}, 0, nil)
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		m, err := mcp.Decode(line)
		if err == nil && m.Notification() {
			srv.Serve(line, func(json.RawMessage) {}) // no reply on stdio
			continue
		}
		srv.Serve(line, func(resp json.RawMessage) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(out, "%s\n", resp)
			out.Flush()
		})
	}
	srv.Wait()
}
