package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// keyPause is the gap between two keys of a person typing.
const keyPause = 80 * time.Millisecond

// Type types keys one at a time with a person's pause between them (each
// element is one key as nvim_input takes it: "l", "<Esc>", ":").
func (e *Env) Type(keys ...string) {
	e.t.Helper()
	for _, k := range keys {
		e.Input(k)
		time.Sleep(keyPause)
	}
}

// KeysDone waits until every key typed so far has been handled: nothing is
// left in the typeahead and no command is halfway (Neovim handles one
// thing at a time, so an RPC call that finds the typeahead empty runs
// after the keys' effects).
func (e *Env) KeysDone() {
	e.t.Helper()
	e.Eventually(5*time.Second, "typed keys handled", func() bool {
		var left int
		e.Lua(&left, "return (vim.fn.getchar(1) ~= 0 or vim.fn.state():find('[mo]')) and 1 or 0")
		return left == 0
	})
}

// typeWhile types keys (cycling through them) with a person's pauses until
// stop is closed, then returns.
func (e *Env) typeWhile(stop <-chan struct{}, keys ...string) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		if _, err := e.V.Input(keys[i%len(keys)]); err != nil {
			return
		}
		time.Sleep(keyPause)
	}
}

// typeAcross keeps typing keys while a request arrives (and for a moment
// after it is pending), so that the arrival falls between two keys.
func (e *Env) typeAcross(send func(), keys ...string) Pending {
	e.t.Helper()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); e.typeWhile(stop, keys...) }()
	send()
	p := e.WaitPending(1)[0]
	time.Sleep(6 * keyPause) // the arrival is past; the user types on
	close(stop)
	<-done
	return p
}

// Normal-mode motions typed every 80 ms across a request's arrival, then
// "aXYZ<Esc>": append lands in the user's buffer, nothing is answered, and
// the panel shows once the user has stopped typing.
func TestNormalModeTypingNeverAnswers(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.Cmd("edit " + e.WriteFile("notes.txt", "hello world\n"))
		var userBuf int
		e.Lua(&userBuf, "return vim.api.nvim_get_current_buf()")
		p := e.typeAcross(func() { e.sendLua(sid, Seq(bash("echo ran > ran.txt", "write ran.txt"))) }, "l", "l", "h")
		e.Type("a", "X", "Y", "Z", "<Esc>")
		// Barrier: typed keys are handled in order, so once "Z" is in the
		// buffer, whatever "a" did is done.
		e.Eventually(5*time.Second, "typed text in the user's buffer", func() bool { return strings.Contains(e.bufLines(userBuf), "XYZ") })
		if e.PanelID() != "" {
			t.Fatal("the panel took focus while the user was typing")
		}
		if got := e.Pending(); len(got) != 1 || got[0].ID != p.ID {
			t.Fatalf("the request was answered by typing: %+v", got)
		}
		if e.ReadFile("ran.txt") != "" {
			t.Fatal("the command ran")
		}
		if m, _ := e.Mode(); m != "n" {
			t.Fatalf("mode %q after <Esc>", m)
		}
		// Quiet now: the panel opens by itself.
		e.Eventually(10*time.Second, "panel after quiet", func() bool { return e.PanelID() == p.ID })
		if got := e.bufLines(userBuf); !strings.HasPrefix(got, "hel") || !strings.Contains(got, "XYZ") || strings.Count(got, "\n") != 0 {
			t.Fatalf("the user's buffer was changed by something else: %q", got)
		}
	})
}

