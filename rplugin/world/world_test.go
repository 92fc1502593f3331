package world

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tools"
)

// The MCP servers as claude 2.1.328 reports them: init names a failed one,
// mcp_status says why (shapes from the wire); a reconnect's status has its
// tools. Details of a server whose status did not change survive the next
// init.
func TestWorldMCP(t *testing.T) {
	w := NewWorld()
	if !w.FromInit(initOf(t, `{"mcp_servers":[{"name":"docs","status":"failed","source":"project"},{"name":"nvim","status":"connected","source":"sdk"}],
		"plugin_errors":[{"plugin":"lint@market","type":"path-not-found","message":"not found \u001b[31mhere"}]}`)) {
		t.Fatal("init changed nothing")
	}
	if f := w.Failing(); len(f) != 1 || f[0].Name != "docs" || f[0].Known {
		t.Fatalf("failing %+v", f)
	}
	changed := w.FromStatus(statusOf(t, `{"mcpServers":[{"name":"docs","status":"failed","error":"ENOENT: no such file or directory, posix_spawn '/x/server-bin'",
		"config":{"type":"stdio","command":"/x/server-bin","args":["--x"]},"transport":"stdio","scope":"project","source":"project"},
		{"name":"nvim","status":"connected","source":"sdk","tools":[{"name":"diagnostics"},{"name":"buffer_text"}]}]}`))
	if !changed {
		t.Fatal("status changed nothing")
	}
	docs, _ := w.Server("docs")
	if docs.Error != "ENOENT: no such file or directory, posix_spawn '/x/server-bin'" || docs.Command != "/x/server-bin --x" ||
		docs.Scope != "project" || docs.Transport != "stdio" || !docs.Known {
		t.Fatalf("docs %+v", docs)
	}
	if nv, _ := w.Server("nvim"); nv.Tools != 2 || !nv.Up() {
		t.Fatalf("nvim %+v", nv)
	}
	v := w.View(1)
	if len(v.Errors) != 1 || v.Errors[0].Message != "not found here" || v.Errors[0].Name != "lint@market" || !v.Asked {
		t.Fatalf("errors %+v", v.Errors)
	}
	// The next turn's init: the same statuses keep the details.
	if w.FromInit(initOf(t, `{"mcp_servers":[{"name":"docs","status":"failed","source":"project"},{"name":"nvim","status":"connected","source":"sdk"}],
		"plugin_errors":[{"plugin":"lint@market","type":"path-not-found","message":"not found here"}]}`)) {
		t.Fatal("the same init changed something")
	}
	if docs, _ := w.Server("docs"); docs.Error == "" {
		t.Fatal("the error was lost")
	}
	// Fixed and reconnected.
	w.FromStatus(statusOf(t, `{"mcpServers":[{"name":"docs","status":"connected","serverInfo":{"name":"fakemcp","version":"1"},
		"config":{"type":"stdio","command":"/x/server-bin"},"transport":"stdio","scope":"project","source":"project","tools":[{"name":"lookup"},{"name":"search"}]}]}`))
	if docs, _ := w.Server("docs"); !docs.Up() || docs.Tools != 2 || docs.Error != "" || len(w.Failing()) != 0 {
		t.Fatalf("after reconnect %+v", docs)
	}
}

func TestServerErrorsShapes(t *testing.T) {
	tests := []struct {
		raw  string
		want []LoadError
	}{
		{`[{"name":"docs","message":"bad config"}]`, []LoadError{{Kind: "mcp", Name: "docs", Message: "bad config"}}},
		{`[{"server":"docs","error":"timeout","type":"connect"}]`, []LoadError{{Kind: "mcp", Name: "docs", Type: "connect", Message: "timeout"}}},
		{`{"b":"two","a":{"message":"one"}}`, []LoadError{{Kind: "mcp", Name: "a", Message: "one"}, {Kind: "mcp", Name: "b", Message: "two"}}},
		{`null`, nil},
		{`7`, nil},
	}
	for _, tt := range tests {
		var in claude.ServerErrors
		if err := json.Unmarshal([]byte(tt.raw), &in); err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		got := serverErrors(in)
		if len(got) != len(tt.want) {
			t.Fatalf("%s: %+v", tt.raw, got)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: %+v, want %+v", tt.raw, got[i], tt.want[i])
			}
		}
	}
}

