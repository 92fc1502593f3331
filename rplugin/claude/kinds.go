package claude

import (
	"encoding/json"
	"fmt"
)

// The kinds of message claude prints, decoded once by ParseLine: a
// consumer reads the typed value of its kind, never the raw line. A field
// claude leaves out is the zero value. The control requests are decoded by
// their own functions (DecodePermissionRequest, DecodeElicitation, …): each
// is read by one consumer.

// Origin says which agent a message comes from: claude's own (no parent),
// or a subagent working for the call ParentToolUseID.
type Origin struct {
	ParentToolUseID *string `json:"parent_tool_use_id"`
	AgentID         string  `json:"agent_id"`
	SubagentType    string  `json:"subagent_type"`
	TaskDescription string  `json:"task_description"`
}

// Parent is the call the message belongs to ("" for claude's own).
func (o Origin) Parent() string {
	if o.ParentToolUseID == nil {
		return ""
	}
	return *o.ParentToolUseID
}

// Subagent reports whether a subagent speaks, not claude's main agent.
func (o Origin) Subagent() bool { return o.Parent() != "" || o.AgentID != "" }

// Origin is who speaks in an assistant message or a stream event (the
// zero value for any other message).
func (m Message) Origin() Origin {
	switch {
	case m.Assistant != nil:
		return m.Assistant.Origin
	case m.Stream != nil:
		return m.Stream.Origin
	}
	return Origin{}
}

