package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ProposalBuf returns the buffer of the open proposal for request id (0 if none).
func (e *Env) ProposalBuf(id string) int {
	var buf int
	e.Lua(&buf, `local p = require('claudenova.surfaces.proposal').open_[...]
		if p and vim.api.nvim_buf_is_valid(p.buf) then return p.buf end
		return 0`, id)
	return buf
}

// WaitProposal waits for the proposal of the first pending request and returns it.
func (e *Env) WaitProposal() (Pending, int) {
	e.t.Helper()
	p := e.WaitPending(1)[0]
	if p.Surface != "proposal" {
		e.t.Fatalf("request %+v is not a proposal; notes: %v", p, e.Notes())
	}
	var buf int
	e.Eventually(10*time.Second, "proposal open", func() bool { buf = e.ProposalBuf(p.ID); return buf != 0 })
	e.WaitGraceOver()
	return p, buf
}

// SetLine replaces line n (1-based) of buf and writes it from its window.
func (e *Env) SetLineAndWrite(buf, n int, text string) {
	e.t.Helper()
	e.WaitGraceOver()
	e.Lua(nil, "local buf, n, text = ...; vim.api.nvim_buf_set_lines(buf, n - 1, n, false, { text })", buf, n, text)
	focusBuf(e, buf)
	e.Cmd("write")
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestProposalEditWithUserAmendment(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) { proposalEditWithUserAmendment(t, v, Options{}) })
}

// proposalEditWithUserAmendment is TestProposalEditWithUserAmendment with options o (the jobstart smoke set runs it too).
func proposalEditWithUserAmendment(t *testing.T, v nvimVersion, o Options) {
	e := NewEnv(t, v, o)
	path := e.WriteFile("a.txt", "line one\nline two\nline three\n")
	e.Cmd("edit " + path) // the user has the real file open
	e.newSession(readThenEdit(path, "line two", "line 2"))
	p, buf := e.WaitProposal()
	if p.Target != "a.txt" {
		t.Errorf("target %q", p.Target)
	}
	var lines []string
	e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf)
	if strings.Join(lines, "\n") != "line one\nline 2\nline three" {
		t.Fatalf("proposal shows %q", lines)
	}
	var diffOn bool
	e.Lua(&diffOn, `for _, w in ipairs(vim.api.nvim_list_wins()) do
		if vim.api.nvim_win_get_buf(w) == ... then return vim.wo[w].diff end end return false`, buf)
	if !diffOn {
		t.Error("proposal is not in diff mode")
	}
	e.SetLineAndWrite(buf, 3, "line three, amended by the user")
	r := e.WaitToolResult("toolu_s1")
	if r.IsError {
		t.Fatalf("tool result is an error: %+v", r)
	}
	if got, want := read(t, path), "line one\nline 2\nline three, amended by the user\n"; got != want {
		t.Fatalf("file on disk %q, want %q", got, want)
	}
	// The buffer of the real file is reloaded once claude has written it.
	e.Eventually(10*time.Second, "real file's buffer reloaded", func() bool {
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)", path)
		return strings.Join(lines, "\n") == "line one\nline 2\nline three, amended by the user"
	})
	e.Eventually(5*time.Second, "proposal closed", func() bool { return e.ProposalBuf(p.ID) == 0 && len(e.Pending()) == 0 })
}

func TestProposalWriteNewFileInNewFolder(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := filepath.Join(e.Project, "deep", "er", "new.txt")
		e.newSession(Seq(Step("Write", map[string]any{"file_path": path, "content": "fresh\n"})))
		_, buf := e.WaitProposal()
		e.SetLineAndWrite(buf, 1, "fresh, edited")
		e.WaitToolResult("toolu_s0")
		if got := read(t, path); got != "fresh, edited\n" {
			t.Fatalf("new file %q", got)
		}
	})
}

func TestProposalRejectedByClosing(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"q", "bwipeout", "bdelete"} {
		t.Run(how, func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e := NewEnv(t, v, Options{})
				path := e.WriteFile("keep.txt", "original\n")
				e.newSession(readThenEdit(path, "original", "changed"))
				_, buf := e.WaitProposal()
				switch how {
				case "q":
					focusBuf(e, buf)
					e.Cmd("quit")
				default:
					e.Cmd(how + "! " + itoa(buf))
				}
				r := e.WaitToolResult("toolu_s1")
				if !r.IsError || !strings.Contains(r.Content, "rejected") {
					t.Fatalf("tool result %+v, want a rejection", r)
				}
				if got := read(t, path); got != "original\n" {
					t.Fatalf("file changed: %q", got)
				}
				e.Eventually(5*time.Second, "no pending", func() bool { return len(e.Pending()) == 0 })
			})
		})
	}
}

