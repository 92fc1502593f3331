package claude

import (
	"encoding/json"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/asks"
)

// What claude asks of the plugin and the plugin's answers, by the names
// they have here (package asks holds them).
type (
	PermissionRequest  = asks.PermissionRequest
	AskRule            = asks.AskRule
	MCPServer          = asks.MCPServer
	Suggestion         = asks.Suggestion
	Suggestions        = asks.Suggestions
	ElicitationRequest = asks.ElicitationRequest
	ElicitationResult  = asks.ElicitationResult
	PermissionResult   = asks.PermissionResult
)

// Allow returns an allow result echoing input (asks.Allow).
func Allow(input json.RawMessage, perms ...any) PermissionResult { return asks.Allow(input, perms...) }

// Deny returns a deny result; message is shown to Claude (asks.Deny).
func Deny(message string) PermissionResult { return asks.Deny(message) }

// SessionRule is the updatedPermissions entry for "Allow for Session".
func SessionRule(tool string) any { return asks.SessionRule(tool) }

// SetMode is the updatedPermissions entry that switches the permission mode.
func SetMode(mode string) any { return asks.SetMode(mode) }
