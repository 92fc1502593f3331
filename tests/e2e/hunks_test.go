package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bigTodo is a 5,000-line file with TODO on lines 100, 2500 and 4900.
func bigTodo() (string, []string) {
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the file", i+1)
	}
	for _, n := range []int{100, 2500, 4900} {
		lines[n-1] = fmt.Sprintf("TODO item %d", n)
	}
	return strings.Join(lines, "\n") + "\n", lines
}

// hunkEnv starts a session whose Edit (replace_all) touches three separated
// regions of a 5,000-line file, and returns the proposal's buffer.
func hunkEnv(t *testing.T, v nvimVersion, extra ...[2]any) (*Env, string, int) {
	e := NewEnv(t, v, Options{})
	e.Lua(nil, "vim.g.maplocalleader = ','")
	content, _ := bigTodo()
	path := e.WriteFile("big.txt", content)
	steps := append([][2]any{Step("Read", map[string]any{"file_path": path}),
		Step("Edit", map[string]any{"file_path": path, "old_string": "TODO", "new_string": "DONE", "replace_all": true})}, extra...)
	e.newSession(Seq(steps...))
	_, buf := e.WaitProposal()
	focusBuf(e, buf)
	return e, path, buf
}

func (e *Env) cursorTo(line int) {
	e.t.Helper()
	e.Lua(nil, "vim.api.nvim_win_set_cursor(0, { ..., 0 })", line)
}

func (e *Env) winbar() string {
	var s string
	// As drawn: the winbar may be an expression fitted to the width.
	e.Lua(&s, "return vim.api.nvim_eval_statusline(vim.wo.winbar, { winid = 0, use_winbar = true }).str")
	return s
}

func (e *Env) line(buf, n int) string {
	var s string
	e.Lua(&s, "return vim.api.nvim_buf_get_lines(..., select(2, ...) - 1, select(2, ...), false)[1]", buf, n)
	return s
}

// requestWith returns the text of the model's first request that carries
// the tool result of id.
func (e *Env) requestWith(id string) string {
	for _, txt := range e.Model.RequestTexts() {
		if strings.Contains(txt, "[tool_result "+id+"]") {
			return txt
		}
	}
	return ""
}

func TestPerHunkReviewTellsClaude(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		// Claude's next step edits the text the user wrote: it can, because
		// it was told.
		e, path, buf := hunkEnv(t, v, Step("Edit", map[string]any{"file_path": "{{cwd}}/big.txt",
			"old_string": "DONE item 100, handled by you", "new_string": "DONE item 100, handled by you, confirmed"}))
		e.ScriptUI(nil, []string{"use a constant here"})
		if bar := e.winbar(); !strings.Contains(bar, "3 hunks") {
			t.Fatalf("winbar %q", bar)
		}
		e.cursorTo(2500)
		e.Input(",r") // reject hunk 2
		e.cursorTo(4900)
		e.Input(",c") // note on hunk 3
		e.Eventually(5*time.Second, "tally", func() bool { return strings.Contains(e.winbar(), "3 hunks · 1 rejected · 1 note") })
		if got := e.line(buf, 2500); got != "TODO item 2500" {
			t.Fatalf("hunk 2 after reject: %q", got)
		}
		var virt string
		e.Lua(&virt, `local out = {}
			for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces().claudenova_hunk_notes, 0, -1, { details = true })) do
				for _, l in ipairs(m[4].virt_lines or {}) do table.insert(out, l[1][1]) end
			end
			return table.concat(out, "\n")`, buf)
		if !strings.Contains(virt, "use a constant here") {
			t.Fatalf("note not shown: %q", virt)
		}
		// The user edits a line inside hunk 1, then saves.
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 99, 100, false, { 'DONE item 100, handled by you' })", buf)
		e.Cmd("write")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		_, lines := bigTodo()
		lines[99] = "DONE item 100, handled by you"
		lines[4899] = "DONE item 4900"
		want := strings.Join(lines, "\n") + "\n"
		if got := read(t, path); got != want {
			t.Fatalf("file on disk differs (%d bytes, want %d)", len(got), len(want))
		}
		// The model's next request carries what the user did.
		req := e.requestWith("toolu_s1")
		for _, w := range []string{"[claude-nova] The user changed your edit of big.txt", "+DONE item 100, handled by you",
			"-DONE item 2500", "+TODO item 2500", "hunk 2 (line 2500 of your proposal)", "use a constant here"} {
			if !strings.Contains(req, w) {
				t.Fatalf("the model was not told %q:\n%s", w, tail(req, 3000))
			}
		}
		if i := strings.Index(req, "[claude-nova]"); i >= 0 {
			t.Logf("what Claude was told:\n%s", req[i:])
		}
		// Beside the tool's result, as a fact about the call (our
		// PostToolUse hook), not as a message the user typed mid-turn.
		if !strings.Contains(req, "PostToolUse:Edit hook additional context: [claude-nova] The user changed your edit of big.txt") ||
			strings.Contains(req, "The user sent a new message while you were working") {
			t.Fatalf("the note did not come with the tool's result:\n%s", tail(req, 3000))
		}
		// The amendment sent to the CLI is not the whole file.
		m := regexp.MustCompile(`tool=Edit input_bytes=(\d+)`).FindStringSubmatch(e.LogText())
		if m == nil {
			t.Fatal("no answer logged")
		}
		content, _ := bigTodo()
		oldJSON, _ := json.Marshal(content)
		newJSON, _ := json.Marshal(want)
		whole := len(oldJSON) + len(newJSON) // old_string and new_string of a whole-file amendment
		if n, _ := strconv.Atoi(m[1]); n >= whole {
			t.Fatalf("amended input %d bytes, a whole-file amendment is %d", n, whole)
		} else {
			t.Logf("amended input %d bytes; the whole-file amendment would be %d", n, whole)
		}
		// Claude's next Edit targets the user's own line, and applies.
		_, buf2 := e.WaitProposalOf("toolu_s2")
		focusBuf(e, buf2)
		e.Cmd("write")
		if r := e.WaitToolResult("toolu_s2"); r.IsError {
			t.Fatalf("Claude's edit of the user's line failed: %+v", r)
		}
		if got := read(t, path); !strings.Contains(got, "DONE item 100, handled by you, confirmed\n") {
			t.Fatal("the follow-up edit did not apply")
		}
	})
}

