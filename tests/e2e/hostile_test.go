package e2e

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileInput feeds everything a broken or hostile claude could print;
// the host stays up, nothing escapes storage, the user sees sane text.
func TestHostileInput(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		esc := "\x1b[31mred\x1b[0m\x1b]0;pwned title\x07\x1b[2J"
		e, log := faultEnv(t, v, func(project string) []string {
			dir := filepath.Join(project, "adir")
			_ = os.MkdirAll(dir, 0o755)
			_ = os.WriteFile(filepath.Join(project, "e.txt"), []byte("existing\n"), 0o644)
			return []string{
				`{"raw":"{not json"}`,
				`{"raw":"{\"type\":\"from_the_future\",\"x\":1}"}`,
				`{"unknown_control":"brand_new_subtype","wait":true,"timeout_ms":5000}`,
				`{"big":20000000,"as":"assistant_text"}`,
				`{"raw_b64":"eyJ0eXBlIjoiYXNzaXN0YW50IiwibWVzc2FnZSI6eyJjb250ZW50IjpbeyJ0eXBlIjoidGV4dCIsInRleHQiOiL/In1dfX0="}`,
				ask("Write", "../../../../escape/../x", map[string]any{"file_path": filepath.Join(project, "..") + "/", "content": "x"}),
				ask("Write", "a/b/c/d/e/f/g/h", map[string]any{"file_path": filepath.Join(project, "sub", ".."), "content": "x"}),
				ask("Edit", "", map[string]any{"file_path": dir, "old_string": "a", "new_string": "b"}),
				ask("Edit", "", map[string]any{"file_path": filepath.Join(project, "e.txt"), "old_string": "", "new_string": "b"}),
				ask("Bash", "", map[string]any{"command": "echo " + esc, "description": "desc " + esc}),
			}
		})
		e.Cmd("ClaudeNova")
		e.newSession("go")
		seen := 0
		for seen < 5 {
			p := e.WaitPending(1)[0]
			// Every displayed line is free of escapes and control characters.
			var screen []string
			e.Lua(&screen, `local out = {}
				for _, b in ipairs(vim.api.nvim_list_bufs()) do
					if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype ~= "" then
						vim.list_extend(out, vim.api.nvim_buf_get_lines(b, 0, -1, false))
					end
				end
				for _, n in ipairs(_G.claudenova_test.notes) do table.insert(out, n.msg) end
				return out`)
			for _, l := range screen {
				if strings.ContainsAny(l, "\x1b\x07\x00\r") {
					t.Fatalf("control characters shown: %q", l)
				}
			}
			e.Lua(nil, "require('claudenova').decide(..., {behavior = 'deny', message = 'no'})", p.ID)
			e.Eventually(10*time.Second, "next request", func() bool {
				ps := e.Pending()
				return len(ps) == 0 || ps[0].ID != p.ID
			})
			seen++
		}
		if !e.responsive() {
			t.Fatal("Neovim blocked")
		}
		// The unknown control subtype got an error response.
		b, _ := os.ReadFile(log)
		if !strings.Contains(string(b), `"control_subtype":"brand_new_subtype"`) || !strings.Contains(string(b), "does not support control request brand_new_subtype") {
			t.Errorf("no error response to the unknown control request")
		}
		// Nothing was staged outside storage/proposed, and nothing left there.
		filepath.WalkDir(filepath.Dir(e.Storage), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(p) == "x" {
				t.Errorf("file escaped: %s", p)
			}
			return nil
		})
		if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(e.Project)), "escape")); err == nil {
			t.Error("a folder escaped storage")
		}
		e.Eventually(5*time.Second, "log mentions the skipped lines", func() bool {
			l := e.LogText()
			return strings.Contains(l, "skipped malformed line")
		})
	})
}

func TestFilesEdgeCases(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _ := faultEnv(t, v, func(project string) []string {
			_ = os.WriteFile(filepath.Join(project, "bin.dat"), []byte("ab\x00cd\n"), 0o644)
			_ = os.WriteFile(filepath.Join(project, "latin1.txt"), []byte("caf\xe9\n"), 0o644)
			big := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", 50<<20/65)
			_ = os.WriteFile(filepath.Join(project, "big.txt"), []byte(big), 0o644)
			return []string{
				ask("Edit", "", map[string]any{"file_path": filepath.Join(project, "bin.dat"), "old_string": "ab", "new_string": "x"}),
				ask("Edit", "", map[string]any{"file_path": filepath.Join(project, "latin1.txt"), "old_string": "caf", "new_string": "x"}),
				ask("Edit", "", map[string]any{"file_path": filepath.Join(project, "big.txt"), "old_string": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n0123", "new_string": "changed\n0123"}),
			}
		})
		e.newSession("go")
		for _, want := range []struct{ surface, reason string }{{"panel", "binary"}, {"panel", "UTF-8"}, {"", ""}} {
			p := e.WaitPending(1)[0]
			if want.surface != "" {
				if p.Surface != want.surface {
					t.Fatalf("%s: surface %q, want %q", p.Target, p.Surface, want.surface)
				}
				var reason string
				e.Lua(&reason, "return require('claudenova.store.state').requests[...].reason", p.ID)
				if !strings.Contains(reason, want.reason) {
					t.Errorf("%s: reason %q lacks %q", p.Target, reason, want.reason)
				}
			} else if !e.responsive() {
				t.Fatal("50 MB file blocked Neovim")
			}
			e.Lua(nil, "require('claudenova').decide(..., 'deny')", p.ID)
			e.Eventually(20*time.Second, "decided", func() bool {
				ps := e.Pending()
				return len(ps) == 0 || ps[0].ID != p.ID
			})
		}
	})
}

