// Package testkit holds what several test packages need from the fake
// claude: building it once, and reading the answers it logged.
package testkit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildFakeClaude builds tests/cmd/fakeclaude into dir and returns its path.
func BuildFakeClaude(dir string) (string, error) {
	out := filepath.Join(dir, "fakeclaude")
	cmd := exec.Command("go", "build", "-o", out, "github.com/claude-nova/claude-nova.nvim/tests/cmd/fakeclaude")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build fakeclaude: %w\n%s", err, b)
	}
	return out, nil
}

// BuildFakeMCP builds tests/cmd/fakemcp (a stdio MCP server) into dir and
// returns its path.
func BuildFakeMCP(dir string) (string, error) {
	out := filepath.Join(dir, "fakemcp")
	cmd := exec.Command("go", "build", "-o", out, "github.com/claude-nova/claude-nova.nvim/tests/cmd/fakemcp")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build fakemcp: %w\n%s", err, b)
	}
	return out, nil
}

// MainWithFakeClaude is a TestMain body: it builds the fake claude into a
// temporary folder, stores its path in *path, runs the tests, cleans up and
// exits with their status.
func MainWithFakeClaude(m *testing.M, path *string, after ...func()) {
	MainWithFakes(m, path, nil, after...)
}

// MainWithFakes is MainWithFakeClaude that also builds the fake MCP server
// (when mcp is not nil) into the same folder; after runs once the tests ran.
func MainWithFakes(m *testing.M, path, mcp *string, after ...func()) {
	dir, err := os.MkdirTemp("", "fakeclaude-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *path, err = BuildFakeClaude(dir); err == nil && mcp != nil {
		*mcp, err = BuildFakeMCP(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	for _, f := range after {
		f()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// Answer is one control_response the fake claude received for a
// can_use_tool request.
type Answer struct {
	RequestID string
	Behavior  string
	Response  map[string]any // the PermissionResult
}

// FakeAnswers reads the fake claude's log (FAKECLAUDE_LOG): every answer to a
// permission request, in the order received.
func FakeAnswers(logPath string) []Answer {
	f, err := os.Open(logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Answer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			T    string `json:"t"`
			Type string `json:"type"`
			Line string `json:"line"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.T != "recv" || ev.Type != "control_response" {
			continue
		}
		var cr struct {
			Response struct {
				RequestID string         `json:"request_id"`
				Response  map[string]any `json:"response"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(ev.Line), &cr) != nil || !strings.Contains(ev.Line, `"behavior"`) {
			continue
		}
		b, _ := cr.Response.Response["behavior"].(string)
		out = append(out, Answer{RequestID: cr.Response.RequestID, Behavior: b, Response: cr.Response.Response})
	}
	return out
}

// AnswersFor returns the answers to one request id.
func AnswersFor(logPath, id string) []Answer {
	var out []Answer
	for _, a := range FakeAnswers(logPath) {
		if a.RequestID == id {
			out = append(out, a)
		}
	}
	return out
}

// ReadLog returns every entry of the fake claude's log (FAKECLAUDE_LOG), in
// order, as generic maps.
func ReadLog(logPath string) []map[string]any {
	f, err := os.Open(logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}
