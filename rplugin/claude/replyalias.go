package claude

import (
	"encoding/json"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
)

// What system/init and the sessions read of claude's answers, by the
// names they had here (package replies decodes them).
type (
	ServerErrors = replies.ServerErrors
	MCPStatus    = replies.MCPStatus
)

// DecodeMCPStatus reads mcp_status's answer (replies.DecodeMCPStatus).
func DecodeMCPStatus(raw json.RawMessage) (MCPStatus, error) { return replies.DecodeMCPStatus(raw) }