func TestRestoreHunk(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _, buf := hunkEnv(t, v)
		e.cursorTo(100)
		e.Input(",r")
		e.Eventually(5*time.Second, "rejected", func() bool { return e.line(buf, 100) == "TODO item 100" })
		e.Input(",R")
		e.Eventually(5*time.Second, "restored after a reject", func() bool { return e.line(buf, 100) == "DONE item 100" })
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 2499, 2500, false, { 'something else entirely' })", buf)
		e.cursorTo(2500)
		e.Input(",R")
		e.Eventually(5*time.Second, "restored after an edit", func() bool { return e.line(buf, 2500) == "DONE item 2500" })
	})
}

func TestAllHunksRejectedWithANoteDenies(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, path, _ := hunkEnv(t, v)
		e.ScriptUI(nil, []string{"keep the TODOs for now"})
		for _, n := range []int{100, 2500, 4900} {
			e.cursorTo(n)
			e.Input(",r")
		}
		e.cursorTo(100)
		e.Input(",c")
		e.Eventually(5*time.Second, "tally", func() bool { return strings.Contains(e.winbar(), "3 rejected · 1 note") })
		e.Cmd("write")
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "rejected all changes to big.txt") || !strings.Contains(r.Content, "keep the TODOs for now") {
			t.Fatalf("tool result %+v", r)
		}
		content, _ := bigTodo()
		if read(t, path) != content {
			t.Fatal("the file changed")
		}
	})
}

func TestNoMessageWhenNothingChanged(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _, _ := hunkEnv(t, v)
		e.Cmd("write")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		if req := e.requestWith("toolu_s1"); strings.Contains(req, "[claude-nova]") {
			t.Fatalf("a message was sent:\n%s", tail(req, 2000))
		}
	})
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// A bar fitted to a narrow window keeps what the surface is and drops whole
// hints, never cutting one in the middle.
func TestWinbarFitsTheWidth(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true})
		parts := []string{"Proposal · Edit greet.py · 1 hunk", "1 · DEMO", ":w apply · :q reject", `\r reject hunk · \R restore · \c note`}
		for _, tc := range []struct {
			width int
			want  string
		}{
			{200, "Proposal · Edit greet.py · 1 hunk · 1 · DEMO · :w apply · :q reject · \\r reject hunk · \\R restore · \\c note"},
			{70, "Proposal · Edit greet.py · 1 hunk · 1 · DEMO · :w apply · :q reject"},
			{45, "Proposal · Edit greet.py · 1 hunk · 1 · DEMO"},
			{20, "Proposal · Edit gre…"},
		} {
			var got string
			e.Lua(&got, "return require('claudenova.core.text').fit(...)", parts, tc.width)
			if got != tc.want {
				t.Errorf("width %d: %q, want %q", tc.width, got, tc.want)
			}
		}
	})
}
