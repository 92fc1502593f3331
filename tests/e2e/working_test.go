package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// workingLine is the virtual line under session id's transcript that says
// what Claude is doing ("" when there is none).
func (e *Env) workingLine(id int) string {
	var s string
	e.Lua(&s, `local buf = require('claudenova.surfaces.transcript').bufs[...]
		if not buf then return "" end
		local ns = vim.api.nvim_get_namespaces().claudenova_working
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
			local vl = m[4].virt_lines
			if vl and vl[1] and vl[1][1] then return vl[1][1][1] end
		end
		return ""`, id)
	return s
}

// Claude at work (issue 42): a prompt to a slow model shows, within a
// second or so, what is happening and for how long, updated each second,
// and the sidebar says it in a word; it is gone when the text arrives.
func TestWorkingLineWhileClaudeThinks(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Cmd("ClaudeNova")
		id := e.newSession("SLOW 4000")
		start := time.Now()
		e.Eventually(10*time.Second, "the working line", func() bool {
			return strings.HasPrefix(e.workingLine(id), "✻ thinking · ")
		})
		if d := time.Since(start); d > 4*time.Second {
			t.Logf("the line came after %s (claude's own start counts)", d)
		}
		first := e.workingLine(id)
		if !strings.HasSuffix(first, " · <C-c> interrupts") {
			t.Fatalf("working line %q", first)
		}
		e.Eventually(5*time.Second, "the count moves", func() bool { return e.workingLine(id) != first })
		var sidebar []string
		e.Lua(&sidebar, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.sidebar').buf, 0, -1, false)")
		if !strings.Contains(strings.Join(sidebar, "\n"), " · thinking") {
			t.Errorf("sidebar:\n%s", strings.Join(sidebar, "\n"))
		}
		e.Eventually(30*time.Second, "the reply", func() bool { return strings.Contains(e.Transcript(id), "slow done") })
		e.Eventually(5*time.Second, "the line gone", func() bool { return e.workingLine(id) == "" })
	})
}

// A task's output follows after a tab change (issue 42): opened, tab left
// while the task prints, tab entered again: every line is there.
func TestTaskOutputFollowsAcrossTabs(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "_G.claudenova_test.stub_ui()")
		count := Step("Bash", map[string]any{"command": "for i in 1 2 3 4 5 6; do echo tick $i; sleep 1; done",
			"description": "ticker", "run_in_background": true})
		id := e.newSession(Seq(count))
		tk := e.allowTask(id, "ticker", started)
		e.Lua(nil, "table.insert(_G.claudenova_test.selects, 'ticker')")
		e.Cmd("ClaudeNova tasks")
		e.Eventually(10*time.Second, "the output buffer", func() bool { return e.curBufName() == "claudenova://task/"+tk.ID })
		e.Eventually(30*time.Second, "its first line", func() bool { return strings.Contains(e.bufLines(0), "tick 1") })
		e.Cmd("tabnew")
		e.Eventually(60*time.Second, "the task done", func() bool { return e.taskNamed(id, "ticker").Status == "completed" })
		// Its buffer follows while the tab is away: the last line comes
		// there, not when the tab is entered again.
		var lines string
		e.Eventually(30*time.Second, "the last line while in another tab", func() bool {
			e.Lua(&lines, "return table.concat(vim.api.nvim_buf_get_lines(require('claudenova.surfaces.tasks').bufs[...], 0, -1, false), '\\n')", tk.ID)
			return strings.Contains(lines, "tick 6")
		})
		e.Cmd("tabprevious")
		e.Lua(&lines, "return table.concat(vim.api.nvim_buf_get_lines(require('claudenova.surfaces.tasks').bufs[...], 0, -1, false), '\\n')", tk.ID)
		if !strings.Contains(lines, "tick 6") {
			t.Fatalf("the output lost lines when its tab came back:\n%s", lines)
		}
	})
}

