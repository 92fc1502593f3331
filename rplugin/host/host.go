// Package host connects the app to Neovim. It is the only package that knows
// RPC method names: it registers the functions of the static manifest, decodes
// each call and hands it to the app, and delivers UI events with ExecLua.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/app"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/commands"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/complete"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/controls"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/merge"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/permissions"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/pr"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/provenance"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rewind"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rounds"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/world"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tuihook"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/neovim/go-client/nvim/plugin"
)

// Version is the host's version; the Lua side refuses a host of another version.
const Version = "0.1.0"

// Name is the remote host name registered with Neovim.
const Name = "claudenova"

// Host owns the app for one Neovim connection.
type Host struct {
	App    *app.App
	outbox *ui.Outbox
	tools  *editortools.Bridge
	tui    *tuihook.Room // claude's own terminal UI sessions
	log    *slog.Logger

	workOnce sync.Once
	work     *errands // the calls' work, off the RPC
}

// errands is the host's queue of work, started on first use.
func (h *Host) errands() *errands {
	h.workOnce.Do(func() { h.work = newErrands(h.log) })
	return h.work
}

// applyLua is the single entry point of the Lua front end for UI events.
const applyLua = "require('claudenova.frontend').apply(...)"

// toolsLua runs one editor tool call (token, tool, args JSON, wait ms): it
// returns the reply, or "" when it comes later as a tool_reply notification.
const toolsLua = "return require('claudenova.services.tools').call(...)"

// Register declares the manifest's functions on p. With p.Nvim nil (manifest
// generation) only the declarations matter.
func Register(p *plugin.Plugin, log *slog.Logger) *Host {
	h := &Host{log: log}
	if p.Nvim != nil {
		v := p.Nvim
		h.outbox = ui.NewOutbox(func(batch string) error {
			return v.ExecLua(applyLua, nil, batch)
		}, log)
		if path := os.Getenv("CLAUDENOVA_RECORD"); path != "" {
			h.outbox.Record = recorder(path, log)
		}
		h.App = app.New(h.outbox, log)
		h.App.Rooms().Provenance.UseVersion(Version)
		h.tools = editortools.NewBridge(func(token, tool, args string, wait int) (string, error) {
			var out string
			err := v.ExecLua(toolsLua, &out, token, tool, args, wait)
			return out, err
		})
		h.App.Rooms().Editor.Use(h.tools)
		h.tui = tuiRoom(h.App, log)
	}
	p.HandleFunction(&plugin.FunctionOptions{Name: "ClaudeNovaRequest"}, h.request)
	p.HandleFunction(&plugin.FunctionOptions{Name: "ClaudeNovaNotify"}, h.notify)
	return h
}

// Close shuts the app down: pending requests are denied, sessions stopped.
func (h *Host) Close() {
	h.errands().close()
	if h.App != nil {
		h.App.Shutdown()
	}
	if h.tui != nil {
		h.tui.Close()
	}
	if h.outbox != nil {
		h.outbox.Close()
	}
}

// queued is what ClaudeNovaRequest returns when the reply went into the
// event stream.
type queued struct {
	Queued bool `json:"queued"`
}

// later is what a handler returns when its reply comes later, sent by
// desk.ReplyLater with the call's token once claude answered.
type later struct{}

// request is ClaudeNovaRequest(method, json[, token]). With a token, the
// call is queued and returns {queued: true} at once: its work runs on the
// host's errands, off the RPC Neovim waits on, and its reply is an event of
// the stream (EvMark {token, reply}), queued after every event the work
// caused, so the front end acts on it in the order things happened. A call
// that waits on claude (its parameters are a desk.Replier) replies the same
// way when claude answered. Without a token (the first calls of a channel,
// shutdown, tests) the work runs in the call and the reply is returned.
func (h *Host) request(args []string) (string, error) {
	token := ""
	if len(args) == 3 {
		token, args = args[2], args[:2]
	}
	if token != "" && h.outbox != nil {
		h.errands().add(func() { h.reply(args, token) })
		b, _ := json.Marshal(queued{Queued: true})
		return string(b), nil
	}
	out, err := h.safeCall(args, "")
	if _, ok := out.(later); ok && err == nil {
		out = nil
	}
	b, err := json.Marshal(ui.Answered(out, err))
	if err != nil {
		b, _ = json.Marshal(ui.Answer{Error: "encode result: " + err.Error()})
	}
	return string(b), nil
}

