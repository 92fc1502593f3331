package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// noteOf is the authorship note of rev in dir ("" while there is none).
func (e *Env) noteOf(dir, rev string) string {
	cmd := exec.Command("git", "notes", "--ref=refs/notes/ai", "show", rev)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+e.Home, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// notedRepo makes the project a repository with f.txt committed.
func (e *Env) notedRepo() string {
	f := e.WriteFile("f.txt", "one\ntwo\nthree\n")
	e.gitIn(e.Project, "init", "-q")
	e.gitIn(e.Project, "add", "f.txt")
	e.gitIn(e.Project, "commit", "-qm", "init")
	return f
}

// claudeEdits runs a session whose Edit of f replaces old with new,
// applied as proposed, and waits until it is idle.
func (e *Env) claudeEdits(f, old, new string) {
	e.t.Helper()
	id := e.newSession(Seq(Step("Read", map[string]any{"file_path": f}),
		Step("Edit", map[string]any{"file_path": f, "old_string": old, "new_string": new})))
	_, buf := e.WaitProposal()
	e.WaitGraceOver()
	e.Lua(nil, "vim.api.nvim_buf_call(..., function() vim.cmd('write') end)", buf)
	e.Eventually(30*time.Second, "the edit applied", func() bool {
		b, _ := os.ReadFile(f)
		return strings.Contains(string(b), new)
	})
	e.WaitIdle(id)
}

var standardKey = regexp.MustCompile(`^  (s_[0-9a-f]{14}::t_[0-9a-f]{14}|h_[0-9a-f]{14}) [0-9,-]+$`)

// The note follows the standard as amended and says only what the user
// chose to share: by default a prompt is named by reference (session id,
// prompt number), never by its text, which `provenance push` would
// publish; with provenance.prompts = "text" its text is in the note.
// git_ai_version is a string, the keys are s_…::t_… (in sessions).
func TestProvenanceNoteSharesPromptTextOnlyWhenAsked(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		f := e.notedRepo()
		e.claudeEdits(f, "two", "TWO hunter2")
		e.gitIn(e.Project, "commit", "-qam", "first")
		var note string
		e.Eventually(10*time.Second, "the note on HEAD", func() bool { note = e.noteOf(e.Project, "HEAD"); return note != "" })
		if strings.Contains(note, "hunter2") {
			t.Fatalf("the prompt's text is in the note (provenance.prompts defaults to \"ref\"):\n%s", note)
		}
		head, meta, _ := strings.Cut(note, "\n---\n")
		lines := strings.Split(head, "\n")
		if len(lines) != 2 || lines[0] != "f.txt" || !standardKey.MatchString(lines[1]) || !strings.HasSuffix(lines[1], " 2") {
			t.Fatalf("attestations are not the standard's (s_<14 hex>::t_<14 hex>):\n%s", note)
		}
		session, _, _ := strings.Cut(strings.TrimSpace(lines[1]), "::")
		for _, want := range []string{`"git_ai_version": "claude-nova.nvim `, `"prompts": {}`, `"sessions": {`, `"` + session + `": {`, `"tool": "claude"`} {
			if !strings.Contains(meta, want) {
				t.Fatalf("metadata lacks %s:\n%s", want, note)
			}
		}
		// The user shares prompts' text from now on.
		e.Lua(nil, `local c = vim.deepcopy(require('claudenova.setup.config').get())
			c.provenance.prompts = "text"
			require('claudenova').setup(c)`)
		e.claudeEdits(f, "three", "THREE swordfish")
		e.gitIn(e.Project, "commit", "-qam", "second")
		e.Eventually(10*time.Second, "the second note", func() bool { note = e.noteOf(e.Project, "HEAD"); return note != "" })
		if !strings.Contains(note, "swordfish") || strings.Contains(note, "hunter2") {
			t.Fatalf("with prompts = \"text\" the second prompt's text (only) is in the note:\n%s", note)
		}
		// A bad value is refused where it is set.
		var msg string
		e.Lua(&msg, `local ok, err = pcall(require('claudenova').setup, { provenance = { prompts = "all" } }) return tostring(err)`)
		if !strings.Contains(msg, "option 'provenance.prompts' must be one of") {
			t.Fatalf("setup with prompts = \"all\": %s", msg)
		}
	})
}

