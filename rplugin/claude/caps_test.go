package claude

import (
	"context"
	"errors"
	"github.com/claude-nova/claude-nova.nvim/rplugin/window"
	"strings"
	"testing"
	"time"
)

// A control request claude does not know fails in words, once: the next
// call of it is refused without asking claude again.
func TestUnsupportedControlIsLearnt(t *testing.T) {
	p, logPath := startInMode(t, "", `{"config":{"control":{"mcp_reconnect":{"error":"Server not found: x"}}}}`+"\n"+`{"result":true}`+"\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := p.Control(ctx, "get_task_output", map[string]any{"task_id": "t1"})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Subtype != "get_task_output" {
		t.Fatalf("err %v", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "A background command's output needs a newer claude than") ||
		!strings.Contains(msg, "(claude-nova supports "+window.OldestSupported+" to "+window.NewestTested+")") {
		t.Fatalf("message %q", msg)
	}
	if p.Supports("get_task_output") || !p.Supports("interrupt") {
		t.Fatal("Supports is wrong")
	}
	if _, err := p.Begin("get_task_output", nil); !errors.As(err, &ue) {
		t.Fatalf("second call: %v", err)
	}
	n := 0
	for _, r := range received(logPath) {
		if r == "control_request/get_task_output" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("claude was asked %d times", n)
	}
	// Another refusal is claude's own words, and learns nothing.
	_, err = p.Control(ctx, "mcp_reconnect", map[string]any{"serverName": "x"})
	var ce *ControlError
	if !errors.As(err, &ce) || errors.As(err, &ue) || ce.Message != "Server not found: x" || !p.Supports("mcp_reconnect") {
		t.Fatalf("mcp_reconnect: %v", err)
	}
}
