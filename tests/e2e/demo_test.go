package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

// demoFile reads a file of make demo's (scripts/demo).
func demoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "scripts", "demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tourSteps are the numbered steps of the tour's script: the title of
// each "Step N/M · Title: …" a step says, in order.
func tourSteps(t *testing.T, steps []fakemodel.Step) []string {
	t.Helper()
	re := regexp.MustCompile(`^Step (\d+)/(\d+) · ([^:]+):`)
	var titles []string
	for _, st := range steps {
		m := re.FindStringSubmatch(st.Say)
		if m == nil {
			continue
		}
		if m[1] != itoa(len(titles)+1) {
			t.Fatalf("step %q out of order", st.Say)
		}
		titles = append(titles, m[3])
	}
	if len(titles) == 0 {
		t.Fatal("the tour's script numbers no step")
	}
	return titles
}

// demoEnv is make demo's Neovim: its init, its project, its scripted model
// (the tour for DEMO, the help reply for anything else).
func demoEnv(t *testing.T, v nvimVersion) (*Env, []fakemodel.Step) {
	t.Helper()
	steps, err := fakemodel.ParseScript([]byte(demoFile(t, "script.json")))
	if err != nil {
		t.Fatalf("scripts/demo/script.json: %v", err)
	}
	// The model is make demo's: started here, as demo.sh starts it, so that
	// its address is in the environment the demo's init reads.
	named, err := fakemodel.ParseScripts([]byte(demoFile(t, "branches.json")))
	if err != nil {
		t.Fatalf("scripts/demo/branches.json: %v", err)
	}
	model := fakemodel.New(fakemodel.Options{DefaultScript: steps, Scripts: named, PlainReply: strings.TrimSpace(demoFile(t, "reply.md"))})
	if _, err := model.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(model.Close)
	e := NewEnv(t, v, Options{
		Init:    filepath.Join(root, "scripts", "demo", "init.lua"),
		NoModel: true,
		Files:   map[string]string{"greet.py": demoFile(t, "greet.py"), "README.demo.md": demoFile(t, "README.demo.md")},
		NvimEnv: []string{"CLAUDENOVA_DEMO_ROOT=" + root, "CLAUDE_BIN=" + claudeBin(t),
			"CLAUDENOVA_DEMO_MODEL=" + model.URL(), "CLAUDENOVA_DEMO_HOME=" + t.TempDir()},
	})
	e.Model = model
	// A git repository with a first commit, as demo.sh makes it.
	e.gitIn(e.Project, "init", "-q")
	e.gitIn(e.Project, "add", ".")
	e.gitIn(e.Project, "commit", "-qm", "the demo project")
	return e, steps
}