// A notes ref git cannot read (it names a blob, not a notes tree): the
// commit gets no note and the user is told, once, with the fix to run;
// once it is run, the next commit gets its note.
func TestProvenanceUnreadableNotesRefIsTold(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		f := e.notedRepo()
		blob := e.gitIn(e.Project, "hash-object", "-w", f)
		e.gitIn(e.Project, "update-ref", "refs/notes/ai", blob)
		e.claudeEdits(f, "two", "TWO")
		e.gitIn(e.Project, "commit", "-qam", "first")
		// The line on screen begins with what failed; :messages has it
		// whole, the fix with it.
		fix := "Fix, in " + e.Project + ": git update-ref refs/notes/ai-unreadable refs/notes/ai && git update-ref -d refs/notes/ai"
		e.Eventually(10*time.Second, "told the notes cannot be read, with the fix", func() bool {
			var messages string
			e.Lua(&messages, "return vim.fn.execute('messages')")
			return e.NoteContaining("no authorship note on ") && strings.Contains(messages, "refs/notes/ai cannot be read (not a notes tree). "+fix)
		})
		e.WriteFile("f.txt", "one\nTWO\nthree\nmine\n")
		e.gitIn(e.Project, "commit", "-qam", "second")
		e.claudeEdits(f, "three", "THREE")
		e.gitIn(e.Project, "commit", "-qam", "third")
		// The host has looked at the third commit when HEAD's last seen is it:
		// then nothing more was told.
		e.gitIn(e.Project, "update-ref", "refs/notes/ai-unreadable", "refs/notes/ai")
		e.gitIn(e.Project, "update-ref", "-d", "refs/notes/ai")
		e.claudeEdits(f, "one", "ONE")
		e.gitIn(e.Project, "commit", "-qam", "fourth")
		e.Eventually(10*time.Second, "the note once fixed", func() bool { return e.noteOf(e.Project, "HEAD") != "" })
		n := 0
		for _, m := range e.Notes() {
			if strings.Contains(m, "no authorship note on ") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("told %d times: %q", n, e.Notes())
		}
	})
}

// An amend with no session running keeps its note: after a restart the
// host (started by any use: here the session list) watches the
// repositories sessions ran in, so `git commit --amend` in a shell gets
// the note of the commit it replaced. :checkhealth offers git's own way
// (notes.rewriteRef) until it is set.
func TestProvenanceAmendWithNoSessionKeepsTheNote(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		f := e.notedRepo()
		e.claudeEdits(f, "two", "TWO")
		e.gitIn(e.Project, "commit", "-qam", "first")
		var note string
		e.Eventually(10*time.Second, "the note on HEAD", func() bool { note = e.noteOf(e.Project, "HEAD"); return note != "" })
		e.Quit()

		e2 := NewEnv(t, v, Options{Again: e})
		e2.Cmd("edit " + f)
		e2.Cmd("ClaudeNova blame")
		var n int
		e2.Lua(&n, "return #require('claudenova').sessions()")
		if n != 0 {
			t.Fatalf("%d sessions after the restart", n)
		}
		e2.gitIn(e.Project, "commit", "-q", "--amend", "-m", "first, reworded")
		amended := e2.gitIn(e.Project, "rev-parse", "HEAD")
		e2.Eventually(10*time.Second, "the amended commit's note", func() bool { return e2.noteOf(e.Project, "HEAD") != "" })
		got := e2.noteOf(e.Project, "HEAD")
		head, _, _ := strings.Cut(got, "\n---\n")
		want, _, _ := strings.Cut(note, "\n---\n")
		if head != want || !strings.Contains(got, `"base_commit_sha": "`+amended+`"`) {
			t.Fatalf("the amended commit's note:\n%s\nwant the attestations:\n%s", got, want)
		}
		// :checkhealth offers notes.rewriteRef for the current repository.
		e2.Cmd("cd " + e.Project)
		e2.Cmd("checkhealth claudenova")
		var lines []string
		e2.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if text := strings.Join(lines, "\n"); !strings.Contains(text, "git config notes.rewriteRef refs/notes/ai") {
			t.Fatalf("health does not offer notes.rewriteRef:\n%s", text)
		}
		e2.Cmd("bwipeout")
		e2.gitIn(e.Project, "config", "notes.rewriteRef", "refs/notes/ai")
		e2.Cmd("checkhealth claudenova")
		e2.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if text := strings.Join(lines, "\n"); !strings.Contains(text, "notes.rewriteRef is refs/notes/ai") {
			t.Fatalf("health does not see notes.rewriteRef set:\n%s", text)
		}
	})
}