func TestUnsavedEditsRescuedWhenWithdrawn(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _ := faultEnv(t, v, func(project string) []string {
			return []string{ask("Write", "", map[string]any{"file_path": filepath.Join(project, "r.txt"), "content": "claude's\n"})}
		})
		e.newSession("go")
		_, buf := e.WaitProposal()
		e.Lua(nil, "vim.api.nvim_buf_set_lines(..., 0, -1, false, {'my precious edit'})", buf)
		e.Cmd("ClaudeNova interrupt")
		e.Eventually(10*time.Second, "rescue message", func() bool { return e.NoteContaining("unsaved edits") })
		matches, _ := filepath.Glob(filepath.Join(e.Storage, "rescued", "*r.txt"))
		if len(matches) != 1 {
			t.Fatalf("rescued copies: %v", matches)
		}
		if got := read(t, matches[0]); got != "my precious edit\n" {
			t.Fatalf("rescued %q", got)
		}
		if _, err := os.Stat(filepath.Join(e.Project, "r.txt")); err == nil {
			t.Fatal("withdrawn proposal was written")
		}
	})
}

// Typing goes on after :w (the keys were already typed when the proposal
// closes): what was applied is the buffer at :w, and what came after is
// kept, not dropped with the closing buffer.
func TestEditsAfterSaveAreKept(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.newSession(Seq(Step("Write", map[string]any{"file_path": filepath.Join(e.Project, "s.txt"), "content": "claude's\n"})))
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.Lua(nil, `vim.cmd("write"); vim.api.nvim_buf_set_lines(0, 0, 0, false, {"typed after :w"})`)
		e.Eventually(30*time.Second, "applied", func() bool { return e.ReadFile("s.txt") == "claude's\n" })
		e.Eventually(10*time.Second, "rescue message", func() bool { return e.NoteContaining("unsaved edits") })
		matches, _ := filepath.Glob(filepath.Join(e.Storage, "rescued", "*s.txt"))
		if len(matches) != 1 {
			t.Fatalf("rescued copies: %v", matches)
		}
		if got := read(t, matches[0]); got != "typed after :w\nclaude's\n" {
			t.Fatalf("rescued %q", got)
		}
	})
}

func TestDeletedOnDiskWhileOpen(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		path := e.WriteFile("gone.txt", "a\nb\n")
		e.newSession(readThenEdit(path, "b", "B"))
		p, buf := e.WaitProposal()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		focusBuf(e, buf)
		e.Cmd("write")
		e.Eventually(10*time.Second, "warned", func() bool { return e.NoteContaining("changed on disk") })
		if _, err := os.Stat(path); err == nil {
			t.Fatal("file re-created without the user's consent")
		}
		if len(e.Pending()) != 1 || e.Pending()[0].ID != p.ID {
			t.Fatal("request not pending after the refused save")
		}
	})
}

func TestSpawnIsLiteralAndSecretsStayOutOfTheLog(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		log := filepath.Join(t.TempDir(), "fake.log")
		// claude's stderr goes to the log: a key printed there must be redacted.
		script := writeScript(t, `{"stderr":"debug: using ANTHROPIC_API_KEY=sk-ant-api03-TOPSECRET0123456789"}`,
			`{"stderr":"retrying with key sk-ant-api03-TOPSECRET0123456789"}`, `{"say":"all done"}`, `{"result":true}`)
		secret := "sk-ant-api03-TOPSECRET0123456789"
		e := NewEnv(t, v, Options{Claude: fakeClaudePath, NoModel: true,
			Setup: map[string]any{"args": []string{"--x", "a b", `'q"`, "$(touch pwned)", "; touch pwned2"}},
			ClaudeEnv: map[string]string{"FAKECLAUDE_LOG": log, "FAKECLAUDE_SCRIPT": script, "ANTHROPIC_API_KEY": secret,
				"CLAUDE_CODE_OAUTH_TOKEN": "oauth-TOPSECRET-token"}})
		id := e.newSession("hello")
		e.Eventually(10*time.Second, "reply", func() bool { return strings.Contains(e.Transcript(id), "all done") })
		f, err := os.Open(log)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var argv []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var ev struct {
				T    string   `json:"t"`
				Argv []string `json:"argv"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.T == "argv" {
				argv = ev.Argv
			}
		}
		tail := strings.Join(argv[max(0, len(argv)-5):], "|")
		if tail != `--x|a b|'q"|$(touch pwned)|; touch pwned2` {
			t.Fatalf("argv tail %q", tail)
		}
		for _, p := range []string{"pwned", "pwned2"} {
			if _, err := os.Stat(filepath.Join(e.Project, p)); err == nil {
				t.Fatal("an argument ran through a shell")
			}
		}
		e.Cmd("ClaudeNova stop")
		// Barrier: claude's exit is logged after its stderr is read to the
		// end (the process is waited for once its stderr is copied).
		e.Eventually(30*time.Second, "claude's exit logged", func() bool { return strings.Contains(e.LogText(), `msg="claude exited"`) })
		l := e.LogText()
		if l == "" {
			t.Fatal("empty host log")
		}
		if strings.Contains(l, "TOPSECRET") {
			t.Fatal("a secret reached the host log")
		}
		if !strings.Contains(l, "claude stderr") {
			t.Fatal("claude's stderr was not logged at all (the redaction was not exercised)")
		}
	})
}
