package transcript

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
)

// fixture feeds what claude printed in a captured session (testdata, "<<"
// lines) to a transcript and a task list the way the app does, replaying
// every op onto a buffer as the front end would. It returns the buffer.
func fixture(t *testing.T, name string, tr *Transcript, ts *tasks.Tasks) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var buf []string
	prompted := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ">> ") && strings.Contains(line, `"type":"user"`) {
			buf = replay(t, buf, tr.Prompt("(prompt)"))
			prompted = true
			continue
		}
		if !strings.HasPrefix(line, "<< ") {
			continue
		}
		m, err := claude.ParseLine([]byte(line[3:]))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tasks.IsTaskMessage(m) {
			ch := ts.Apply(m)
			for _, task := range ch.Tasks {
				buf = replay(t, buf, tr.TaskChanged(task))
			}
			for _, task := range ch.Notified {
				buf = replay(t, buf, tr.Notified(task.ToolUseID, task.Status))
			}
			continue
		}
		buf = replay(t, buf, tr.Apply(m))
	}
	if !prompted {
		t.Fatalf("%s: no prompt", name)
	}
	if got, want := strings.Join(buf, "\n"), strings.Join(tr.Lines(), "\n"); got != want {
		t.Fatalf("replayed ops differ from the transcript:\n%s\n---\n%s", got, want)
	}
	return buf
}

