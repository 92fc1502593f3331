package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// run consumes one session's messages until claude exits. A resumed
// session first shows its earlier conversation (claude does not replay it;
// its messages wait meanwhile), then its first prompt, if any.
func (a *App) run(s *session.Session, resumed, prompt string) {
	if resumed != "" {
		a.history.ResumedWorktree(s, resumed) // before it is up: it moves in then
	}
	a.desk.Go(func() { a.whenInitialized(s) })
	a.desk.Go(func() { a.world.Tick(s) })
	if resumed != "" {
		a.history.History(s, resumed)
		if strings.TrimSpace(prompt) != "" {
			if err := a.send(s, prompt); err != nil {
				a.desk.Notify("error", err.Error())
			}
		}
	}
	sawInit := false
	for m := range s.Proc.Messages() {
		if m.Type == "system" && m.Subtype == "init" {
			sawInit = true
		}
		a.handle(s, m)
	}
	a.exited(s, sawInit)
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
func (a *App) whenInitialized(s *session.Session) {
	if c, ok := s.Proc.(initialized); ok {
		select {
		case <-c.Initialized():
		case <-s.Proc.Done():
			return
		}
	}
	initResp, err := s.Proc.InitResponse()
	a.modes.AtStart(s, err)
	if err != nil {
		return // it answered with an error, or exited: its exit says so
	}
	a.modes.CheckVersion(s, claude.VersionIn(initResp))
	if s.MarkReady() {
		a.ui.Send(ui.EvSession, s)
	}
	a.world.EnterPlanned(s)
	// Its MCP servers, before any prompt (system/init comes with the
	// first turn): one that failed to start shows at once.
	a.world.RefreshMCP(s)
}

func (a *App) handle(s *session.Session, m claude.Message) {
	switch m.Type {
	case "system":
		a.system(s, m)
	case "assistant", "stream_event":
		a.turnByItself(s, m)
		a.tasks.SeeAgent(s, m)
		a.desk.Transcript(s, s.Transcript.Apply(m))
		if m.Type == "assistant" {
			a.tasks.NameStops(s, m)
		}
		a.activity(s)
	case "tool_progress":
		a.desk.Transcript(s, s.Transcript.Apply(m))
	case "rate_limit_event":
		a.signal(s, m)
	case "user":
		if a.replayed(s, m) {
			return
		}
		results := claude.ToolResultsOf(m) // decoded once, for every reader below
		a.modes.ExplainUnasked(s, results.Results)
		a.desk.Transcript(s, s.Transcript.Apply(m))
		a.toolsFinished(s, results.Results, a.recordChanges(s, results))
		a.world.FromResults(s, results)
	case "result":
		interrupted := s.TakeInterrupted()
		s.EndTurn()
		a.desk.Transcript(s, s.Transcript.Result(m, interrupted))
		state := session.StateIdle
		switch {
		case a.reg.Count(s.ID) > 0:
			state = session.StateWaiting
		case s.AwaitsIdle():
			// claude says when its work is over (session_state_changed):
			// a background agent may still run.
			state = session.StateRunning
		}
		s.Update(state, "", "", "")
		a.ui.Send(ui.EvSession, s)
		a.desk.Background(func(ctx context.Context) { a.contextUsage(ctx, s) })
		a.world.CountWorktree(s)
		if msg := resultError(m); msg != "" && !interrupted {
			// The CLI's words (a refusal, an API error), marked as such.
			a.desk.Notify("error", fmt.Sprintf("session %d: claude says: %s", s.ID, msg))
		}
	case "control_request":
		switch m.Subtype {
		case "can_use_tool":
			a.permission(s, m)
			return
		case "elicitation":
			a.elicitation(s, m)
			return
		case "mcp_message":
			a.edit.MCPMessage(s, m)
			return
		case "hook_callback":
			a.hookCallback(s, m)
			return
		}
		a.log.Warn("unsupported control request", "session", s.ID, "subtype", m.Subtype)
		if err := s.Proc.RespondError(m.RequestID, "claude-nova.nvim does not support control request "+m.Subtype); err != nil {
			a.log.Warn("answer unsupported control request", "err", err)
		}
	case "control_cancel_request":
		a.withdraw(s.ID, m.RequestID, "cancelled by claude")
	case "command_lifecycle":
		a.commandLifecycle(s, m)
	case "control_response":
		a.log.Debug("uncorrelated control response", "session", s.ID, "id", m.RequestID)
	default:
		// keep_alive, and future message types: nothing to show.
	}
}

// replayed handles claude's echo of a prompt it has just taken (its uuid is
// ours): it can no longer be withdrawn, and a session that was idle runs
// again. Echoes are not shown: the transcript has the prompt already.
func (a *App) replayed(s *session.Session, m claude.Message) bool {
	if m.User == nil || !m.User.IsReplay {
		return false
	}
	a.promptTaken(s, m.User.UUID)
	if s.State() == session.StateIdle {
		s.BeginTurn()
		s.Update(session.StateRunning, "", "", "")
		a.ui.Send(ui.EvSession, s)
	}
	return true
}

// promptTaken records that claude took prompt uuid: it is no longer
// queued, and its line in the transcript says so.
func (a *App) promptTaken(s *session.Session, uuid string) {
	if uuid == "" || !s.Dequeue(uuid) {
		return
	}
	a.log.Debug("queued prompt taken", "session", s.ID, "uuid", uuid)
	a.desk.Transcript(s, s.Transcript.Unqueue(uuid, ""))
}

// commandLifecycle is claude's word on a prompt of ours (command_uuid is
// the uuid we gave it): "started" when it takes it.
func (a *App) commandLifecycle(s *session.Session, m claude.Message) {
	c := m.Lifecycle
	if c == nil {
		return
	}
	if c.State == "started" || c.State == "completed" {
		a.promptTaken(s, c.UUID)
	}
}

// turnByItself starts a turn when claude's main agent speaks while the
// session is idle: a turn claude started by itself (a task ended). Nothing
// else makes an idle session run: not a system/init (claude sends one
// after a model switch too), not a subagent's message (it works between
// turns, and its tasks show that).
func (a *App) turnByItself(s *session.Session, m claude.Message) {
	if s.State() != session.StateIdle || m.Origin().Subagent() {
		return
	}
	s.BeginTurn()
	s.Update(session.StateRunning, "", "", "")
	a.ui.Send(ui.EvSession, s)
}

// contextUsage asks claude how full the context is (shown in the
// transcript's winbar).
func (a *App) contextUsage(ctx context.Context, s *session.Session) {
	raw, err := s.Proc.Control(ctx, "get_context_usage", nil)
	if err != nil {
		a.log.Debug("get_context_usage", "session", s.ID, "err", err)
		return
	}
	var u struct {
		Total   int     `json:"totalTokens"`
		Max     int     `json:"maxTokens"`
		Percent float64 `json:"percentage"`
	}
	if json.Unmarshal(raw, &u) != nil || u.Max == 0 {
		return
	}
	s.SetContext(session.Context{Tokens: u.Total, Max: u.Max, Percent: u.Percent})
	a.ui.Send(ui.EvSession, s)
}

func (a *App) system(s *session.Session, m claude.Message) {
	sys := m.System
	if sys == nil {
		return
	}
	switch m.Subtype {
	case "init":
		// Not a turn by itself: claude sends one with each turn, and after
		// a model switch while idle too (turnByItself starts the turns
		// claude starts on its own).
		st := ""
		switch s.State() {
		case session.StateStarting, session.StateReady:
			st = session.StateIdle
		}
		s.Update(st, "", sys.SessionID, sys.Model)
		a.modes.Reported(s, sys.PermissionMode)
		a.modes.CheckVersion(s, sys.Version)
		a.world.Init(s, sys)
	case "session_state_changed":
		a.sessionState(s, m)
		return
	case "hook_started", "hook_progress", "hook_response":
		a.world.Hook(s, m)
		return
	case "session_title_changed":
		s.SetTitle(sys.Title)
	case "status":
		a.signal(s, m) // compacting
		a.modes.Reported(s, sys.PermissionMode)
		return
	default:
		if session.IsTaskMessage(m) {
			a.tasks.Message(s, m)
		} else {
			a.signal(s, m) // api_retry, compact_boundary, informational, …
		}
		return
	}
	a.ui.Send(ui.EvSession, s)
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
func (a *App) exited(s *session.Session, sawInit bool) {
	a.withdrawSession(s.ID, "claude exited")
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
			a.desk.Notify("error", fmt.Sprintf("session %d: %s (see its transcript)", s.ID, short))
		}
	}
	s.Exited(errMsg)
	a.tasks.Ended(s)
	a.desk.Transcript(s, s.Transcript.EndHooks())
	if s.World.EndHooks() {
		a.world.Changed(s)
	}
	switch {
	case errMsg != "":
		a.desk.Note(s, "**Session ended:** "+errMsg)
	case s.Stopping():
		a.desk.Note(s, "Session stopped.")
	default:
		a.desk.Note(s, "Session ended.")
	}
	a.ui.Send(ui.EvSession, s)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0 before the session started"
	}
	return err.Error()
}

