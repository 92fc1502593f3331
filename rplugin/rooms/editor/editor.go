// Package editor is the room of the editor as Claude's tool: the MCP server
// "nvim" each session is offered (buffers, selection, diagnostics, LSP
// answers), the diagnostics Claude is told after its changes and after a
// rewind, and the session's boundary (package boundary): what the tools
// may hand Claude unasked.
//
// The boundary is enforced where the host answers a tools/call, whatever
// claude decided before (a broad mcp__nvim allow rule in the user's
// settings does not open it): a call whose answer would carry text from
// outside the session's folders becomes a request like any other (a
// sidebar row and a panel, through Requests), and the tool answers once
// the user decided (Deliver).
package editor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mcp"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// Options are the user's settings the room reads, each time it needs them.
type Options struct {
	Tools    ToolsOptions
	Feedback FeedbackOptions
	Args     []string // claude's arguments: its --add-dir folders count as inside
	Home     string   // the home folder paths are shown against, Read rules start from
}

// Requests is what the room asks of the request path: an ask outside the
// session's folders is registered and presented like any other request.
type Requests interface {
	// AskOutside registers and presents p for session s; false when a
	// request with its id is pending already.
	AskOutside(p *approval.Pending, s *session.Session) bool
	// Withdraw ends request id without an answer from the user.
	Withdraw(id, reason string)
	// Finish is the registry's way out with an answer (approval.Door).
	approval.Door
	// Interrupt asks session sid's claude to end its turn.
	Interrupt(sid int)
}

// Room serves the editor tools and keeps the sessions' boundaries.
type Room struct {
	d    *desk.Desk
	opts func() Options
	req  Requests
	state
}

// New returns the editor room.
func New(d *desk.Desk, opts func() Options, req Requests) *Room {
	return &Room{d: d, opts: opts, req: req}
}

// ToolsOptions are the option editor_tools: the MCP server "nvim"
// that lets Claude read the editor.
type ToolsOptions struct {
	Enabled *bool    `json:"enabled"` // nil: on
	Ask     bool     `json:"ask"`     // ask the user before each call
	Tools   []string `json:"tools"`   // nil: all
}

func (o ToolsOptions) enabled() bool { return o.Enabled == nil || *o.Enabled }

// FeedbackOptions are the option feedback: what Claude is told about its
// own changes.
type FeedbackOptions struct {
	Diagnostics     *bool `json:"diagnostics"`      // nil: on
	DiagnosticsWait int   `json:"diagnostics_wait"` // ms; 0: editortools.DefaultWait
}

func (o FeedbackOptions) diagnostics() bool { return o.Diagnostics == nil || *o.Diagnostics }

func (o FeedbackOptions) wait() time.Duration {
	if o.DiagnosticsWait <= 0 {
		return editortools.DefaultWait
	}
	return time.Duration(o.DiagnosticsWait) * time.Millisecond
}

// toolCallTimeout bounds one tool call (a language server that is still
// loading its workspace may take a while).
const toolCallTimeout = 15 * time.Second

// changeSlack is how much longer than feedback.diagnostics_wait a report
// after a change may take (a server attaching to a buffer we loaded).
const changeSlack = 3 * time.Second

// editorState is the editor side of the app: the bridge to Neovim and the
// MCP server of each session.
type state struct {
	mu      sync.Mutex
	ed      editortools.Editor
	servers map[int]*mcp.Server
	tools   map[int]map[string]bool // per session: the tools it was offered
	bounds  bounds                  // the sessions' boundaries
	quit    context.Context         // cancelled at shutdown: no wait for the editor outlives it
	stop    context.CancelFunc
}

func (e *state) quitting() context.Context {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.quit == nil {
		e.quit, e.stop = context.WithCancel(context.Background())
	}
	return e.quit
}

// Stop ends every wait for the editor (Neovim is quitting: it
// will not answer, and Shutdown must not wait for the waits).
func (r *Room) Stop() {
	r.quitting()
	r.stop()
}

// wait bounds a wait for the editor by d and by the shutdown.
func (r *Room) wait(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d)
	stop := context.AfterFunc(r.quitting(), cancel)
	return ctx, func() { stop(); cancel() }
}

// untilQuit ends ctx at the shutdown (a tool call that waits for the
// user's answer has no other bound).
func (r *Room) untilQuit(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(r.quitting(), cancel)
	return ctx, func() { stop(); cancel() }
}

