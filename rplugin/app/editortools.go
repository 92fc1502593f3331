package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mcp"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// EditorToolsOptions are the option editor_tools: the MCP server "nvim"
// that lets Claude read the editor.
type EditorToolsOptions struct {
	Enabled *bool    `json:"enabled"` // nil: on
	Ask     bool     `json:"ask"`     // ask the user before each call
	Tools   []string `json:"tools"`   // nil: all
}

func (o EditorToolsOptions) enabled() bool { return o.Enabled == nil || *o.Enabled }

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

func checkEditorOptions(o Options) error {
	if bad := editortools.Unknown(o.EditorTools.Tools); len(bad) > 0 {
		return fmt.Errorf("option 'editor_tools.tools' names unknown tools: %s (known: %s)",
			strings.Join(bad, ", "), strings.Join(editortools.Names(), ", "))
	}
	if o.Feedback.DiagnosticsWait < 0 || o.Feedback.DiagnosticsWait > 60000 {
		return fmt.Errorf("option 'feedback.diagnostics_wait' must be between 0 and 60000 ms, got %d", o.Feedback.DiagnosticsWait)
	}
	return nil
}

// toolCallTimeout bounds one tool call (a language server that is still
// loading its workspace may take a while).
const toolCallTimeout = 15 * time.Second

// changeSlack is how much longer than feedback.diagnostics_wait a report
// after a change may take (a server attaching to a buffer we loaded).
const changeSlack = 3 * time.Second

// editorState is the editor side of the app: the bridge to Neovim and the
// MCP server of each session.
type editorState struct {
	mu      sync.Mutex
	editor  editortools.Editor
	servers map[int]*mcp.Server
	tools   map[int]map[string]bool // per session: the tools it was offered
	bounds  boundaryState           // the sessions' boundaries (boundary.go)
	quit    context.Context         // cancelled at shutdown: no wait for the editor outlives it
	stop    context.CancelFunc
}

func (e *editorState) quitting() context.Context {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.quit == nil {
		e.quit, e.stop = context.WithCancel(context.Background())
	}
	return e.quit
}

// stopEditorCalls ends every wait for the editor (Neovim is quitting: it
// will not answer, and Shutdown must not wait for the waits).
func (a *App) stopEditorCalls() {
	a.ed.quitting()
	a.ed.stop()
}

// editorWait bounds a wait for the editor by d and by the shutdown.
func (a *App) editorWait(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d)
	stop := context.AfterFunc(a.ed.quitting(), cancel)
	return ctx, func() { stop(); cancel() }
}

// untilQuit ends ctx at the shutdown (a tool call that waits for the
// user's answer has no other bound).
func (a *App) untilQuit(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(a.ed.quitting(), cancel)
	return ctx, func() { stop(); cancel() }
}

// controlKey carries the id of the mcp_message control request a tool call
// came in (an ask outside the session's folders is keyed by it, so that
// claude's control_cancel_request withdraws it).
type controlKey struct{}

// UseEditor connects the editor tools to Neovim (the host's bridge).
func (a *App) UseEditor(ed editortools.Editor) {
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	a.ed.editor = ed
}

func (a *App) editor() editortools.Editor {
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	return a.ed.editor
}

func serverInfo() mcp.Info {
	return mcp.Info{Name: editortools.Server, Version: "claude-nova", Instructions: editortools.Instructions}
}

func offered(o Options) []mcp.Tool {
	if !o.EditorTools.enabled() {
		return nil
	}
	return editortools.Tools(o.EditorTools.Tools)
}

// serveTools gives session s its MCP server, with the tools its claude was
// offered in initialize.
func (a *App) serveTools(s *session.Session, o Options) {
	tools := offered(o)
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
		ctx, cancel := a.untilQuit(ctx)
		defer cancel()
		return a.runTool(ctx, s, c)
	}, 0, a.log.With("session", s.ID))
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	if a.ed.servers == nil {
		a.ed.servers, a.ed.tools = map[int]*mcp.Server{}, map[int]map[string]bool{}
	}
	a.ed.servers[s.ID] = srv
	a.ed.tools[s.ID] = names
}