// make demo's second part (:DemoBranches): two attempts on one prompt,
// each in its worktree with edits accepted, the checkout untouched; the
// comparison; m on one opens its files view, ,a applies greet.py while it
// is open in a window (which shows the new text); :DemoCommit commits it
// and :ClaudeNova provenance shows the note naming Claude's lines. What
// the tour changed before (greet.py edited) is committed first, so the
// attempts start from it.
func TestDemoBranches(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _ := demoEnv(t, v)
		e.Eventually(10*time.Second, "the guide", func() bool { return strings.Contains(e.guideText(), "Press <CR>") })
		// As the tour would have left it: greet.py changed, not committed.
		e.WriteFile("greet.py", strings.Replace(demoFile(t, "greet.py"), `greet("world")`, `greet("tour")`, 1))
		e.Cmd("DemoBranches")
		if got := e.gitIn(e.Project, "log", "-1", "--format=%s"); got != "what the tour changed" {
			t.Fatalf("the tour's changes were not committed first: %q", got)
		}
		e.Eventually(10*time.Second, "the guide's second part", func() bool { return strings.Contains(e.guideText(), "Part 2 · Branches") })
		e.Eventually(90*time.Second, "both attempts done", func() bool {
			s1, _ := e.SessionState(1)
			s2, _ := e.SessionState(2)
			return s1 == "idle" && s2 == "idle" && strings.Contains(e.Transcript(1), "Done: a welcome()") && strings.Contains(e.Transcript(2), "Done: a welcome()")
		})
		if strings.Contains(e.ReadFile("greet.py"), "welcome") {
			t.Fatal("an attempt wrote in the checkout")
		}
		var greetWin int
		e.Lua(&greetWin, `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
			if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):match("greet%.py$") then return w end end return 0`)
		if greetWin == 0 {
			t.Fatal("greet.py is not open in a window")
		}

		e.Cmd("ClaudeNova compare")
		var lines []string
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		if len(lines) < 7 || !strings.HasPrefix(lines[2], "add-welcome #1 · session 1 idle") || !strings.HasPrefix(lines[3], "add-welcome #2 · session 2 idle") ||
			!strings.HasPrefix(lines[6], "greet.py  +5 −0") {
			t.Fatalf("the comparison:\n%s", strings.Join(lines, "\n"))
		}
		e.cursorTo(4) // the second attempt
		e.Input("m")
		list := e.filesList()
		if !strings.HasPrefix(list[0], "⎇ worktree-add-a-welcome-2 → your checkout · 1 file") {
			t.Fatalf("the merge's files view:\n%s", strings.Join(list, "\n"))
		}
		e.ScriptUI([]string{"Keep "}, nil) // the offer to remove the worktree: kept
		e.Input(",a")
		e.Eventually(20*time.Second, "greet.py merged, its window following", func() bool {
			var text []string
			e.Lua(&text, "return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(...), 0, -1, false)", greetWin)
			return strings.Contains(e.ReadFile("greet.py"), "add-a-welcome-2: welcome someone") &&
				strings.Contains(strings.Join(text, "\n"), "add-a-welcome-2: welcome someone")
		})
		if !strings.Contains(e.ReadFile("greet.py"), `greet("tour")`) {
			t.Fatalf("the merge lost the checkout's own change:\n%s", e.ReadFile("greet.py"))
		}
		e.Cmd("tabclose")
		e.Cmd("DemoCommit")
		e.Eventually(10*time.Second, "committed", func() bool { return e.NoteContaining("committed ") && e.NoteContaining("now :ClaudeNova provenance") })
		e.Eventually(30*time.Second, "the commit's authorship note", func() bool {
			return exec.Command("git", "-C", e.Project, "notes", "--ref=ai", "show", "HEAD").Run() == nil
		})
		e.Cmd("ClaudeNova provenance")
		e.Lua(&lines, "return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
		note := strings.Join(lines, "\n")
		if !strings.Contains(note, "greet.py") || !strings.Contains(note, "Claude  lines 1-5") {
			t.Fatalf("the provenance view:\n%s", note)
		}
	})
}

// README.demo.md names every step of the tour, in order, as the scripted
// model numbers them.
func TestDemoReadmeNamesEveryStep(t *testing.T) {
	steps, err := fakemodel.ParseScript([]byte(demoFile(t, "script.json")))
	if err != nil {
		t.Fatal(err)
	}
	readme := demoFile(t, "README.demo.md")
	at := 0
	for i, title := range tourSteps(t, steps) {
		want := itoa(i+1) + ". **" + title + "**"
		j := strings.Index(readme[at:], want)
		if j < 0 {
			t.Fatalf("README.demo.md does not name step %d as %q (in order)", i+1, want)
		}
		at += j
	}
	for _, want := range []string{"SEQ [[", "{{cwd}}", `["say", {"text"`, "DEMO", ":ClaudeNova changes", ":ClaudeNova rewind"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.demo.md lacks %q", want)
		}
	}
}