// Insert typing across an Edit's arrival, then <Esc> and :w 120 ms later:
// the :w writes the user's file, not Claude's proposal.
func TestEscThenWriteSavesTheUsersFile(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		target := e.WriteFile("a.txt", "alpha\nbeta\n")
		sid := e.startIdle("")
		e.Cmd("edit " + e.WriteFile("notes.txt", "notes\n"))
		e.Type("G", "o")
		e.WaitMode("i")
		p := e.typeAcross(func() { e.sendLua(sid, readThenEdit(target, "beta", "BETA")) }, "t", "y", "p", "e", " ")
		e.Input("<Esc>")
		time.Sleep(120 * time.Millisecond)
		e.Type(":", "w", "<CR>")
		e.Eventually(5*time.Second, "the user's file written", func() bool { return strings.HasPrefix(e.ReadFile("notes.txt"), "notes\ntype") })
		if got := e.ReadFile("a.txt"); got != "alpha\nbeta\n" {
			t.Fatalf("Claude's change was written: %q", got)
		}
		if got := e.Pending(); len(got) != 1 || got[0].ID != p.ID {
			t.Fatalf("the request was answered: %+v", got)
		}
		if strings.Contains(e.LogText(), "proposal_saved") {
			t.Fatal("the proposal was saved")
		}
		// Once the user pauses, the proposal opens, unmodified.
		var buf int
		e.Eventually(5*time.Second, "proposal after quiet", func() bool { buf = e.ProposalBuf(p.ID); return buf != 0 })
		if got := e.bufLines(buf); got != "alpha\nBETA" {
			t.Fatalf("proposal %q", got)
		}
	})
}

// A key typed the instant a panel takes focus does nothing; the same key
// typed once the user could read the panel answers it.
func TestGracePeriodDropsTheFirstKey(t *testing.T) {
	// Wide, so that the first key and the look at the border surely fall in
	// it on a loaded machine (the default is a fraction of a second).
	const graceMS = 3000
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"surfaces": map[string]any{"grace_ms": graceMS}}})
		e.newSession(Seq(bash("echo ran > ran.txt", "write ran.txt")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel", func() bool { return e.PanelID() == p.ID })
		e.Input("a") // at once: in the grace period
		var title string
		e.Lua(&title, "local c = require('claudenova.surfaces.panel').current; return vim.api.nvim_win_get_config(c.win).title[1][1]")
		if !strings.Contains(title, "wait") {
			t.Errorf("the border does not say the keys wait: %q", title)
		}
		e.KeysDone() // barrier: "a" has been handled
		if got := e.Pending(); len(got) != 1 || e.PanelID() != p.ID {
			t.Fatalf("the first key answered the panel: pending %+v, panel %q", got, e.PanelID())
		}
		e.WaitGraceOver() // the user could read the panel now
		e.Input("a")
		if r := e.WaitToolResult("toolu_s0"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		e.Eventually(10*time.Second, "ran", func() bool { return e.ReadFile("ran.txt") == "ran\n" })
	})
}

// A question's picker cannot guard its own keys (the built-in one waits for
// a number in inputlist()): on 0.11+ every key typed the instant it takes
// the screen is dropped; on 0.10, which cannot drop keys, it opens only after
// a grace period without a key, and a key typed then puts it back in the
// queue. Either way only a choice made once it could be read answers it.
func TestPickerGraceKeepsTheFirstKeys(t *testing.T) {
	const graceMS = 1500 // wide, so that the first keys surely fall in it
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"surfaces": map[string]any{"grace_ms": graceMS}}})
		e.newSession(Seq(Step("AskUserQuestion", map[string]any{"questions": []any{question("Which lib?", "Lib", false, "A", "B")}})))
		p := e.WaitPending(1)[0]
		// The built-in picker: inputlist() on 0.10 (the editor blocks), a
		// command-line prompt on 0.12.
		picker := func() bool { m, blocking := e.Mode(); return blocking || m == "c" }
		moves := 0
		if v.name == "nvim-0.10" {
			// The pre-open grace has begun: the user moves along a line of
			// their own, a key every 80 ms, across its end. The picker must
			// not take any of those keys: it opens once they stop.
			e.Eventually(20*time.Second, "the picker's grace before it opens", func() bool {
				var pre bool
				e.Lua(&pre, "return require('claudenova.services.scheduler').preopen[...] == true", p.ID)
				return pre
			})
			e.Lua(nil, `vim.cmd('enew'); vim.api.nvim_buf_set_lines(0, 0, -1, false, { string.rep('x', 200) })
				vim.api.nvim_win_set_cursor(0, { 1, 0 })`)
			moves = 2 * graceMS / int(keyPause/time.Millisecond)
			for i := 0; i < moves; i++ {
				e.Type("l")
			}
			e.Eventually(20*time.Second, "the picker, after a quiet grace", picker)
		} else {
			e.Eventually(20*time.Second, "the picker", picker)
			e.Input("2<CR>") // at once: dropped
			// Neovim has read those keys (the typeahead is empty), and
			// the grace in which they fell is over: had they reached the
			// picker, it would be gone.
			e.KeysDone()
			e.WaitGraceOver()
			if !picker() {
				t.Fatalf("the picker went away: the keys typed the instant it opened reached it")
			}
		}
		e.Input("1<CR>")
		r := e.WaitToolResult("toolu_s0")
		if r.IsError || !strings.Contains(r.Content, `"Which lib?"="A"`) {
			t.Fatalf("tool result %+v: want the choice made once it could be read (A)", r)
		}
		if moves > 0 {
			var col int
			e.Lua(&col, "return vim.api.nvim_win_get_cursor(0)[2]")
			if col != moves {
				t.Fatalf("the cursor moved %d of the %d l typed: the picker took the others", col, moves)
			}
		}
	})
}

