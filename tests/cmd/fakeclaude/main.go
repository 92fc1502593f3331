// Command fakeclaude impersonates
//
//	claude -p --input-format stream-json --output-format stream-json --verbose --permission-prompt-tool stdio
//
// from a JSON Lines script, to inject faults the real CLI will not produce on
// demand. See README.md in this directory for the script reference, the
// environment variables and the log format.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var defaultTools = []string{"Task", "AskUserQuestion", "Bash", "CronCreate", "CronDelete", "CronList", "Edit",
	"EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree", "ListAgents", "Monitor", "NotebookEdit",
	"Read", "ReportFindings", "ScheduleWakeup", "SendMessage", "Skill", "TaskCreate", "TaskGet", "TaskList",
	"TaskStop", "TaskUpdate", "ToolSearch", "WebFetch", "WebSearch", "Workflow", "Write"}

const fakeVersion = "0.0.0-fakeclaude"

type askState int

const (
	askPending askState = iota
	askAnswered
	askCancelled
)

func (s askState) String() string {
	return [...]string{"pending", "answered", "cancelled"}[s]
}

type pendingAsk struct {
	reqID, toolUseID, toolName string
	input                      json.RawMessage
	resultContent              string
	state                      askState
	answers                    int
}

type sentControl struct {
	subtype string
	answers int
}

type server struct {
	out *output
	log *logger
	sc  *script

	gen atomic.Int64 // bumped when an interrupt aborts the current turn
	// hung makes the stdin reader stop processing (hang step).
	hung atomic.Bool

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change

	cwd, sessionID, model, permMode string

	initDone       bool
	systemInitSent bool
	lines          []string // every stdin line received, for wait_stdin_line_matching
	lineCursor     int
	userCount      int
	userUsed       int
	asks           map[string]*pendingAsk
	askOrder       []string
	lastAskID      string
	lastToolUseID  string
	answersTotal   int
	sentCtl        map[string]*sentControl
	turnActive     bool
	turnStart      time.Time
	turnDenials    []any
	numTurns       int
	lastText       string
}

func main() {
	if os.Getenv(childVar) == "1" {
		runChild()
	}
	log, err := openLogger(os.Getenv("FAKECLAUDE_LOG"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeclaude: %v\n", err)
		os.Exit(2)
	}
	s := &server{
		log:      log,
		out:      &output{w: os.Stdout, log: log},
		changed:  make(chan struct{}),
		asks:     map[string]*pendingAsk{},
		sentCtl:  map[string]*sentControl{},
		model:    "fake",
		permMode: "default",
	}
	s.cwd, _ = os.Getwd()
	resume, sessionFlag := s.parseArgs(os.Args[1:])
	s.sessionID = firstNonEmpty(os.Getenv("FAKECLAUDE_SESSION"), sessionFlag, resume, newUUID())

	var text []byte
	path := os.Getenv("FAKECLAUDE_SCRIPT")
	switch {
	case path != "":
		text, err = os.ReadFile(path)
	default:
		text = []byte(os.Getenv("FAKECLAUDE_SCRIPT_TEXT"))
	}
	if err == nil {
		s.sc, err = parseScript(text)
	}
	if err != nil {
		log.event("script_error", kv{"err", err.Error()})
		fmt.Fprintf(os.Stderr, "fakeclaude: %v\n", err)
		os.Exit(2)
	}
	if s.sc.cfg.Model != "" {
		s.model = s.sc.cfg.Model
	}
	log.write("argv", kv{"argv", os.Args}, kv{"cwd", s.cwd}, kv{"session_id", s.sessionID},
		kv{"permission_mode", s.permMode}, kv{"model", s.model}, kv{"resume", resume},
		kv{"script", path}, kv{"steps", len(s.sc.steps)})

	s.handleSignals()
	go s.readLoop()
	s.runScript()
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// parseArgs picks out the few flags fakeclaude cares about; everything else
// (the real CLI's whole argv) is ignored.
func (s *server) parseArgs(args []string) (resume, sessionID string) {
	for i := 0; i < len(args); i++ {
		name, val, hasEq := strings.Cut(args[i], "=")
		switch name {
		case "--permission-mode", "--resume", "-r", "--model", "--session-id":
		default:
			continue
		}
		if !hasEq {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				continue
			}
			i++
			val = args[i]
		}
		switch name {
		case "--permission-mode":
			s.permMode = val
		case "--resume", "-r":
			resume = val
		case "--model":
			s.model = val
		case "--session-id":
			sessionID = val
		}
	}
	return resume, sessionID
}

func (s *server) handleSignals() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for sig := range ch {
			n := int(sig.(syscall.Signal))
			ignored := s.sc.cfg.IgnoreSigterm && sig != syscall.SIGHUP
			s.log.event("signal", kv{"signal", sig.String()}, kv{"ignored", ignored})
			if !ignored {
				os.Exit(128 + n)
			}
		}
	}()
}

