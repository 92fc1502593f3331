package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/others"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/world"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	sessionworld "github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// lastWorld is the last world the front end got for session id.
func (r *recorder) lastWorld(id int) (sessionworld.WorldView, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.events) - 1; i >= 0; i-- {
		if v, ok := r.events[i].Data.(sessionworld.WorldView); ok && r.events[i].Name == ui.EvWorld && v.Session == id {
			return v, true
		}
	}
	return sessionworld.WorldView{}, false
}

// markMap is a reply as the front end reads it: token, ok, result, error.
func markMap(mk ui.Mark) map[string]any {
	m := map[string]any{"token": mk.Token, "ok": mk.Reply.OK}
	if mk.Reply.OK {
		m["result"] = mk.Reply.Result
	} else {
		m["error"] = mk.Reply.Error
	}
	return m
}

// replyOf is the reply (a mark) of a later call's token.
func (r *recorder) replyOf(token string) (map[string]any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if mk, ok := e.Data.(ui.Mark); ok && e.Name == ui.EvMark && mk.Token == token {
			return markMap(mk), true
		}
	}
	return nil, false
}

// mcpClaude answers mcp_status, mcp_reconnect and mcp_toggle like claude
// 2.1.328 with one project server, docs, whose command is missing until
// fixed() is called.
type mcpClaude struct {
	mu    sync.Mutex
	fixed bool
	asked []string
}

func (c *mcpClaude) on(subtype string, fields map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, subtype)
	failed := `{"mcpServers":[{"name":"docs","status":"failed","error":"ENOENT: no such file or directory, posix_spawn '/x/server-bin'","config":{"type":"stdio","command":"/x/server-bin"},"transport":"stdio","scope":"project","source":"project"}]}`
	up := `{"mcpServers":[{"name":"docs","status":"connected","serverInfo":{"name":"fakemcp","version":"1"},"config":{"type":"stdio","command":"/x/server-bin"},"transport":"stdio","scope":"project","source":"project","tools":[{"name":"lookup"},{"name":"search"}]}]}`
	switch subtype {
	case "mcp_status":
		if c.fixed {
			return json.RawMessage(up), nil
		}
		return json.RawMessage(failed), nil
	case "mcp_reconnect", "mcp_toggle":
		if fields["serverName"] != "docs" {
			return nil, &claude.ControlError{Subtype: subtype, Message: "Server not found"}
		}
		if !c.fixed && (subtype == "mcp_reconnect" || fields["enabled"] == true) {
			return nil, &claude.ControlError{Subtype: subtype, Message: "ENOENT: no such file or directory, posix_spawn '/x/server-bin'"}
		}
		return json.RawMessage(`{}`), nil
	}
	return json.RawMessage(`{}`), nil
}