// controlKey carries the id of the mcp_message control request a tool call
// came in (an ask outside the session's folders is keyed by it, so that
// claude's control_cancel_request withdraws it).
type controlKey struct{}

// Use connects the editor tools to Neovim (the host's bridge).
func (r *Room) Use(ed editortools.Editor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ed = ed
}

func (r *Room) editor() editortools.Editor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ed
}

// InitializeFields are what a new claude is told of the editor's MCP
// server in initialize, with its handshake (so the CLI needs no round trip
// for it); none when the tools are off.
func InitializeFields(o ToolsOptions) map[string]any {
	fields := map[string]any{}
	if tools := Offered(o); len(tools) > 0 {
		fields["sdkMcpServers"] = []string{editortools.Server}
		manifest := mcp.New(serverInfo(), tools, nil, 0, nil).Manifest()
		fields["sdkMcpServerManifests"] = map[string]any{editortools.Server: manifest}
	}
	return fields
}

func serverInfo() mcp.Info {
	return mcp.Info{Name: editortools.Server, Version: "claude-nova", Instructions: editortools.Instructions}
}

// Offered is the editor tools claude is offered with options o.
func Offered(o ToolsOptions) []mcp.Tool {
	if !o.enabled() {
		return nil
	}
	return editortools.Tools(o.Tools)
}

// Serve gives session s its MCP server, with the tools its claude was
// offered in initialize.
func (r *Room) Serve(s *session.Session) {
	tools := Offered(r.opts().Tools)
	if len(tools) == 0 {
		return
	}
	names := map[string]bool{}
	for _, t := range tools {
		names[t.Name] = true
	}
	// No timeout for the whole call: the editor's part is bounded by
	// toolCallTimeout, the user's answer to an ask by nothing but a cancel.
	srv := mcp.New(serverInfo(), tools, func(ctx context.Context, c mcp.Call) mcp.Result {
		ctx, cancel := r.untilQuit(ctx)
		defer cancel()
		return r.runTool(ctx, s, c)
	}, 0, r.d.Log.With("session", s.ID))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.servers == nil {
		r.servers, r.tools = map[int]*mcp.Server{}, map[int]map[string]bool{}
	}
	r.servers[s.ID] = srv
	r.tools[s.ID] = names
}

// WaitCalls waits, at most d, for every running editor tool call to
// answer (at the shutdown: each has been cancelled or denied).
func (r *Room) WaitCalls(d time.Duration) {
	r.mu.Lock()
	servers := make([]*mcp.Server, 0, len(r.servers))
	for _, s := range r.servers {
		servers = append(servers, s)
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for _, s := range servers {
			s.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func (r *Room) server(sid int) *mcp.Server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.servers[sid]
}

// OfferedTo reports whether session sid's claude was offered tool.
func (r *Room) OfferedTo(sid int, tool string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tools[sid][tool]
}

// MCPMessage answers an mcp_message control request. It never waits: a
// tool call runs on a goroutine of its own and answers when it is done.
func (r *Room) MCPMessage(s *session.Session, m claude.Message) {
	env, err := claude.DecodeMCPMessage(m)
	if err != nil {
		r.d.Log.Warn("malformed mcp_message", "session", s.ID, "err", err)
		_ = s.Proc.RespondError(m.RequestID, "claude-nova.nvim could not read this MCP message: "+err.Error())
		return
	}
	srv := r.server(s.ID)
	if env.ServerName != editortools.Server || srv == nil {
		_ = s.Proc.RespondError(m.RequestID, fmt.Sprintf("claude-nova.nvim serves no MCP server %q", env.ServerName))
		return
	}
	ctx := context.WithValue(context.Background(), controlKey{}, m.RequestID)
	srv.ServeContext(ctx, env.Message, func(resp json.RawMessage) {
		if err := s.Proc.RespondControl(m.RequestID, map[string]json.RawMessage{"mcp_response": resp}); err != nil {
			r.d.Log.Warn("answer mcp_message", "session", s.ID, "err", err)
		}
	})
}

// runTool runs one of the editor's tools for Claude; the transcript line of
// the call says what it found.
func (r *Room) runTool(ctx context.Context, s *session.Session, c mcp.Call) mcp.Result {
	start := time.Now()
	control, _ := ctx.Value(controlKey{}).(string)
	o := editortools.Run(ctx, r.editor(), r.toolSession(ctx, s, control, c.Arguments), c.Name, c.Arguments)
	if c.ToolUseID != "" {
		s.Transcript.ToolHeadline(c.ToolUseID, o.Headline)
	}
	r.d.Log.Info("editor tool", "session", s.ID, "tool", c.Name, "headline", o.Headline, "error", o.Result.IsError,
		"ms", time.Since(start).Milliseconds())
	return o.Result
}

// DiagnoseRewound tells Claude the new errors and warnings of files a
// rewind restored (with its next prompt, or at once while a turn runs).
func (r *Room) DiagnoseRewound(s *session.Session, files []string) {
	o := r.opts()
	if !o.Feedback.diagnostics() || len(files) == 0 || r.editor() == nil {
		return
	}
	r.d.Background(func(ctx context.Context) {
		ctx, cancel := r.wait(ctx, o.Feedback.wait()+changeSlack)
		defer cancel()
		// All files at once: each waits for its own servers.
		notes := make([]string, len(files))
		var wg sync.WaitGroup
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := editortools.AfterChange(ctx, r.editor(), editortools.Abs(f, s.Cwd()), r.toolSession(ctx, s, "", nil), o.Feedback.wait())
				if err != nil {
					r.d.Log.Info("diagnostics after a rewind", "session", s.ID, "path", f, "err", err)
					return
				}
				notes[i] = rep.Message(editortools.ByRewind)
			}()
		}
		wg.Wait()
		notes = slices.DeleteFunc(notes, func(n string) bool { return n == "" })
		if len(notes) > 0 {
			r.d.Tell(s, strings.Join(notes, "\n"))
		}
	})
}

