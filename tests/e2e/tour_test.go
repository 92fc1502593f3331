package e2e

import (
	"strings"
	"testing"
	"time"
)

// What make demo's tour showed as confusing, each as a person meets it:
// the panel names the path a command touches without calling it blocked,
// Claude's reason comes first in the panel, the plugin's own message to
// Claude is not headed as the user's note, a long sidebar row ends in "…"
// with its age kept, the tab line names the window under a g? float, the
// rules view's keys say what dd takes back, and a proposal's two sides keep
// a sign column each and share the screen again after a resize.
func TestTourFrictions(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "vim.o.columns = 60; vim.o.lines = 30")
		e.Cmd("ClaudeNova")
		e.Cmd("wincmd p")
		long := "touch a-file-with-a-rather-long-name-that-does-not-fit-the-sidebar.txt"
		id := e.newSession(`SEQ [["Bash", {"command": "` + long + `", "description": "make it"}, "I make the file you asked for."]]`)
		e.waitPanel()
		panel := e.panelText()
		mustContain(t, "the panel", panel, "Claude: I make the file you asked for.", "Path it touches: a-file-with-a-rather-long-name")
		if strings.Contains(panel, "Blocked path") {
			t.Fatalf("the panel calls the path blocked:\n%s", panel)
		}
		var row string
		e.Eventually(5*time.Second, "the row", func() bool {
			for _, l := range e.sidebarLines() {
				if strings.HasPrefix(l, "    Bash") {
					row = l
					return true
				}
			}
			return false
		})
		var sbw int
		e.Lua(&sbw, "return vim.api.nvim_win_get_width(vim.fn.win_findbuf(require('claudenova.surfaces.sidebar').buf)[1])")
		var cells int
		e.Lua(&cells, "return vim.fn.strdisplaywidth(...)", row)
		if !strings.Contains(row, "…") || cells > sbw || !strings.HasSuffix(strings.TrimSpace(row), "s") {
			t.Fatalf("sidebar row %q (%d cells, sidebar %d): not cut with … or lost its age", row, cells, sbw)
		}
		e.ScriptUI(nil, []string{""})
		e.Input("d")
		e.WaitIdle(id)

		// A key list over a window: the tab line names the window.
		e.Lua(nil, "require('claudenova').rename('frictions', ...)", id)
		e.Eventually(5*time.Second, "renamed", func() bool {
			var l string
			e.Lua(&l, "return require('claudenova.store.state').label(...)", id)
			return strings.Contains(l, "frictions")
		})
		e.Cmd("tabnew")
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", id)
		e.Input("g?")
		e.Eventually(5*time.Second, "the key list", func() bool {
			var s string
			e.Lua(&s, "return vim.b.claudenova_surface or ''")
			return s == "help"
		})
		var tl string
		e.Lua(&tl, "return require('claudenova.setup.labels').tabline()")
		if strings.Contains(tl, "[Scratch]") || !strings.Contains(tl, "frictions") {
			t.Fatalf("tab line %q", tl)
		}
		e.Input("q")
		e.Cmd("tabclose")

		// The rules view's g? says what dd takes back.
		var keys []string
		e.Lua(&keys, `local out = {}
			for _, k in ipairs(require('claudenova.services.keys').list('rules')) do table.insert(out, k[2]) end
			return out`)
		mustContain(t, "rules keys", strings.Join(keys, "\n"), "a session rule ends at once")
	})
}

// A proposal amended by the user: the transcript heads the plugin's message
// to Claude as what it told Claude (not as the user's own note); both sides
// of the diff keep a sign column; after the screen grows, the two sides
// share it again.
func TestProposalLayoutAndWords(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("a.txt", "one\ntwo\nthree\n")
		id := e.newSession(Seq(Step("Read", map[string]any{"file_path": "{{cwd}}/a.txt"}),
			Step("Edit", map[string]any{"file_path": "{{cwd}}/a.txt", "old_string": "two", "new_string": "TWO"})))
		p, buf := e.WaitProposal()
		var sides []string
		e.Lua(&sides, `local out = {}
			for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				if vim.wo[w].diff then table.insert(out, vim.wo[w].signcolumn .. ':' .. vim.api.nvim_win_get_width(w)) end
			end
			return out`)
		if len(sides) != 2 || !strings.HasPrefix(sides[0], "yes") || !strings.HasPrefix(sides[1], "yes") {
			t.Fatalf("the diff's sides: %v", sides)
		}
		e.Lua(nil, "vim.o.columns = vim.o.columns + 40")
		e.Eventually(5*time.Second, "the sides refitted", func() bool {
			var ws []int
			e.Lua(&ws, `local out = {}
				for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
					if vim.wo[w].diff then table.insert(out, vim.api.nvim_win_get_width(w)) end
				end
				return out`)
			return len(ws) == 2 && ws[0]-ws[1] <= 1 && ws[1]-ws[0] <= 1
		})
		_ = p
		e.SetLineAndWrite(buf, 3, "three, amended")
		e.WaitIdle(id)
		e.Eventually(10*time.Second, "the message to Claude", func() bool { return strings.Contains(e.Transcript(id), "**Told Claude:**") })
		if strings.Contains(e.Transcript(id), "Your note to Claude") {
			t.Fatalf("the plugin's message is headed as the user's note:\n%s", e.Transcript(id))
		}
	})
}
