package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Who wrote each line, kept in git: a proposal applied with one line
// amended, then `git commit -am` in a shell: the host writes a Git AI
// authorship note on the commit naming Claude's line and the amended line
// as the user's, with the tool, the session and the model. After a restart
// with the live record gone, blame shows the same signs from the note,
// and <CR> names the commit.
func TestProvenanceNoteOnCommitThenBlameFromIt(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		f := e.WriteFile("f.txt", "one\ntwo\nthree\nfour\nfive\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "config", "user.email", "ada@example.com")
		e.gitIn(e.Project, "config", "user.name", "Ada")
		e.gitIn(e.Project, "add", "f.txt")
		e.gitIn(e.Project, "commit", "-qm", "init")
		id := e.newSession(Seq(Step("Read", map[string]any{"file_path": f}),
			Step("Edit", map[string]any{"file_path": f, "old_string": "two\nthree", "new_string": "TWO\nTHREE"})))
		_, buf := e.WaitProposal()
		e.SetLineAndWrite(buf, 3, "THREE, amended")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		e.WaitIdle(id)
		var info struct {
			ClaudeID string `msgpack:"claude_id"`
			Model    string `msgpack:"model"`
		}
		e.Lua(&info, `for _, s in ipairs(require('claudenova').sessions()) do if s.id == ... then return s end end`, id)
		// The user commits in a shell (gitIn names the author "t").
		e.gitIn(e.Project, "commit", "-qam", "louder")
		sha := e.gitIn(e.Project, "rev-parse", "HEAD")
		var note string
		e.Eventually(10*time.Second, "the note on HEAD", func() bool {
			cmd := exec.Command("git", "notes", "--ref=refs/notes/ai", "show", "HEAD")
			cmd.Dir, cmd.Env = e.Project, append(os.Environ(), "HOME="+e.Home, "GIT_CONFIG_NOSYSTEM=1")
			out, err := cmd.Output()
			note = string(out)
			return err == nil
		})
		head, meta, ok := strings.Cut(note, "\n---\n")
		if !ok {
			t.Fatalf("note:\n%s", note)
		}
		lines := strings.Split(head, "\n")
		if len(lines) != 3 || lines[0] != "f.txt" || !strings.HasSuffix(lines[1], " 2") && !strings.HasSuffix(lines[2], " 2") {
			t.Fatalf("attestations (Claude's line 2, the amended line 3 the user's):\n%s", head)
		}
		for _, l := range lines[1:] {
			if strings.HasSuffix(l, " 3") && !strings.HasPrefix(l, "  h_") {
				t.Fatalf("the amended line is Claude's:\n%s", head)
			}
		}
		for _, want := range []string{`"schema_version": "authorship/3.0.0"`, `"base_commit_sha": "` + sha + `"`,
			`"tool": "claude"`, `"id": "` + info.ClaudeID + `"`, `"model": "` + info.Model + `"`, `"author": "t <t@example.com>"`} {
			if !strings.Contains(meta, want) {
				t.Fatalf("metadata lacks %s:\n%s", want, note)
			}
		}
		if info.ClaudeID == "" || info.Model == "" {
			t.Fatalf("session %+v", info)
		}
		e.Eventually(5*time.Second, "told", func() bool {
			return e.NoteContaining(":ClaudeNova provenance shows " + sha[:7] + "'s note: 1 line by Claude in 1 file, 1 amended by you")
		})
		// The note as a person reads it.
		e.Cmd("edit " + f)
		e.Cmd("ClaudeNova provenance")
		var view []string
		e.Lua(&view, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		text := strings.Join(view, "\n")
		if !strings.Contains(text, "f.txt\n  Claude  lines 2  (1 line; prompt 1") || !strings.Contains(text, "  amended by you  lines 3  (1 line") {
			t.Fatalf("provenance view:\n%s", text)
		}
		e.Input("q")

		e.Quit()
		// The live record is gone (another machine, a fresh clone): what
		// is left is git.
		if err := os.RemoveAll(filepath.Join(e.Storage, "review")); err != nil {
			t.Fatal(err)
		}
		e2 := NewEnv(t, v, Options{Again: e})
		e2.Cmd("edit " + f)
		e2.Cmd("ClaudeNova blame")
		e2.waitBlame(0, "ycayy")
		e2.cursorTo(2)
		e2.Input("<CR>")
		float := e2.floatText()
		for _, want := range []string{"Commit: " + sha[:7], "Model: " + info.Model, "Claude session: " + info.ClaudeID, "Prompt 1:"} {
			if !strings.Contains(float, want) {
				t.Fatalf("float lacks %q:\n%s", want, float)
			}
		}
	})
}
