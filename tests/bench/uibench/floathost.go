package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// floatShown opens the float the control shows and says when it was shown,
// by Neovim's clock (as visibleHook does for the panel).
const floatShown = `
local lines = ...
local buf = vim.api.nvim_create_buf(false, true)
vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
local win = vim.api.nvim_open_win(buf, false, { relative = 'editor', row = 2, col = 2, width = 60, height = #lines, style = 'minimal', border = 'rounded' })
local s, us = vim.uv.gettimeofday()
return { win, s, us }
`

// floatHost is the Bash panel's control: the cheapest host there can be. It
// runs the same fake claude with the same requests over the same kind of
// pipes, and for each can_use_tool line opens a float with the panel's text
// through one RPC call to the same Neovim, then denies it. What it measures
// is what the panel's figure holds too (claude writes → a process reads
// the line → one call to Neovim → shown) without any of the plugin's work,
// so the difference between the two is the plugin's own.
func (in *instance) floatHost(fake string, text []string, n int) ([]time.Duration, error) {
	if len(text) == 0 {
		return nil, errors.New("the panel's text was not read")
	}
	dir := filepath.Join(in.dir, "floathost")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	script, log := filepath.Join(dir, "script.jsonl"), filepath.Join(dir, "fake.log")
	steps := []string{`{"start":"immediate"}`}
	for i := 0; i < n; i++ {
		steps = append(steps, fmt.Sprintf(`{"ask":{"tool_name":"Bash","request_id":"float-%04d","input":{"command":"make test-%d","description":"run it"}}}`, i, i))
	}
	if err := os.WriteFile(script, []byte(strings.Join(steps, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(fake, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	cmd.Dir = in.project
	cmd.Env = append(os.Environ(), "FAKECLAUDE_SCRIPT="+script, "FAKECLAUDE_LOG="+log)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the control's claude: %w", err)
	}
	defer func() {
		_ = stdin.Close() // stdin EOF ends it; the kill is for one that hangs
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	shown := map[string]time.Time{}
	rd := bufio.NewReaderSize(stdout, 1<<16)
	for len(shown) < n {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("the control's claude ended after %d of %d requests", len(shown), n)
			}
			return nil, err
		}
		var ev struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Request   struct {
				Subtype string `json:"subtype"`
			} `json:"request"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Type != "control_request" || ev.Request.Subtype != "can_use_tool" {
			continue
		}
		var r []int64
		if err := in.v.ExecLua(floatShown, &r, text); err != nil {
			return nil, err
		}
		if len(r) != 3 {
			return nil, fmt.Errorf("the control's float: %v", r)
		}
		shown[ev.RequestID] = time.Unix(r[1], r[2]*1000)
		if err := in.v.ExecLua("vim.api.nvim_win_close(..., true)", nil, r[0]); err != nil {
			return nil, err
		}
		answer, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "success", "request_id": ev.RequestID, "response": map[string]any{"behavior": "deny", "message": "no"}}})
		if _, err := stdin.Write(append(answer, '\n')); err != nil {
			return nil, fmt.Errorf("answering the control's claude: %w", err)
		}
	}
	sent, err := sentTimes(log)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, n)
	for id, at := range shown {
		st, ok := sent[id]
		if !ok {
			return nil, fmt.Errorf("the control's claude did not log %s as sent", id)
		}
		out = append(out, at.Sub(st))
	}
	return out, nil
}
