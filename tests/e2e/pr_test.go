package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeGH is a gh stand-in (a real gh cannot reach a forge here): it
// records its arguments, one per line, each call after a line "--", in
// log; `gh auth status` fails while the file named by noauth exists;
// `gh pr create` prints a pull request's URL.
const fakeGH = `#!/bin/sh
{ echo --; for a in "$@"; do printf '%s\n' "$a"; done; } >> "$FAKE_GH_LOG"
case "$1" in
auth) [ -e "$FAKE_GH_NOAUTH" ] && { echo "You are not logged into any GitHub hosts." >&2; exit 1; }; exit 0 ;;
pr) echo "https://forge.invalid/o/r/pull/7" ;;
esac
`

// :ClaudeNova pr against a bare repository as the remote and a gh
// stand-in: the drafted message in a buffer, nothing pushed before :w;
// :w commits the worktree's files with the edited message, pushes the
// branch and runs gh pr create with the title and body; the notes stay
// home (provenance.push off). Then: gh not logged in (the command to run
// is said), a remote that refuses the push (the commit kept, the refusal
// said), no remote, and a branch with nothing to commit.
func TestPullRequestFromWorktree(t *testing.T) {
	// said: a message shown, cut to the screen or not (:messages has it whole).
	said := func(e *Env, text string) bool {
		var msgs string
		e.Lua(&msgs, "return vim.fn.execute('messages')")
		return e.NoteContaining(text) || strings.Contains(msgs, text)
	}
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755); err != nil {
			t.Fatal(err)
		}
		ghLog, noAuth := filepath.Join(bin, "gh.log"), filepath.Join(bin, "noauth")
		e := NewEnv(t, v, Options{
			NvimEnv:   []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FAKE_GH_LOG=" + ghLog, "FAKE_GH_NOAUTH=" + noAuth},
			HomeFiles: map[string]string{".gitconfig": "[user]\n\tname = Ada\n\temail = ada@example.com\n"},
		})
		bare := filepath.Join(t.TempDir(), "remote.git")
		e.gitIn(filepath.Dir(bare), "init", "-q", "--bare", bare)
		e.WriteFile("a.txt", "committed\n")
		e.gitIn(e.Project, "init", "-q", "-b", "main")
		e.gitIn(e.Project, "add", "a.txt")
		e.gitIn(e.Project, "commit", "-qm", "init")
		e.gitIn(e.Project, "remote", "add", "origin", bare)
		e.gitIn(e.Project, "push", "-q", "-u", "origin", "main")

		id := e.newSession("--worktree=fix-login " + Seq(
			Step("Edit", map[string]any{"file_path": "a.txt", "old_string": "committed", "new_string": "fixed"}),
			Step("Write", map[string]any{"file_path": "new.txt", "content": "one\n"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "fix-login")
		e.saveInWorktree(wt, [2]string{"a.txt", "fixed\n"}, [2]string{"new.txt", "one\n"})
		e.WaitIdle(id)

		// draft changes a.txt in the worktree (text "": leaves it), runs
		// cmd and waits for the message buffer.
		draft := func(text, cmd string) {
			t.Helper()
			if text != "" {
				if err := os.WriteFile(filepath.Join(wt, "a.txt"), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e.Cmd(cmd)
			e.Eventually(20*time.Second, "the draft of "+cmd, func() bool { return e.curBufName() == "claudenova://pr/worktree-fix-login" })
		}
		remoteHas := func(ref string) bool {
			return exec.Command("git", "-C", bare, "rev-parse", "-q", "--verify", ref).Run() == nil
		}
		draft("", "ClaudeNova pr")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		text := strings.Join(lines, "\n")
		for _, want := range []string{"Prompts:", "- a.txt", "- new.txt", "# :w commits the 2 uncommitted files below", "pushes the branch to origin", "into main with gh"} {
			if !strings.Contains(text, want) {
				t.Fatalf("the draft lacks %q:\n%s", want, text)
			}
		}
		if remoteHas("refs/heads/worktree-fix-login") {
			t.Fatal("pushed before :w")
		}
		e.Lua(nil, `vim.api.nvim_buf_set_lines(0, 0, 1, false, { "Fix the login" })`)
		e.Cmd("write")
		e.Eventually(60*time.Second, "the pull request opened", func() bool {
			return said(e, "opened the pull request https://forge.invalid/o/r/pull/7")
		})
		if !remoteHas("refs/heads/worktree-fix-login") {
			t.Fatal("the branch is not on the remote")
		}
		subject := e.gitIn(bare, "log", "-1", "--format=%s%n%an", "refs/heads/worktree-fix-login")
		if subject != "Fix the login\nAda" {
			t.Fatalf("the pushed commit: %q", subject)
		}
		if got := e.gitIn(bare, "show", "refs/heads/worktree-fix-login:a.txt"); got != "fixed" {
			t.Fatalf("the pushed a.txt: %q", got)
		}
		if remoteHas("refs/notes/ai") {
			t.Fatal("the authorship notes were pushed without provenance.push")
		}
		// The commit has its authorship note here (Claude's lines), as any
		// commit of the user's: it stays home.
		first := e.gitIn(wt, "rev-parse", "HEAD")
		e.Eventually(20*time.Second, "the commit's note", func() bool {
			return exec.Command("git", "-C", wt, "notes", "--ref=ai", "show", first).Run() == nil
		})
		b, _ := os.ReadFile(ghLog)
		calls := strings.Split(strings.TrimPrefix(string(b), "--\n"), "--\n")
		if len(calls) != 2 || calls[0] != "auth\nstatus\n" ||
			!strings.HasPrefix(calls[1], "pr\ncreate\n--head\nworktree-fix-login\n--title\nFix the login\n--body\nPrompts:\n") ||
			!strings.HasSuffix(calls[1], "--base\nmain\n") {
			t.Fatalf("gh was run as:\n%s", b)
		}
		if st := e.gitIn(wt, "status", "--porcelain"); st != "" {
			t.Fatalf("the worktree still has uncommitted work: %q", st)
		}

		// gh not logged in: pushed all the same, the command to run said;
		// with provenance.push the notes go too.
		e.Lua(nil, `local c = vim.deepcopy(require('claudenova.setup.config').get())
			c.provenance.push = true
			require('claudenova').setup(c)`)
		if err := os.WriteFile(noAuth, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		draft("fixed again\n", "ClaudeNova pr fix-login")
		e.Cmd("write")
		e.Eventually(60*time.Second, "the command to run", func() bool {
			return said(e, "pushed worktree-fix-login to origin with the authorship notes; gh is not logged in (gh auth login): open the pull request with: gh pr create --head worktree-fix-login --fill --base main")
		})
		if err := exec.Command("git", "-C", bare, "notes", "--ref=ai", "show", first).Run(); err != nil {
			t.Fatalf("the first commit's note is not on the remote: %v", err)
		}
		if got := e.gitIn(bare, "show", "refs/heads/worktree-fix-login:a.txt"); got != "fixed again" {
			t.Fatalf("the second push: %q", got)
		}

		// A remote that refuses the push: the commit stays, the refusal is said.
		hook := filepath.Join(bare, "hooks", "pre-receive")
		if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'protected: no pushes today' >&2\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		draft("refused\n", "ClaudeNova pr")
		e.Cmd("write")
		e.Eventually(60*time.Second, "the refusal", func() bool {
			return said(e, "the push to origin was refused") && said(e, "protected: no pushes today")
		})
		if got := e.gitIn(wt, "show", "HEAD:a.txt"); got != "refused" {
			t.Fatalf("the refused commit was not kept: %q", got)
		}

		// Closing the draft without :w commits nothing.
		draft("not committed\n", "ClaudeNova pr")
		e.Cmd("bwipeout!")
		e.Eventually(10*time.Second, "cancelled", func() bool { return said(e, "pull request of worktree-fix-login cancelled") })
		if st := e.gitIn(wt, "status", "--porcelain"); st != "M a.txt" {
			t.Fatalf("a cancelled draft changed the worktree: %q", st)
		}

		// No remote: said, nothing else tried.
		e.gitIn(e.Project, "remote", "remove", "origin")
		draft("", "ClaudeNova pr")
		e.Cmd("write")
		e.Eventually(60*time.Second, "no remote", func() bool { return said(e, "not pushed: this repository has no remote") })

		// A branch with nothing to commit and no commit: no draft.
		empty := e.newSession("--worktree=nothing hello")
		e.WaitIdle(empty)
		err := e.CmdErr("ClaudeNova pr")
		if err == nil || !strings.Contains(err.Error(), "worktree-nothing has nothing to commit and no commit since it started") {
			e.Eventually(10*time.Second, "nothing to commit said", func() bool {
				return said(e, "worktree-nothing has nothing to commit and no commit since it started")
			})
		}
	})
}