// signal shows one of claude's status signals (api_retry, compaction, a
// rate limit, …) in the transcript, and what it does now in the winbar.
func (a *App) signal(s *session.Session, m claude.Message) {
	a.desk.Transcript(s, s.Transcript.Apply(m))
	a.activity(s)
}

// activity tells the front end when what claude does now changed.
func (a *App) activity(s *session.Session) {
	if _, changed := s.Transcript.Activity(); changed {
		a.ui.Send(ui.EvSession, s)
	}
}

// sessionState applies session_state_changed (sent when claude runs with
// CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS): "idle" is the authoritative end
// of a session's work (after its background agents too), "running" a
// turn under way.
func (a *App) sessionState(s *session.Session, m claude.Message) {
	if m.System == nil {
		return
	}
	state := m.System.State
	s.SawState(state)
	switch state {
	case "idle":
		if s.State() == session.StateExited || a.reg.Count(s.ID) > 0 {
			return
		}
		s.EndTurn()
		s.Update(session.StateIdle, "", "", "")
	case "running":
		switch s.State() {
		case session.StateIdle, session.StateReady, session.StateStarting:
			s.Update(session.StateRunning, "", "", "")
		default:
			return
		}
	default:
		return // requires_action: the requests say so
	}
	a.ui.Send(ui.EvSession, s)
}