// bump wakes every waiter; call with s.mu held.
func (s *server) bump() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// ---------------------------------------------------------------- stdin side

func (s *server) readLoop() {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		b, err := r.ReadBytes('\n')
		if s.hung.Load() {
			// Logged so a test can tell the read was ignored (EOF too).
			s.log.event("hung_read", kv{"eof", err == io.EOF})
			blockForever()
		}
		if len(b) > 0 {
			s.handleLine(bytes.TrimSuffix(b, []byte("\n")))
		}
		if err != nil {
			if err == io.EOF {
				s.log.event("stdin_eof")
				os.Exit(0)
			}
			s.log.event("stdin_error", kv{"err", err.Error()})
			os.Exit(1)
		}
	}
}

func (s *server) handleLine(line []byte) {
	sum, ok := summarize(line)
	s.log.write("recv", lineFields(line, sum, ok)...)
	s.mu.Lock()
	s.lines = append(s.lines, string(line))
	if ok && sum.Type == "user" {
		s.userCount++
	}
	s.bump()
	s.mu.Unlock()
	if !ok {
		return
	}
	switch sum.Type {
	case "control_request":
		s.handleControlRequest(sum.RequestID, sum.Subtype, sum.Request)
	case "control_response":
		s.handleControlResponse(sum.Response)
	}
}

func (s *server) ctlSuccess(rid string, payload any) {
	s.out.json(O{{"type", "control_response"}, {"response", O{
		{"subtype", "success"}, {"request_id", rid}, {"response", payload}}}})
}

func (s *server) ctlError(rid, msg string) {
	s.out.json(O{{"type", "control_response"}, {"response", O{
		{"subtype", "error"}, {"request_id", rid}, {"error", msg}}}})
}

func (s *server) handleControlRequest(rid, subtype string, req json.RawMessage) {
	ov, has := s.sc.cfg.Control[subtype]
	if has && ov.Ignore {
		s.log.event("control_ignored", kv{"request_id", rid}, kv{"subtype", subtype})
		return
	}
	payload := func(def any) any {
		if has && ov.Response != nil {
			return ov.Response
		}
		return def
	}
	do := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		defer s.bump()
		if has && ov.Error != "" {
			s.ctlError(rid, ov.Error)
			return
		}
		switch subtype {
		case "initialize":
			s.ctlSuccess(rid, payload(O{{"commands", []any{}}, {"agents", []any{}}, {"models", []any{}},
				{"pid", os.Getpid()}, {"claude_code_version", fakeVersion},
				{"current_permission_mode", s.permMode}}))
			s.initDone = true
			if !s.systemInitSent {
				s.emitSystemInitLocked()
			}
		case "set_permission_mode":
			var r struct {
				Mode string `json:"mode"`
			}
			_ = json.Unmarshal(req, &r)
			if r.Mode == "" {
				s.ctlError(rid, "Invalid permission mode: missing mode")
				return
			}
			// An answer the script overrides names the mode taken.
			took := r.Mode
			if has && ov.Response != nil {
				var said struct {
					Mode string `json:"mode"`
				}
				if json.Unmarshal(ov.Response, &said) == nil && said.Mode != "" {
					took = said.Mode
				}
			}
			s.permMode = took
			s.ctlSuccess(rid, payload(O{{"mode", r.Mode}}))
			s.emitStatusLocked()
		case "set_model":
			var r struct {
				Model string `json:"model"`
			}
			_ = json.Unmarshal(req, &r)
			if r.Model != "" {
				s.model = r.Model
			}
			s.ctlSuccess(rid, payload(O{}))
		case "interrupt":
			s.interruptLocked(rid, payload(O{{"still_queued", []any{}}}))
		default:
			if has && ov.Response != nil {
				s.ctlSuccess(rid, ov.Response)
				return
			}
			s.ctlError(rid, "Unsupported control request subtype: "+subtype)
		}
	}
	if has && ov.DelayMS > 0 {
		go func() {
			time.Sleep(time.Duration(ov.DelayMS) * time.Millisecond)
			do()
		}()
		return
	}
	do()
}