// A merge's amended lines are the user's and its merged lines the
// session's, as for any proposal, and blame says the same here, after a
// restart and in a fresh clone: a worktree session writes a file with
// blank lines and edits two others (t.txt gets a "}" beside its twin,
// which git blame aligns otherwise than the editor's diff: the record said
// lines 3-4 where a clone's git blame gives the commit lines 2-3); the
// user amends one line inside the merge proposal and commits in a shell.
func TestProvenanceMergeAmendmentAndOneAttributionEverywhere(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.WriteFile("g.txt", "x\n\ny\n")
		e.WriteFile("t.txt", "}\n}\nb\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", ".")
		e.gitIn(e.Project, "commit", "-qm", "init")
		id := e.newSession("--worktree=notes " + Seq(
			Step("Write", map[string]any{"file_path": "m.txt", "content": "alpha\n\nbeta\n\ngamma\n"}),
			Step("Edit", map[string]any{"file_path": "g.txt", "old_string": "y", "new_string": "y\n\nz"}),
			Step("Edit", map[string]any{"file_path": "t.txt", "old_string": "b", "new_string": "\n}\nb\n"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "notes")
		e.saveEach(wt, fileText{"m.txt", "alpha\n\nbeta\n\ngamma\n"}, fileText{"g.txt", "x\n\ny\n\nz\n"}, fileText{"t.txt", "}\n}\n\n}\nb\n\n"})
		e.WaitIdle(id)
		e.Cmd("ClaudeNova stop")
		e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })

		e.mergeThenProposals()
		for _, want := range []struct{ file, text string }{{"g.txt", "x\n\ny\n\nz\n"}, {"m.txt", "alpha\n\nbeta, mine\n\ngamma\n"}, {"t.txt", "}\n}\n\n}\nb\n\n"}} {
			_, buf := e.mergeProposal(want.file)
			if want.file == "m.txt" { // the user amends Claude's "beta" in the merge proposal
				e.Lua(nil, `vim.api.nvim_buf_set_lines(..., 2, 3, false, { "beta, mine" })`, buf)
			}
			if want.file == "t.txt" {
				e.ScriptUI(nil, nil) // the removal offer that follows the last waits for an answer
			}
			focusBuf(e, buf)
			e.Cmd("write")
			e.Eventually(10*time.Second, want.file+" applied", func() bool { return e.ReadFile(want.file) == want.text })
		}
		e.gitIn(e.Project, "add", "m.txt", "g.txt", "t.txt")
		e.gitIn(e.Project, "commit", "-qm", "merged")
		var note string
		e.Eventually(10*time.Second, "the note on HEAD", func() bool { note = e.noteOf(e.Project, "HEAD"); return note != "" })
		head, _, _ := strings.Cut(note, "\n---\n")
		var amended string
		for _, l := range strings.Split(head, "\n") {
			if strings.HasPrefix(l, "  h_") {
				amended = l[strings.LastIndex(l, " ")+1:]
			}
		}
		if amended != "3" || !strings.Contains(head, "m.txt\n") || !strings.Contains(head, "g.txt\n") {
			t.Fatalf("the note (the line amended in the merge proposal, m.txt:3, the user's):\n%s", note)
		}
		want := map[string]string{"m.txt": "ccacc", "g.txt": "yyycc", "t.txt": "yccyyc"}
		blame := func(e *Env, dir string) {
			t.Helper()
			for _, rel := range []string{"m.txt", "g.txt", "t.txt"} {
				e.Cmd("edit " + dir + "/" + rel)
				e.Cmd("ClaudeNova blame")
				e.waitBlame(0, want[rel])
				e.Cmd("ClaudeNova blame")
			}
		}
		blame(e, e.Project)
		e.Quit()

		clone := t.TempDir() + "/clone"
		e.gitIn(t.TempDir(), "clone", "-q", e.Project, clone)
		e.gitIn(clone, "fetch", "-q", "origin", "refs/notes/ai:refs/notes/ai")
		e2 := NewEnv(t, v, Options{Again: e})
		blame(e2, e.Project) // after a restart, the live record kept
		blame(e2, clone)     // a fresh clone: only git
	})
}
