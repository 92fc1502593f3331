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
return { win, s, us, buf }
`

// floatHost is the Bash panel's control: the cheapest host there can be. It
// runs the same fake claude with the same requests over the same kind of
// pipes, and for each can_use_tool line opens a float with the panel's text
// through one RPC call to the same Neovim, then denies it. What it measures
// is what the panel's figure holds too (claude writes → a process reads
// the line → one call to Neovim → shown) without any of the plugin's work,
// so the difference between the two is the plugin's own. Its requests are
// taken one at a time (step), in turn with the panel's: the fake claude
// writes request k once told to (a line with floatGo(k)), so that each
// sample is timed from its own writing, and both sides meet the same
// moment of the machine: each after claude's pause between two requests
// (requestPause), as the plugin's requests come. Without it the control's
// request came a millisecond after the panel's, into caches the panel had
// just warmed (its float took 28 µs back to back and 0.29 ms after a
// 30 ms pause), and the two sides were not timed alike.
type floatHost struct {
	in      *instance
	text    []string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	rd      *bufio.Reader
	log     string
	n, next int
	shown   map[string]time.Time
}

// floatGo is the line that lets the control's fake claude write request k.
func floatGo(k int) string { return fmt.Sprintf("float-go-%05d.", k) }

func (in *instance) startFloatHost(fake string, text []string, n int) (*floatHost, error) {
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
		steps = append(steps, fmt.Sprintf(`{"wait_stdin_line_matching":%q}`, floatGo(i)),
			fmt.Sprintf(`{"sleep_ms":%d}`, requestPause/time.Millisecond),
			fmt.Sprintf(`{"ask":{"tool_name":"Bash","request_id":"float-%04d","input":{"command":"make test-%d","description":"run it"}}}`, i, i))
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
	return &floatHost{in: in, text: text, cmd: cmd, stdin: stdin, rd: bufio.NewReaderSize(stdout, 1<<16), log: log, n: n,
		shown: map[string]time.Time{}}, nil
}

// step lets the control's claude write its next request, reads it, shows
// its float, closes it and denies the request.
func (f *floatHost) step() error {
	if f.next >= f.n {
		return fmt.Errorf("the control has %d requests only", f.n)
	}
	if _, err := io.WriteString(f.stdin, `{"type":"keep_alive","note":"`+floatGo(f.next)+`"}`+"\n"); err != nil {
		return fmt.Errorf("the control's claude: %w", err)
	}
	f.next++
	for {
		line, err := f.rd.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("the control's claude ended after %d of %d requests", len(f.shown), f.n)
			}
			return err
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
		if err := f.in.v.ExecLua(floatShown, &r, f.text); err != nil {
			return err
		}
		if len(r) != 4 {
			return fmt.Errorf("the control's float: %v", r)
		}
		f.shown[ev.RequestID] = time.Unix(r[1], r[2]*1000)
		// Its buffer goes with it: a thousand left behind made every
		// window Neovim opened slower, the panel's as well as this one's.
		if err := f.in.v.ExecLua("local win, buf = ...; vim.api.nvim_win_close(win, true); vim.api.nvim_buf_delete(buf, { force = true })", nil, r[0], r[3]); err != nil {
			return err
		}
		answer, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "success", "request_id": ev.RequestID, "response": map[string]any{"behavior": "deny", "message": "no"}}})
		if _, err := f.stdin.Write(append(answer, '\n')); err != nil {
			return fmt.Errorf("answering the control's claude: %w", err)
		}
		return nil
	}
}

// finish ends the control's claude and returns its samples: from its
// claude writing each request to the float shown.
func (f *floatHost) finish() ([]time.Duration, error) {
	_ = f.stdin.Close() // stdin EOF ends it; the kill is for one that hangs
	done := make(chan struct{})
	go func() { _ = f.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-f.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	sent, err := sentTimes(f.log)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, len(f.shown))
	for id, at := range f.shown {
		st, ok := sent[id]
		if !ok {
			return nil, fmt.Errorf("the control's claude did not log %s as sent", id)
		}
		out = append(out, at.Sub(st))
	}
	return out, nil
}
