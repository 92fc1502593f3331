package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// A reply shows while it is written; the finished message replaces its
// draft in place, once.
func TestStreamedReplyShowsLive(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		id := e.newSession("STREAMD 40 50")
		e.Eventually(30*time.Second, "partial text", func() bool {
			tr := e.Transcript(id)
			return strings.Contains(tr, "chunk 000003") && !strings.Contains(tr, "chunk 000039")
		})
		e.WaitIdle(id)
		tr := e.Transcript(id)
		for i := 0; i < 40; i++ {
			if n := strings.Count(tr, fmt.Sprintf("chunk %06d ", i)); n != 1 {
				t.Fatalf("chunk %d shows %d times:\n%s", i, n, tr)
			}
		}
		// The buffer is exactly the host's transcript (the draft was replaced
		// in place, nothing left over).
		var same bool
		e.Lua(&same, `local want = require('claudenova.channel.host').request('transcript', { session = ... }).lines
			return vim.deep_equal(want, vim.api.nvim_buf_get_lines(require('claudenova.surfaces.transcript').bufs[...], 0, -1, false))`, id)
		if !same {
			t.Fatalf("buffer differs from the host's transcript:\n%s", tr)
		}
		// Highlighted without a parser: extmarks on the heading.
		var marks int
		e.Lua(&marks, `local b = require('claudenova.surfaces.transcript').bufs[...]
			return #vim.api.nvim_buf_get_extmarks(b, vim.api.nvim_get_namespaces().claudenova_transcript, 0, -1, {})`, id)
		if marks == 0 {
			t.Fatal("no highlights")
		}
	})
}

// One line per tool call, details folded beneath (shown when it failed);
// <CR> opens and closes them; a long result is cut and gf opens it whole.
func TestToolLinesFoldAndLongResults(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		var b strings.Builder
		for i := 0; i < 5000; i++ {
			fmt.Fprintf(&b, "line %d of a long file\n", i+1)
		}
		path := e.WriteFile("long.txt", b.String())
		e.WriteFile(".claude/settings.local.json", `{"permissions":{"allow":["Bash(echo:*)"]}}`)
		id := e.newSession(Seq(Step("Read", map[string]any{"file_path": path}),
			bash("echo from bash", "say it"),
			Step("Read", map[string]any{"file_path": e.Project + "/missing.txt"})))
		e.WaitIdle(id)
		tr := e.Transcript(id)
		for _, w := range []string{"▸ Read long.txt ✓", "▸ Bash `echo from bash` · unasked: rule Bash(echo:*) (.claude/settings.local.json) ✓", "  │ $ echo from bash", "  │ from bash", "▸ Read missing.txt ✗", "  ┃ File does not exist", "more lines (gf opens the whole result)"} {
			if !strings.Contains(tr, w) {
				t.Fatalf("transcript lacks %q:\n%s", w, tr)
			}
		}
		if strings.Count(tr, "line 30 of a long file") != 0 || strings.Count(tr, "\n") > 200 {
			t.Fatalf("the long result entered the buffer whole (%d lines)", strings.Count(tr, "\n"))
		}
		e.Cmd("ClaudeNova transcript")
		lineOf := func(prefix string) int {
			var n int
			e.Lua(&n, `for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
				if vim.startswith(l, ...) then return i end end return 0`, prefix)
			return n
		}
		bashLine := lineOf("▸ Bash")
		closed := func(lnum int) bool {
			var c int
			e.Lua(&c, "return vim.fn.foldclosed(...)", lnum)
			return c != -1
		}
		if !closed(bashLine + 1) {
			t.Fatal("the Bash details are not folded")
		}
		if closed(lineOf("  ┃ File does not exist")) {
			t.Fatal("the failure is folded")
		}
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, { ..., 0 })", bashLine)
		e.Input("<CR>")
		e.Eventually(5*time.Second, "details open", func() bool { return !closed(bashLine + 1) })
		e.Input("<CR>")
		e.Eventually(5*time.Second, "details closed", func() bool { return closed(bashLine + 1) })
		// gf on the cut result opens it whole.
		more := lineOf("  │ … ")
		e.Lua(nil, "vim.cmd('normal! zR'); vim.api.nvim_win_set_cursor(0, { ..., 0 })", more)
		e.Input("gf")
		e.Eventually(5*time.Second, "whole result", func() bool {
			var n int
			e.Lua(&n, "return vim.api.nvim_buf_line_count(0)")
			return n > 1000 && strings.HasSuffix(e.curBufName(), ".txt")
		})
	})
}

// highlighting says how a markdown transcript is highlighted: its filetype,
// the host's marks, its 'syntax' and whether Neovim's tree-sitter
// highlighter runs on it.
func (e *Env) highlighting(id int) (ft string, marks int, syntax string, ts bool) {
	e.t.Helper()
	var out struct {
		Ft     string `msgpack:"ft"`
		Marks  int    `msgpack:"marks"`
		Syntax string `msgpack:"syntax"`
		TS     bool   `msgpack:"ts"`
	}
	e.Lua(&out, `local b = require('claudenova.surfaces.transcript').bufs[...]
		local hl = package.loaded['vim.treesitter.highlighter']
		return { ft = vim.bo[b].filetype, syntax = vim.bo[b].syntax, ts = (hl and hl.active[b]) ~= nil,
			marks = #vim.api.nvim_buf_get_extmarks(b, vim.api.nvim_get_namespaces().claudenova_transcript, 0, -1, {}) }`, id)
	return out.Ft, out.Marks, out.Syntax, out.TS
}

