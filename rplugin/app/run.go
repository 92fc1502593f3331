package app

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/ahead"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/commands"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/complete"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/editor"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/history"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/modes"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/rounds"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rooms/world"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/settingsnote"
	sessiontasks "github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/window"
)

// router reads each session's claude and routes every message to where it
// belongs: the transcript, the room it concerns, or the answer path (a
// permission request, a form, a request claude withdrew). It holds the
// rooms it routes to and nothing else; what it hands to the answer path
// goes through answerPath.
type router struct {
	log      *slog.Logger
	ui       ui.Sink
	desk     *desk.Desk
	reg      *approval.Registry
	world    *world.Room
	modes    *modes.Room
	tasks    *tasks.Room
	history  *history.Room
	edit     *editor.Room
	rounds   *rounds.Room
	complete *complete.Room
	commands *commands.Room
	asks     answerPath
	ahead    *ahead.Room
	// settings are the settings_not_in_effect warnings each session showed.
	settings settingsnote.Once
	// fault, when set (tests), runs before each message is handled: a
	// panic there is a fault in the session's handling.
	fault func(s *session.Session, m claude.Message)
}

// answerPath is what the router hands to the one path that answers
// requests (App): a request to put before the user, one claude withdrew,
// tool results that settle applied proposals, a prompt to send.
type answerPath interface {
	permission(s *session.Session, m claude.Message)
	elicitation(s *session.Session, m claude.Message)
	withdraw(session int, requestID, reason string)
	withdrawSession(sid int, reason, deny string)
	toolsFinished(s *session.Session, results []claude.ToolResult, wrote string)
	send(s *session.Session, prompt string) error
}

// run consumes one session's messages until claude exits. A resumed
// session first shows its earlier conversation (claude does not replay it;
// its messages wait meanwhile), then its first prompt, if any.
func (r *router) run(s *session.Session, resumed, prompt string) {
	if resumed != "" {
		r.history.ResumedWorktree(s, resumed) // before it is up: it moves in then
	}
	r.desk.Go(func() { r.whenInitialized(s) })
	r.desk.Go(func() { r.world.Tick(s) })
	if resumed != "" {
		r.history.History(s, resumed)
		if strings.TrimSpace(prompt) != "" {
			if err := r.asks.send(s, prompt); err != nil {
				r.desk.Notify("error", err.Error())
			}
		}
	}
	sawInit, faulted := false, false
	for m := range s.Proc.Messages() {
		if faulted {
			continue // drained until claude is gone
		}
		if m.Type == "system" && m.Subtype == "init" {
			sawInit = true
		}
		if err := r.handleSafely(s, m); err != nil {
			faulted = true
			r.faulted(s, m, err)
		}
	}
	r.exited(s, sawInit)
}

// handleSafely handles m; a panic in it is returned as an error (its
// stack logged): a fault in one session's handling must not end the host
// and every other session with it.
func (r *router) handleSafely(s *session.Session, m claude.Message) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
			r.log.Error("panic while handling a message", "session", s.ID, "type", m.Type, "subtype", m.Subtype,
				"panic", v, "stack", string(debug.Stack()))
		}
	}()
	if r.fault != nil {
		r.fault(s, m)
	}
	r.handle(s, m)
	return nil
}

// faulted ends session s after a fault in its handling: its pending
// requests are answered deny (claude is told why), its claude is ended, its
// transcript kept; the user is told which session and where to read more.
func (r *router) faulted(s *session.Session, m claude.Message, err error) {
	r.asks.withdrawSession(s.ID, "internal error", "claude-nova.nvim hit an internal error while handling this session and ended it; this request was not decided by the user.")
	what := m.Type
	if m.Subtype != "" {
		what += "/" + m.Subtype
	}
	msg := fmt.Sprintf("session %d (%s) ended: an internal error while handling claude's %s message (%s); its transcript is kept, :ClaudeNova log has the details",
		s.ID, sanitize.FirstLine(s.Name(), 40), sanitize.Line(what), sanitize.FirstLine(err.Error(), 80))
	r.desk.Notify("error", msg)
	r.desk.Note(s, "**Session ended:** "+msg+".")
	s.MarkStopping()
	r.desk.Go(func() { s.Proc.Kill(2 * time.Second) })
}

