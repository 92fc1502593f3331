package claude

import (
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/claude-nova/claude-nova.nvim/rplugin/queue"
)

// Process is one running claude. Every line to claude is written by one
// writer goroutine, in order: initialize first, then everything else; user
// messages wait until initialize is answered. Nothing that sends to claude
// waits for claude.
type Process struct {
	argv  []string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   *slog.Logger

	out      chan outLine
	closing  atomic.Bool
	initDone chan struct{}
	initResp json.RawMessage // valid after initDone
	initErr  error           // valid after initDone
	// modeSetBack: claude started in this mode and was set back to the one
	// asked for (startmode.go); refused: it would not be, and no user line
	// is ever written. Both valid after initDone.
	modeSetBack string
	refused     atomic.Bool
	mode        string // --permission-mode

	msgs *queue.Queue[Message]
	long *LongLines // the host's bound on long lines read at once

	cmu    sync.Mutex
	calls  map[string]chan Message
	nextID atomic.Int64

	stderr *tail
	caps   caps       // what claude said it does not support (caps.go)
	novel  *Novelties // what is new in what it sends, logged once (novel.go)

	done    chan struct{}
	exitErr error
}
