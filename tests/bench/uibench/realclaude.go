package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

// realPressure is back-pressure with the real claude CLI (CLAUDE_BIN)
// against our model server: sessions each stream a reply of lines lines
// (one text delta per line, as the CLI forwards them with partial
// messages) while Neovim's main loop is blocked in input() for blocked.
// It returns the host's peak RSS (VmHWM) over the whole run and whether
// every transcript is whole afterwards (its buffer holds the host's lines
// and the reply's last line).
func (b *bench) realPressure(sessions, lines int, blocked time.Duration) (int64, bool, error) {
	claudeBin := os.Getenv("CLAUDE_BIN")
	if claudeBin == "" {
		return 0, false, fmt.Errorf("CLAUDE_BIN is not set (source the test bed's env)")
	}
	model := fakemodel.New(fakemodel.Options{})
	if _, err := model.Start(context.Background()); err != nil {
		return 0, false, fmt.Errorf("model server: %w", err)
	}
	defer model.Close()
	home, err := os.MkdirTemp("", "uibench-home-")
	if err != nil {
		return 0, false, err
	}
	defer os.RemoveAll(home)
	in, err := b.start(map[string]any{"cmd": claudeBin, "env": map[string]string{
		"HOME": home, "ANTHROPIC_BASE_URL": model.URL(), "ANTHROPIC_API_KEY": "bench",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
	}}, nil)
	if err != nil {
		return 0, false, err
	}
	defer in.close()
	ids := make([]int, sessions)
	for i := range ids {
		if err := in.v.ExecLua("return require('claudenova').new({}).id", &ids[i]); err != nil {
			return 0, false, err
		}
	}
	var hostPid int
	_ = in.v.ExecLua("return vim.fn.jobpid(require('claudenova.channel.host').channel)", &hostPid)
	for _, id := range ids {
		if err := in.v.ExecLua("require('claudenova').send(...)", nil, fmt.Sprintf("STREAM %d", lines), id); err != nil {
			return 0, false, err
		}
	}
	// The replies are under way before the editor blocks.
	if err := waitFor(60*time.Second, func() bool {
		var running bool
		_ = in.v.ExecLua(`for _, s in pairs(require('claudenova.store.state').sessions) do
				if s.state ~= 'running' then return false end end return true`, &running)
		return running
	}); err != nil {
		return 0, false, fmt.Errorf("sessions did not run: %w", err)
	}
	var peak int64
	// The user answers a prompt: Neovim serves no RPC meanwhile.
	done := make(chan error, 1)
	go func() { done <- in.v.ExecLua("return vim.fn.input('blocked> ')", nil) }()
	end := time.Now().Add(blocked)
	for time.Now().Before(end) {
		peak = max(peak, vmHWM(hostPid))
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := in.v.Input("<CR>"); err != nil {
		return 0, false, err
	}
	<-done
	whole := false
	last := strings.TrimSuffix(streamChunkText(lines-1), "\n")
	var why string // the last reason the transcripts were not whole, printed when they stay so
	err = waitFor(300*time.Second, func() bool {
		peak = max(peak, vmHWM(hostPid))
		if e := in.v.ExecLua(`local st, tr = require('claudenova.store.state'), require('claudenova.surfaces.transcript')
			local last = ...
			for id, s in pairs(st.sessions) do
				if s.state ~= 'idle' then return ("session %d is %s"):format(id, s.state) end
				if tr.syncing[id] then return ("session %d's transcript is syncing"):format(id) end
				local buf = tr.bufs[id]
				if not buf then return ("session %d has no transcript buffer"):format(id) end
				local snap = require('claudenova.channel.host').request('transcript', { session = id })
				if vim.api.nvim_buf_line_count(buf) ~= snap.first + #snap.lines then
					return ("session %d: %d lines shown, the host has %d"):format(id, vim.api.nvim_buf_line_count(buf), snap.first + #snap.lines)
				end
				local found = false
				for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, -40, -1, false)) do
					if l == last then found = true end
				end
				if not found then return ("session %d lacks the reply's last line"):format(id) end
			end
			return ""`, &why, last); e != nil {
			why = e.Error()
		}
		return why == ""
	})
	if err != nil {
		fmt.Printf("  transcripts not whole: %s\n", why)
	}
	whole = err == nil
	return max(peak, vmHWM(hostPid)), whole, nil
}

// streamChunkText is line i of a STREAM reply (tests/fakemodel).
func streamChunkText(i int) string {
	s := fmt.Sprintf("chunk %06d the quick brown fox jumps", i)
	if len(s) > 39 {
		s = s[:39]
	}
	return s + strings.Repeat(".", 39-len(s)) + "\n"
}

func waitFor(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("timed out after %s", d)
}