// waitToolCalls waits, at most d, for every running editor tool call to
// answer (at the shutdown: each has been cancelled or denied).
func (a *App) waitToolCalls(d time.Duration) {
	a.ed.mu.Lock()
	servers := make([]*mcp.Server, 0, len(a.ed.servers))
	for _, s := range a.ed.servers {
		servers = append(servers, s)
	}
	a.ed.mu.Unlock()
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

func (a *App) server(sid int) *mcp.Server {
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	return a.ed.servers[sid]
}

// offeredTo reports whether session sid's claude was offered tool.
func (a *App) offeredTo(sid int, tool string) bool {
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	return a.ed.tools[sid][tool]
}

// mcpMessage answers an mcp_message control request. It never waits: a
// tool call runs on a goroutine of its own and answers when it is done.
func (a *App) mcpMessage(s *session.Session, m claude.Message) {
	env, err := mcp.DecodeEnvelope(m.Raw)
	if err != nil {
		a.log.Warn("malformed mcp_message", "session", s.ID, "err", err)
		_ = s.Proc.RespondError(m.RequestID, "claude-nova.nvim could not read this MCP message: "+err.Error())
		return
	}
	srv := a.server(s.ID)
	if env.ServerName != editortools.Server || srv == nil {
		_ = s.Proc.RespondError(m.RequestID, fmt.Sprintf("claude-nova.nvim serves no MCP server %q", env.ServerName))
		return
	}
	ctx := context.WithValue(context.Background(), controlKey{}, m.RequestID)
	srv.ServeContext(ctx, env.Message, func(resp json.RawMessage) {
		if err := s.Proc.RespondControl(m.RequestID, map[string]json.RawMessage{"mcp_response": resp}); err != nil {
			a.log.Warn("answer mcp_message", "session", s.ID, "err", err)
		}
	})
}

// runTool runs one of the editor's tools for Claude; the transcript line of
// the call says what it found.
func (a *App) runTool(ctx context.Context, s *session.Session, c mcp.Call) mcp.Result {
	start := time.Now()
	control, _ := ctx.Value(controlKey{}).(string)
	o := editortools.Run(ctx, a.editor(), a.toolSession(ctx, s, control, c.Arguments), c.Name, c.Arguments)
	if c.ToolUseID != "" {
		s.Transcript.ToolHeadline(c.ToolUseID, o.Headline)
	}
	a.log.Info("editor tool", "session", s.ID, "tool", c.Name, "headline", o.Headline, "error", o.Result.IsError,
		"ms", time.Since(start).Milliseconds())
	return o.Result
}

// editorToolAllowed answers a can_use_tool for one of the editor's own
// read-only tools at once, unless the user wants to be asked (option
// editor_tools.ask; an ask rule or a hook of theirs, or any hint of claude's
// that asks for a person's answer). It reports whether it answered. Deny
// rules are claude's to enforce: a denied call never asks.
func (a *App) editorToolAllowed(s *session.Session, pr claude.PermissionRequest) bool {
	tool := editortools.ToolName(pr.ToolName)
	if tool == "" || !a.offeredTo(s.ID, tool) || a.options().EditorTools.Ask {
		return false
	}
	if srv := pr.MCPServer; srv == nil || srv.Source != "sdk" || srv.Name != editortools.Server {
		return false // not our server: trust the source, not the name
	}
	switch pr.DecisionReasonType {
	case "rule", "hook", "safetyCheck":
		return false // a rule, a hook or a safety check of the user's asked
	}
	if !approval.MayAutoAllow(pr) {
		return false
	}
	if err := a.respond(s, pr, claude.Allow(pr.Input), "editor tool, read-only", 0); err != nil {
		a.log.Warn("answer editor tool", "session", s.ID, "err", err)
		return false
	}
	return true
}

// diagnoseRewound tells Claude the new errors and warnings of files a
// rewind restored (with its next prompt, or at once while a turn runs).
func (a *App) diagnoseRewound(s *session.Session, files []string) {
	o := a.options()
	if !o.Feedback.diagnostics() || len(files) == 0 || a.editor() == nil {
		return
	}
	a.desk.Background(func(ctx context.Context) {
		ctx, cancel := a.editorWait(ctx, o.Feedback.wait()+changeSlack)
		defer cancel()
		// All files at once: each waits for its own servers.
		notes := make([]string, len(files))
		var wg sync.WaitGroup
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := editortools.AfterChange(ctx, a.editor(), editortools.Abs(f, s.Cwd()), a.toolSession(ctx, s, "", nil), o.Feedback.wait())
				if err != nil {
					a.log.Info("diagnostics after a rewind", "session", s.ID, "path", f, "err", err)
					return
				}
				notes[i] = rep.Message(editortools.ByRewind)
			}()
		}
		wg.Wait()
		notes = slices.DeleteFunc(notes, func(n string) bool { return n == "" })
		if len(notes) > 0 {
			a.desk.Tell(s, strings.Join(notes, "\n"))
		}
	})
}
