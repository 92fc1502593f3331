package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// worktreeSetupOpts reconfigures the running plugin with worktree options
// w (the test's other options kept).
func (e *Env) worktreeSetupOpts(w map[string]any) {
	e.t.Helper()
	e.Lua(nil, `local c = vim.deepcopy(require('claudenova.setup.config').get())
		c.worktree = ...
		require('claudenova').setup(c)`, w)
}

// taskOf is session id's task of the given type, as the front end knows it.
func (e *Env) taskOf(id int, typ string) (task struct {
	ID     string `msgpack:"id"`
	Status string `msgpack:"status"`
	Desc   string `msgpack:"description"`
}) {
	e.Lua(&task, `for _, t in ipairs(require('claudenova').tasks(...)) do
		if t.type == select(2, ...) then return t end end return vim.empty_dict()`, id, typ)
	return task
}

// worktree.copy and worktree.setup: a new worktree gets the listed
// untracked file (not .env, which is not listed) and the setup's command
// runs in it, both shown as the session's setup task with its output, and
// only then does the first prompt reach Claude (its Reads see both files).
// A setup that fails stops the session with the reason, its prompt never
// sent; one that runs past its timeout, or that the user stops from its
// task, ends the session the same way.
func TestWorktreeSetupBeforeFirstPrompt(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{Setup: map[string]any{"worktree": map[string]any{
			"copy":  []string{".env.local"},
			"setup": []string{`echo "installing from $CLAUDENOVA_ROOT"; printf 'installed deps\n' > deps.txt`},
		}}})
		e.WriteFile("a.txt", "committed\n")
		e.WriteFile(".gitignore", ".env*\ndeps.txt\n")
		e.gitIn(e.Project, "init", "-q")
		e.gitIn(e.Project, "add", "a.txt", ".gitignore")
		e.gitIn(e.Project, "commit", "-qm", "init")
		e.WriteFile(".env.local", "API_URL=local\n")
		e.WriteFile(".env", "SECRET=never-copied\n")

		id := e.newSession("--worktree=setup-ok " + Seq(
			Step("Read", map[string]any{"file_path": ".env.local"}),
			Step("Read", map[string]any{"file_path": "deps.txt"})))
		wt := filepath.Join(e.Project, ".claude", "worktrees", "setup-ok")
		e.WaitIdle(id)
		var seen []string
		for _, r := range e.Model.ToolResults() {
			seen = append(seen, r.Content)
		}
		all := strings.Join(seen, "\n")
		if !strings.Contains(all, "API_URL=local") || !strings.Contains(all, "installed deps") {
			t.Fatalf("the first prompt's Reads did not see the set-up worktree:\n%s", all)
		}
		if _, err := os.Stat(filepath.Join(wt, ".env")); err == nil {
			t.Fatal(".env was copied into the worktree without being listed")
		}
		task := e.taskOf(id, "setup")
		if task.Status != "completed" || task.Desc != "worktree-setup-ok" {
			t.Fatalf("the setup task: %+v", task)
		}
		var out string
		e.Lua(&out, "return require('claudenova').task_output(...)", task.ID)
		for _, want := range []string{"copied .env.local", "$ echo", "installing from " + e.Project} {
			if !strings.Contains(out, want) {
				t.Fatalf("the setup task's output lacks %q:\n%s", want, out)
			}
		}
		tr := e.Transcript(id)
		setUp, prompt := strings.Index(tr, "Worktree set up: copied .env.local; ran 1 command."), strings.Index(tr, "## You")
		if setUp < 0 || prompt < setUp {
			t.Fatalf("the transcript does not show the setup before the prompt:\n%s", tr)
		}

		// A setup that fails: the session stops, the reason said, the
		// prompt never sent.
		e.worktreeSetupOpts(map[string]any{"setup": []string{"echo 'npm ERR! missing lockfile' >&2; exit 3"}})
		failed := e.newSession("--worktree=setup-fails never sent to the model")
		e.Eventually(60*time.Second, "the failed setup's session exited", func() bool {
			st, _ := e.SessionState(failed)
			return st == "exited"
		})
		if tr := e.Transcript(failed); !strings.Contains(tr, `the worktree's setup failed: "echo 'npm ERR! missing lockfile' >&2; exit 3": exit status 3`) {
			t.Fatalf("no reason told:\n%s", tr)
		}
		if task := e.taskOf(failed, "setup"); task.Status != "failed" {
			t.Fatalf("the failed setup's task: %+v", task)
		}
		e.Lua(&out, "return require('claudenova').task_output(...)", e.taskOf(failed, "setup").ID)
		if !strings.Contains(out, "npm ERR! missing lockfile") {
			t.Fatalf("the failed setup's output: %q", out)
		}
		for _, text := range e.Model.RequestTexts() {
			if strings.Contains(text, "never sent to the model") {
				t.Fatal("the prompt of a session whose setup failed reached the model")
			}
		}

		// A setup that runs past worktree.setup_timeout is ended.
		e.worktreeSetupOpts(map[string]any{"setup": []string{"sleep 600"}, "setup_timeout": 1})
		late := e.newSession("--worktree=setup-late never sent either")
		e.Eventually(60*time.Second, "the late setup's session exited", func() bool {
			st, _ := e.SessionState(late)
			return st == "exited" && e.taskOf(late, "setup").Status == "failed"
		})
		if tr := e.Transcript(late); !strings.Contains(tr, "the worktree's setup failed: it ran past worktree.setup_timeout (1s)") {
			t.Fatalf("no timeout told:\n%s", tr)
		}

		// A setup that hangs is stopped from its task.
		e.worktreeSetupOpts(map[string]any{"setup": []string{"sleep 600"}})
		hung := e.newSession("--worktree=setup-hangs also never sent")
		e.Eventually(60*time.Second, "the hanging setup's task", func() bool { return e.taskOf(hung, "setup").Status == "running" })
		e.Lua(nil, "return require('claudenova.channel.host').request('stop_task', { id = ... })", e.taskOf(hung, "setup").ID)
		e.Eventually(60*time.Second, "the hung setup's session exited", func() bool {
			st, _ := e.SessionState(hung)
			return st == "exited" && e.taskOf(hung, "setup").Status == "stopped"
		})
		if tr := e.Transcript(hung); !strings.Contains(tr, "the worktree's setup failed: stopped by the user") {
			t.Fatalf("no reason told:\n%s", tr)
		}
	})
}
