package e2e

import (
	"sort"
	"strings"
	"testing"
	"time"
)

// commentLines lists the review comments shown in buf (0: the current
// buffer) as "line:text", line being the one they sit under.
func (e *Env) commentLines(buf int) []string {
	e.t.Helper()
	var out []string
	e.Lua(&out, `local buf = ...
		if buf == 0 then buf = vim.api.nvim_get_current_buf() end
		local ns = vim.api.nvim_get_namespaces().claudenova_comments
		local out = {}
		if not ns then return out end
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
			for _, l in ipairs(m[4].virt_lines or {}) do table.insert(out, (m[2] + 1) .. ":" .. vim.trim(l[1][1])) end
		end
		return out`, buf)
	return out
}

func (e *Env) waitComment(buf int, want string) {
	e.t.Helper()
	e.Eventually(10*time.Second, "comment "+want, func() bool {
		for _, l := range e.commentLines(buf) {
			if strings.Contains(l, want) {
				return true
			}
		}
		return false
	})
}

// blameKinds is buf's blame signs, one letter a line: c(laude), a(mended),
// y(ours), . (no sign).
func (e *Env) blameKinds(buf int) string {
	e.t.Helper()
	var rows []struct {
		Row int    `msgpack:"row"`
		HL  string `msgpack:"hl"`
	}
	e.Lua(&rows, `local buf = ...
		if buf == 0 then buf = vim.api.nvim_get_current_buf() end
		local ns = vim.api.nvim_get_namespaces().claudenova_blame
		local out = {}
		if not ns then return out end
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
			table.insert(out, { row = m[2], hl = m[4].sign_hl_group or "" })
		end
		return out`, buf)
	var n int
	e.Lua(&n, "local b = ...; if b == 0 then b = vim.api.nvim_get_current_buf() end; return vim.api.nvim_buf_line_count(b)", buf)
	kinds := []byte(strings.Repeat(".", n))
	sort.Slice(rows, func(i, j int) bool { return rows[i].Row < rows[j].Row })
	for _, r := range rows {
		k := byte('?')
		switch r.HL {
		case "ClaudeNovaBlameClaude":
			k = 'c'
		case "ClaudeNovaBlameAmended":
			k = 'a'
		case "ClaudeNovaBlameYours":
			k = 'y'
		}
		if r.Row < n {
			kinds[r.Row] = k
		}
	}
	return string(kinds)
}

func (e *Env) waitBlame(buf int, want string) {
	e.t.Helper()
	var got string
	e.Eventually(15*time.Second, "blame "+want, func() bool { got = e.blameKinds(buf); return got == want })
}

// floatText is the text of the floating window that opens (waited for).
func (e *Env) floatText() string {
	e.t.Helper()
	var float string
	e.Eventually(5*time.Second, "the float", func() bool {
		e.Lua(&float, `for _, w in ipairs(vim.api.nvim_list_wins()) do
			if vim.api.nvim_win_get_config(w).relative ~= "" then
				return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n") end end
			return ""`)
		return float != ""
	})
	return float
}

// filesList is the lines of the files view in the current window (waited
// for).
func (e *Env) filesList() []string {
	e.t.Helper()
	var l []string
	e.Eventually(10*time.Second, "the files view", func() bool {
		e.Lua(&l, `if vim.b.claudenova_surface ~= "files" then return {} end
			return vim.api.nvim_buf_get_lines(0, 0, -1, false)`)
		return len(l) > 0
	})
	return l
}

type roundFile struct {
	Rel   string `msgpack:"rel"`
	Hunks []any  `msgpack:"hunks"`
}

func (e *Env) round() (int, []roundFile) {
	e.t.Helper()
	var v struct {
		Round int         `msgpack:"round"`
		Files []roundFile `msgpack:"files"`
	}
	e.Lua(&v, "return require('claudenova.channel.host').request('review_round', { session = 0 })")
	return v.Round, v.Files
}