// screenText is what the screen shows, row by row (an attached UI).
func (e *Env) screenText() []string {
	var rows []string
	e.Lua(&rows, `vim.cmd('redraw')
		local out = {}
		for r = 1, vim.o.lines do
			local cells = {}
			for c = 1, vim.o.columns do table.insert(cells, vim.fn.screenstring(r, c)) end
			table.insert(out, table.concat(cells))
		end
		return out`)
	return rows
}

// At 60 columns a 250-character command is wholly on screen in the panel,
// and it still is after the screen is resized.
func TestPanelShowsAllOfALongCommand(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(60, 24)
		parts := []string{"rm -rf build"}
		for i := 0; len(strings.Join(parts, " && ")) < 250; i++ {
			parts = append(parts, "mkdir -p out/dir"+itoa(i))
		}
		parts = append(parts, "echo done-at-the-end")
		cmd := strings.Join(parts, " && ")
		e.newSession(Seq(bash(cmd, "a long command")))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "panel", func() bool { return e.PanelID() == p.ID })
		visible := func() bool {
			// The cells inside the panel's border, row after row: the whole
			// command is in them, wrapped or not.
			var inside []string
			e.Lua(&inside, `vim.cmd('redraw')
				local win = require('claudenova.surfaces.panel').current.win
				local pos = vim.api.nvim_win_get_position(win)
				local out = {}
				for r = pos[1] + 1, pos[1] + vim.api.nvim_win_get_height(win) do
					local cells = {}
					for c = pos[2] + 1, pos[2] + vim.api.nvim_win_get_width(win) do
						table.insert(cells, vim.fn.screenstring(r + 1, c + 1))
					end
					table.insert(out, table.concat(cells))
				end
				return out`)
			flat := strings.ReplaceAll(strings.Join(inside, ""), " ", "")
			return strings.Contains(flat, strings.ReplaceAll(cmd, " ", ""))
		}
		if !visible() {
			t.Fatalf("the command is not wholly on screen:\n%s", strings.Join(e.screenText(), "\n"))
		}
		var wrap bool
		e.Lua(&wrap, "return vim.wo[require('claudenova.surfaces.panel').current.win].wrap")
		if !wrap {
			t.Error("the panel does not wrap")
		}
		// Narrower still: the panel follows.
		if err := e.V.TryResizeUI(50, 30); err != nil {
			t.Fatal(err)
		}
		e.Eventually(5*time.Second, "panel fits 50 columns", func() bool {
			var w int
			e.Lua(&w, "return vim.api.nvim_win_get_width(require('claudenova.surfaces.panel').current.win)")
			return w <= 48
		})
		if !visible() {
			t.Fatalf("after a resize the command is not wholly on screen:\n%s", strings.Join(e.screenText(), "\n"))
		}
	})
}