func (s *server) systemInitEnabled() bool {
	return s.sc.cfg.SystemInit == nil || *s.sc.cfg.SystemInit
}

func (s *server) emitSystemInitLocked() {
	if !s.systemInitEnabled() {
		return
	}
	tools := defaultTools
	if s.sc.cfg.Tools != nil {
		tools = s.sc.cfg.Tools
	}
	s.systemInitSent = true
	s.out.json(O{{"type", "system"}, {"subtype", "init"}, {"cwd", s.cwd}, {"session_id", s.sessionID},
		{"tools", tools}, {"mcp_servers", []any{}}, {"model", s.model}, {"permissionMode", s.permMode},
		{"slash_commands", []any{}}, {"apiKeySource", "none"}, {"claude_code_version", fakeVersion},
		{"output_style", "default"}, {"agents", []any{}}, {"uuid", newUUID()}})
}

func (s *server) emitStatusLocked() {
	s.out.json(O{{"type", "system"}, {"subtype", "status"}, {"status", nil},
		{"permissionMode", s.permMode}, {"uuid", newUUID()}, {"session_id", s.sessionID}})
}

type permResult struct {
	Behavior           string          `json:"behavior"`
	Message            string          `json:"message"`
	Interrupt          bool            `json:"interrupt"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	UpdatedPermissions []struct {
		Type string `json:"type"`
		Mode string `json:"mode"`
	} `json:"updatedPermissions"`
}

func (s *server) handleControlResponse(raw json.RawMessage) {
	var cr struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Response  json.RawMessage `json:"response"`
		Error     string          `json:"error"`
	}
	_ = json.Unmarshal(raw, &cr)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.bump()
	f := []kv{{"request_id", cr.RequestID}, {"subtype", cr.Subtype}}
	if cr.Error != "" {
		f = append(f, kv{"error", cr.Error})
	}
	if a := s.asks[cr.RequestID]; a != nil {
		var pr permResult
		_ = json.Unmarshal(cr.Response, &pr)
		a.answers++
		s.answersTotal++
		f = append(f, kv{"for", "can_use_tool"}, kv{"tool_name", a.toolName}, kv{"behavior", pr.Behavior},
			kv{"n", a.answers}, kv{"state_before", a.state.String()}, kv{"total", s.answersTotal})
		s.log.write("answer", f...)
		if a.state == askPending {
			a.state = askAnswered
			s.toolResultLocked(a, cr.Subtype, cr.Error, pr)
		}
		return
	}
	if c := s.sentCtl[cr.RequestID]; c != nil {
		c.answers++
		s.log.write("answer", append(f, kv{"for", "unknown_control"}, kv{"control_subtype", c.subtype},
			kv{"n", c.answers}, kv{"response", cr.Response})...)
		return
	}
	s.log.write("answer", append(f, kv{"for", "unknown"})...)
}

func (s *server) userToolResult(toolUseID string, content any, isErr bool, tur any, meta O) O {
	return O{{"type", "user"}, {"message", O{{"role", "user"}, {"content", []any{O{
		{"type", "tool_result"}, {"content", content}, {"is_error", isErr}, {"tool_use_id", toolUseID}}}}}},
		{"parent_tool_use_id", nil}, {"session_id", s.sessionID}, {"uuid", newUUID()},
		{"timestamp", nowTS()}, {"tool_use_result", tur}, {"tool_result_meta", []any{meta}}}
}

func (s *server) denyLocked(a *pendingAsk) {
	s.turnDenials = append(s.turnDenials, O{{"tool_name", a.toolName}, {"tool_use_id", a.toolUseID},
		{"tool_input", a.input}})
}

// toolResultLocked emits what the real CLI emits once a permission answer
// arrives: an optional system/status (setMode) and the user tool_result.
func (s *server) toolResultLocked(a *pendingAsk, subtype, errMsg string, pr permResult) {
	if subtype == "error" {
		msg := "Error: " + errMsg
		s.denyLocked(a)
		s.out.json(s.userToolResult(a.toolUseID, msg, true, msg,
			O{{"id", a.toolUseID}, {"non_execution_kind", "permission-error"}}))
		return
	}
	switch pr.Behavior {
	case "allow":
		for _, p := range pr.UpdatedPermissions {
			if p.Type == "setMode" && p.Mode != "" {
				s.permMode = p.Mode
				s.emitStatusLocked()
			}
		}
		input := a.input
		if len(pr.UpdatedInput) > 0 && string(pr.UpdatedInput) != "null" {
			input = pr.UpdatedInput
		}
		s.out.json(s.userToolResult(a.toolUseID, a.resultContent, false, input,
			O{{"id", a.toolUseID}, {"permission_decision", O{{"decision", "accept"}, {"source", "user_temporary"}}}}))
	case "deny":
		msg := pr.Message
		if msg == "" {
			msg = "Permission to use " + a.toolName + " has been denied."
		}
		s.denyLocked(a)
		s.out.json(s.userToolResult(a.toolUseID, msg, true, "Error: "+msg,
			O{{"id", a.toolUseID}, {"non_execution_kind", "permission-rule"},
				{"permission_decision", O{{"decision", "reject"}, {"source", "user_reject"}}}}))
		if pr.Interrupt && s.turnActive {
			s.abortTurnLocked(true)
		}
	default:
		msg := fmt.Sprintf("Invalid permission response: behavior %q", pr.Behavior)
		s.denyLocked(a)
		s.out.json(s.userToolResult(a.toolUseID, msg, true, "Error: "+msg,
			O{{"id", a.toolUseID}, {"non_execution_kind", "permission-error"}}))
	}
}

const rejectText = "The user doesn't want to proceed with this tool use. The tool use was rejected " +
	"(eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing " +
	"and wait for the user to tell you how to proceed."

// interruptLocked follows interrupt-pending.jsonl: control_cancel_request for
// every unanswered can_use_tool, the interrupt's control_response, a rejected
// tool_result per cancelled ask, "[Request interrupted by user...]" and an
// error_during_execution result.
func (s *server) interruptLocked(rid string, payload any) {
	var cancelled []*pendingAsk
	for _, id := range s.askOrder {
		if a := s.asks[id]; a.state == askPending {
			a.state = askCancelled
			s.out.json(O{{"type", "control_cancel_request"}, {"request_id", id}})
			cancelled = append(cancelled, a)
		}
	}
	s.ctlSuccess(rid, payload)
	s.log.event("interrupt", kv{"request_id", rid}, kv{"cancelled", len(cancelled)}, kv{"turn_active", s.turnActive})
	if s.sc.cfg.Interrupt == "continue" {
		return
	}
	for _, a := range cancelled {
		s.denyLocked(a)
		s.out.json(s.userToolResult(a.toolUseID, rejectText, true, "User rejected tool use",
			O{{"id", a.toolUseID}, {"non_execution_kind", "user-rejected"}}))
	}
	if s.turnActive || len(cancelled) > 0 {
		s.abortTurnLocked(len(cancelled) > 0)
	}
}

func (s *server) abortTurnLocked(forToolUse bool) {
	text := "[Request interrupted by user]"
	stop, reason := "end_turn", "aborted_streaming"
	if forToolUse {
		text = "[Request interrupted by user for tool use]"
		stop, reason = "tool_use", "aborted_tools"
	}
	s.out.json(O{{"type", "user"}, {"message", O{{"role", "user"}, {"content", []any{O{{"type", "text"}, {"text", text}}}}}},
		{"parent_tool_use_id", nil}, {"session_id", s.sessionID}, {"uuid", newUUID()}, {"timestamp", nowTS()}})
	r := s.resultLocked()
	r = r.set("subtype", "error_during_execution").set("is_error", true).set("stop_reason", stop).
		set("terminal_reason", reason).set("errors", []string{"interrupted"})
	r = removeKey(r, "result")
	s.out.json(r)
	s.turnActive = false
	s.gen.Add(1)
}

func removeKey(o O, k string) O {
	out := o[:0:0]
	for _, f := range o {
		if f.K != k {
			out = append(out, f)
		}
	}
	return out
}

func (s *server) resultLocked() O {
	text := s.lastText
	if text == "" {
		text = "done"
	}
	d := time.Since(s.turnStart).Milliseconds()
	denials := s.turnDenials
	if denials == nil {
		denials = []any{}
	}
	return O{{"type", "result"}, {"subtype", "success"}, {"is_error", false}, {"duration_ms", d},
		{"duration_api_ms", d}, {"num_turns", s.numTurns}, {"result", text}, {"stop_reason", "end_turn"},
		{"session_id", s.sessionID}, {"total_cost_usd", 0.0001},
		{"usage", O{{"input_tokens", 10}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0}, {"output_tokens", 5}}},
		{"modelUsage", O{}}, {"permission_denials", denials}, {"terminal_reason", "completed"}, {"uuid", newUUID()}}
}