// contiguous reports whether want appear in lines in this order, each on
// the line right after the previous.
func contiguous(lines []string, want ...string) bool {
	for i := range lines {
		ok := true
		for k, w := range want {
			if i+k >= len(lines) || !strings.HasPrefix(lines[i+k], w) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func index(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// A subagent's calls and text go beneath its Task line, one level deeper,
// never as Claude's own; its launch result's metadata is one status line;
// the turn claude starts when it ends says so.
func TestSubagentNestedUnderItsTask(t *testing.T) {
	tr, ts := newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf := fixture(t, "agents-task.jsonl", tr, ts)
	text := strings.Join(buf, "\n")
	if !contiguous(buf,
		"▸ Task probe sub · general-purpose ✓",
		"  │ SEQ [[",
		"  │ running in the background",
		"  │ ▸ Bash `touch /home/dev/project/from-sub` ✓",
		"  │   │ # make a file",
		"  │   │ $ touch /home/dev/project/from-sub",
		"  │   │ (Bash completed with no output)",
		"  │ ▸ Bash `echo hello from sub` ✓",
		"  │   │ # say hello",
		"  │   │ $ echo hello from sub",
		"  │   │ hello from sub",
		"  │ subagent done",
		"",
		"all done",
	) {
		t.Fatalf("the subagent's work is not nested under its Task:\n%s", text)
	}
	for _, bad := range []string{"internal metadata", "agentId", "output_file"} {
		if strings.Contains(text, bad) {
			t.Errorf("the transcript shows %q:\n%s", bad, text)
		}
	}
	for _, l := range buf {
		if l == "subagent done" || strings.HasPrefix(l, "▸ Bash") {
			t.Errorf("subagent line at the top level: %q", l)
		}
	}
	footer := index(buf, "*done")
	head := index(buf, "## Claude · after probe sub finished")
	if footer < 0 || head < footer || strings.Count(text, "*done") != 2 || index(buf[head:], "all done") != 2 {
		t.Fatalf("the turn claude started is not headed by the task (footer %d, heading %d):\n%s", footer, head, text)
	}
	// Nested tool lines are highlighted as tool lines.
	var st hlState
	i := index(buf, "  │ ▸ Bash `echo")
	marks, _ := bufops.Highlight(buf[i:i+1], &st)
	found := false
	for _, m := range marks {
		if m.Group == "ClaudeNovaTool" && buf[i][m.Start:m.End] == "Bash" {
			found = true
		}
	}
	if !found {
		t.Errorf("nested tool line marks %+v", marks)
	}
	list := ts.List()
	if len(list) != 1 || list[0].Type != "agent" || list[0].SubagentType != "general-purpose" || list[0].Description != "probe sub" ||
		list[0].Status != tasks.TaskCompleted || list[0].ToolUseID != "toolu_s0" || !list[0].Background || list[0].LastTool != "Bash" {
		t.Fatalf("tasks %+v", list)
	}
	// What the agent did, for task_output.
	out, ok := tr.AgentOutput("toolu_s0", 100)
	if !ok || !strings.Contains(out, "▸ Bash `echo hello from sub`") || !strings.HasSuffix(out, "subagent done") || strings.Contains(out, "SEQ") {
		t.Fatalf("agent output %q", out)
	}
}

// A subagent's own subagent nests one level deeper.
func TestSubagentOfASubagent(t *testing.T) {
	tr, ts := newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf := fixture(t, "agents-depth2.jsonl", tr, ts)
	if !contiguous(buf,
		"  │ ▸ Agent deeper one · general-purpose ✓",
		"  │   │ SEQ [[",
		"  │   │ ▸ Bash `echo deep` ✓",
		"  │   │   │ # say deep",
		"  │   │   │ $ echo deep",
		"  │   │   │ deep",
		"  │   │ subagent done",
		"  │   │ finished: its report went to Claude",
		"  │ ▸ Bash `echo mid` ✓",
	) {
		t.Fatalf("depth 2 is not nested:\n%s", strings.Join(buf, "\n"))
	}
	list := ts.List()
	if len(list) != 2 || list[1].Depth != 2 || list[1].Parent != list[0].ID || list[1].Background {
		t.Fatalf("tasks %+v", list)
	}
	// The deeper task ending starts no turn of the main agent's.
	if n := strings.Count(strings.Join(buf, "\n"), "## Claude · after"); n != 1 {
		t.Fatalf("%d headings of claude's own turns:\n%s", n, strings.Join(buf, "\n"))
	}
	// gf on a nested line finds the innermost task call.
	if id, ok := tr.CallAt(index(buf, "  │   │   │ deep")); !ok || id != "toolu_ac3057c75_0" {
		t.Fatalf("CallAt = %q %v", id, ok)
	}
}

// While a task runs its line says so, with the time and its last tool.
func TestTaskLineWhileRunning(t *testing.T) {
	tr := newTestTranscript("/p")
	var buf []string
	buf = replay(t, buf, tr.Prompt("go"))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"probe sub","prompt":"look"}}]},"parent_tool_use_id":null}`)))
	buf = replay(t, buf, tr.TaskChanged(startedTask(t, "a1", "t1", func(tk *tasks.Task) {
		tk.SubagentType, tk.Elapsed, tk.LastTool = "general-purpose", 12*time.Second, "Bash"
	})))
	if i := index(buf, "▸ Task"); i < 0 || buf[i] != "▸ Task probe sub · general-purpose · running 12 s · Bash" {
		t.Fatalf("running line:\n%s", strings.Join(buf, "\n"))
	}
	var st hlState
	marks, _ := bufops.Highlight([]string{buf[index(buf, "▸ Task")]}, &st)
	if len(marks) != 4 || marks[3].Group != "ClaudeNovaAge" {
		t.Fatalf("marks %+v", marks)
	}
	// An agent's message before its launch result still lands beneath it.
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"looking"}]},"parent_tool_use_id":"t1","agent_id":"a1"}`)))
	if !contiguous(buf, "▸ Task probe sub", "  │ look", "  │ looking") {
		t.Fatalf("nested text:\n%s", strings.Join(buf, "\n"))
	}
	// An agent whose call is unknown gets a line of its own.
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m3","content":[{"type":"text","text":"lost one"}]},"parent_tool_use_id":"gone","agent_id":"a9","subagent_type":"Explore","task_description":"scan"}`)))
	if !contiguous(buf, "▸ Agent scan · Explore …", "  │ lost one") {
		t.Fatalf("unknown agent:\n%s", strings.Join(buf, "\n"))
	}
	if got := strings.Join(buf, "\n"); got != strings.Join(tr.Lines(), "\n") {
		t.Fatalf("ops and lines differ")
	}
}

