package claude

import (
	"context"
	"encoding/json"
	"time"
)

// Conn is one claude process as the rest of the plugin uses it: lines in,
// lines out, control requests. *Process is the real one; tests use an
// in-memory one (package claudetest). No method waits for claude except
// Control and Stop, which callers serving Neovim run from goroutines of
// their own.
type Conn interface {
	// SendUser queues a user message (written once initialize is answered);
	// notes go first in it, as text blocks of their own. uuid, if not "",
	// names the message (its turn's file checkpoint).
	SendUser(uuid, text string, notes ...string) error
	// SendNote queues a user message no person typed (isSynthetic).
	SendNote(text string) error
	// Respond queues the answer to a can_use_tool request.
	Respond(requestID string, result PermissionResult) error
	// RespondAndTell queues the answer and a user message in one write.
	RespondAndTell(requestID string, result PermissionResult, note string) error
	// RespondError queues an error answer to a control request.
	RespondError(requestID, message string) error
	// RespondControl answers one of claude's other control requests
	// (an elicitation) with a success and body.
	RespondControl(requestID string, body any) error
	// Control sends a control request and waits for its response body.
	Control(ctx context.Context, subtype string, fields map[string]any) (json.RawMessage, error)
	// Begin queues a control request in order with every other line and
	// returns at once; its one Reply arrives on the channel.
	Begin(subtype string, fields map[string]any) (<-chan Reply, error)
	// Messages delivers decoded stdout lines in order; closed after exit.
	Messages() <-chan Message
	// Done is closed when the process has exited and its output was read.
	Done() <-chan struct{}
	// ExitErr is the exit error; valid after Done.
	ExitErr() error
	// StderrTail is the end of what claude wrote to stderr.
	StderrTail() string
	// CommandLine is the command that was run, quoted for display.
	CommandLine() string
	// InitResponse is claude's answer to initialize, once it came.
	InitResponse() (json.RawMessage, error)
	// Stop ends the process (queued lines are written first) and returns
	// once it is gone.
	Stop(grace time.Duration)
	// Kill ends the process group at once (SIGTERM, SIGKILL after grace),
	// without closing stdin first (which would let claude go on with its
	// turn), and returns once it is gone.
	Kill(grace time.Duration)
}

var _ Conn = (*Process)(nil)