// The pull-request loop, as the issue asks: Claude changes two files over
// two turns (a proposal the user applies, then an edit in acceptEdits);
// the round shows both; a comment on a line of each shows inline (one in
// the changes view, one in the file's own buffer, which has an unsaved
// edit); one send gives the model one message with both paths, the lines,
// both comments and the code; Claude then changes a third file and the
// next round holds only that one.
func TestReviewRoundCommentsSend(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "vim.g.maplocalleader = ','")
		a := e.WriteFile("a.txt", "alpha one\nalpha two\nalpha three\n")
		b := e.WriteFile("b.txt", "beta one\nbeta two\nbeta three\n")
		c := e.WriteFile("c.txt", "gamma one\n")
		id := e.newSession(Seq(Step("Read", map[string]any{"file_path": a}),
			Step("Edit", map[string]any{"file_path": a, "old_string": "alpha two", "new_string": "ALPHA TWO"})))
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.Cmd("write")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("the proposal was not applied: %+v", r)
		}
		e.WaitIdle(id)
		e.Lua(nil, "require('claudenova').set_mode('acceptEdits')")
		e.Eventually(20*time.Second, "acceptEdits", func() bool { _, m := e.SessionState(id); return m == "acceptEdits" })
		e.Lua(nil, "require('claudenova').send(...)", Seq(Step("Read", map[string]any{"file_path": b}),
			Step("Edit", map[string]any{"file_path": b, "old_string": "beta three", "new_string": "BETA THREE"})))
		e.Eventually(60*time.Second, "b.txt edited", func() bool { return e.ReadFile("b.txt") == "beta one\nbeta two\nBETA THREE\n" })
		e.WaitIdle(id)

		n, files := e.round()
		if n != 1 || len(files) != 2 || files[0].Rel != "a.txt" || files[1].Rel != "b.txt" || len(files[0].Hunks) != 1 {
			t.Fatalf("round %d: %+v", n, files)
		}
		// The round in the files view: both files listed, a.txt opened.
		e.ScriptUI(nil, []string{"use a constant for alpha"})
		e.Cmd("ClaudeNova changes round")
		list := e.filesList()
		if len(list) != 4 || !strings.HasPrefix(list[0], "Round 1 · since ") || !strings.HasSuffix(list[0], " · 2 files · 0 viewed") ||
			list[2] != "· a.txt  +1 −1" || list[3] != "· b.txt  +1 −1" {
			t.Fatalf("the files view:\n%s", strings.Join(list, "\n"))
		}
		e.Input("<CR>")
		e.Eventually(10*time.Second, "a.txt's view", func() bool { return strings.Contains(e.winbar(), "Now · a.txt · 1 hunk") })
		e.cursorTo(2)
		e.Input(",c")
		e.waitComment(0, "2:✎ use a constant for alpha")
		e.Eventually(5*time.Second, "told", func() bool { return e.NoteContaining("comment 1 kept on a.txt:2") })
		// Viewed: the next file opens; [f goes back; the list says so.
		e.Input(",v")
		e.Eventually(10*time.Second, "b.txt's view", func() bool { return strings.Contains(e.winbar(), "Now · b.txt · 1 hunk") })
		e.Input("[f")
		e.Eventually(10*time.Second, "a.txt again", func() bool { return strings.Contains(e.winbar(), "Now · a.txt · 1 hunk") })
		e.Cmd("tabclose")
		e.Eventually(5*time.Second, "a.txt viewed, its comment counted", func() bool {
			l := e.filesList()
			return len(l) == 4 && l[2] == "✓ a.txt  +1 −1  ✎ 1" && strings.HasSuffix(l[0], "1 viewed")
		})
		e.Cmd("tabclose")

		// b.txt in its own buffer (the key is mapped there: Claude changed
		// it), with an unsaved edit above the line.
		e.Cmd("tabnew " + b)
		e.cursorTo(3)
		e.ScriptUI(nil, []string{"name this better"})
		e.Input("V,c")
		e.waitComment(0, "3:✎ name this better")
		var bbuf int
		e.Lua(&bbuf, "return vim.api.nvim_get_current_buf()")
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'beta one, edited and not saved' })")
		// An empty comment is refused, and says so.
		e.ScriptUI(nil, []string{""})
		e.Cmd("ClaudeNova comment")
		e.Eventually(5*time.Second, "refused", func() bool { return e.NoteContaining("an empty comment is not added") })

		e.Cmd("ClaudeNova comments send")
		req := e.waitRequest("Review of your changes since ", ": 2 comments in 2 files.")
		for _, w := range []string{
			"### 1. a.txt, line 2\n```\n  1 | alpha one\n> 2 | ALPHA TWO\n  3 | alpha three\n```\nuse a constant for alpha\n",
			"### 2. b.txt, line 3 (quoted from the editor: the user has not saved these edits yet)\n```\n  1 | beta one, edited and not saved\n  2 | beta two\n> 3 | BETA THREE\n```\nname this better\n",
		} {
			if !strings.Contains(req, w) {
				t.Fatalf("the model was not sent %q:\n%s", w, tail(req, 3000))
			}
		}
		if strings.Count(req, "Review of your changes since") != 1 {
			t.Fatalf("the review came in more than one message:\n%s", tail(req, 3000))
		}
		e.Eventually(10*time.Second, "the review in the transcript", func() bool {
			tr := e.Transcript(id)
			return strings.Contains(tr, "## You") && strings.Contains(tr, "Review of your changes since")
		})
		e.Eventually(10*time.Second, "sent comments leave the buffers", func() bool { return len(e.commentLines(bbuf)) == 0 })
		e.WaitIdle(id)

		// Round 2: only what changed since the send.
		e.Lua(nil, "require('claudenova').send(...)", Seq(Step("Read", map[string]any{"file_path": c}),
			Step("Edit", map[string]any{"file_path": c, "old_string": "gamma one", "new_string": "GAMMA ONE"})))
		e.Eventually(60*time.Second, "c.txt edited", func() bool { return e.ReadFile("c.txt") == "GAMMA ONE\n" })
		e.WaitIdle(id)
		e.Cmd("ClaudeNova changes round")
		if l := e.filesList(); len(l) != 3 || !strings.HasPrefix(l[0], "Round 2 · ") || l[2] != "· c.txt  +1 −1" {
			t.Fatalf("round 2's files:\n%s", strings.Join(l, "\n"))
		}
		e.Input("<CR>")
		e.Eventually(10*time.Second, "c.txt's view", func() bool { return strings.Contains(e.winbar(), "Now · c.txt · 1 hunk") })
		if n, files := e.round(); n != 2 || len(files) != 1 || files[0].Rel != "c.txt" {
			t.Fatalf("round %d: %+v", n, files)
		}
	})
}