// Opening a task's output and the rules view never squeezes the
// transcript (issue 42: it shrank to one line): each takes half of the
// transcript's window, beside it or below it.
func TestViewsLeaveTheTranscriptReadable(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		// make demo's layout at 80 × 30: the user's file above, the sidebar
		// beside it, the transcript below.
		e.Lua(nil, "vim.o.lines = 30; vim.o.columns = 80")
		e.WriteFile("README.md", strings.Repeat("a line of the user's file\n", 40))
		e.Cmd("edit README.md")
		id := e.newSession(Seq(Step("Bash", map[string]any{"command": "echo hi; sleep 5", "description": "nap", "run_in_background": true})))
		e.Cmd("ClaudeNova")
		tk := e.allowTask(id, "nap", started)
		e.Cmd("wincmd t")
		e.Cmd("ClaudeNova transcript")
		height := func() int {
			var h int
			e.Lua(&h, `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session then return vim.api.nvim_win_get_height(w) end
			end return 0`)
			return h
		}
		e.Lua(nil, "require('claudenova.surfaces.tasks').open(...)", tk.ID)
		e.Cmd("ClaudeNova rules")
		e.Eventually(10*time.Second, "the rules view", func() bool { return vim(e, "return vim.bo.filetype") == "claudenova-rules" })
		heights := vim(e, `local o = {} for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do table.insert(o, vim.bo[vim.api.nvim_win_get_buf(w)].filetype .. "=" .. vim.api.nvim_win_get_height(w)) end return table.concat(o, " ") .. " lines=" .. vim.o.lines`)
		t.Logf("heights: %s", heights)
		if h := height(); h < 8 {
			t.Fatalf("the transcript is %d lines high", h)
		}
	})
}

func vim(e *Env, code string) string {
	var s string
	e.Lua(&s, code)
	return s
}

// The changes view counts the blocks diff mode draws (issue 42: "1 hunk"
// over blocks that Neovim's linematch drew apart), and undoes the one under
// the cursor as drawn.
func TestChangesCountWhatTheDiffShows(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		before := "def greet(name):\n    return \"hello \" + name\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n"
		after := "def greet(name: str) -> str:\n    \"\"\"Greet someone by name.\"\"\"\n    return f\"hello {name}\"\n\n\n" +
			"def farewell(name: str) -> str:\n    \"\"\"Say goodbye to someone by name.\"\"\"\n    return f\"goodbye {name}\"\n\n\n" +
			"if __name__ == \"__main__\":\n    print(greet(\"world\"))\n"
		f := e.WriteFile("greet.py", before)
		var id int
		e.Lua(&id, `return require('claudenova').new({ prompt = ..., mode = 'acceptEdits' }).id`,
			Seq(Step("Write", map[string]any{"file_path": f, "content": after})))
		e.Eventually(60*time.Second, "the write", func() bool { return e.ReadFile("greet.py") == after })
		e.WaitIdle(id)
		e.Cmd("ClaudeNova changes")
		// The blocks diff mode draws: the stops of ]c from the top.
		var stops int
		e.Lua(&stops, `vim.api.nvim_win_set_cursor(0, {1, 0})
			local seen, n = {}, 0
			if vim.fn.diff_hlID(1, 1) ~= 0 then n = 1; seen[1] = true end
			for _ = 1, 20 do
				local before = vim.api.nvim_win_get_cursor(0)[1]
				vim.cmd("silent! normal! ]c")
				local l = vim.api.nvim_win_get_cursor(0)[1]
				if l == before then break end
				if not seen[l] then seen[l] = true; n = n + 1 end
			end
			return n`)
		bar := e.winbar()
		want := map[bool]string{true: "1 hunk", false: fmt.Sprintf("%d hunks", stops)}[stops == 1]
		if !strings.Contains(bar, "greet.py · "+want) {
			t.Fatalf("winbar %q; the diff draws %d blocks", bar, stops)
		}
	})
}