// reply runs a queued call and sends its reply as a mark, unless it comes
// later (desk.ReplyLater sends it).
func (h *Host) reply(args []string, token string) {
	out, err := h.safeCall(args, token)
	if _, ok := out.(later); ok && err == nil {
		return
	}
	method := ""
	if len(args) > 0 {
		method = args[0]
	}
	h.outbox.Send(ui.EvMark, ui.Mark{Token: token, Method: method, Reply: ui.Answered(out, err)})
}

// safeCall is call with a panic turned into the call's error.
func (h *Host) safeCall(args []string, token string) (any, error) {
	method := ""
	if len(args) > 0 {
		method = args[0]
	}
	return safely(h.log, method, func() (any, error) { return h.call(args, token) })
}

// background lists the notification methods whose work may take time: they
// run on the session's worker, not on the goroutine that serves every
// notification from Neovim.
var background = map[string]bool{"proposal_saved": true, "proposal_wiped": true}

// notify is ClaudeNovaNotify(method, json): queued behind the calls made
// before it (a proposal wiped after its decide is settled after it);
// errors go to the user as a notification.
func (h *Host) notify(args []string) {
	h.errands().add(func() { h.notified(args) })
}

func (h *Host) notified(args []string) {
	if len(args) > 0 && background[args[0]] && h.App != nil {
		id, err := decode[idArg]([]byte(argOr(args, 1, "{}")))
		if err == nil {
			h.App.InBackground(id.ID, func() error {
				_, err := h.safeCall(args, "")
				return err
			})
			return
		}
	}
	if _, err := h.safeCall(args, ""); err != nil && h.outbox != nil {
		h.outbox.Send(ui.EvNotify, map[string]any{"msg": err.Error(), "level": "error"})
	}
}

func argOr(args []string, i int, def string) string {
	if i < len(args) && args[i] != "" {
		return args[i]
	}
	return def
}

var errBadCall = errors.New("ClaudeNovaRequest takes a method name, a JSON argument and a reply token")

// call runs a method; token is the call's reply token (for a call whose
// answer comes later).
func (h *Host) call(args []string, token string) (any, error) {
	if len(args) == 0 || len(args) > 2 {
		return nil, errBadCall
	}
	method, payload := args[0], argOr(args, 1, "{}")
	hd, ok := methods[method]
	if !ok {
		return nil, fmt.Errorf("unknown method %q", method)
	}
	h.log.Debug("rpc", "method", method)
	return hd(h, []byte(payload), token, method)
}

type handler func(h *Host, payload []byte, token, method string) (any, error)

func decode[T any](payload []byte) (T, error) {
	var v T
	if err := json.Unmarshal(payload, &v); err != nil {
		return v, fmt.Errorf("bad arguments: %w", err)
	}
	return v, nil
}

// with decodes the payload into T and calls fn. Parameters of a call
// whose answer comes later (a desk.Replier) get the call's token, and the
// reply waits for theirs.
func with[T any](fn func(a *app.App, p T) (any, error)) handler {
	return func(h *Host, payload []byte, token, method string) (any, error) {
		p, err := decode[T](payload)
		if err != nil {
			return nil, err
		}
		r, replies := any(&p).(desk.Replier)
		if replies && token != "" {
			r.SetReply(token, method)
		}
		out, err := fn(h.App, p)
		if replies && err == nil {
			return later{}, nil
		}
		return out, err
	}
}

// plain adapts a method without arguments.
func plain(fn func(a *app.App) (any, error)) handler {
	return func(h *Host, _ []byte, _, _ string) (any, error) { return fn(h.App) }
}

type idArg struct {
	ID string `json:"id"`
}

type sessionArg struct {
	Session int    `json:"session"`
	Mode    string `json:"mode"`
}

type renameArg struct {
	Session int    `json:"session"`
	Name    string `json:"name"`
}

type pathArg struct {
	Path string `json:"path"`
}