// blameEdit writes f.txt and returns it and a prompt whose Edit changes
// two of its lines (amendedThenBlamed amends one).
func blameEdit(e *Env) (string, string) {
	f := e.WriteFile("f.txt", "one\ntwo\nthree\nfour\nfive\n")
	return f, Seq(Step("Read", map[string]any{"file_path": f}),
		Step("Edit", map[string]any{"file_path": f, "old_string": "two\nthree", "new_string": "TWO\nTHREE"}))
}

// amendedThenBlamed amends blameEdit's proposal on one line and saves it,
// waits for session id to apply it, and shows f's blame in a new tab:
// Claude's line, the amended one, the user's.
func (e *Env) amendedThenBlamed(id int, f string) {
	e.t.Helper()
	_, buf := e.WaitProposal()
	e.SetLineAndWrite(buf, 3, "THREE, amended")
	if r := e.WaitToolResult("toolu_s1"); r.IsError {
		e.t.Fatalf("tool result %+v", r)
	}
	e.WaitIdle(id)
	if got := e.ReadFile("f.txt"); got != "one\nTWO\nTHREE, amended\nfour\nfive\n" {
		e.t.Fatalf("f.txt = %q", got)
	}
	e.Cmd("tabnew " + f)
	e.Cmd("ClaudeNova blame")
	e.waitBlame(0, "ycayy")
}