// Block is one content block of an assistant or user message. Text and
// thinking are decoded when read: a long reply's final copy is not.
type Block struct {
	Type     string          `json:"type"`
	Text     LazyString      `json:"text"`
	Thinking LazyString      `json:"thinking"`
	ID       string          `json:"id"`   // tool_use
	Name     string          `json:"name"` // tool_use
	Input    json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Assistant is what claude (or a subagent) said: text, thinking and tool
// calls.
type Assistant struct {
	Origin
	MessageID  string
	Content    []Block
	ThinkingMS float64 // how long it thought before, when claude says
}

// User is a user message: the echo of a prompt (IsReplay, with the uuid
// we gave it) or the results of tool calls.
type User struct {
	Origin
	UUID     string
	IsReplay bool
	// Content is nil when the message's content is a plain string (the
	// echo of a prompt).
	Content []Block
	ToolResults
}

// Result ends a turn.
type Result struct {
	Subtype    string
	IsError    bool
	DurationMS float64
	CostUSD    float64
	// Text is the reply's text again on success (not read), the error on
	// a failure.
	Text   LazyString
	Errors []string
	Usage  Usage
}

// Failed reports whether the turn ended in an error.
func (r Result) Failed() bool {
	return r.IsError || (r.Subtype != "" && r.Subtype != "success")
}

// Usage is a turn's token count.
type Usage struct {
	In    int `json:"input_tokens"`
	Out   int `json:"output_tokens"`
	Cache int `json:"cache_read_input_tokens"`
}

// StreamEvent is a piece of a message being written
// (--include-partial-messages).
type StreamEvent struct {
	Origin
	MessageID string `json:"api_message_id"`
	Event     struct {
		Type    string `json:"type"`
		Index   int    `json:"index"`
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
		ContentBlock struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"content_block"`
		Delta struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			Thinking    string `json:"thinking"`
			PartialJSON string `json:"partial_json"`
		} `json:"delta"`
	} `json:"event"`
}

// ToolProgress is the heartbeat of a long tool call (or of its hook).
type ToolProgress struct {
	ToolUseID string  `json:"tool_use_id"`
	ToolName  string  `json:"tool_name"`
	Parent    *string `json:"parent_tool_use_id"`
	Elapsed   float64 `json:"elapsed_time_seconds"`
}

// RateLimit is a rate_limit_event's word on the account's limits.
type RateLimit struct {
	Status      string  `json:"status"`
	ResetsAt    float64 `json:"resetsAt"` // unix seconds
	Type        string  `json:"rateLimitType"`
	Utilization float64 `json:"utilization"`
}

// Lifecycle is claude's word on a prompt of ours (command_lifecycle):
// UUID is the uuid we gave it.
type Lifecycle struct {
	UUID  string `json:"command_uuid"`
	State string `json:"state"`
}

// System is a system message. What every subtype may carry is at the top;
// a subtype's own fields are in its part (nil for the other subtypes).
type System struct {
	SessionID      string `json:"session_id"`
	PermissionMode string `json:"permissionMode"`
	Model          string `json:"model"`
	Title          string `json:"title"`               // session_title_changed
	Cwd            string `json:"cwd"`                 // init
	Version        string `json:"claude_code_version"` // init
	State          string `json:"state"`               // session_state_changed
	Prompt         string `json:"prompt"`              // prompt_typed (claude's terminal UI, tuihook)

	Init   *Init   `json:"-"`
	Hook   *Hook   `json:"-"`
	Task   *Task   `json:"-"`
	Signal *Signal `json:"-"`
}

// Init is what system/init says of the session's world.
type Init struct {
	MCPServers []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Source string `json:"source"`
	} `json:"mcp_servers"`
	PluginErrors []struct {
		Plugin  string `json:"plugin"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"plugin_errors"`
	MCPServerErrors ServerErrors `json:"mcp_server_errors"`
	Capabilities    []string     `json:"capabilities"` // caps.Set learns them
}

// Hook is a hook_started, hook_progress or hook_response message.
type Hook struct {
	Subtype  string `json:"subtype"`
	ID       string `json:"hook_id"`
	Name     string `json:"hook_name"`
	Event    string `json:"hook_event"`
	Output   string `json:"output"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode *int   `json:"exit_code"`
	Outcome  string `json:"outcome"`
}

// Task is a message about claude's background tasks (task_started,
// task_progress, task_updated, task_notification,
// background_tasks_changed).
type Task struct {
	Subtype      string `json:"subtype"`
	TaskID       string `json:"task_id"`
	ToolUseID    string `json:"tool_use_id"`
	Description  string `json:"description"`
	SubagentType string `json:"subagent_type"`
	TaskType     string `json:"task_type"`
	Backgrounded *bool  `json:"is_backgrounded"`
	SpawnDepth   int    `json:"spawn_depth"`
	ParentTaskID string `json:"parent_task_id"`
	Status       string `json:"status"`
	Summary      string `json:"summary"`
	LastToolName string `json:"last_tool_name"`
	Ambient      bool   `json:"ambient"`
	Usage        struct {
		DurationMS float64 `json:"duration_ms"`
	} `json:"usage"`
	Patch struct {
		Status       string  `json:"status"`
		Description  string  `json:"description"`
		EndTime      float64 `json:"end_time"` // unix milliseconds
		Error        string  `json:"error"`
		Backgrounded *bool   `json:"is_backgrounded"`
	} `json:"patch"`
	List []TaskListed `json:"tasks"`
}

// TaskListed is one task of background_tasks_changed.
type TaskListed struct {
	TaskID       string `json:"task_id"`
	TaskType     string `json:"task_type"`
	SubagentType string `json:"subagent_type"`
	Description  string `json:"description"`
	ParentTaskID string `json:"parent_task_id"`
	Ambient      bool   `json:"ambient"`
}

// Signal is every other system subtype: a status (compacting), an API
// retry, a compaction, an informational line, a refused call.
type Signal struct {
	Status        *string `json:"status"`
	CompactResult string  `json:"compact_result"`
	CompactError  string  `json:"compact_error"`
	// api_retry
	Attempt     int      `json:"attempt"`
	MaxRetries  int      `json:"max_retries"`
	RetryDelay  float64  `json:"retry_delay_ms"`
	ErrorStatus *int     `json:"error_status"`
	Error       string   `json:"error"`
	Meta        struct { // compact_boundary
		Trigger string `json:"trigger"`
		Pre     int    `json:"pre_tokens"`
		Post    int    `json:"post_tokens"`
	} `json:"compact_metadata"`
	Content       string `json:"content"`
	Text          string `json:"text"`
	Level         string `json:"level"`
	Tag           string `json:"tag"` // informational: settings_not_in_effect, …
	FallbackModel string `json:"fallback_model"`
	// permission_denied
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
	AgentID   string `json:"agent_id"`
	Message   string `json:"message"`
}

// IsTask reports whether a system subtype is about background tasks.
func IsTask(subtype string) bool {
	switch subtype {
	case "task_started", "task_progress", "task_updated", "task_notification", "background_tasks_changed":
		return true
	}
	return false
}

// decodeKind decodes the body of m's kind into its typed value. A body
// that does not decode leaves its value nil (the message is still kept
// whole in Raw, and the error says what failed): its consumers pass it by.
func decodeKind(m *Message) error {
	var err error
	switch m.Type {
	case "assistant":
		m.Assistant, err = decodeAssistant(m.Raw)
	case "user":
		m.User, err = decodeUser(m.Raw)
	case "result":
		m.Result, err = decodeResult(m.Raw)
	case "stream_event":
		m.Stream = &StreamEvent{}
		err = json.Unmarshal(m.Raw, m.Stream)
	case "tool_progress":
		m.Progress = &ToolProgress{}
		err = json.Unmarshal(m.Raw, m.Progress)
	case "rate_limit_event":
		var e struct {
			Info RateLimit `json:"rate_limit_info"`
		}
		err = json.Unmarshal(m.Raw, &e)
		m.RateLimit = &e.Info
	case "command_lifecycle":
		m.Lifecycle = &Lifecycle{}
		err = json.Unmarshal(m.Raw, m.Lifecycle)
	case "system":
		m.System, err = decodeSystem(m.Subtype, m.Raw)
	}
	if err != nil {
		// A typed value that failed to decode is nil, not half-read.
		switch m.Type {
		case "stream_event":
			m.Stream = nil
		case "tool_progress":
			m.Progress = nil
		case "rate_limit_event":
			m.RateLimit = nil
		case "command_lifecycle":
			m.Lifecycle = nil
		}
	}
	if err != nil {
		return fmt.Errorf("decode %s: %w", m.Type, err)
	}
	return nil
}

func decodeAssistant(raw []byte) (*Assistant, error) {
	var msg struct {
		Origin
		ThinkingMS float64 `json:"thinking_duration_ms"`
		Message    struct {
			ID      string  `json:"id"`
			Content []Block `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return nil, err
	}
	return &Assistant{Origin: msg.Origin, MessageID: msg.Message.ID, Content: msg.Message.Content, ThinkingMS: msg.ThinkingMS}, nil
}

func decodeUser(raw []byte) (*User, error) {
	var msg struct {
		Origin
		UUID     string `json:"uuid"`
		IsReplay bool   `json:"isReplay"`
		Message  struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Meta []struct {
			ID        string             `json:"id"`
			Decision  PermissionDecision `json:"permission_decision"`
			Rewritten bool               `json:"rewritten_by_plugin"`
		} `json:"tool_result_meta"`
		// The CLI's structured result of the call: tool_use_result on the
		// wire, toolUseResult in claude's session store. Not always an
		// object (a string on errors).
		Result json.RawMessage `json:"tool_use_result"`
		Stored json.RawMessage `json:"toolUseResult"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return nil, err
	}
	u := &User{Origin: msg.Origin, UUID: msg.UUID, IsReplay: msg.IsReplay}
	u.Structured = msg.Result
	if len(u.Structured) == 0 {
		u.Structured = msg.Stored
	}
	if json.Unmarshal(msg.Message.Content, &u.Content) != nil {
		u.Content = nil // a plain string: the echo of a prompt
		return u, nil
	}
	for _, b := range u.Content {
		if b.Type != "tool_result" || b.ToolUseID == "" {
			continue
		}
		r := ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError}
		for _, mt := range msg.Meta {
			if mt.ID == b.ToolUseID {
				r.Decision, r.Rewritten = mt.Decision, mt.Rewritten
			}
		}
		u.Results = append(u.Results, r)
	}
	return u, nil
}

func decodeResult(raw []byte) (*Result, error) {
	var r struct {
		Subtype    string     `json:"subtype"`
		IsError    bool       `json:"is_error"`
		DurationMS float64    `json:"duration_ms"`
		Cost       float64    `json:"total_cost_usd"`
		Result     LazyString `json:"result"`
		Errors     []string   `json:"errors"`
		Usage      Usage      `json:"usage"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return &Result{Subtype: r.Subtype, IsError: r.IsError, DurationMS: r.DurationMS, CostUSD: r.Cost, Text: r.Result, Errors: r.Errors, Usage: r.Usage}, nil
}

func decodeSystem(subtype string, raw []byte) (*System, error) {
	s := &System{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	var part any
	switch {
	case subtype == "init":
		s.Init = &Init{}
		part = s.Init
	case subtype == "hook_started" || subtype == "hook_progress" || subtype == "hook_response":
		s.Hook = &Hook{}
		part = s.Hook
	case IsTask(subtype):
		s.Task = &Task{}
		part = s.Task
	default:
		s.Signal = &Signal{}
		part = s.Signal
	}
	if err := json.Unmarshal(raw, part); err != nil {
		// The common fields still stand; the part does not.
		s.Init, s.Hook, s.Task, s.Signal = nil, nil, nil, nil
		return s, fmt.Errorf("%s: %w", subtype, err)
	}
	return s, nil
}