// stop, mode and send act on the session in view: its sidebar row or its
// transcript under the cursor, not the current session.
func TestSessionCommandsActOnTheSessionInView(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		s1 := e.startIdle("")
		s2 := e.startIdle("")
		var cur int
		e.Lua(&cur, "return require('claudenova.store.state').current")
		if cur != s2 {
			t.Fatalf("current session %d, want %d", cur, s2)
		}
		// The cursor on session 1's row in the sidebar: mode acts on it.
		e.Cmd("ClaudeNova")
		e.Lua(nil, `local sb = require('claudenova.surfaces.sidebar')
			for lnum, sid in pairs(sb.session_rows) do if sid == ... then vim.api.nvim_win_set_cursor(0, {lnum, 0}) end end`, s1)
		e.Cmd("ClaudeNova mode acceptEdits")
		e.Eventually(20*time.Second, "session 1 in acceptEdits", func() bool { _, m := e.SessionState(s1); return m == "acceptEdits" })
		if _, m := e.SessionState(s2); m != "default" {
			t.Fatalf("session 2's mode changed to %q", m)
		}
		// In session 1's transcript: send and stop act on session 1.
		e.Cmd("wincmd p")
		e.Lua(nil, "require('claudenova.frontend').open_transcript(..., { focus = true })", s1)
		e.Cmd("ClaudeNova send from the transcript")
		e.Eventually(60*time.Second, "session 1 answered", func() bool { return strings.Contains(e.Transcript(s1), "You said: from the transcript") })
		if strings.Contains(e.Transcript(s2), "from the transcript") {
			t.Fatal("the prompt went to session 2")
		}
		e.Cmd("ClaudeNova stop")
		e.Eventually(10*time.Second, "session 1 exited", func() bool { st, _ := e.SessionState(s1); return st == "exited" })
		if st, _ := e.SessionState(s2); st == "exited" {
			t.Fatal("session 2 was stopped")
		}
	})
}

// A message cut to one screen line keeps its whole text in :messages, with
// the instruction first; no hit-enter prompt.
func TestMessagesStayWhole(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true})
		e.AttachUI(60, 20)
		e.Input(":ClaudeNova frobnicate<CR>")
		// The whole text goes to :messages once the editor is idle.
		e.messageShown(`("frobnicate" is not one: `)
		e.noPromptWaits("a message cut to the screen")
		var msgs string
		e.Lua(&msgs, "return vim.fn.execute('messages')")
		var names []string
		e.Lua(&names, "return require('claudenova.commands').names()")
		if !strings.Contains(msgs, `:ClaudeNova <Tab> lists the subcommands ("frobnicate" is not one: `+strings.Join(names, ", ")+")") {
			t.Fatalf(":messages lacks the whole message:\n%s", msgs)
		}
		// What was shown leads with what to do, and the message line is not
		// left with Neovim's own middle cut of the whole text.
		notes := e.Notes()
		if last := notes[len(notes)-1]; !strings.HasPrefix(last, `claude-nova: :ClaudeNova <Tab> lists the sub`) || !strings.HasSuffix(last, "…") {
			t.Fatalf("the shown line %q", last)
		}
		screen := e.screenText()
		if last := screen[len(screen)-1]; strings.Contains(last, "...") {
			t.Fatalf("the message line shows a cut of the whole text: %q", last)
		}
	})
}

// The cursor resting in the sidebar does not hold a proposal back.
func TestSidebarDoesNotHoldSurfacesBack(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		target := e.WriteFile("s.txt", "one\n")
		sid := e.startIdle("")
		e.Cmd("ClaudeNova")
		if e.curBufFiletype() != "claudenova-sidebar" {
			t.Fatalf("not in the sidebar: %q", e.curBufFiletype())
		}
		e.sendLua(sid, readThenEdit(target, "one", "ONE"))
		p := e.WaitPending(1)[0]
		e.Eventually(10*time.Second, "proposal opens while the cursor rests in the sidebar", func() bool { return e.ProposalBuf(p.ID) != 0 })
	})
}