// initialized is what a claude.Conn that knows when claude answered
// initialize offers (claude.Process does).
type initialized interface {
	Initialized() <-chan struct{}
}

// whenInitialized marks the session ready once claude answered initialize:
// claude reports nothing else until the first prompt (system/init comes
// with the first turn), so without it a session never sent a prompt, or a
// resumed one, would read "starting" for as long as it lives.
func (r *router) whenInitialized(s *session.Session) {
	if c, ok := s.Proc.(initialized); ok {
		select {
		case <-c.Initialized():
		case <-s.Proc.Done():
			return
		}
	}
	initResp, err := s.Proc.InitResponse()
	r.modes.AtStart(s, err)
	if err != nil {
		return // it answered with an error, or exited: its exit says so
	}
	r.modes.CheckVersion(s, window.VersionIn(initResp))
	if s.MarkReady() {
		r.ui.Send(ui.EvSession, s)
	}
	r.world.EnterPlanned(s)
	// Its MCP servers, before any prompt (system/init comes with the
	// first turn): one that failed to start shows at once.
	r.world.RefreshMCP(s)
}

func (r *router) handle(s *session.Session, m claude.Message) {
	switch m.Type {
	case "system":
		r.system(s, m)
	case "assistant", "stream_event":
		r.turnByItself(s, m)
		r.tasks.SeeAgent(s, m)
		r.desk.Transcript(s, s.Transcript.Apply(m))
		if m.Type == "assistant" {
			r.tasks.NameStops(s, m)
			if ahead.Names(m.Assistant) { // most messages name nothing to make
				r.ahead.Named(s.ID, s.Cwd(), s.Mode(), m.Assistant)
			}
		}
		r.activity(s)
	case "tool_progress":
		r.desk.Transcript(s, s.Transcript.Apply(m))
	case "rate_limit_event":
		r.signal(s, m)
	case "user":
		if r.replayed(s, m) {
			return
		}
		results := claude.ToolResultsOf(m) // decoded once, for every reader below
		r.modes.ExplainUnasked(s, results.Results)
		r.desk.Transcript(s, s.Transcript.Apply(m))
		r.asks.toolsFinished(s, results.Results, r.recordChanges(s, results))
		r.ahead.Finished(s.ID, results.Results)
		r.commands.Finished(s, results.Results)
		r.world.FromResults(s, results)
	case "result":
		interrupted := s.TakeInterrupted()
		awaits := s.AwaitsIdle()
		r.ahead.Forget(s.ID) // a call named and never asked for
		r.desk.Transcript(s, s.Transcript.Result(m, interrupted))
		s.Transition(func(session.Now) session.Now {
			switch {
			case r.reg.Count(s.ID) > 0:
				return session.Now{State: session.StateWaiting}
			case awaits:
				// claude says when its work is over (session_state_changed):
				// a background agent may still run.
				return session.Now{State: session.StateRunning}
			}
			return session.Now{State: session.StateIdle}
		})
		r.ui.Send(ui.EvSession, s)
		r.desk.Background(func(ctx context.Context) { r.contextUsage(ctx, s) })
		r.world.CountWorktree(s)
		if msg := resultError(m); msg != "" && !interrupted {
			// The CLI's words (a refusal, an API error), marked as such.
			r.desk.Notify("error", fmt.Sprintf("session %d: claude says: %s", s.ID, msg))
		}
	case "control_request":
		switch m.Subtype {
		case "can_use_tool":
			r.asks.permission(s, m)
			return
		case "elicitation":
			r.asks.elicitation(s, m)
			return
		case "mcp_message":
			r.edit.MCPMessage(s, m)
			return
		case "hook_callback":
			r.hookCallback(s, m)
			return
		}
		r.log.Warn("unsupported control request", "session", s.ID, "subtype", m.Subtype)
		if err := s.Proc.RespondError(m.RequestID, "claude-nova.nvim does not support control request "+m.Subtype); err != nil {
			r.log.Warn("answer unsupported control request", "err", err)
		}
	case "control_cancel_request":
		r.asks.withdraw(s.ID, m.RequestID, "cancelled by claude")
	case "command_lifecycle":
		r.commandLifecycle(s, m)
	case "control_response":
		r.log.Debug("uncorrelated control response", "session", s.ID, "id", m.RequestID)
	default:
		// keep_alive, and future message types: nothing to show.
	}
}