// The session's boundary for the editor's tools (package boundary): what
// they may hand Claude unasked. It is enforced where the host answers a
// tools/call, whatever claude decided before (a broad mcp__nvim allow rule
// in the user's settings does not open it): a call whose answer would carry
// text from outside the session's folders becomes a request like any other
// (a sidebar row and a panel), and the tool answers once the user decided.

// settingsTimeout bounds the get_settings a tool call asks claude for.
const settingsTimeout = 2 * time.Second

// cliReads is what claude reported of its read permissions for a session.
type cliReads struct {
	rules boundary.Rules
	dirs  []string // permissions.additionalDirectories
}

// bounds is the room's part of every session's boundary.
type bounds struct {
	grants map[int]*boundary.Grants           // per session: what the user allowed
	reads  map[int]cliReads                   // per session: claude's last answer
	asks   map[string]chan editortools.Answer // per pending ask: its waiting call
	next   int
}

// Grants returns session sid's grants (created empty).
func (r *Room) Grants(sid int) *boundary.Grants {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bounds.grants == nil {
		r.bounds.grants = map[int]*boundary.Grants{}
	}
	g, ok := r.bounds.grants[sid]
	if !ok {
		g = &boundary.Grants{}
		r.bounds.grants[sid] = g
	}
	return g
}

// cliReadsOf asks claude for its read permissions (get_settings): the
// Read rules of every settings source and the additional directories. When
// claude cannot answer in time, its last answer stands.
func (r *Room) cliReadsOf(ctx context.Context, s *session.Session) cliReads {
	ctx, cancel := context.WithTimeout(ctx, settingsTimeout)
	defer cancel()
	raw, err := s.Proc.Control(ctx, "get_settings", nil)
	if err == nil {
		var reads cliReads
		if reads, err = parseReads(raw, s.Cwd(), r.opts().Home); err == nil {
			r.mu.Lock()
			if r.bounds.reads == nil {
				r.bounds.reads = map[int]cliReads{}
			}
			r.bounds.reads[s.ID] = reads
			r.mu.Unlock()
			return reads
		}
	}
	r.d.Log.Info("get_settings for the boundary", "session", s.ID, "err", err)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bounds.reads[s.ID]
}