// A project server that cannot start: the front end hears of it when the
// session opens (before any prompt), with the CLI's error; a reconnect
// before the fix says why it failed, in claude's words; after the fix it
// brings the server up with its tools.
func TestMCPServersOfASession(t *testing.T) {
	m := newMem(t)
	cl := &mcpClaude{}
	m.onControl = cl.on
	info, c := m.session("")
	m.rec.wait(t, "the failed server", func([]ui.Event) bool {
		v, ok := m.rec.lastWorld(info.ID)
		return ok && len(v.MCP) == 1 && v.MCP[0].Status == "failed" && strings.Contains(v.MCP[0].Error, "ENOENT")
	})
	// The first turn's init names it too; the details stay.
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "s1", "cwd": m.dir,
		"mcp_servers": []any{map[string]any{"name": "docs", "status": "failed", "source": "project"}}})
	if err := m.app.Rooms().World.Reconnect(world.MCPParams{ReplyTo: desk.ReplyTo{Token: "r1"}, Session: info.ID, Server: "docs"}); err != nil {
		t.Fatal(err)
	}
	m.rec.wait(t, "the reconnect's reply", func([]ui.Event) bool { _, ok := m.rec.replyOf("r1"); return ok })
	r, _ := m.rec.replyOf("r1")
	if r["ok"] != false || !strings.Contains(r["error"].(string), "docs did not connect; claude says: ENOENT: no such file or directory, posix_spawn '/x/server-bin'") {
		t.Fatalf("reply %v", r)
	}
	if err := m.app.Rooms().World.Reconnect(world.MCPParams{ReplyTo: desk.ReplyTo{Token: "x"}, Session: info.ID, Server: "nope"}); err == nil || !strings.Contains(err.Error(), "it has docs") {
		t.Fatalf("unknown server: %v", err)
	}
	cl.mu.Lock()
	cl.fixed = true
	cl.mu.Unlock()
	if err := m.app.Rooms().World.Reconnect(world.MCPParams{ReplyTo: desk.ReplyTo{Token: "r2"}, Session: info.ID, Server: "docs"}); err != nil {
		t.Fatal(err)
	}
	m.rec.wait(t, "connected", func([]ui.Event) bool { _, ok := m.rec.replyOf("r2"); return ok })
	r, _ = m.rec.replyOf("r2")
	res, _ := r["result"].(map[string]any)
	if r["ok"] != true || res["message"] != "docs · connected (2 tools)" {
		t.Fatalf("reply %v", r)
	}
	v, _ := m.rec.lastWorld(info.ID)
	if v.MCP[0].Status != "connected" || v.MCP[0].Tools != 2 || v.MCP[0].Error != "" {
		t.Fatalf("world %+v", v.MCP)
	}
	// Disable and enable again: mcp_toggle with the server's name.
	if err := m.app.Rooms().World.Toggle(world.MCPParams{ReplyTo: desk.ReplyTo{Token: "t1"}, Session: info.ID, Server: "docs", Enabled: false}); err != nil {
		t.Fatal(err)
	}
	m.rec.wait(t, "toggled", func([]ui.Event) bool { _, ok := m.rec.replyOf("t1"); return ok })
	var toggles []map[string]any
	for _, w := range c.Written() {
		if w.Subtype == "mcp_toggle" {
			req, _ := w.Value["request"].(map[string]any)
			toggles = append(toggles, req)
		}
	}
	if len(toggles) != 1 || toggles[0]["serverName"] != "docs" || toggles[0]["enabled"] != false {
		t.Fatalf("toggles %v", toggles)
	}
	if all := m.app.Rooms().World.All(); len(all) != 1 || all[0].World.MCP[0].Name != "docs" {
		t.Fatalf("MCPAll %+v", all)
	}
}

// Deny and stop: the answer carries interrupt: true, the turn claude ends
// is shown as interrupted (not as an error), the row says so.
func TestDenyAndStop(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	c.Ask("r1", "Bash", map[string]any{"command": "rm -r build"}, nil)
	p := m.waitPending(1)[0]
	d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "deny", Interrupt: true}})
	if err != nil || !d.Decided {
		t.Fatalf("%+v %v", d, err)
	}
	res := answer(t, c, "r1")
	if res["behavior"] != "deny" || res["interrupt"] != true {
		t.Fatalf("answer %v", res)
	}
	c.PushJSON(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "duration_ms": 10,
		"errors": []string{"[ede_diagnostic] result_type=user stop_reason=tool_use"}})
	m.rec.wait(t, "the footer", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "*interrupted") })
	for _, n := range m.rec.notes() {
		if strings.Contains(n, "claude says") {
			t.Fatalf("an interrupt the user asked for shown as an error: %q", n)
		}
	}
	m.rec.wait(t, "the row's outcome", func(evs []ui.Event) bool {
		for _, e := range evs {
			if e.Name == ui.EvRequestRemoved && e.Data.(map[string]any)["outcome"] == "denied and stopped" {
				return true
			}
		}
		return false
	})
	// A plain deny does not interrupt.
	c.Ask("r2", "Bash", map[string]any{"command": "ls"}, nil)
	p = m.waitPending(1)[0]
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "deny"}}); err != nil {
		t.Fatal(err)
	}
	if res := answer(t, c, "r2"); res["interrupt"] != nil {
		t.Fatalf("a plain deny interrupted: %v", res)
	}
}