func TestTranscriptAsMarkdown(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		// transcript.highlight = "filetype": Neovim's own markdown
		// highlighting (tree-sitter on 0.12, regex syntax on 0.10), not ours.
		t.Run("highlight=filetype", func(t *testing.T) {
			e := NewEnv(t, v, Options{Setup: map[string]any{"transcript": map[string]any{"filetype": "markdown", "highlight": "filetype"}}})
			id := e.newSession("hello")
			e.WaitIdle(id)
			if ft, marks, syntax, ts := e.highlighting(id); ft != "markdown" || marks != 0 || (ts == (syntax == "markdown")) {
				t.Fatalf("filetype %q, %d marks, syntax %q, tree-sitter %v", ft, marks, syntax, ts)
			}
		})
		// The default: the filetype for render-markdown.nvim and
		// markview.nvim, our highlights, Neovim's own markdown highlighting off.
		e := NewEnv(t, v, Options{Setup: map[string]any{"transcript": map[string]any{"filetype": "markdown"}}})
		id := e.newSession("hello")
		e.WaitIdle(id)
		if ft, marks, syntax, ts := e.highlighting(id); ft != "markdown" || marks == 0 || syntax != "" || ts || !strings.Contains(e.Transcript(id), "You said: hello") {
			t.Fatalf("filetype %q, %d marks, syntax %q, tree-sitter %v", ft, marks, syntax, ts)
		}
		// A session started in the background: its transcript gets the
		// filetype (and markdown's ftplugin, tree-sitter on 0.12) when it
		// is first shown, not while nobody reads it.
		var id2 int
		e.Lua(&id2, "return require('claudenova').new({ prompt = 'hello again' }).id")
		e.WaitIdle(id2)
		ftOf := func() string {
			var ft string
			e.Lua(&ft, "return vim.bo[require('claudenova.surfaces.transcript').bufs[...]].filetype", id2)
			return ft
		}
		if got := ftOf(); got != "" {
			t.Fatalf("a transcript nobody has seen has filetype %q", got)
		}
		// What render-markdown.nvim and markview.nvim do: attach on FileType.
		e.Lua(nil, `vim.api.nvim_create_autocmd("FileType", { pattern = "markdown", callback = function(ev) vim.b[ev.buf].attached = true end })`)
		e.Lua(nil, "require('claudenova.surfaces.transcript').open(..., { focus = true })", id2)
		if got := ftOf(); got != "markdown" {
			t.Fatalf("shown, its filetype is %q", got)
		}
		// The user's FileType autocommands ran; markdown's regex syntax file
		// (which sources html's, css's, …) was never loaded, not even by
		// tree-sitter's stop, which sets the regex syntax back on 0.12; the
		// Syntax event is heeded again.
		var seen struct {
			Attached  bool   `msgpack:"attached"`
			Syntax    int    `msgpack:"syntax"`
			Ignore    string `msgpack:"ignore"`
			Highlight string `msgpack:"highlight"`
		}
		e.Lua(&seen, `local buf = require('claudenova.surfaces.transcript').bufs[...]
			return { attached = vim.b[buf].attached == true, syntax = vim.fn.hlexists("markdownH1"), ignore = vim.o.eventignore, highlight = vim.bo[buf].syntax }`, id2)
		if !seen.Attached || seen.Syntax != 0 || seen.Ignore != "" || seen.Highlight != "" {
			t.Fatalf("first shown: %+v (want the FileType autocommand run, no markdown syntax loaded, eventignore as it was)", seen)
		}
		var winbar, fold string
		e.Lua(&winbar, "return vim.wo.winbar")
		e.Lua(&fold, "return vim.wo.foldmethod")
		if !strings.Contains(winbar, "transcript") || fold != "expr" {
			t.Fatalf("the transcript window's look after its filetype: winbar %q, foldmethod %q", winbar, fold)
		}
	})
}

var _ = os.Getenv

// A transcript window whose cursor is on its last line follows the reply as
// it streams, from the first fill on, the current window included; a window
// the user scrolled up stays where it is.
func TestTranscriptFollowsOutput(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		id := e.newSession("STREAMD 30 20")
		e.WaitIdle(id)
		atEnd := func() bool {
			var ok bool
			e.Lua(&ok, `local buf = require('claudenova.surfaces.transcript').bufs[...]
				local w = vim.fn.bufwinid(buf)
				return w ~= -1 and vim.api.nvim_win_get_cursor(w)[1] == vim.api.nvim_buf_line_count(buf)`, id)
			return ok
		}
		e.Eventually(10*time.Second, "the new session's transcript window at its end", atEnd)
		// The current window: the user sent the next prompt from the transcript.
		e.Lua(nil, `vim.api.nvim_set_current_win(vim.fn.bufwinid(require('claudenova.surfaces.transcript').bufs[...]))`, id)
		e.Cmd("ClaudeNova send STREAMD 30 20")
		e.WaitIdle(id)
		e.Eventually(10*time.Second, "the current transcript window at its end", atEnd)
		// Scrolled up: it stays.
		e.Cmd("normal! gg")
		e.Cmd("ClaudeNova send STREAMD 10 10")
		e.WaitIdle(id)
		var line int
		e.Lua(&line, `return vim.fn.line('.')`)
		if line != 1 {
			t.Fatalf("a window the user scrolled up moved to line %d", line)
		}
	})
}