// Who wrote what: after a proposal amended on one line and applied, blame
// marks Claude's lines, the amended line and the user's lines apart; a
// line the user edits by hand becomes theirs; a restart of Neovim keeps
// the blame and the unsent comments.
func TestReviewBlameAmendedAndRestart(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		f, edit := blameEdit(e)
		id := e.newSession(edit)
		e.amendedThenBlamed(id, f)
		e.Eventually(5*time.Second, "told", func() bool { return e.NoteContaining("1 by Claude, 1 amended by you, 3 yours") })
		// Claude's next change lands in the signs (acceptEdits: no proposal).
		e.Lua(nil, "require('claudenova').set_mode('acceptEdits')")
		e.Eventually(20*time.Second, "acceptEdits", func() bool { _, m := e.SessionState(id); return m == "acceptEdits" })
		e.Lua(nil, "require('claudenova').send(...)", Seq(Step("Read", map[string]any{"file_path": f}),
			Step("Edit", map[string]any{"file_path": f, "old_string": "five", "new_string": "FIVE"})))
		e.waitBlame(0, "ycayc")
		e.WaitIdle(id)
		// Resting on Claude's line shows who wrote it at its end.
		e.cursorTo(5)
		var hover string
		e.Lua(&hover, `vim.api.nvim_exec_autocmds("CursorHold", { buffer = 0 })
			local ns = vim.api.nvim_get_namespaces().claudenova_blame_hover
			for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
				return (m[2] + 1) .. ":" .. m[4].virt_text[1][1] end
			return ""`)
		if !strings.HasPrefix(hover, "5:  Claude · session 1 · prompt 2 · ") {
			t.Fatalf("hover %q", hover)
		}
		// <CR> on Claude's line: the session, the prompt and its text.
		e.cursorTo(2)
		e.Input("<CR>")
		float := e.floatText()
		if !strings.HasPrefix(float, "Claude · session 1 · prompt 1 · ") || !strings.Contains(float, "Prompt 1:\n  SEQ [") {
			t.Fatalf("float %q", float)
		}
		e.Input("<Esc>j")
		// A hand edit of Claude's line: it becomes yours.
		e.cursorTo(2)
		e.Input("ccmine now<Esc>")
		e.waitBlame(0, "yyayc")
		e.Cmd("write")
		e.cursorTo(3)
		e.Cmd("ClaudeNova comment why amend this?")
		e.waitComment(0, "3:✎ why amend this?")
		// The comment follows an edit above it, is told where when the
		// buffer is written, and stays when the buffer is closed.
		e.Input("ggOnew top line<Esc>")
		e.waitComment(0, "4:✎ why amend this?")
		e.waitBlame(0, "yyyayc")
		e.Cmd("write")
		e.Cmd("bwipeout")
		e.Cmd("edit " + f)
		e.waitComment(0, "4:✎ why amend this?")

		e.Quit()
		e2 := NewEnv(t, v, Options{Again: e})
		e2.Cmd("edit " + f)
		e2.Cmd("ClaudeNova blame")
		e2.waitBlame(0, "yyyayc")
		e2.Cmd("ClaudeNova comments")
		var list []string
		e2.Lua(&list, "return vim.api.nvim_buf_get_lines(vim.fn.bufnr('claudenova://comments'), 0, -1, false)")
		if len(list) != 1 || list[0] != "f.txt:4  why amend this?" {
			t.Fatalf("comments after a restart: %q", list)
		}
		var fbuf int
		e2.Lua(&fbuf, "return vim.fn.bufnr(...)", f)
		e2.waitComment(fbuf, "4:✎ why amend this?")

		// The list: its keys, edit, jump, delete.
		if h := e2.helpFloat("comments"); !strings.Contains(h, "dd") || !strings.Contains(h, "Delete the comment under the cursor") {
			t.Fatalf("the list's keys:\n%s", h)
		}
		e2.ScriptUI(nil, []string{"why amend this line?"})
		e2.Input("e")
		e2.waitComment(fbuf, "4:✎ why amend this line?")
		e2.Eventually(5*time.Second, "the list redrawn", func() bool {
			e2.Lua(&list, "return vim.api.nvim_buf_get_lines(vim.fn.bufnr('claudenova://comments'), 0, -1, false)")
			return len(list) == 1 && list[0] == "f.txt:4  why amend this line?"
		})
		e2.Input("<CR>")
		var at []any
		e2.Lua(&at, "return { vim.api.nvim_buf_get_name(0), vim.api.nvim_win_get_cursor(0)[1] }")
		if len(at) != 2 || at[0] != f || at[1] != int64(4) {
			t.Fatalf("jumped to %v", at)
		}
		e2.Cmd("ClaudeNova comments")
		e2.Input("dd")
		e2.Eventually(5*time.Second, "deleted", func() bool { return len(e2.commentLines(fbuf)) == 0 })
		var n int
		e2.Lua(&n, "return #require('claudenova.channel.host').request('comments', { session = 0, cwd = vim.fn.getcwd() }).comments")
		if n != 0 {
			t.Fatalf("%d comments left", n)
		}
	})
}

// A comment on a file outside the session's folder is refused, with a
// message; none is kept.
func TestReviewCommentOutsideRefused(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{HomeFiles: map[string]string{"notes.txt": "mine\n"}})
		id := e.newSession("hello")
		e.WaitIdle(id)
		e.Cmd("edit " + e.Home + "/notes.txt")
		e.Cmd("ClaudeNova comment look at this")
		e.Eventually(5*time.Second, "refused", func() bool {
			return e.NoteContaining("refused: ~/notes.txt is outside the session's folder")
		})
		if got := e.commentLines(0); len(got) != 0 {
			t.Fatalf("shown %q", got)
		}
		var n int
		e.Lua(&n, "return #require('claudenova.channel.host').request('comments', { session = 0 }).comments")
		if n != 0 {
			t.Fatalf("%d comments kept", n)
		}
	})
}