// A background shell: a task of type shell; its line runs until it ends;
// the turn its end starts names it. A stopped one starts no turn.
func TestBackgroundShell(t *testing.T) {
	tr, ts := newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf := fixture(t, "tasks-shell.jsonl", tr, ts)
	list := ts.List()
	if len(list) != 1 || list[0].Type != "shell" || list[0].Description != "count slowly" || list[0].Status != tasks.TaskCompleted || list[0].ToolUseID != "toolu_s0" {
		t.Fatalf("tasks %+v", list)
	}
	if !contiguous(buf, "▸ Bash `for i in 1 2 3 4; do echo line $i; sleep 1; done` ✓", "  │ # count slowly", "  │ $ for i", "  │ running in the background") ||
		index(buf, "## Claude · after count slowly finished") < 0 || strings.Contains(strings.Join(buf, "\n"), "Output is being written") {
		t.Fatalf("shell:\n%s", strings.Join(buf, "\n"))
	}
	tr, ts = newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf = fixture(t, "tasks-stop.jsonl", tr, ts)
	if list := ts.List(); len(list) != 1 || list[0].Status != tasks.TaskStopped || ts.Active() != 0 {
		t.Fatalf("tasks %+v", list)
	}
	if index(buf, "▸ Bash `echo started; sleep 30` ✗ stopped") < 0 || strings.Contains(strings.Join(buf, "\n"), "## Claude · after") {
		t.Fatalf("stopped shell:\n%s", strings.Join(buf, "\n"))
	}
}

// api_retry: one note, its attempt updated in place, before the reply.
func TestRetryNoteUpdatedInPlace(t *testing.T) {
	tr, ts := newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf := fixture(t, "api-retry.jsonl", tr, ts)
	text := strings.Join(buf, "\n")
	retry := index(buf, "> retrying · attempt 2/10 · overloaded · in ")
	if retry < 0 || strings.Count(text, "retrying") != 1 || retry > index(buf, "recovered: hello") || strings.Count(text, "recovered: hello") != 1 {
		t.Fatalf("retry:\n%s", text)
	}
	if a, _ := tr.Activity(); a != "" {
		t.Fatalf("activity after the reply %q", a)
	}
}

// Compaction: one note, from "compacting…" to what it did.
func TestCompactionNote(t *testing.T) {
	tr, ts := newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf := fixture(t, "compact.jsonl", tr, ts)
	text := strings.Join(buf, "\n")
	if index(buf, "> compacted the conversation · 13 → 2,561 tokens") < 0 || strings.Contains(text, "compacting") {
		t.Fatalf("compaction:\n%s", text)
	}
}

// Calls claude's own rules refused say so beneath them.
func TestPermissionDenied(t *testing.T) {
	tr, ts := newTestTranscript("/home/dev/project"), tasks.NewTasks(1)
	buf := fixture(t, "denied.jsonl", tr, ts)
	if !contiguous(buf, "  │ ▸ Bash `rm -f x` ✗", "  │   │ # remove x", "  │   │ $ rm -f x", "  │   ┃ refused by your permission rules") ||
		!contiguous(buf, "▸ Bash `rm -f y` ✗", "  │ # remove y", "  │ $ rm -f y", "  ┃ refused by your permission rules") {
		t.Fatalf("denied:\n%s", strings.Join(buf, "\n"))
	}
}

