package claude

import (
	"encoding/json"
	"log/slog"
	"sync"
)

// Novelties logs, once per host, what a claude sends that the plugin does
// not know: a message type, a system subtype, a top-level field of
// system/init. claude ships every day or two; a new kind of message is
// otherwise ignored (nothing to show), and this is where a developer learns
// of it. Shared by the host's processes (Config.Novel).
type Novelties struct {
	mu   sync.Mutex
	seen map[string]bool
}

// NewNovelties returns an empty record.
func NewNovelties() *Novelties { return &Novelties{seen: map[string]bool{}} }

// knownTypes are the message types the plugin reads or knowingly skips.
var knownTypes = map[string]bool{
	"system": true, "assistant": true, "user": true, "result": true, "stream_event": true,
	"control_request": true, "control_response": true, "control_cancel_request": true,
	"tool_progress": true, "rate_limit_event": true, "keep_alive": true, "command_lifecycle": true,
}

// knownSystem are the system subtypes seen on the wire (2.1.250 to 2.1.332).
var knownSystem = map[string]bool{
	"init": true, "status": true, "session_state_changed": true, "session_title_changed": true,
	"hook_started": true, "hook_progress": true, "hook_response": true, "api_retry": true,
	"compact_boundary": true, "informational": true, "permission_denied": true,
	"task_started": true, "task_progress": true, "task_updated": true, "task_notification": true,
	"background_tasks_changed": true, "local_command_output": true, "files_persisted": true,
}

// knownInit are system/init's fields as 2.1.250 to 2.1.332 send them.
var knownInit = map[string]bool{
	"type": true, "subtype": true, "uuid": true, "session_id": true, "cwd": true, "original_cwd": true,
	"additional_directories": true, "tools": true, "mcp_servers": true, "model": true, "permissionMode": true,
	"slash_commands": true, "terminal_slash_commands": true, "apiKeySource": true, "claude_code_version": true,
	"output_style": true, "agents": true, "skills": true, "plugins": true, "capabilities": true,
	"analytics_disabled": true, "product_feedback_disabled": true, "served_by_anthropic": true,
	"sandbox_enabled": true, "memory_paths": true, "messaging_socket_path": true, "fast_mode_state": true,
	"fast_mode_disabled_reason": true, "per_turn_effort_active": true, "ultrathink_available": true,
	"ultrathink_typed_raises": true, "view_mode": true, "user_message_uuids": true,
}

// Note logs what is new in m, once each.
func (n *Novelties) Note(m Message, log *slog.Logger) {
	if n == nil {
		return
	}
	switch {
	case m.Undecoded != nil:
		n.once("undecoded "+m.Type+" "+m.Subtype, log, "claude sent a message the plugin could not read; it is passed by", "type", m.Type, "subtype", m.Subtype, "err", m.Undecoded)
	case !knownTypes[m.Type]:
		n.once("type "+m.Type, log, "claude sent a message type the plugin does not know; it is skipped", "type", m.Type)
	case m.Type == "system" && !knownSystem[m.Subtype]:
		n.once("system "+m.Subtype, log, "claude sent a system message the plugin does not know; it is shown as a note or skipped", "subtype", m.Subtype)
	case m.Type == "system" && m.Subtype == "init":
		var fields map[string]json.RawMessage
		if json.Unmarshal(m.Raw, &fields) != nil {
			return
		}
		for k := range fields {
			if !knownInit[k] {
				n.once("init "+k, log, "claude's system/init has a field the plugin does not know", "field", k)
			}
		}
	}
}

func (n *Novelties) once(key string, log *slog.Logger, msg string, args ...any) {
	n.mu.Lock()
	seen := n.seen[key]
	n.seen[key] = true
	n.mu.Unlock()
	if !seen && log != nil {
		log.Info(msg+" (logged once)", args...)
	}
}