// parseReads reads the Read rules and additional directories out of a
// get_settings answer.
func parseReads(raw json.RawMessage, cwd, home string) (cliReads, error) {
	gs, err := replies.DecodeSettings(raw)
	if err != nil {
		return cliReads{}, err
	}
	bases := boundary.Bases{Home: home, Project: cwd, Cwd: cwd}
	var r cliReads
	seen := map[string]bool{}
	addDir := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			r.dirs = append(r.dirs, d)
		}
	}
	for _, d := range gs.Effective.Permissions.Dirs {
		addDir(d)
	}
	for _, src := range gs.Sources {
		p := src.Settings.Permissions
		for _, d := range p.Dirs {
			addDir(d)
		}
		for _, rule := range p.Allow {
			if pat, ok := boundary.ParseRead(rule, src.Source, bases); ok {
				r.rules.Allow = append(r.rules.Allow, pat)
			}
		}
		for _, rule := range p.Deny {
			if pat, ok := boundary.ParseRead(rule, src.Source, bases); ok {
				r.rules.Deny = append(r.rules.Deny, pat)
			}
		}
	}
	return r, nil
}

// PolicyOf is session s's boundary now.
func (r *Room) PolicyOf(ctx context.Context, s *session.Session) boundary.Policy {
	pol := r.policy(s, r.cliReadsOf(ctx, s))
	pol.Grants = r.Grants(s.ID)
	return pol
}

// policy is session s's folders (its working directory, claude's
// --add-dir folders and the additional directories claude reported) and
// the Read rules claude reported.
func (r *Room) policy(s *session.Session, reads cliReads) boundary.Policy {
	o := r.opts()
	dirs := append(boundary.AddDirs(o.Args), reads.dirs...)
	return boundary.Policy{Cwd: s.Cwd(), Folders: boundary.NewFolders(s.Cwd(), o.Home, dirs...), Rules: reads.rules}
}

// gate is one tool call's view of its session's boundary: the policy is
// read (from claude) once, at the first path the call meets.
type toolGate struct {
	r       *Room
	s       *session.Session
	ctx     context.Context
	control string          // the mcp_message control request ("" when unknown)
	input   json.RawMessage // the call's arguments, for the request's view
	pol     *boundary.Policy
}

func (g *toolGate) Check(name string) boundary.Check {
	if g.pol == nil {
		p := g.r.PolicyOf(g.ctx, g.s)
		g.pol = &p
	}
	return g.pol.Check(name)
}

func (g *toolGate) Ask(ctx context.Context, q editortools.Question) editortools.Answer {
	if g.pol == nil {
		g.Check(q.Path)
	}
	return g.r.askOutside(ctx, g.s, *g.pol, g.control, g.input, q)
}

// toolSession is what an editor tool call of session s needs.
func (r *Room) toolSession(ctx context.Context, s *session.Session, control string, input json.RawMessage) editortools.Session {
	return editortools.Session{
		Cwd: s.Cwd(), Home: r.opts().Home, Timeout: toolCallTimeout,
		Gate: &toolGate{r: r, s: s, ctx: ctx, control: control, input: input},
	}
}

// askOutside asks the user whether Claude may have what an editor tool
// found outside the session's folders, and waits for the answer: a request
// like any other (registered, then presented), answered by Decide, withdrawn
// when claude cancels the call or the session ends.
func (r *Room) askOutside(ctx context.Context, s *session.Session, pol boundary.Policy, control string, input json.RawMessage, q editortools.Question) editortools.Answer {
	r.mu.Lock()
	r.bounds.next++
	if control == "" {
		control = fmt.Sprintf("nvim-ask-%d", r.bounds.next)
	}
	id := approval.Key(s.ID, control)
	if r.bounds.asks == nil {
		r.bounds.asks = map[string]chan editortools.Answer{}
	}
	answer := make(chan editortools.Answer, 1)
	r.bounds.asks[id] = answer
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.bounds.asks, id)
		r.mu.Unlock()
	}()
	home := r.opts().Home
	folder := filepath.Dir(q.Path)
	var inside []string
	for _, f := range pol.Folders {
		inside = append(inside, boundary.Show(f, "", home))
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	p := &approval.Pending{
		ID: id, Session: s.ID, Kind: outside{r}, Arrived: time.Now(),
		Perm:   claude.PermissionRequest{RequestID: control, ToolName: editortools.ModelName(q.Tool), Input: input, In: toolcall.Decode(input)},
		Route:  approval.Route{Surface: approval.SurfacePanel},
		Target: sanitize.Line(q.Shown),
		Outside: &approval.Outside{
			Tool: q.Tool, Path: q.Path, Shown: sanitize.Line(q.Shown),
			Folder: folder, FolderShown: sanitize.Line(boundary.Show(folder, "", home)),
			What: sanitize.Line(q.What), Preview: q.Preview, Inside: inside,
		},
	}
	if !r.req.AskOutside(p, s) {
		return editortools.Answer{How: "not asked (a request with its id is pending)"}
	}
	r.d.Log.Info("asked: outside the session's folders", "session", s.ID, "tool", q.Tool, "path", q.Path)
	select {
	case ans := <-answer:
		return ans
	case <-ctx.Done():
		r.req.Withdraw(id, "withdrawn: claude cancelled the call")
		return editortools.Answer{How: "withdrawn (the call was cancelled)"}
	}
}