type cwdArg struct {
	Cwd string `json:"cwd"`
}

type lineArg struct {
	Session int `json:"session"`
	Line    int `json:"line"`
}

type rulesArg struct {
	Session int    `json:"session"`
	Cwd     string `json:"cwd"`
}

type logArg struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
}

type toolReplyArg struct {
	Token  string          `json:"token"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// tuiRoom is the room of app's TUI sessions.
func tuiRoom(a *app.App, log *slog.Logger) *tuihook.Room {
	return tuihook.New(func(p tuihook.Params, open claude.Opener) (session.Info, error) {
		return a.NewSession(app.NewParams{Cwd: p.Cwd, Mode: p.Mode, Model: p.Model,
			Worktree: p.Worktree, WorktreeName: p.WorktreeName, Open: open})
	}, log)
}

type tuiArg struct {
	Session int `json:"session"`
	Pid     int `json:"pid"`
	Code    int `json:"code"`
}

// onTUI decodes the payload into T and calls fn with the TUI room.
func onTUI[T any](fn func(r *tuihook.Room, p T) (any, error)) handler {
	return func(h *Host, payload []byte, _, _ string) (any, error) {
		p, err := decode[T](payload)
		if err != nil {
			return nil, err
		}
		if h.tui == nil {
			return nil, errors.New("no TUI sessions in this host")
		}
		return fn(h.tui, p)
	}
}

type answerArg struct {
	ID      string               `json:"id"`
	Answers []app.QuestionAnswer `json:"answers"`
}

// aside runs a method whose work may wait on git (blame reads the commit's
// note) on a goroutine of its own, not on the errands: a slow git holds its
// reply only, never the calls made after it (a decision).
func aside(hd handler) handler {
	return func(h *Host, payload []byte, token, method string) (any, error) {
		if token == "" || h.App == nil {
			return hd(h, payload, token, method)
		}
		h.App.Rooms().Desk.ReplyLater(desk.ReplyTo{Token: token, Method: method}, func(context.Context) (any, error) {
			return safely(h.log, method, func() (any, error) { return hd(h, payload, "", method) })
		})
		return later{}, nil
	}
}

// newSession starts a session; one in a worktree of its own answers later:
// planning the worktree runs git, which the editor never waits for.
func newSession(h *Host, payload []byte, token, method string) (any, error) {
	p, err := decode[app.NewParams](payload)
	if err != nil {
		return nil, err
	}
	if token == "" || (!p.Worktree && p.WorktreeName == "") {
		return h.App.NewSession(p)
	}
	h.App.Rooms().Desk.ReplyLater(desk.ReplyTo{Token: token, Method: method}, func(context.Context) (any, error) {
		return h.App.NewSession(p)
	})
	return later{}, nil
}

// methods maps each RPC method to the app.
var methods = map[string]handler{
	"version":        func(*Host, []byte, string, string) (any, error) { return Version, nil },
	"configure":      with(func(a *app.App, o app.Options) (any, error) { return nil, a.Configure(o) }),
	"new":            newSession,
	"send":           with(func(a *app.App, p app.SendParams) (any, error) { return a.Send(p) }),
	"stop":           with(func(a *app.App, p sessionArg) (any, error) { return a.Stop(p.Session) }),
	"interrupt":      with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().Controls.Interrupt(p.Session) }),
	"mode":           with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().Modes.Set(p.Session, p.Mode) }),
	"select":         with(func(a *app.App, p sessionArg) (any, error) { return nil, a.Select(p.Session) }),
	"sessions":       plain(func(a *app.App) (any, error) { return a.Sessions(), nil }),
	"transcript":     with(func(a *app.App, p sessionArg) (any, error) { return a.Transcript(p.Session) }),
	"pending":        plain(func(a *app.App) (any, error) { return a.Pending(), nil }),
	"present":        with(func(a *app.App, p idArg) (any, error) { return nil, a.Present(p.ID) }),
	"decide":         with(func(a *app.App, p app.DecideParams) (any, error) { return a.Decide(p) }),
	"answer":         with(func(a *app.App, p answerArg) (any, error) { return nil, a.Answer(p.ID, p.Answers) }),
	"elicit":         with(func(a *app.App, p app.ElicitParams) (any, error) { return nil, a.Elicit(p) }),
	"plan":           with(func(a *app.App, p app.PlanParams) (any, error) { return nil, a.PlanDecide(p) }),
	"proposal_saved": with(func(a *app.App, p app.SaveParams) (any, error) { return a.ProposalSaved(p) }),
	"proposal_wiped": with(func(a *app.App, p app.SaveParams) (any, error) { return nil, a.ProposalWiped(p) }),
	"tool_output":    with(func(a *app.App, p lineArg) (any, error) { return a.ToolOutput(p.Session, p.Line) }),
	"rules":          with(func(a *app.App, p rulesArg) (any, error) { return a.Rooms().Permissions.Rules(p.Session, p.Cwd) }),
	"remove_rule": with(func(a *app.App, e permissions.RuleEntry) (any, error) {
		return nil, a.Rooms().Permissions.RemoveRule(e)
	}),
	"rename":         with(func(a *app.App, p renameArg) (any, error) { return a.Rooms().History.Rename(p.Session, p.Name) }),
	"forget":         with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().History.Forget(p.Session) }),
	"commands":       with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().Complete.Commands(p.Session) }),
	"resumable":      with(func(a *app.App, p cwdArg) (any, error) { return a.Rooms().History.Resumable(p.Cwd) }),
	"checkpoints":    with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().Rewind.Checkpoints(p) }),
	"rewind":         with(func(a *app.App, p rewind.RewindParams) (any, error) { return nil, a.Rooms().Rewind.Rewind(p) }),
	"task_output":    with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().Tasks.Output(p) }),
	"stop_task":      with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().Tasks.Stop(p) }),
	"task_at":        with(func(a *app.App, p lineArg) (any, error) { return a.Rooms().Tasks.At(p.Session, p.Line) }),
	"changes":        with(func(a *app.App, p rewind.ChangesParams) (any, error) { return a.Rooms().Rewind.Changes(p) }),
	"models":         with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().Controls.Models(p.Session) }),
	"set_model":      with(func(a *app.App, p controls.ModelParams) (any, error) { return a.Rooms().Controls.SetModel(p) }),
	"set_effort":     with(func(a *app.App, p controls.ModelParams) (any, error) { return a.Rooms().Controls.SetEffort(p) }),
	"usage":          with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().Controls.Usage(p) }),
	"queued":         with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().Controls.Queued(p.Session) }),
	"cancel_queued":  with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().Controls.CancelQueued(p) }),
	"steer":          with(func(a *app.App, p controls.SteerParams) (any, error) { return a.Rooms().Controls.Steer(p) }),
	"undo_hunk":      with(func(a *app.App, p rewind.UndoParams) (any, error) { return a.Rooms().Rewind.UndoHunk(p) }),
	"complete":       with(func(a *app.App, p complete.Params) (any, error) { return nil, a.Rooms().Complete.Complete(p) }),
	"boundaries":     plain(func(a *app.App) (any, error) { return a.Rooms().Editor.Boundaries(), nil }),
	"mcp":            with(func(a *app.App, p sessionArg) (any, error) { return a.Rooms().World.MCP(p.Session) }),
	"mcp_all":        plain(func(a *app.App) (any, error) { return a.Rooms().World.All(), nil }),
	"mcp_refresh":    with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().World.Refresh(p) }),
	"mcp_reconnect":  with(func(a *app.App, p world.MCPParams) (any, error) { return nil, a.Rooms().World.Reconnect(p) }),
	"mcp_toggle":     with(func(a *app.App, p world.MCPParams) (any, error) { return nil, a.Rooms().World.Toggle(p) }),
	"agents_refresh": plain(func(a *app.App) (any, error) { a.Rooms().World.RefreshAgents(); return nil, nil }),
	"review_round":   with(func(a *app.App, p rounds.Arg) (any, error) { return a.Rooms().Rounds.Round(p) }),
	"comment_add":    with(func(a *app.App, p rounds.CommentParams) (any, error) { return a.Rooms().Rounds.AddComment(p) }),
	"comment_edit":   with(func(a *app.App, p rounds.CommentEdit) (any, error) { return a.Rooms().Rounds.EditComment(p) }),
	"comments":       with(func(a *app.App, p rounds.Arg) (any, error) { return a.Rooms().Rounds.Comments(p) }),
	"comments_move":  with(func(a *app.App, p rounds.MovesParams) (any, error) { return nil, a.Rooms().Rounds.MoveComments(p) }),
	"comments_send":  with(func(a *app.App, p rounds.SendParams) (any, error) { return a.Rooms().Rounds.Send(p) }),
	"blame":          aside(with(func(a *app.App, p rounds.BlameParams) (any, error) { return a.Rooms().Rounds.Blame(p) })),
	"user_saved": with(func(a *app.App, p pathArg) (any, error) {
		a.Rooms().Commands.Writes(commands.You, p.Path)
		return nil, nil
	}),
	"provenance":      with(func(a *app.App, p provenance.Params) (any, error) { return nil, a.Rooms().Provenance.ShowLater(p) }),
	"provenance_push": with(func(a *app.App, p provenance.Params) (any, error) { return nil, a.Rooms().Provenance.PushLater(p) }),
	"merge":           with(func(a *app.App, p merge.StartParams) (any, error) { return nil, a.Rooms().Merge.StartLater(p) }),
	"branch_changes":  with(func(a *app.App, p app.Later) (any, error) { return nil, a.Rooms().Merge.Branch(p) }),
	"compare":         with(func(a *app.App, p merge.CompareParams) (any, error) { return nil, a.Rooms().Merge.CompareLater(p) }),
	"merge_remove":    with(func(a *app.App, p merge.RemoveParams) (any, error) { return nil, a.Rooms().Merge.RemoveLater(p) }),
	"merge_branch":    with(func(a *app.App, p merge.BranchParams) (any, error) { return nil, a.Rooms().Merge.MergeBranchLater(p) }),
	"pr_draft":        with(func(a *app.App, p pr.DraftParams) (any, error) { return nil, a.Rooms().PR.DraftLater(p) }),
	"pr_commit":       with(func(a *app.App, p pr.CommitParams) (any, error) { return a.Rooms().PR.Commit(p) }),
	"merge_apply":     with(func(a *app.App, p merge.ApplyParams) (any, error) { return nil, a.Rooms().Merge.ApplyLater(p) }),
	"worktrees":       with(func(a *app.App, p merge.ListParams) (any, error) { return nil, a.Rooms().Merge.WorktreesLater(p) }),
	"tui":             onTUI(func(r *tuihook.Room, p tuihook.Params) (any, error) { return r.Start(p) }),
	"tui_running":     onTUI(func(r *tuihook.Room, p tuiArg) (any, error) { return nil, r.Running(p.Session, p.Pid) }),
	"tui_exited":      onTUI(func(r *tuihook.Room, p tuiArg) (any, error) { return nil, r.Exited(p.Session, p.Code) }),
	"shutdown":        plain(func(a *app.App) (any, error) { a.Shutdown(); return nil, nil }),
	// tool_reply: the editor's later answer to a tool call (a language
	// server's), matched by its token.
	"tool_reply": func(h *Host, payload []byte, _, _ string) (any, error) {
		p, err := decode[toolReplyArg](payload)
		if err != nil {
			return nil, err
		}
		if h.tools != nil {
			h.tools.Resolve(p.Token, p.OK, p.Result, p.Error)
		}
		return nil, nil
	},
	// log: a message the front end showed cut to one line, kept whole here.
	"log": func(h *Host, payload []byte, _, _ string) (any, error) {
		p, err := decode[logArg](payload)
		if err != nil {
			return nil, err
		}
		h.log.Info("front end", "level", p.Level, "msg", p.Msg)
		return nil, nil
	},
}

// recorder appends each delivered batch to the file at path, one JSON line
// each (CLAUDENOVA_RECORD: recordings for the front end's tests).
func recorder(path string, log *slog.Logger) func([]byte) {
	var mu sync.Mutex
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		log.Warn("record ui batches", "path", path, "err", err)
		return nil
	}
	return func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = f.Write(append(append([]byte(nil), b...), '\n'))
	}
}