// make demo's Neovim through the whole tour as a person takes it: a hunk
// put back with a note, a new file, a command, two questions, a subagent's
// command and a background one, a plan sent back (it comes again, revised,
// and nothing is edited) then approved, the planned edit, the editor's
// diagnostics as Claude's tool; then a prompt of the user's own gets the
// help reply, not the tour again.
func TestDemoTourThenAFreePrompt(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _ := demoEnv(t, v)
		e.ScriptUI([]string{"pytest", "[ ] lint", "[ ] tests", "Done"}, []string{"keep world: a test prints it", "also test farewell"})
		// The guide welcomes; the tour starts when the user says so (<CR>).
		e.Eventually(10*time.Second, "the guide", func() bool { return strings.Contains(e.guideText(), "Press <CR>") })
		e.Input("<CR>")
		var sid int
		e.Eventually(30*time.Second, "the tour's session", func() bool {
			e.Lua(&sid, "return require('claudenova.store.state').current or 0")
			return sid != 0
		})
		// 1: the Edit, its print line put back with a note, then :w.
		p, buf := e.WaitProposal()
		if p.Target != "greet.py" {
			t.Fatalf("first proposal %+v", p)
		}
		e.WaitGraceOver()
		focusBuf(e, buf)
		e.Type("G", ",", "r", ",", "c")
		e.Eventually(5*time.Second, "the note", func() bool {
			var tally map[string]int
			e.Lua(&tally, "return require('claudenova.surfaces.hunks').tally(require('claudenova.surfaces.proposal').open_[...])", p.ID)
			return tally["notes"] == 1 && tally["rejected"] == 1
		})
		e.Cmd("write")
		e.WaitToolResult("toolu_s1")
		if got := e.ReadFile("greet.py"); !strings.Contains(got, `print(greet("world"))`) || !strings.Contains(got, "def greet(name: str) -> str:") {
			t.Fatalf("greet.py after the review:\n%s", got)
		}
		e.Eventually(20*time.Second, "Claude told of the note", func() bool {
			for _, txt := range e.Model.RequestTexts() {
				if strings.Contains(txt, "keep world: a test prints it") && strings.Contains(txt, "rejected these hunks") {
					return true
				}
			}
			return false
		})
		// 2: the Write.
		_, buf = e.WaitProposalOf("toolu_s2")
		e.WaitGraceOver()
		focusBuf(e, buf)
		e.Cmd("write")
		e.WaitToolResult("toolu_s2")
		// 3: the command, in the panel.
		e.Eventually(30*time.Second, "the panel", func() bool { return e.PanelID() != "" })
		e.WaitGraceOver()
		e.Input("a")
		e.WaitToolResult("toolu_s3")
		// 4: the questions answer themselves (the scripted picker).
		if r := e.WaitToolResult("toolu_s4"); r.IsError || !strings.Contains(r.Content, "lint, tests") {
			t.Fatalf("the questions: %+v", r)
		}
		// 5, 6: the subagent's command, then the background one.
		e.Eventually(60*time.Second, "both commands allowed", func() bool {
			for _, r := range e.Pending() {
				if r.Surface == "panel" {
					e.Lua(nil, "require('claudenova').decide(..., 'allow')", r.ID)
				}
			}
			return e.fileExists("count.txt") && e.toolResultContaining("Command running in background")
		})
		// 7: the plan, sent back once: it comes again, revised; nothing edited.
		var plan Pending
		e.Eventually(60*time.Second, "the plan", func() bool {
			for _, r := range e.Pending() {
				if r.Surface == "plan" {
					plan = r
					return true
				}
			}
			return false
		})
		var pbuf int
		e.Eventually(10*time.Second, "plan buffer", func() bool { pbuf = e.PlanBuf(plan.ID); return pbuf != 0 })
		e.WaitGraceOver()
		focusBuf(e, pbuf)
		e.Type(",", "n")
		var again Pending
		e.Eventually(60*time.Second, "the revised plan", func() bool {
			for _, r := range e.Pending() {
				if r.Surface == "plan" && r.ID != plan.ID {
					again = r
					return true
				}
			}
			return false
		})
		if strings.Contains(e.ReadFile("greet.py"), "farewell") {
			t.Fatal("the planned edit was made before the plan was approved")
		}
		e.Eventually(10*time.Second, "revised plan buffer", func() bool { pbuf = e.PlanBuf(again.ID); return pbuf != 0 })
		if got := e.bufLines(pbuf); !strings.Contains(got, "Revised after your feedback") || !strings.Contains(got, "also test farewell") {
			t.Fatalf("the plan that came again:\n%s", got)
		}
		e.WaitGraceOver()
		focusBuf(e, pbuf)
		e.Type(",", "a")
		// 8: the planned edit applies by itself (accept edits).
		e.Eventually(60*time.Second, "the planned edit", func() bool { return strings.Contains(e.ReadFile("greet.py"), "def farewell(name):") })
		e.Eventually(60*time.Second, "the closing words", func() bool { return strings.Contains(e.Transcript(sid), "That was the tour.") })
		e.Eventually(60*time.Second, "the background task's end noted", func() bool {
			return strings.Contains(e.Transcript(sid), `Noted: Background command "count to thirty" completed`)
		})
		e.WaitIdle(sid)
		// 9: the editor's diagnostics of greet.py (the demo's linter), read
		// without a prompt: the farewell the plan added has no docstring.
		if !e.toolResultContaining("a function without a docstring") {
			t.Errorf("the editor tool did not report the demo linter's diagnostic: %+v", e.Model.ToolResults())
		}
		// Step by step, the transcript says what each step shows.
		tr := e.Transcript(sid)
		for _, want := range []string{"Step 1/9 · An edit is a proposal", "Step 5/9 · A subagent", "Step 8/9 · The planned edit",
			"Step 9/9 · The editor as my tool", "nvim diagnostics greet.py"} {
			if !strings.Contains(tr, want) {
				t.Errorf("the transcript lacks %q", want)
			}
		}
		// A prompt of the user's own: the help reply, no tool call.
		tools := e.toolRequests()
		e.Cmd("ClaudeNova transcript")
		e.Type("i")
		e.WaitMode("i")
		e.Input("what can I do here?<C-s>")
		e.Eventually(60*time.Second, "the help reply", func() bool {
			return strings.Contains(e.Transcript(sid), "This is the demo's scripted model, not Claude")
		})
		e.WaitIdle(sid) // the turn is over: whatever it would call, it has
		if n := e.toolRequests(); n != tools {
			t.Fatalf("the free prompt made %d tool call(s): the tour again?", n-tools)
		}
		if got := e.Pending(); len(got) != 0 {
			t.Fatalf("pending after the free prompt: %+v", got)
		}
		if tr := e.Transcript(sid); strings.Count(tr, "Step 1/9") != 1 || !strings.Contains(tr, `SEQ [["Bash"`) {
			t.Fatalf("the help reply, or a replay:\n%s", tail(tr, 30))
		}
	})
}