// Wake-ups and cron jobs are listed until they fired (a one-shot) or were
// deleted; CronList is the truth about which are left.
func TestWorldSchedules(t *testing.T) {
	w := NewWorld()
	now := time.Date(2026, 12, 1, 21, 0, 0, 0, time.Local)
	w.now = func() time.Time { return now }
	w.Schedule(Schedule{ID: "b2b5d660", Kind: ScheduleCron, What: "check the build", Human: "Every 5 minutes", At: now.Add(5 * time.Minute).UnixMilli(), Recurring: true})
	w.Schedule(Schedule{ID: "wakeup-1", Kind: ScheduleWakeup, What: "wait for CI", At: now.Add(2 * time.Minute).UnixMilli()})
	w.Schedule(Schedule{ID: "wakeup-2", Kind: ScheduleWakeup, What: "wait longer", At: now.Add(3 * time.Minute).UnixMilli()})
	if s := w.Schedules(); len(s) != 2 || s[1].What != "wait longer" {
		t.Fatalf("a new wake-up does not replace the last: %+v", s)
	}
	now = now.Add(4 * time.Minute) // the wake-up fired; the cron job's next is later
	if s := w.Schedules(); len(s) != 1 || s[0].ID != "b2b5d660" {
		t.Fatalf("after the wake-up fired: %+v", s)
	}
	now = now.Add(10 * time.Minute) // recurring: stays listed
	if len(w.Schedules()) != 1 {
		t.Fatal("a recurring job left the list")
	}
	if !w.Unschedule("b2b5d660") || w.Unschedule("b2b5d660") || len(w.Schedules()) != 0 {
		t.Fatal("CronDelete")
	}
	wake := now.Add(5 * time.Minute).UnixMilli()
	w.Schedule(Schedule{ID: "wakeup-3", Kind: ScheduleWakeup, What: "wait for CI", At: wake})
	// CronList lists the wake-up as a one-shot job: it stays one wake-up.
	w.SetCrons([]Schedule{{ID: "c1", What: "one", Recurring: true}, {ID: "c2", What: "/loop check CI", At: wake - 20000}})
	s := w.Schedules()
	if len(s) != 2 || s[0].Kind != ScheduleCron || s[1].Kind != ScheduleWakeup || s[1].ID != "c2" || s[1].What != "wait for CI" {
		t.Fatalf("CronList %+v", s)
	}
	if !w.Unschedule("c2") || len(w.Schedules()) != 1 {
		t.Fatal("CronDelete of the wake-up's job")
	}
}

// The checklist: TodoWrite replaces it, TaskCreate adds, TaskUpdate
// changes an item (deleted removes it).
func TestWorldChecklist(t *testing.T) {
	w := NewWorld()
	w.SetTodos([]Todo{{Text: "write tests", Status: "in_progress", Active: "Writing tests"}, {Text: "ship"}})
	if got := strings.Join(tools.Checklist(w.Todos()), "|"); got != "◐ Writing tests|☐ ship" {
		t.Fatalf("checklist %q", got)
	}
	w.SetTodos(nil)
	w.AddTodo(Todo{ID: "1", Text: "fix bug"})
	w.AddTodo(Todo{ID: "2", Text: "add test"})
	if it, ok := w.UpdateTodo("1", "completed", "", ""); !ok || it.Status != "completed" {
		t.Fatalf("update %+v", it)
	}
	if _, ok := w.UpdateTodo("9", "completed", "", ""); ok {
		t.Fatal("an unknown item was updated")
	}
	if got := strings.Join(tools.Checklist(w.Todos()), "|"); got != "☑ fix bug|☐ add test" || tools.Done(w.Todos()) != 1 {
		t.Fatalf("checklist %q", got)
	}
	w.UpdateTodo("2", "deleted", "", "")
	if len(w.Todos()) != 1 {
		t.Fatal("deleted item kept")
	}
}

// What a worktree changed is recorded for the worktree it was counted in
// only, and a count that says nothing new changes nothing.
func TestCountWorktree(t *testing.T) {
	w := NewWorld()
	if w.CountWorktree("/p/wt", "b", 1, 2, 3, false) {
		t.Fatal("counted without a worktree")
	}
	w.SetWorktree(&Worktree{Path: "/p/wt", Branch: "worktree-wt", Root: "/p", Base: "abc"})
	if w.CountWorktree("/p/other", "b", 1, 2, 3, false) {
		t.Fatal("counted another worktree")
	}
	if !w.CountWorktree("/p/wt", "", 3, 40, 12, false) || w.CountWorktree("/p/wt", "", 3, 40, 12, false) {
		t.Fatal("a new count did not change it, or the same one did")
	}
	if wt := w.Worktree(); wt.Files != 3 || wt.Added != 40 || wt.Removed != 12 || wt.Base != "abc" || wt.Shown != "wt" {
		t.Fatalf("worktree %+v", wt)
	}
	if !w.CountWorktree("/p/wt", "", 0, 0, 0, true) || !w.Worktree().Gone {
		t.Fatal("gone not recorded")
	}
}

// initOf is claude's system/init carrying fields (a JSON object's body).
func statusOf(t *testing.T, raw string) claude.MCPStatus {
	t.Helper()
	st, err := claude.DecodeMCPStatus(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func initOf(t *testing.T, fields string) *claude.Init {
	t.Helper()
	m, err := claude.ParseLine([]byte(`{"type":"system","subtype":"init",` + strings.TrimPrefix(fields, "{")))
	if err != nil || m.System == nil || m.System.Init == nil {
		t.Fatalf("init %s: %v %v", fields, err, m.Undecoded)
	}
	return m.System.Init
}