// A note on a proposal's hunk is a virtual line on the proposal's side; the
// original's side gets a blank one where it faces it, so that the two sides
// stay in step below it (issue 42).
func TestNoteKeepsTheDiffSidesInStep(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.Lua(nil, "vim.g.maplocalleader = ','")
		path := e.WriteFile("f.txt", "one\ntwo\nthree\nfour\nfive\n")
		e.newSession(readThenEdit(path, "two", "TWO"))
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.WaitGraceOver()
		e.ScriptUI(nil, []string{"a note"})
		e.cursorTo(2)
		e.Input(",c")
		e.Eventually(5*time.Second, "the note", func() bool { return strings.Contains(e.winbar(), "1 note") })
		var rows []int
		e.Lua(&rows, `local p = vim.api.nvim_get_current_win()
			local o
			for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
				if w ~= p and vim.wo[w].diff then o = w end
			end
			vim.cmd("redraw")
			return { vim.fn.screenpos(p, 4, 1).row, vim.fn.screenpos(o, 4, 1).row }`)
		if len(rows) != 2 || rows[0] == 0 || rows[0] != rows[1] {
			t.Fatalf("line 4 is at screen rows %v (proposal, original)", rows)
		}
	})
}

// A surface that waits while you type in normal mode, and you then go on
// typing in insert mode: the notice moves above the status line, where
// -- INSERT -- does not cover it (issue 42: it never appeared).
func TestWaitingNoticeFollowsIntoInsertMode(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(80, 24)
		sid := e.startIdle("")
		e.Cmd("edit " + e.WriteFile("notes.txt", "notes\n"))
		p := e.typeAcross(func() { e.sendLua(sid, Seq(bash("echo ran > ran.txt", "write ran.txt"))) }, "l", "h", "l")
		if !e.waiting(p.ID) {
			t.Fatal("the panel did not wait")
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { defer close(done); e.typeWhile(stop, "o", "a", "b", "c", "d", "e") }()
		e.Eventually(10*time.Second, "the notice above the status line", func() bool {
			return strings.Contains(strings.Join(e.screenText(), "\n"), "opens when you pause")
		})
		close(stop)
		<-done
		e.Input("<Esc>")
		e.Eventually(10*time.Second, "the panel after a pause", func() bool { return e.PanelID() == p.ID })
	})
}

// The real file changes on disk while its proposal is open: a warning comes
// at once, before any :w, and the winbar says that :w merges (issue 42:
// the refusal came only after the :w).
func TestProposalWarnsWhenItsFileChangesOnDisk(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("r.txt", "a\nb\nc\n")
		e.newSession(readThenEdit(path, "b\n", "B\n"))
		_, buf := e.WaitProposal()
		if err := os.WriteFile(path, []byte("zero\na\nb\nc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.Eventually(10*time.Second, "the warning", func() bool {
			return e.NoteContaining("r.txt changed on disk after this proposal opened: :w merges your version with it")
		})
		focusBuf(e, buf)
		if bar := e.winbar(); !strings.Contains(bar, "changed on disk: :w merges") {
			t.Fatalf("winbar %q", bar)
		}
		if len(e.Pending()) != 1 {
			t.Fatal("the warning answered the request")
		}
	})
}