// guideText is what make demo's tour guide shows in the current tab.
func (e *Env) guideText() string {
	var lines []string
	e.Lua(&lines, `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
			local b = vim.api.nvim_win_get_buf(w)
			if vim.b[b].claudenova_surface == 'guide' then return vim.api.nvim_buf_get_lines(b, 0, -1, false) end
		end
		return {}`)
	return strings.Join(lines, " ")
}

func (e *Env) fileExists(rel string) bool {
	_, err := os.Stat(filepath.Join(e.Project, rel))
	return err == nil
}

// toolResultContaining reports whether claude sent a tool result holding s.
func (e *Env) toolResultContaining(s string) bool {
	for _, r := range e.Model.ToolResults() {
		if strings.Contains(r.Content, s) {
			return true
		}
	}
	return false
}

// toolRequests counts the model's replies that called a tool.
func (e *Env) toolRequests() int {
	n := 0
	for _, r := range e.Model.RequestLog() {
		if r.Kind == "tool" {
			n++
		}
	}
	return n
}

// :DemoTour runs the tour again from the greet.py the demo shipped (the
// first tour changed it), in a session named for itself: the other
// session keeps its name, and the new tour's first step is a proposal, not
// an edit that no longer fits.
func TestDemoTourAgain(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e, _ := demoEnv(t, v)
		e.Eventually(10*time.Second, "the guide", func() bool { return strings.Contains(e.guideText(), "Press <CR>") })
		e.Input("<CR>")
		_, buf := e.WaitProposal()
		focusBuf(e, buf)
		e.Cmd("write")
		e.WaitToolResult("toolu_s1")
		e.Eventually(10*time.Second, "greet.py changed", func() bool { return strings.Contains(e.ReadFile("greet.py"), "def greet(name: str)") })
		var first int
		e.Lua(&first, "return require('claudenova.store.state').current")
		e.Cmd("DemoTour")
		var second int
		e.Lua(&second, "return require('claudenova.store.state').current")
		if second == first {
			t.Fatal("no new session")
		}
		if got := e.ReadFile("greet.py"); got != demoFile(t, "greet.py") {
			t.Fatalf("greet.py not reset:\n%s", got)
		}
		label := func(id int) string {
			var l string
			e.Lua(&l, "return require('claudenova.store.state').label(...)", id)
			return l
		}
		e.Eventually(10*time.Second, "the new tour named", func() bool { return strings.Contains(label(second), "the tour, again") })
		if l := label(first); !strings.Contains(l, "the tour") || strings.Contains(l, "again") {
			t.Fatalf("the first tour is now %q", l)
		}
		// The second tour's first step: greet.py's proposal again.
		e.Eventually(60*time.Second, "the second tour's proposal", func() bool {
			for _, p := range e.Pending() {
				if p.Session == second && p.Surface == "proposal" && p.Target == "greet.py" {
					return true
				}
			}
			return false
		})
	})
}