// "Allow this folder": claude's addDirectories suggestion (a write outside
// the session's folders) is offered, and the answer carries it; the
// editor tools may read there too.
func TestAllowThisFolder(t *testing.T) {
	m := newMem(t)
	_, c := m.session("go")
	out := t.TempDir()
	c.Ask("r1", "Write", map[string]any{"file_path": filepath.Join(out, "new.txt"), "content": "x\n"}, map[string]any{
		"permission_suggestions": []any{
			map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"},
			map[string]any{"type": "addDirectories", "directories": []string{out}, "destination": "session"},
		},
		"decision_reason_type": "workingDir",
	})
	p := m.waitPending(1)[0]
	if p.DirChoice != "the folder "+out+" this session" {
		t.Fatalf("dir choice %q", p.DirChoice)
	}
	d, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "allow_dir"}})
	if err != nil || !d.Decided {
		t.Fatalf("%+v %v", d, err)
	}
	perms, _ := answer(t, c, "r1")["updatedPermissions"].([]any)
	if b, _ := json.Marshal(perms); string(b) != `[{"destination":"session","directories":["`+out+`"],"type":"addDirectories"}]` {
		t.Fatalf("updatedPermissions %s", b)
	}
	if g := m.app.edit.Grants(1).List(); len(g) != 1 || strings.TrimSuffix(g[0], "/") != out {
		t.Fatalf("grants %v", g)
	}
	// No suggestion: refused, nothing answered.
	c.Ask("r2", "Bash", map[string]any{"command": "ls"}, nil)
	p = m.waitPending(1)[0]
	if p.DirChoice != "" {
		t.Fatalf("dir choice without a suggestion: %q", p.DirChoice)
	}
	if d, _ := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: approval.Decision{Behavior: "allow_dir"}}); d.Decided || !strings.Contains(d.Reason, "no folder") {
		t.Fatalf("%+v", d)
	}
}

// EnterWorktree moves the session's folder: an Edit claude asks next by a
// relative path is staged from the worktree's file, the session says where
// it is; ExitWorktree brings it back.
func TestWorktreeMovesTheSession(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	m.write("a.txt", "uncommitted\n")
	wt := filepath.Join(m.dir, ".claude", "worktrees", "feat")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, "a.txt"), []byte("committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A worktree's .git is a file naming its repository's folder.
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: ../../../.git/worktrees/feat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "content": []any{
		map[string]any{"type": "tool_use", "id": "w1", "name": "EnterWorktree", "input": map[string]any{"name": "feat"}}}}})
	c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "w1", "content": "Created worktree"}}},
		"tool_use_result": map[string]any{"worktreePath": wt, "worktreeBranch": "worktree-feat", "message": "Created"}})
	m.rec.wait(t, "the session moved", func([]ui.Event) bool {
		s, _ := m.app.sessions.Get(info.ID)
		return s.Cwd() == wt
	})
	s, _ := m.app.sessions.Get(info.ID)
	if got := s.Info(); got.Worktree == nil || got.Worktree.Shown != ".claude/worktrees/feat" || got.Worktree.Path != wt {
		t.Fatalf("info %+v", got)
	}
	// The world event follows the move: wait for it, not for the move.
	m.rec.wait(t, "the world names the worktree", func([]ui.Event) bool {
		v, _ := m.rec.lastWorld(info.ID)
		return v.Worktree != nil
	})
	v, _ := m.rec.lastWorld(info.ID)
	if v.Worktree == nil || v.Worktree.Branch != "worktree-feat" || v.Worktree.Root != m.dir {
		t.Fatalf("world worktree %+v", v.Worktree)
	}
	c.Ask("r1", "Edit", map[string]any{"file_path": "a.txt", "old_string": "committed", "new_string": "from the worktree"}, nil)
	p := m.waitPending(1)[0]
	if p.Path != filepath.Join(wt, "a.txt") || p.Target != "a.txt" || p.Surface != "proposal" {
		t.Fatalf("proposal %+v", p)
	}
	staged, err := os.ReadFile(p.Staged)
	if err != nil || string(staged) != "from the worktree\n" {
		t.Fatalf("staged %q %v", staged, err)
	}
	if pol := m.app.edit.PolicyOf(t.Context(), s); pol.Cwd != wt {
		t.Fatalf("the boundary did not follow: %+v", pol)
	}
	if _, err := m.app.Decide(DecideParams{ID: p.ID, Via: "surface", Decision: decision("deny")}); err != nil {
		t.Fatal(err)
	}
	c.PushJSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "m2", "content": []any{
		map[string]any{"type": "tool_use", "id": "w2", "name": "ExitWorktree", "input": map[string]any{"action": "keep"}}}}})
	c.PushJSON(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "w2", "content": "Back"}}},
		"tool_use_result": map[string]any{"action": "keep", "originalCwd": m.dir, "worktreePath": wt, "message": "m"}})
	m.rec.wait(t, "back home", func([]ui.Event) bool { return s.Cwd() == m.dir })
	m.rec.wait(t, "no worktree", func([]ui.Event) bool { v, _ := m.rec.lastWorld(info.ID); return v.Worktree == nil })
	if tr := m.rec.transcriptText(info.ID); !strings.Contains(tr, "Now working in the worktree "+wt+" (branch worktree-feat)") || !strings.Contains(tr, "Back in "+m.dir) {
		t.Fatalf("transcript:\n%s", tr)
	}
}

