package claude

import "encoding/json"

// The callback ids of our hooks (app's hook_callbacks; a TUI session's
// hook asks the same way): PostToolUse of a file change, PreToolUse (the
// mode guard, the snapshot before a command).
const ChangeHook, ModeHook = "claudenova_diagnostics", "claudenova-mode"

// HookInput is what claude sends a hook callback (the fields we read).
type HookInput struct {
	Event          string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	PermissionMode string          `json:"permission_mode"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// HookCallback reads a hook_callback control request: the callback's id
// and its input.
func HookCallback(m Message) (id string, in HookInput) {
	var req struct {
		Request struct {
			CallbackID string    `json:"callback_id"`
			Input      HookInput `json:"input"`
		} `json:"request"`
	}
	_ = json.Unmarshal(m.Raw, &req)
	return req.Request.CallbackID, req.Request.Input
}