// acceptEdits: a buffer showing the file follows Claude's change at once;
// a buffer with unsaved edits keeps them, without a blocking prompt, and
// the user is told.
func TestBuffersFollowTheDisk(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.AttachUI(100, 30)
		a := e.WriteFile("a.txt", "a1\na2\na3\n")
		b := e.WriteFile("b.txt", "b1\n")
		sid := e.startIdle("acceptEdits")
		e.Cmd("edit " + b)
		e.Lua(nil, "vim.api.nvim_buf_set_lines(0, 0, -1, false, {'b1 unsaved by you'})")
		e.Cmd("vsplit " + a)
		e.Lua(nil, "vim.api.nvim_win_set_cursor(0, {3, 1})")
		e.sendLua(sid, Seq(Step("Read", map[string]any{"file_path": a}),
			Step("Edit", map[string]any{"file_path": a, "old_string": "a1", "new_string": "A1"}),
			Step("Read", map[string]any{"file_path": b}),
			Step("Edit", map[string]any{"file_path": b, "old_string": "b1", "new_string": "B1"})))
		e.WaitToolResult("toolu_s3")
		e.Eventually(5*time.Second, "a.txt's buffer shows Claude's change", func() bool { return e.fileBufLines(a) == "A1\na2\na3" })
		var cur []int
		e.Lua(&cur, "return vim.api.nvim_win_get_cursor(0)")
		if cur[0] != 3 {
			t.Errorf("cursor moved to %v", cur)
		}
		e.Eventually(5*time.Second, "told about b.txt", func() bool { return e.NoteContaining("b.txt: your unsaved edits are kept") })
		if got := e.fileBufLines(b); got != "b1 unsaved by you" {
			t.Fatalf("b.txt's buffer was reloaded over: %q", got)
		}
		if got := e.ReadFile("b.txt"); got != "B1\n" {
			t.Fatalf("b.txt on disk %q", got)
		}
		// Neovim's own check meets the changed file: no W12 prompt.
		e.Input(":checktime<CR>")
		e.noPromptWaits(":checktime")
		if got := e.fileBufLines(b); got != "b1 unsaved by you" {
			t.Fatalf("b.txt's buffer lost the edits: %q", got)
		}
		// :ClaudeNova diff compares it with the disk.
		e.Lua(nil, "vim.cmd.buffer(vim.fn.bufnr(...))", b)
		e.Cmd("ClaudeNova diff")
		var diffWins int
		e.Lua(&diffWins, `local n = 0; for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do if vim.wo[w].diff then n = n + 1 end end return n`)
		if diffWins != 2 {
			t.Fatalf("%d diff windows", diffWins)
		}
	})
}

// A Write rebased across an outside change keeps the outside line: the
// CLI refuses the Write (the file changed after Claude read it), so Claude
// is told the reviewed content and asked to write it again; that Write of
// exactly those bytes is allowed without asking.
func TestWriteRebaseKeepsTheOutsideChange(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("w.txt", "one\ntwo\n")
		const merged = "zero\none\nTWO\n"
		e.newSession(Seq(Step("Read", map[string]any{"file_path": path}),
			Step("Write", map[string]any{"file_path": path, "content": "one\nTWO\n"}),
			Step("Read", map[string]any{"file_path": path}),
			Step("Write", map[string]any{"file_path": path, "content": merged})))
		p, buf := e.WaitProposal()
		// Someone adds a line while the user reviews.
		if err := os.WriteFile(path, []byte("zero\none\ntwo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "rebased", func() bool { return e.NoteContaining("Claude's write is merged with it") })
		if got := e.bufLines(buf); got != strings.TrimSuffix(merged, "\n") {
			t.Fatalf("the refreshed proposal %q drops the outside line", got)
		}
		if got := e.ReadFile("w.txt"); got != "zero\none\ntwo\n" {
			t.Fatalf("the first :w wrote %q", got)
		}
		focusBuf(e, buf)
		e.Cmd("write")
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "Write exactly this content") || !strings.Contains(r.Content, merged) {
			t.Fatalf("Claude was not given the reviewed content: %+v", r)
		}
		if last := e.WaitToolResult("toolu_s3"); last.IsError {
			t.Fatalf("the follow-up Write failed: %+v", last)
		}
		if got := e.ReadFile("w.txt"); got != merged {
			t.Fatalf("file %q, want %q", got, merged)
		}
		for _, ev := range e.Events() {
			if ev.Kind == "ClaudeNovaRequestAdded" && ev.ID != p.ID {
				t.Fatalf("the follow-up Write was asked again: %+v", ev)
			}
		}
		sid := p.Session
		e.Eventually(10*time.Second, "transcript says so", func() bool {
			return strings.Contains(e.Transcript(sid), "without asking: exactly the content you approved")
		})
	})
}