// replayed handles claude's echo of a prompt it has just taken (its uuid is
// ours): it can no longer be withdrawn, and a session that was idle runs
// again. Echoes are not shown: the transcript has the prompt already.
func (r *router) replayed(s *session.Session, m claude.Message) bool {
	if m.User == nil || !m.User.IsReplay {
		return false
	}
	r.promptTaken(s, m.User.UUID)
	if s.Transition(runsIfIdle) {
		r.ui.Send(ui.EvSession, s)
	}
	return true
}

// promptTaken records that claude took prompt uuid: it is no longer
// queued, and its line in the transcript says so.
func (r *router) promptTaken(s *session.Session, uuid string) {
	if uuid == "" || !s.Dequeue(uuid) {
		return
	}
	r.log.Debug("queued prompt taken", "session", s.ID, "uuid", uuid)
	r.desk.Transcript(s, s.Transcript.Unqueue(uuid, ""))
}

// commandLifecycle is claude's word on a prompt of ours (command_uuid is
// the uuid we gave it): "started" when it takes it.
func (r *router) commandLifecycle(s *session.Session, m claude.Message) {
	c := m.Lifecycle
	if c == nil {
		return
	}
	if c.State == "started" || c.State == "completed" {
		r.promptTaken(s, c.UUID)
	}
}

// turnByItself starts a turn when claude's main agent speaks while the
// session is idle: a turn claude started by itself (a task ended). Nothing
// else makes an idle session run: not a system/init (claude sends one
// after a model switch too), not a subagent's message (it works between
// turns, and its tasks show that).
func (r *router) turnByItself(s *session.Session, m claude.Message) {
	if m.Origin().Subagent() || !s.Transition(runsIfIdle) {
		return
	}
	r.ui.Send(ui.EvSession, s)
}

// runsIfIdle: an idle session starts a turn and runs.
func runsIfIdle(cur session.Now) session.Now {
	if cur.State == session.StateIdle {
		return session.Now{State: session.StateRunning, Turn: true}
	}
	return cur
}

// contextUsage asks claude how full the context is (shown in the
// transcript's winbar).
func (r *router) contextUsage(ctx context.Context, s *session.Session) {
	raw, err := s.Proc.Control(ctx, "get_context_usage", nil)
	if err != nil {
		r.log.Debug("get_context_usage", "session", s.ID, "err", err)
		return
	}
	u, err := replies.DecodeContextUsage(raw)
	if err != nil {
		return
	}
	s.SetContext(session.Context{Tokens: u.Total, Max: u.Max, Percent: u.Percent})
	r.ui.Send(ui.EvSession, s)
}

func (r *router) system(s *session.Session, m claude.Message) {
	sys := m.System
	if sys == nil {
		return
	}
	switch m.Subtype {
	case "init":
		// Not a turn by itself: claude sends one with each turn, and after
		// a model switch while idle too (turnByItself starts the turns
		// claude starts on its own).
		s.Update("", sys.SessionID, sys.Model)
		s.Transition(func(cur session.Now) session.Now {
			if cur.State == session.StateStarting || cur.State == session.StateReady {
				cur.State = session.StateIdle
			}
			return cur
		})
		r.modes.Reported(s, sys.PermissionMode)
		r.modes.CheckVersion(s, sys.Version)
		if sys.Init != nil {
			s.Caps.Learn(sys.Init.Capabilities)
			r.log.Debug("claude's capabilities", "session", s.ID, "capabilities", strings.Join(sys.Init.Capabilities, ","))
		}
		r.world.Init(s, sys)
	case "session_state_changed":
		r.sessionState(s, m)
		return
	case "hook_started", "hook_progress", "hook_response":
		r.world.Hook(s, m)
		return
	case "session_title_changed":
		s.SetTitle(sys.Title)
	case "prompt_typed":
		// A prompt typed into claude's own terminal UI (tuihook): it begins
		// a turn as a prompt of ours does (its changes, its checkpoint), and
		// the first names a session no one named.
		s.Prompted(sys.Prompt)
		s.Turns.Begin(checkpoint.NewID(), sys.Prompt, time.Now())
	case "status":
		r.signal(s, m) // compacting
		r.modes.Reported(s, sys.PermissionMode)
		return
	case "informational":
		if sig := sys.Signal; sig != nil && sig.Tag == settingsnote.Tag {
			// Once per session, the settings named (claude's line in the
			// transcript would be cut before them).
			if r.settings.First(s.ID, sig.Content) {
				r.desk.Notify("warn", settingsnote.Summary(sig.Content, s.Cwd()))
				for _, l := range settingsnote.Lines(sig.Content, s.Cwd()) {
					r.desk.Note(s, l)
				}
			}
			return
		}
		r.signal(s, m)
		return
	default:
		if sessiontasks.IsTaskMessage(m) {
			r.tasks.Message(s, m)
			r.commands.TasksChanged(s)
		} else {
			r.signal(s, m) // api_retry, compact_boundary, informational, …
		}
		return
	}
	r.ui.Send(ui.EvSession, s)
}