func TestTwoProposalsSameBasename(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		p1 := filepath.Join(e.Project, "one", "same.txt")
		p2 := filepath.Join(e.Project, "two", "same.txt")
		e.newSession(Seq(Step("Write", map[string]any{"file_path": p1, "content": "first\n"})))
		first := e.WaitPending(1)[0]
		e.newSession(Seq(Step("Write", map[string]any{"file_path": p2, "content": "second\n"})))
		ps := e.WaitPending(2)
		second := ps[0]
		if second.ID == first.ID {
			second = ps[1]
		}
		var b1, b2 int
		e.Eventually(10*time.Second, "both proposals open", func() bool {
			// One that arrives while the cursor is in the other waits
			// (the scheduler's rule): open it as the user would.
			if e.waiting(second.ID) {
				e.Cmd("ClaudeNova focus")
			}
			b1, b2 = e.ProposalBuf(first.ID), e.ProposalBuf(second.ID)
			return b1 != 0 && b2 != 0
		})
		var n1, n2 string
		e.Lua(&n1, "return vim.api.nvim_buf_get_name(...)", b1)
		e.Lua(&n2, "return vim.api.nvim_buf_get_name(...)", b2)
		if n1 == n2 || filepath.Base(n1) != "same.txt" || filepath.Base(n2) != "same.txt" {
			t.Fatalf("staged names %q %q", n1, n2)
		}
		e.SetLineAndWrite(b2, 1, "second, edited")
		e.SetLineAndWrite(b1, 1, "first, edited")
		e.Eventually(60*time.Second, "both files written", func() bool {
			return e.ReadFile("one/same.txt") == "first, edited\n" && e.ReadFile("two/same.txt") == "second, edited\n"
		})
	})
}

func TestProposalByteExact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, old, new string
		line                    int
		edited                  string
		want                    string
	}{
		{"crlf", "alpha\r\nbeta\r\ngamma\r\n", "beta", "BETA", 3, "gamma (user)", "alpha\r\nBETA\r\ngamma (user)\r\n"},
		{"no final newline", "alpha\nbeta\ngamma", "beta", "BETA", 3, "gamma (user)", "alpha\nBETA\ngamma (user)"},
		{"crlf no final newline", "alpha\r\nbeta", "alpha", "ALPHA", 2, "beta (user)", "ALPHA\r\nbeta (user)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e := NewEnv(t, v, Options{})
				path := e.WriteFile("f.txt", c.content)
				e.newSession(readThenEdit(path, c.old, c.new))
				_, buf := e.WaitProposal()
				e.SetLineAndWrite(buf, c.line, c.edited)
				if r := e.WaitToolResult("toolu_s1"); r.IsError {
					t.Fatalf("tool result error: %+v", r)
				}
				if got := read(t, path); got != c.want {
					t.Fatalf("file %q, want %q", got, c.want)
				}
			})
		})
	}
}

func TestUnreconstructableEditGoesToPanel(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		script := filepath.Join(t.TempDir(), "script.jsonl")
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true, ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script}})
		path := e.WriteFile("x.txt", "something else\n")
		writeScriptAt(t, script, ask("Edit", "", map[string]any{"file_path": path, "old_string": "missing text", "new_string": "y"}))
		e.newSession("go")
		p := e.WaitPending(1)[0]
		if p.Surface != "panel" {
			t.Fatalf("surface %q, want panel", p.Surface)
		}
		e.Eventually(10*time.Second, "panel open", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.panel').current.buf, 0, -1, false)")
		if !strings.Contains(strings.Join(lines, "\n"), "not found") {
			t.Fatalf("panel does not say why:\n%s", strings.Join(lines, "\n"))
		}
	})
}