// The prompt input keeps what was typed (and the queued references) when
// it is closed unsent; :ClaudeNova prompt brings it back.
func TestPromptDraftIsKept(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.WriteFile("ref.txt", "x\n")
		e.Cmd("ClaudeNova add ref.txt")
		e.Cmd("ClaudeNova prompt")
		e.WaitMode("i")
		e.Type("h", "a", "l", "f", "<Esc>")
		e.WaitMode("n")
		e.Type("q")
		e.Eventually(5*time.Second, "input closed", func() bool { return !strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
		if !e.NoteContaining("prompt kept as a draft") {
			t.Errorf("not told the draft was kept: %v", e.Notes())
		}
		e.Cmd("ClaudeNova prompt")
		e.Eventually(5*time.Second, "input again", func() bool { return strings.HasPrefix(e.curBufName(), "claudenova://prompt/") })
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if got := strings.Join(lines, "\n"); !strings.HasPrefix(got, "half") || !strings.Contains(got, "@ref.txt") {
			t.Fatalf("the draft came back as %q", got)
		}
		e.Type(" done", "<C-s>")
		e.Eventually(60*time.Second, "sent", func() bool { return strings.Contains(e.Transcript(sid), "You said: half done") })
		var left int
		e.Lua(&left, "return require('claudenova.surfaces.prompt').draft(...) and 1 or 0", sid)
		if left != 0 {
			t.Fatal("a sent prompt stayed a draft")
		}
	})
}

// Resuming a session that runs in this Neovim switches to it: no second
// claude on the same session.
func TestResumeOfALiveSessionSwitchesToIt(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		s1 := e.startIdle("")
		var claudeID string
		e.Eventually(10*time.Second, "claude id", func() bool {
			e.Lua(&claudeID, "return require('claudenova.store.state').sessions[...].claude_id or ''", s1)
			return claudeID != ""
		})
		s2 := e.startIdle("")
		pids := len(e.ClaudePids())
		e.Cmd("ClaudeNova resume " + claudeID)
		var cur int
		e.Lua(&cur, "return require('claudenova.store.state').current")
		if cur != s1 || s2 == s1 {
			t.Fatalf("current session %d, want %d", cur, s1)
		}
		if n := len(e.Sessions()); n != 2 {
			t.Fatalf("%d sessions after resuming a live one", n)
		}
		if len(e.ClaudePids()) != pids {
			t.Fatal("a second claude was started")
		}
		if !e.NoteContaining("runs here already") {
			t.Errorf("not told: %v", e.Notes())
		}
	})
}

// Sessions lists the host's sessions.
func (e *Env) Sessions() []map[string]any {
	var out []map[string]any
	e.Lua(&out, "return require('claudenova').sessions()")
	return out
}

// Names a person reads: the plan and the original side are named for what
// they are; a rescued file's name has no spaces.
func TestHumanNames(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("greet.py", "print('hi')\n")
		e.newSession(readThenEdit(path, "hi", "hello"))
		p, buf := e.WaitProposal()
		var orig string
		e.Lua(&orig, `local o = require('claudenova.surfaces.proposal').open_[...].orig
			return vim.fn.bufname(o)`, p.ID)
		if orig != "Original · greet.py" {
			t.Errorf("original side named %q", orig)
		}
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 0, -1, false, {'my edit'})", buf)
		e.Cmd("ClaudeNova interrupt")
		e.Eventually(10*time.Second, "rescued", func() bool { return e.NoteContaining("unsaved edits") })
		matches, _ := filepath.Glob(filepath.Join(e.Storage, "rescued", "*"))
		if len(matches) != 1 || strings.Contains(filepath.Base(matches[0]), " ") || !strings.HasSuffix(matches[0], "-greet.py") {
			t.Fatalf("rescued as %v", matches)
		}
	})
}

// The sidebar's width follows the screen, and its ages keep moving in a
// tab visited after another.
func TestSidebarFollowsScreenAndTabs(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true})
		e.AttachUI(200, 40)
		e.Cmd("ClaudeNova")
		width := func() int {
			var w int
			e.Lua(&w, "return vim.api.nvim_win_get_width(require('claudenova.surfaces.sidebar').win())")
			return w
		}
		if w := width(); w != 56 {
			t.Fatalf("sidebar %d columns at 200, want 56 (max_width)", w)
		}
		if err := e.V.TryResizeUI(100, 40); err != nil {
			t.Fatal(err)
		}
		e.Eventually(5*time.Second, "sidebar narrower", func() bool { return width() == 30 })
		e.Cmd("tabnew")
		e.Cmd("tabprevious")
		var running bool
		e.Lua(&running, "return require('claudenova.surfaces.sidebar').timer_running()")
		if !running {
			t.Fatal("the sidebar's timer stopped after another tab was visited")
		}
	})
}