func resultError(m claude.Message) string {
	r := m.Result
	if r == nil || !r.Failed() {
		return ""
	}
	result := r.Text.String() // the reply's text on success: not read
	if r.Subtype == "error_during_execution" && result == "" && len(r.Errors) == 0 {
		return "" // an interrupted turn: already noted in the transcript
	}
	msg := result
	if msg == "" {
		msg = strings.Join(r.Errors, "; ")
	}
	if msg == "" {
		msg = r.Subtype
	}
	return sanitize.Truncate(sanitize.Line(msg), 300)
}

// exited handles the end of a claude process. An unexpected exit is
// reported in one line that leads with what claude said (its last stderr
// line); the transcript keeps the whole story, command line included.
func (r *router) exited(s *session.Session, sawInit bool) {
	r.asks.withdrawSession(s.ID, "claude exited", "")
	r.ahead.Forget(s.ID)
	errMsg := ""
	if !s.Stopping() {
		err := s.Proc.ExitErr()
		stderr := strings.TrimSpace(sanitize.Text(s.Proc.StderrTail()))
		if err != nil || !sawInit {
			errMsg = fmt.Sprintf("claude exited unexpectedly (%s)", exitText(err))
			short := errMsg
			if stderr != "" {
				short += ": " + sanitize.LastLines(stderr, 1)
				errMsg += "\n" + sanitize.LastLines(stderr, 5)
			}
			errMsg += "\ncommand: " + s.Proc.CommandLine()
			r.desk.Notify("error", fmt.Sprintf("session %d: %s (see its transcript)", s.ID, short))
		}
	}
	s.Exited(errMsg)
	r.tasks.Ended(s)
	r.commands.Forget(s.ID)
	r.desk.Transcript(s, s.Transcript.EndHooks())
	if s.World.EndHooks() {
		r.world.Changed(s)
	}
	switch {
	case errMsg != "":
		r.desk.Note(s, "**Session ended:** "+errMsg)
	case s.Stopping():
		r.desk.Note(s, "Session stopped.")
	default:
		r.desk.Note(s, "Session ended.")
	}
	r.ui.Send(ui.EvSession, s)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0 before the session started"
	}
	return err.Error()
}

// signal shows one of claude's status signals (api_retry, compaction, a
// rate limit, …) in the transcript, and what it does now in the winbar.
func (r *router) signal(s *session.Session, m claude.Message) {
	r.desk.Transcript(s, s.Transcript.Apply(m))
	r.activity(s)
}

// activity tells the front end when what claude does now changed.
func (r *router) activity(s *session.Session) {
	if _, changed := s.Transcript.Activity(); changed {
		r.ui.Send(ui.EvSession, s)
	}
}

// sessionState applies session_state_changed (sent when claude runs with
// CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS): "idle" is the authoritative end
// of a session's work (after its background agents too), "running" a
// turn under way.
func (r *router) sessionState(s *session.Session, m claude.Message) {
	if m.System == nil {
		return
	}
	state := m.System.State
	s.SawState(state)
	switch state {
	case "idle":
		if !s.Transition(func(cur session.Now) session.Now {
			if r.reg.Count(s.ID) > 0 {
				return cur // its requests wait for the user
			}
			return session.Now{State: session.StateIdle}
		}) {
			return
		}
	case "running":
		if !s.Transition(func(cur session.Now) session.Now {
			switch cur.State {
			case session.StateIdle, session.StateReady, session.StateStarting:
				cur.State = session.StateRunning
			}
			return cur
		}) {
			return
		}
	default:
		return // requires_action: the requests say so
	}
	r.ui.Send(ui.EvSession, s)
}