func TestProposalNeverClobbers(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("c.txt", "one\ntwo\n")
		e.newSession(readThenEdit(path, "two", "TWO"))
		p, buf := e.WaitProposal()
		// Someone else changes the file while the proposal is open.
		if err := os.WriteFile(path, []byte("one\ntwo\nthree from elsewhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.SetLineAndWrite(buf, 1, "ONE")
		e.Eventually(10*time.Second, "warning about the change on disk", func() bool { return e.NoteContaining("changed on disk") })
		if got := read(t, path); got != "one\ntwo\nthree from elsewhere\n" {
			t.Fatalf("file clobbered: %q", got)
		}
		if len(e.Pending()) != 1 {
			t.Fatal("request no longer pending after the refused save")
		}
		// The original side now shows the file as it is on disk (the
		// warning may come before the save's refresh: the proposal watches
		// its file).
		var orig []string
		e.Eventually(10*time.Second, "the original side refreshed", func() bool {
			e.Lua(&orig, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.proposal').open_[...].orig, 0, -1, false)", p.ID)
			return strings.Join(orig, "\n") == "one\ntwo\nthree from elsewhere"
		})
	})
}

func TestMultiEditAndReplaceAllViaFakeClaude(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		log := filepath.Join(t.TempDir(), "fake.log")
		script := filepath.Join(t.TempDir(), "script.jsonl")
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true,
			ClaudeEnv: map[string]string{"FAKECLAUDE_SCRIPT": script, "FAKECLAUDE_LOG": log}})
		path := e.WriteFile("m.txt", "a a a\n")
		writeScriptAt(t, script, ask("MultiEdit", "req-multi-0001", map[string]any{"file_path": path, "edits": []any{
			map[string]any{"old_string": "a", "new_string": "b", "replace_all": true},
			map[string]any{"old_string": "b b", "new_string": "c"},
		}}))
		e.newSession("go")
		_, buf := e.WaitProposal()
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf)
		if strings.Join(lines, "\n") != "c b" {
			t.Fatalf("MultiEdit reconstructed %q, want %q", lines, "c b")
		}
		e.SetLineAndWrite(buf, 1, "user says hi")
		e.Eventually(10*time.Second, "answer", func() bool { return len(fakeAnswers(log)) == 1 })
		a := fakeAnswers(log)[0]
		in, _ := a.Response["updatedInput"].(map[string]any)
		edits, _ := in["edits"].([]any)
		if a.Behavior != "allow" || len(edits) != 1 {
			t.Fatalf("answer %+v", a.Response)
		}
		ed := edits[0].(map[string]any)
		if ed["old_string"] != "a a a\n" || ed["new_string"] != "user says hi\n" || in["file_path"] != path {
			t.Fatalf("amended edit %+v", ed)
		}
	})
}

func TestPanelModeReviewShowsDiff(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"review_edits": "panel"}})
		path := e.WriteFile("p.txt", "x\ny\n")
		e.newSession(readThenEdit(path, "y", "z"))
		p := e.WaitPending(1)[0]
		if p.Surface != "panel" {
			t.Fatalf("surface %q", p.Surface)
		}
		e.Eventually(10*time.Second, "panel", func() bool { return e.PanelID() == p.ID })
		e.WaitGraceOver()
		e.Input("r")
		e.Eventually(5*time.Second, "review with diff", func() bool {
			var lines []string
			e.Lua(&lines, "local c = require('claudenova.surfaces.panel').current; return c and vim.api.nvim_buf_get_lines(c.buf, 0, -1, false) or {}")
			s := strings.Join(lines, "\n")
			return strings.Contains(s, "-y") && strings.Contains(s, "+z") && strings.Contains(s, "@@ -1,2 +1,2 @@")
		})
		// The sidebar row carries +N -M.
		e.Cmd("ClaudeNova")
		var sb []string
		e.Lua(&sb, "return vim.api.nvim_buf_get_lines(require('claudenova.surfaces.sidebar').buf, 0, -1, false)")
		if !strings.Contains(strings.Join(sb, "\n"), "p.txt +1 -1") {
			t.Errorf("sidebar row lacks +1 -1:\n%s", strings.Join(sb, "\n"))
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestProposalRevertedByUserIsNotWritten(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("r.txt", "keep me\n")
		e.newSession(readThenEdit(path, "keep me", "changed"))
		_, buf := e.WaitProposal()
		e.SetLineAndWrite(buf, 1, "keep me") // the user undoes Claude's change
		r := e.WaitToolResult("toolu_s1")
		if !r.IsError || !strings.Contains(r.Content, "rejected all changes to r.txt") {
			t.Fatalf("tool result %+v", r)
		}
		if got := read(t, path); got != "keep me\n" {
			t.Fatalf("file %q", got)
		}
	})
}

