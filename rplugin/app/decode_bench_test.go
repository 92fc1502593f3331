package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/claudetest"
)

// bigWriteLine is a can_use_tool line of a Write of about size bytes to
// path, as claude prints it.
func bigWriteLine(tb testing.TB, id, path string, size int) []byte {
	tb.Helper()
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "line %d of a big file, with \"quotes\" and a tab\there\n", i)
	}
	line, err := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": map[string]any{
		"subtype": "can_use_tool", "tool_name": "Write", "tool_use_id": "toolu_" + id,
		"input": map[string]any{"file_path": path, "content": sb.String()},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return line
}

// BenchmarkParseLineWrite10MB is the control: one ParseLine of a 10 MB
// Write's can_use_tool line.
func BenchmarkParseLineWrite10MB(b *testing.B) {
	line := bigWriteLine(b, "r1", "/tmp/big.txt", 10<<20)
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := claude.ParseLine(line); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRouterWrite10MB is the same line through a session's router:
// parsed, decoded, reconstructed, staged, labelled and registered (the
// request is pending, its surface presented). It is withdrawn between
// rounds, off the clock.
func BenchmarkRouterWrite10MB(b *testing.B) {
	dir := b.TempDir()
	rec := newRecorder()
	a := New(rec, nil)
	conns := make(chan *claudetest.Conn, 1)
	a.start = func(claude.Config, *slog.Logger) (claude.Conn, error) {
		c := claudetest.New()
		conns <- c
		return c, nil
	}
	if err := a.Configure(Options{Storage: filepath.Join(dir, "storage")}); err != nil {
		b.Fatal(err)
	}
	defer a.Shutdown()
	if _, err := a.NewSession(NewParams{Cwd: dir}); err != nil {
		b.Fatal(err)
	}
	c := <-conns
	lines := make([][]byte, b.N)
	for i := range lines {
		lines[i] = bigWriteLine(b, fmt.Sprintf("r%d", i), filepath.Join(dir, "big.txt"), 10<<20)
	}
	wait := func(n int) {
		deadline := time.Now().Add(time.Minute)
		for a.reg.Count(0) != n {
			if time.Now().After(deadline) {
				b.Fatalf("%d pending, want %d", a.reg.Count(0), n)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	b.SetBytes(int64(len(lines[0])))
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		start := cpuTime()
		m, err := claude.ParseLine(lines[i])
		if err != nil {
			b.Fatal(err)
		}
		c.PushMessage(m)
		wait(1)
		cpu += cpuTime() - start
		b.StopTimer()
		c.PushJSON(map[string]any{"type": "control_cancel_request", "request_id": fmt.Sprintf("r%d", i)})
		wait(0)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
