// Package tuihook lets claude's own terminal UI (the interactive claude in
// a Neovim terminal) ask its permission questions in the editor. The TUI is
// started with a PermissionRequest hook whose command is this binary's
// "hook" subcommand (Run): it hands the hook's input to the running host
// over a private per-user unix socket (Server) and prints the decision the
// host sends back. On the host, each TUI session has a Conn, a claude.Conn
// whose messages are the synthesized can_use_tool requests of its hooks:
// the rest of the plugin answers them as it answers stream-json ones.
package tuihook

import (
	"encoding/json"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// The environment the TUI (and so its hooks) runs with: where the host
// listens, and the session's secret.
const (
	EnvSocket = "CLAUDENOVA_HOOK_SOCKET"
	EnvToken  = "CLAUDENOVA_HOOK_TOKEN"
)

// maxLine bounds one line of the hook protocol (a Write's whole file
// travels in it).
const maxLine = 64 << 20

// HookInput is what claude gives a PermissionRequest hook on stdin
// (checked on 2.1.328).
type HookInput struct {
	SessionID             string          `json:"session_id"`
	TranscriptPath        string          `json:"transcript_path"`
	Cwd                   string          `json:"cwd"`
	PermissionMode        string          `json:"permission_mode"`
	HookEventName         string          `json:"hook_event_name"`
	ToolName              string          `json:"tool_name"`
	ToolInput             json.RawMessage `json:"tool_input"`
	PermissionSuggestions json.RawMessage `json:"permission_suggestions,omitempty"`
	Prompt                string          `json:"prompt,omitempty"` // UserPromptSubmit
	// PostToolUse: the call's id and claude's structured result (for a
	// change: filePath, originalFile…, as tool_use_result on the wire of a
	// stream-json claude; checked on 2.1.328).
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
}

// The hook events the TUI is started with: its permission requests, and
// what tells the host a request was settled in the terminal meanwhile (the
// tool ran, or failed; a new prompt; the turn is over). A "No" or Esc in
// the TUI's dialog ends our hook (SIGTERM): its request leaves with it.
const (
	EventPermission = "PermissionRequest"
	EventPreTool    = "PreToolUse" // of a command (matcher Bash): the folder is snapshotted before it
	EventPostTool   = "PostToolUse"
	EventToolFailed = "PostToolUseFailure"
	EventPrompt     = "UserPromptSubmit"
	EventStop       = "Stop"
)

// check refuses an input the host must not act on.
func (in HookInput) check() error {
	switch in.HookEventName {
	case EventPermission, EventPreTool, EventPostTool, EventToolFailed:
	case EventPrompt, EventStop:
		return nil
	default:
		return fmt.Errorf("hook event %q is none of ours", in.HookEventName)
	}
	if in.ToolName == "" {
		return fmt.Errorf("no tool_name")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(in.ToolInput, &obj); err != nil || obj == nil {
		return fmt.Errorf("tool_input is not an object")
	}
	return nil
}

// ask is the one line the hook sends the host.
type ask struct {
	Token string          `json:"token"`
	Input json.RawMessage `json:"input,omitempty"`
	// MCP is a JSON-RPC message for the editor's MCP server (RunMCP), in
	// place of a hook's input.
	MCP json.RawMessage `json:"mcp,omitempty"`
}

// reply is the one line the host sends back; no line at all (the
// connection closed) means no decision.
type reply struct {
	Decision *claude.PermissionResult `json:"decision,omitempty"`
	// Output is what a notice hook prints (a PostToolUse's context for
	// Claude), when anything.
	Output json.RawMessage `json:"output,omitempty"`
}

// interactive are the tools that ask the user something (a question, a
// plan's approval): claude takes the hook's answer only with an
// updatedInput (an allow without one leaves the TUI's dialog open; checked
// on 2.1.328), which the editor's answer always carries.
var interactive = map[string]bool{"AskUserQuestion": true, "ExitPlanMode": true}

// changeTools are the tools whose PostToolUse the host answers (the note
// of what the user changed, the file's diagnostics), as app's hook does.
var changeTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// commandTool is the tool whose effects the host snapshots around (app's
// rooms/commands), matched by our PreToolUse hook.
const commandTool = "Bash"

// hookOutput is what the hook prints for claude.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName string                  `json:"hookEventName"`
		Decision      claude.PermissionResult `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// Output is the hook's stdout for decision d, or an error when d is no
// decision claude can take (never printed: the TUI asks instead).
func Output(d *claude.PermissionResult) ([]byte, error) {
	if d == nil {
		return nil, fmt.Errorf("no decision")
	}
	switch d.Behavior {
	case "allow":
		if len(d.UpdatedInput) > 0 {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(d.UpdatedInput, &obj); err != nil || obj == nil {
				return nil, fmt.Errorf("updatedInput is not an object")
			}
		}
	case "deny":
	default:
		return nil, fmt.Errorf("decision %q is neither allow nor deny", d.Behavior)
	}
	var o hookOutput
	o.HookSpecificOutput.HookEventName = "PermissionRequest"
	o.HookSpecificOutput.Decision = *d
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encode decision: %w", err)
	}
	return append(b, '\n'), nil
}