// readThenEdit scripts the model to Read path, then Edit it (the CLI refuses
// an Edit of a file not read first).
func readThenEdit(path, old, new string) string {
	return Seq(Step("Read", map[string]any{"file_path": path}),
		Step("Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new}))
}

// A :w that finds the file changed on disk applies nothing and rebases the
// proposal; the next :w makes the file exactly the buffer (real CLI).
func TestRebaseEndToEnd(t *testing.T) {
	t.Parallel()
	const orig = "a\nb\nc\nd\ne\nf\ng\n"
	cases := []struct {
		name      string
		outside   string              // the file after someone else changed it
		edit      func(e *Env, b int) // the user's edit before the first :w
		resolve   func(e *Env, b int) // after the rebase, before the second :w
		wantTold  string
		wantFinal string
	}{
		{"unedited", "zero\n" + orig, nil, nil, "nothing applied", "zero\na\nB\nc\nd\ne\nf\ng\n"},
		{"edits elsewhere kept", orig + "tail\n",
			func(e *Env, b int) { e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 5, 6, false, {'F by you'})", b) }, nil,
			"nothing applied", "a\nB\nc\nd\ne\nF by you\ng\ntail\n"},
		{"same lines conflict", "a\nb\nc\nd\nE outside\nf\ng\n",
			func(e *Env, b int) { e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 4, 5, false, {'E by you'})", b) },
			func(e *Env, b int) {
				// Saving with the markers applies nothing.
				focusBuf(e, b)
				e.Cmd("write")
				e.Eventually(10*time.Second, "markers refused", func() bool { return e.NoteContaining("conflict markers remain") })
				var text string
				e.Lua(&text, "return table.concat(vim.api.nvim_buf_get_lines(..., 0, -1, false), '\\n')", b)
				start := strings.Index(text, "<<<<<<<")
				end := strings.Index(text, ">>>>>>>")
				endLine := strings.Index(text[end:], "\n")
				resolved := text[:start] + "E merged" + text[end+endLine:]
				e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 0, -1, false, vim.split(select(2, ...), '\\n'))", b, resolved)
			},
			"conflict", "a\nB\nc\nd\nE merged\nf\ng\n"},
		{"claude's change no longer applies", "a\nX\nc\n", nil, nil, "no longer applies", "a\nB\nc\nd\ne\nf\ng\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e := NewEnv(t, v, Options{})
				path := e.WriteFile("r.txt", orig)
				e.newSession(readThenEdit(path, "b\n", "B\n"))
				_, buf := e.WaitProposal()
				if c.edit != nil {
					c.edit(e, buf)
				}
				if err := os.WriteFile(path, []byte(c.outside), 0o644); err != nil {
					t.Fatal(err)
				}
				focusBuf(e, buf)
				e.Cmd("write")
				e.Eventually(10*time.Second, "told", func() bool { return e.NoteContaining(c.wantTold) })
				if got := read(t, path); got != c.outside {
					t.Fatalf("the first :w changed the file: %q", got)
				}
				if len(e.Pending()) != 1 {
					t.Fatal("the first :w answered")
				}
				if c.resolve != nil {
					c.resolve(e, buf)
				}
				var text string
				e.Lua(&text, "return table.concat(vim.api.nvim_buf_get_lines(..., 0, -1, false), '\\n') .. '\\n'", buf)
				focusBuf(e, buf)
				e.Cmd("write")
				if r := e.WaitToolResult("toolu_s1"); r.IsError {
					t.Fatalf("tool result %+v", r)
				}
				if got := read(t, path); got != c.wantFinal || got != text {
					t.Fatalf("file %q, buffer %q, want %q", got, text, c.wantFinal)
				}
			})
		})
	}
}

// WaitProposalOf waits for the proposal of the request for tool_use id.
func (e *Env) WaitProposalOf(toolUseID string) (string, int) {
	e.t.Helper()
	var id string
	var buf int
	e.Eventually(60*time.Second, "proposal for "+toolUseID, func() bool {
		e.Lua(&id, `for id, r in pairs(require('claudenova.store.state').requests) do
			if r.surface == 'proposal' then return id end end return ''`)
		if id == "" {
			return false
		}
		buf = e.ProposalBuf(id)
		return buf != 0
	})
	e.WaitGraceOver()
	return id, buf
}