// Deliver hands an answer to the call waiting on ask id (once: a
// later answer, the withdrawal after a decision, is dropped).
func (r *Room) Deliver(id string, ans editortools.Answer) {
	r.mu.Lock()
	ch := r.bounds.asks[id]
	r.mu.Unlock()
	if ch != nil {
		select {
		case ch <- ans:
		default:
		}
	}
}

// BoundaryView is a session's boundary as :checkhealth shows it.
type BoundaryView struct {
	Session int      `json:"session"`
	Name    string   `json:"name"`
	Folders []string `json:"folders"` // counted as inside
	Granted []string `json:"granted"` // allowed by the user for the session
	Allow   []string `json:"allow"`   // claude's Read allow rules
	Deny    []string `json:"deny"`    // claude's Read deny rules
}

// Boundaries lists the boundary of every running session (claude is asked
// for its read rules, each bounded).
func (r *Room) Boundaries() []BoundaryView {
	var out []BoundaryView
	home := r.opts().Home
	for _, s := range r.d.Sessions.All() {
		if s.State() == session.StateExited {
			continue
		}
		pol := r.PolicyOf(context.Background(), s)
		v := BoundaryView{Session: s.ID, Name: s.Name()}
		for _, f := range pol.Folders {
			v.Folders = append(v.Folders, boundary.Show(f, "", home))
		}
		for _, g := range pol.Grants.List() {
			v.Granted = append(v.Granted, boundary.Show(g, "", home))
		}
		for _, r := range pol.Rules.Allow {
			v.Allow = append(v.Allow, r.Rule)
		}
		for _, r := range pol.Rules.Deny {
			v.Deny = append(v.Deny, r.Rule)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session < out[j].Session })
	return out
}

// FolderPolicy is the boundary comments are kept within: the session's
// folders (its working directory and added directories, from what claude
// last reported: no call waits on claude here) and its Read deny rules;
// with no session, the editor's folder.
func (r *Room) FolderPolicy(s *session.Session, cwd string) boundary.Policy {
	if s == nil {
		return boundary.Policy{Cwd: cwd, Folders: boundary.NewFolders(cwd, r.opts().Home)}
	}
	r.mu.Lock()
	reads := r.bounds.reads[s.ID]
	r.mu.Unlock()
	return r.policy(s, reads)
}

// AfterChange waits (bounded) for the diagnostics of path after Claude
// changed it, and calls answer with note and, with feedback.diagnostics,
// the new errors and warnings. Without a path, the option or an editor,
// answer is called at once with note alone.
func (r *Room) AfterChange(s *session.Session, path, note string, answer func(note string)) {
	o := r.opts()
	if path == "" || !o.Feedback.diagnostics() || r.editor() == nil {
		answer(note)
		return
	}
	path = editortools.Abs(path, s.Cwd())
	r.d.Background(func(ctx context.Context) {
		// claude's turn waits for this answer: bounded by the wait, plus
		// the attach of a server to a buffer we load, plus a busy editor.
		ctx, cancel := r.wait(ctx, o.Feedback.wait()+changeSlack)
		defer cancel()
		rep, err := editortools.AfterChange(ctx, r.editor(), path, r.toolSession(ctx, s, "", nil), o.Feedback.wait())
		diag := rep.Message(editortools.ByClaude)
		switch {
		case err != nil:
			r.d.Log.Info("diagnostics after a change", "session", s.ID, "path", path, "err", err)
		case diag != "":
			r.d.Transcript(s, s.Transcript.ToldBy("The editor told Claude", diag))
			r.d.Log.Info("diagnostics after a change", "session", s.ID, "path", path, "new", len(rep.New), "timed_out", rep.TimedOut)
			if note != "" {
				note += "\n\n"
			}
			note += diag
		default:
			r.d.Log.Debug("diagnostics after a change: nothing new", "session", s.ID, "path", path, "skipped", rep.Skipped, "timed_out", rep.TimedOut)
		}
		answer(note)
	})
}