// With session_state_changed, a turn's result is not the end of the
// session's work: claude's idle is.
func TestIdleFromClaude(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	c.PushJSON(map[string]any{"type": "system", "subtype": "session_state_changed", "state": "running"})
	c.PushJSON(map[string]any{"type": "result", "subtype": "success", "duration_ms": 5})
	c.PushJSON(map[string]any{"type": "system", "subtype": "status", "status": nil})
	m.rec.wait(t, "the footer", func([]ui.Event) bool { return strings.Contains(m.rec.transcriptText(info.ID), "*done") })
	s, _ := m.app.sessions.Get(info.ID)
	if st := s.State(); st != session.StateRunning {
		t.Fatalf("state after the result %s", st)
	}
	c.PushJSON(map[string]any{"type": "system", "subtype": "session_state_changed", "state": "idle"})
	m.rec.wait(t, "idle", func([]ui.Event) bool { return s.State() == session.StateIdle })
}

// Wake-ups and cron jobs from their results; CronDelete removes one; the
// checklist of TaskCreate and TaskUpdate.
func TestWorldFromToolResults(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	next := time.Now().Add(5 * time.Minute).UnixMilli()
	fire := time.Now().Add(2 * time.Minute).UnixMilli()
	calls := []struct{ id, tool, input, result string }{
		{"c1", "CronCreate", `{"cron":"*/5 * * * *","prompt":"check the build"}`, `{"id":"b2b5d660","humanSchedule":"Every 5 minutes","recurring":true,"nextFireAt":` + itoa64(next) + `}`},
		{"c2", "ScheduleWakeup", `{"delaySeconds":120,"reason":"wait for CI","prompt":"/loop"}`, `{"scheduledFor":` + itoa64(fire) + `,"clampedDelaySeconds":120,"wasClamped":false}`},
		{"c3", "TaskCreate", `{"subject":"fix bug","description":"d"}`, `{"task":{"id":"1","subject":"fix bug"}}`},
		{"c4", "TaskUpdate", `{"taskId":"1","status":"in_progress","activeForm":"Fixing the bug"}`, `{"success":true,"taskId":"1","statusChange":{"from":"pending","to":"in_progress"}}`},
	}
	push := func(id, tool, input, result string) {
		c.Push(`{"type":"assistant","message":{"id":"m` + id + `","content":[{"type":"tool_use","id":"` + id + `","name":"` + tool + `","input":` + input + `}]}}`)
		c.Push(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]},"tool_use_result":` + result + `}`)
	}
	for _, x := range calls {
		push(x.id, x.tool, x.input, x.result)
	}
	m.rec.wait(t, "the world", func([]ui.Event) bool {
		v, _ := m.rec.lastWorld(info.ID)
		return len(v.Schedules) == 2 && len(v.Todos) == 1 && v.Todos[0].Status == "in_progress"
	})
	v, _ := m.rec.lastWorld(info.ID)
	if v.Schedules[0].ID != "b2b5d660" || v.Schedules[0].At != next || !v.Schedules[0].Recurring || v.Schedules[1].Kind != "wakeup" || v.Schedules[1].At != fire {
		t.Fatalf("schedules %+v", v.Schedules)
	}
	if v.Todos[0].Active != "Fixing the bug" {
		t.Fatalf("todos %+v", v.Todos)
	}
	push("c5", "CronDelete", `{"id":"b2b5d660"}`, `{"id":"b2b5d660"}`)
	m.rec.wait(t, "deleted", func([]ui.Event) bool { v, _ := m.rec.lastWorld(info.ID); return len(v.Schedules) == 1 })
	if tr := m.rec.transcriptText(info.ID); !strings.Contains(tr, "◐ Fixing the bug") {
		t.Fatalf("the checklist is not in the transcript:\n%s", tr)
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The other sessions on the machine, from claude agents --json (a script
// that prints a recorded listing stands in for claude --bg, which cannot
// run against a fake model): ours are left out, blocked ones come first,
// background ones can be attached.
func TestOtherSessions(t *testing.T) {
	m := newMem(t)
	info, c := m.session("go")
	c.PushJSON(map[string]any{"type": "system", "subtype": "init", "session_id": "ours-1", "cwd": m.dir})
	m.rec.wait(t, "claude's id", func([]ui.Event) bool {
		s, _ := m.app.sessions.Get(info.ID)
		return s.ClaudeID() == "ours-1"
	})
	listing := `[{"pid":11,"cwd":"` + m.dir + `","kind":"interactive","startedAt":1796159121695,"sessionId":"ours-1","name":"mine","status":"busy"},
 {"pid":12,"id":"bg-7","cwd":"/elsewhere/api","kind":"background","startedAt":1796159000000,"sessionId":"s2","name":"api tests","status":"idle","state":"blocked"},
 {"pid":13,"cwd":"/elsewhere/web","kind":"interactive","startedAt":1796159200000,"sessionId":"s3","name":"web","status":"busy"}]`
	dir := t.TempDir()
	script := filepath.Join(dir, "claude")
	body := "#!/bin/sh\nif [ \"$1\" = agents ] && [ \"$2\" = --json ]; then cat <<'EOF'\n" + listing + "\nEOF\nexit 0; fi\necho \"unexpected $*\" >&2; exit 3\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	// A claude that fails says why, in its words.
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Cmd: script + " --flag"}); err != nil {
		t.Fatal(err)
	}
	m.app.Rooms().World.RefreshAgents()
	m.rec.wait(t, "an error", func(evs []ui.Event) bool { return lastAgents(evs) != nil })
	if v := m.rec.agents(); v.Error == "" || !strings.Contains(v.Error, "unexpected --flag agents --json") {
		t.Fatalf("view %+v", v)
	}
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Cmd: script}); err != nil {
		t.Fatal(err)
	}
	m.app.Rooms().World.RefreshAgents()
	m.rec.wait(t, "the listing", func(evs []ui.Event) bool { v := lastAgents(evs); return v != nil && v.Error == "" })
	v := m.rec.agents()
	if len(v.Sessions) != 2 {
		t.Fatalf("sessions %+v", v.Sessions)
	}
	bg, web := v.Sessions[0], v.Sessions[1]
	if !bg.Blocked || bg.Name != "api tests" || strings.Join(bg.Attach, " ") != script+" attach bg-7" {
		t.Fatalf("background %+v", bg)
	}
	if web.Blocked || len(web.Attach) != 0 || web.Shown != "/elsewhere/web" {
		t.Fatalf("interactive %+v", web)
	}
	if _, err := others.Parse([]byte(`{"not":"a list"}`)); err == nil {
		t.Fatal("a bad listing was read")
	}
}

func (r *recorder) agents() *others.View {
	r.mu.Lock()
	defer r.mu.Unlock()
	return lastAgents(r.events)
}

func lastAgents(evs []ui.Event) *others.View {
	for i := len(evs) - 1; i >= 0; i-- {
		if v, ok := evs[i].Data.(others.View); ok && evs[i].Name == ui.EvAgents {
			return &v
		}
	}
	return nil
}

// A refresh asked while a listing runs is listed after it: two asked at
// once give two listings, the second with the command asked for last.
func TestAgentsRefreshAskedWhileOneRuns(t *testing.T) {
	m := newMem(t)
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	// A listing that waits for the gate to open: the second refresh is
	// surely asked while the first runs.
	script := func(name, listing string) string {
		p := filepath.Join(dir, name)
		body := "#!/bin/sh\n: > " + gate + ".started\nwhile [ ! -e " + gate + " ]; do sleep 0.01; done\ncat <<'EOF'\n" + listing + "\nEOF\n"
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := script("first", `[]`)
	second := script("second", `[{"pid":12,"id":"bg-7","cwd":"/elsewhere/api","kind":"background","sessionId":"s2","name":"api tests","status":"idle"}]`)
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Cmd: first}); err != nil {
		t.Fatal(err)
	}
	m.app.Rooms().World.RefreshAgents()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(gate + ".started"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first listing never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := m.app.Configure(Options{Storage: filepath.Join(m.dir, "storage"), Cmd: second}); err != nil {
		t.Fatal(err)
	}
	m.app.Rooms().World.RefreshAgents()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m.rec.wait(t, "the second command's listing", func(evs []ui.Event) bool {
		v := lastAgents(evs)
		return v != nil && len(v.Sessions) == 1
	})
}
