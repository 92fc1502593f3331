package e2e

import (
	"strings"
	"testing"
	"time"
)

// drawn returns the tab line and the status line of every window as
// Neovim draws them.
func (e *Env) drawn() (tabline string, status map[string]string) {
	e.t.Helper()
	var out struct {
		Tabline string            `msgpack:"tabline"`
		Status  map[string]string `msgpack:"status"`
	}
	e.Lua(&out, `local st = {}
		for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
			if vim.api.nvim_win_get_config(w).relative == "" then
				local s = vim.api.nvim_eval_statusline(vim.wo[w].statusline ~= "" and vim.wo[w].statusline or vim.o.statusline, { winid = w }).str
				st[vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))] = s
			end
		end
		return { tabline = vim.api.nvim_eval_statusline(vim.o.tabline, { use_tabline = true, maxwidth = vim.o.columns }).str, status = st }`)
	return out.Tabline, out.Status
}

// A claude-nova window is named as a person reads it, in the tab line and
// its status line: never a storage path or a claudenova:// name. A tab line
// of the user's own is left alone.
func TestWindowsAreNamedForPeople(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("greet.py", "print('hello')\n")
		e.newSession(Seq(Step("Read", map[string]any{"file_path": path}),
			Step("Edit", map[string]any{"file_path": path, "old_string": "hello", "new_string": "hi"})))
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		tabline, status := e.drawn()
		if !strings.Contains(tabline, "Proposal · greet.py") || strings.Contains(tabline, e.Storage) || strings.Contains(tabline, "/") {
			t.Errorf("tab line %q: want the proposal named, no path", tabline)
		}
		var sawProposal, sawOriginal bool
		for name, s := range status {
			switch {
			case strings.HasPrefix(strings.TrimSpace(s), "Proposal · greet.py"):
				sawProposal = true
			case strings.HasPrefix(strings.TrimSpace(s), "Original · greet.py"):
				sawOriginal = true
			default:
				t.Errorf("window of %s: status line %q", name, s)
			}
		}
		if !sawProposal || !sawOriginal {
			t.Errorf("status lines %v: want the proposal's and the original's named", status)
		}

		// The transcript, in the first tab, and the sidebar, opened from
		// an autocommand of the user's (in which no BufWinEnter fires, as
		// make demo's VimEnter).
		e.Cmd("tabfirst")
		e.Lua(nil, `vim.api.nvim_create_autocmd('User', { pattern = 'LabelsTest', once = true, callback = function()
				vim.cmd('ClaudeNova transcript'); vim.cmd('ClaudeNova')
			end })
			vim.api.nvim_exec_autocmds('User', { pattern = 'LabelsTest' })`)
		tabline, status = e.drawn()
		if !strings.Contains(tabline, "Proposal · greet.py") || strings.Contains(tabline, "claudenova:") || strings.Contains(tabline, "c//") {
			t.Errorf("tab line %q: want named tabs", tabline)
		}
		want := map[string]string{}
		for name, s := range status {
			switch {
			case strings.HasPrefix(name, "claudenova://session/"):
				want["transcript"] = s
			case name == "claudenova://sidebar":
				want["sidebar"] = s
			}
		}
		if !strings.HasPrefix(strings.TrimSpace(want["transcript"]), "Transcript · ") {
			t.Errorf("transcript status line %q (all: %v)", want["transcript"], status)
		}
		if !strings.HasPrefix(strings.TrimSpace(want["sidebar"]), "Claude Nova") {
			t.Errorf("sidebar status line %q (all: %v)", want["sidebar"], status)
		}
		// A session's new name shows at once (the label is read when drawn).
		e.Cmd("ClaudeNova rename greeting fix")
		e.Eventually(10*time.Second, "the new name in the transcript's status line", func() bool {
			_, status = e.drawn()
			for name, s := range status {
				if strings.HasPrefix(name, "claudenova://session/") {
					return strings.HasPrefix(strings.TrimSpace(s), "Transcript · 1 · greeting fix")
				}
			}
			return false
		})

		// The user's own tab line is theirs.
		e.Lua(nil, "vim.o.tabline = 'MINE'")
		e.Cmd("tabnext")
		e.Lua(nil, "require('claudenova.setup.labels').set(vim.api.nvim_get_current_buf(), 'x')")
		var tl string
		e.Lua(&tl, "return vim.o.tabline")
		if tl != "MINE" {
			t.Errorf("tabline %q: the user's was replaced", tl)
		}
	})
}
