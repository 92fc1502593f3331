package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

// claudeChecks measures how long the real claude CLI (CLAUDE_BIN) takes
// between naming an Edit of a file of lines lines (its assistant message)
// and asking for it (can_use_tool), against our model server: n Edits, each
// denied after the bench's request pause. claude checks the call meanwhile
// (it reads the file and finds old_string); the host makes the proposal
// then (package rooms/ahead). The proposals' rows make the fake claude
// pause the least of these before each ask, so that the host is given the
// time the real CLI gives it, never more. 0 when CLAUDE_BIN is not set.
func claudeChecks(lines, n int) (time.Duration, error) {
	var sb strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&sb, "line %d of the benchmark file, some text to make it realistic\n", i)
	}
	return realChecks("Edit", func(project string) ([]any, error) {
		path := filepath.Join(project, "big.txt")
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			return nil, err
		}
		steps := []any{[]any{"Read", map[string]any{"file_path": path}}}
		for i := 0; i < n; i++ {
			k := (i * 7919) % lines
			steps = append(steps, []any{"Edit", map[string]any{"file_path": path,
				"old_string": fmt.Sprintf("line %d of the", k), "new_string": fmt.Sprintf("LINE %d of the", k)}})
		}
		return steps, nil
	})
}

// claudeBashChecks is claudeChecks for the Bash panel's row: n Bash calls
// of the row's commands.
func claudeBashChecks(n int) (time.Duration, error) {
	return realChecks("Bash", func(string) ([]any, error) {
		var steps []any
		for i := 0; i < n; i++ {
			steps = append(steps, []any{"Bash", map[string]any{"command": fmt.Sprintf("make test-%d", i), "description": "run it"}})
		}
		return steps, nil
	})
}

// realChecks runs the real claude on the steps made for its project folder
// and returns the least time between naming a call of tool and asking for
// it. 0 when CLAUDE_BIN is not set.
func realChecks(tool string, makeSteps func(project string) ([]any, error)) (time.Duration, error) {
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		return 0, nil
	}
	model := fakemodel.New(fakemodel.Options{})
	if _, err := model.Start(context.Background()); err != nil {
		return 0, fmt.Errorf("model server: %w", err)
	}
	defer model.Close()
	dir, err := os.MkdirTemp("", "uibench-checks-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	for _, d := range []string{home, project} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return 0, err
		}
	}
	steps, err := makeSteps(project)
	if err != nil {
		return 0, err
	}
	seq, _ := json.Marshal(steps)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-prompt-tool", "stdio")
	cmd.Dir = project
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // ended with what it started
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + model.URL(),
		"ANTHROPIC_API_KEY=bench", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	send := func(v any) error {
		b, _ := json.Marshal(v)
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	if err := send(map[string]any{"type": "control_request", "request_id": "init-1", "request": map[string]any{"subtype": "initialize"}}); err != nil {
		return 0, err
	}
	if err := send(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "SEQ " + string(seq)},
		"parent_tool_use_id": nil, "session_id": ""}); err != nil {
		return 0, err
	}
	named := map[string]time.Time{}
	var gaps []time.Duration
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		at := time.Now()
		var m struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Message   struct {
				Content []struct {
					Type, ID, Name string
				} `json:"content"`
			} `json:"message"`
			Request struct {
				Subtype   string `json:"subtype"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"request"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Type == "assistant":
			for _, c := range m.Message.Content {
				if c.Type == "tool_use" && c.Name == tool {
					named[c.ID] = at
				}
			}
		case m.Type == "control_request" && m.Request.Subtype == "can_use_tool":
			if t, ok := named[m.Request.ToolUseID]; ok {
				gaps = append(gaps, at.Sub(t))
			}
			time.Sleep(requestPause)
			if err := send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success",
				"request_id": m.RequestID, "response": map[string]any{"behavior": "deny", "message": "bench"}}}); err != nil {
				return 0, err
			}
		case m.Type == "result":
			if len(gaps) == 0 {
				return 0, fmt.Errorf("claude named no %s it then asked for", tool)
			}
			return slices.Min(gaps), nil
		}
	}
	return 0, fmt.Errorf("claude ended before its result: %v", sc.Err())
}