// A long tool input shows as "writing greet.py · N kB" while it streams;
// the call takes its line when it is whole.
func TestWritingLongInput(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "write-stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	tr := newTestTranscript("/home/dev/project")
	var buf []string
	buf = replay(t, buf, tr.Prompt("go"))
	sawWriting, sawActivity := false, false
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "<< ") {
			continue
		}
		m, err := claude.ParseLine([]byte(line[3:]))
		if err != nil {
			t.Fatal(err)
		}
		buf = replay(t, buf, tr.Apply(m))
		for _, l := range buf {
			if strings.HasPrefix(l, "> writing greet.py · ") && strings.HasSuffix(l, " kB") {
				sawWriting = true
			}
		}
		if a, _ := tr.Activity(); strings.HasPrefix(a, "writing greet.py · ") {
			sawActivity = true
		}
	}
	text := strings.Join(buf, "\n")
	if !sawWriting || !sawActivity || strings.Contains(text, "writing") || strings.Count(text, "▸ Write greet.py") != 1 {
		t.Fatalf("writing line seen %v, activity %v:\n%s", sawWriting, sawActivity, text)
	}
	if text != strings.Join(tr.Lines(), "\n") {
		t.Fatal("ops and lines differ")
	}
}

// A resumed session's history: the notification that started claude's own
// turn heads it; the Task line ends then.
func TestNotifiedInHistory(t *testing.T) {
	tr := newTestTranscript("/p")
	var buf []string
	buf = replay(t, buf, tr.BeginHistory("abc"))
	buf = replay(t, buf, tr.Prompt("go"))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"probe sub","prompt":"look","subagent_type":"Explore"}}]}}`)))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Async agent launched successfully. (This tool result is internal metadata)"}]}]},"toolUseResult":{"status":"async_launched","agentId":"a1"}}`)))
	buf = replay(t, buf, tr.ApplyIn("t1", msg(t, `{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"found it"}]}}`)))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m3","content":[{"type":"text","text":"waiting"}]}}`)))
	buf = replay(t, buf, tr.Notified("t1", tasks.TaskCompleted))
	buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m4","content":[{"type":"text","text":"it found it"}]}}`)))
	buf = replay(t, buf, tr.EndHistory())
	text := strings.Join(buf, "\n")
	if !contiguous(buf, "▸ Task probe sub · Explore ✓", "  │ look", "  │ running in the background", "  │ found it", "", "waiting") ||
		!contiguous(buf, "## Claude · earlier · after probe sub finished", "", "it found it") || strings.Contains(text, "internal metadata") {
		t.Fatalf("history:\n%s", text)
	}
}