// A draft brought back opens without a completion menu (issue 42: the
// mode was ic before the user typed); typing brings the menu as usual.
func TestRestoredDraftOpensWithoutAMenu(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.startIdle("")
		e.WriteFile("ref.txt", "x\n")
		e.Cmd("ClaudeNova prompt")
		e.WaitMode("i")
		e.Type("l", "o", "o", "k", " ", "@", "r", "e")
		e.Eventually(10*time.Second, "the menu while typing", func() bool { return vim(e, "return tostring(vim.fn.pumvisible())") == "1" })
		e.Type("<C-e>", "<Esc>")
		e.WaitMode("n")
		e.Type("q")
		e.Eventually(5*time.Second, "input closed", func() bool { return !strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
		e.Cmd("ClaudeNova prompt")
		e.Eventually(5*time.Second, "input again", func() bool { return strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
		// A host answer the reopening asked for would be applied before the
		// answer to a call made after it (one ordered stream).
		e.Lua(nil, "require('claudenova.channel.host').request('pending')")
		if mode, _ := e.Mode(); mode != "i" || vim(e, "return tostring(vim.fn.pumvisible())") != "0" {
			t.Fatalf("the draft opened in mode %q with a menu: %s", mode, vim(e, "return tostring(vim.fn.pumvisible())"))
		}
	})
}

// The comments list after a send shows the new round; its insert keys say
// how to edit instead of E21; the resume picker marks a session that runs
// here (issue 42).
func TestCommentsListAndResumePickerSmallThings(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		a := e.WriteFile("a.txt", "one\ntwo\n")
		var id int
		e.Lua(&id, `return require('claudenova').new({ prompt = ..., mode = 'acceptEdits' }).id`,
			Seq(Step("Read", map[string]any{"file_path": a}), Step("Edit", map[string]any{"file_path": a, "old_string": "two", "new_string": "TWO"})))
		e.Eventually(60*time.Second, "the edit", func() bool { return e.ReadFile("a.txt") == "one\nTWO\n" })
		e.WaitIdle(id)
		e.Cmd("edit " + a)
		e.Cmd("2ClaudeNova comment why upper case?")
		e.Cmd("ClaudeNova comments")
		if bar := e.winbar(); !strings.Contains(bar, "round 1 of session") {
			t.Fatalf("winbar %q", bar)
		}
		e.Input("i")
		e.Eventually(5*time.Second, "told how to edit", func() bool { return e.NoteContaining("the comments list is read-only") })
		for _, n := range e.ErrorNotes() {
			if strings.Contains(n, "E21") {
				t.Fatalf("E21: %s", n)
			}
		}
		e.Cmd("ClaudeNova comments send")
		e.Eventually(10*time.Second, "the new round in the list", func() bool {
			return strings.Contains(vim(e, `for _, w in ipairs(vim.api.nvim_list_wins()) do
				if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_surface == "comments" then
					return vim.api.nvim_eval_statusline(vim.wo[w].winbar, { winid = w, use_winbar = true }).str end end return ""`), "round 2 of session")
		})
		e.WaitIdle(id)
		// The resume picker: this session runs here, and says so.
		e.ScriptUI([]string{"CANCEL"}, nil)
		e.Cmd("ClaudeNova resume")
		e.Eventually(10*time.Second, "the picker", func() bool {
			return strings.Contains(vim(e, "local c = _G.claudenova_test.choices; return c and c[#c] and table.concat(c[#c], '\\n') or ''"), "● runs here as session ")
		})
	})
}

// At 80 columns the sidebar is 28 wide: a session named "tasks test" and
// its task "ticker" are shown by name, states shortened (issue 42: "far…
// · waiting · 1 t…", "shell tic… · running 0s").
func TestNarrowSidebarKeepsNames(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(80, 24)
		count := Step("Bash", map[string]any{"command": "for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 1; done",
			"description": "ticker", "run_in_background": true})
		id := e.newSession(Seq(count))
		e.Lua(nil, "require('claudenova').rename('tasks test', ...)", id)
		e.allowTask(id, "ticker", func(x Task) bool { return x.Status == "running" })
		e.Cmd("ClaudeNova sidebar")
		var width int
		e.Lua(&width, "return vim.api.nvim_win_get_width(require('claudenova.surfaces.sidebar').win())")
		if width != 28 {
			t.Fatalf("sidebar width %d", width)
		}
		e.Eventually(10*time.Second, "the names", func() bool {
			side := strings.Join(e.sidebarLines(), "\n")
			return strings.Contains(side, "tasks test") && strings.Contains(side, "ticker")
		})
	})
}