// agentLoad is a Task whose agent makes n calls while Claude writes a line
// of its own after each: nested inserts in the middle of a growing
// transcript.
func agentLoad(t testing.TB, tr *Transcript, n int, ops func([]Op)) {
	m := func(s string) claude.Message {
		mm, err := claude.ParseLine([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return mm
	}
	ops(tr.Prompt("go"))
	ops(tr.Apply(m(`{"type":"assistant","message":{"id":"m0","content":[{"type":"tool_use","id":"task","name":"Task","input":{"description":"busy","prompt":"work"}}]}}`)))
	ops(tr.TaskChanged(startedTask(t, "a1", "task", nil)))
	ops(tr.Apply(m(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"task","content":[{"type":"text","text":"Async agent launched successfully."}]}]},"tool_use_result":{"status":"async_launched","agentId":"a1"}}`)))
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%d", i)
		ops(tr.Apply(m(`{"type":"assistant","parent_tool_use_id":"task","agent_id":"a1","message":{"id":"x` + id + `","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"echo ` + id + `"}}]}}`)))
		ops(tr.Apply(m(`{"type":"user","parent_tool_use_id":"task","agent_id":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"out ` + id + `"}]}}`)))
		ops(tr.Apply(m(`{"type":"assistant","message":{"id":"y` + id + `","content":[{"type":"text","text":"main line ` + id + `"}]}}`)))
	}
}

// Memory stays bounded while an agent works: its block stays in memory
// (its lines go beneath its call) until it is huge, then spills like the
// rest and its lines go to the end; the buffer always matches the host.
func TestAgentBlockAndSpill(t *testing.T) {
	tr := newTestTranscript("/p")
	file := filepath.Join(t.TempDir(), "s.md")
	tr.Spill(file, 200)
	var buf []string
	agentLoad(t, tr, 400, func(ops []Op) { buf = replay(t, buf, ops) })
	if n := len(tr.Lines()); n > 250 {
		t.Fatalf("%d lines in memory", n)
	}
	sn := tr.Snapshot()
	b, err := os.ReadFile(sn.File)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if got := append(head, sn.Lines...); strings.Join(got, "\n") != strings.Join(buf, "\n") {
		t.Fatal("the buffer differs from the host's transcript")
	}
	// The first calls are nested under the Task line, not after Claude's text.
	if !contiguous(buf, "▸ Task busy · running", "  │ work", "  │ running in the background", "  │ ▸ Bash `echo s0` ✓") {
		t.Fatalf("head:\n%s", strings.Join(buf[:20], "\n"))
	}
}

func BenchmarkAgentNested(b *testing.B) {
	for i := 0; i < b.N; i++ {
		tr := newTestTranscript("/p")
		tr.Spill(filepath.Join(b.TempDir(), "s.md"), 20000)
		agentLoad(b, tr, 1000, func([]Op) {})
	}
}

// Signals the fake model cannot make the CLI send (shapes from the SDK's
// types): one note each; a rate limit only when it is not all well.
func TestOtherSignals(t *testing.T) {
	tr := newTestTranscript("/p")
	var buf []string
	buf = replay(t, buf, tr.Prompt("go"))
	for _, l := range []string{
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","rateLimitType":"five_hour","utilization":0.85}}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"five_hour","resetsAt":1796118000}}`,
		`{"type":"system","subtype":"model_refusal_fallback","trigger":"refusal","direction":"retry","original_model":"a","fallback_model":"claude-b","request_id":null,"content":"Answered by claude-b"}`,
		`{"type":"system","subtype":"informational","content":"Stop hook said: \u001b[31mnot yet","level":"warning"}`,
		`{"type":"system","subtype":"hook_response","hook_id":"h","hook_name":"guard","hook_event":"PreToolUse","output":"","stdout":"","stderr":"no writes on main\n","exit_code":2,"outcome":"error"}`,
		`{"type":"system","subtype":"hook_response","hook_id":"h","hook_name":"ok","hook_event":"PreToolUse","output":"","stdout":"","stderr":"","exit_code":0,"outcome":"success"}`,
		`{"type":"system","subtype":"notification","key":"k","text":"Update available","priority":"low"}`,
	} {
		buf = replay(t, buf, tr.Apply(msg(t, l)))
	}
	text := strings.Join(buf, "\n")
	for _, want := range []string{"> rate limited · five hour · resets ", "> the model declined; claude-b answered instead · Answered by claude-b",
		"> Stop hook said: not yet", "> hook guard blocked it: no writes on main", "> Update available"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "rate limit") != 1 || strings.Contains(text, "hook ok") {
		t.Fatalf("notes:\n%s", text)
	}
	if a, _ := tr.Activity(); a != "rate limited" {
		t.Fatalf("activity %q", a)
	}
}

// startedTask is agent task id, started now by call toolUseID as claude
// reports it, then changed by set (nil: as started).
func startedTask(tb testing.TB, id, toolUseID string, set func(*tasks.Task)) tasks.Task {
	tb.Helper()
	ts := tasks.NewTasks(1)
	m, err := claude.ParseLine([]byte(`{"type":"system","subtype":"task_started","task_id":"` + id + `","tool_use_id":"` + toolUseID + `","task_type":"local_agent"}`))
	if err != nil {
		tb.Fatal(err)
	}
	ts.Apply(m)
	tk, ok := ts.Get(id)
	if !ok {
		tb.Fatalf("task %s not started", id)
	}
	if set != nil {
		set(&tk)
	}
	return tk
}
