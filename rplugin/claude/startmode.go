package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The mode claude runs in before the first prompt. claude's own default
// differs between versions (2.1.300 started in auto: tools ran without a
// can_use_tool), so the host always passes --permission-mode; and since a
// version may still start elsewhere, the mode initialize reports is checked
// before any user line is written. A mismatch is set back with
// set_permission_mode; while that runs the user lines wait, and when claude
// refuses, none is ever written (the session cannot start).

// modeTimeout bounds the wait for claude's answer to that set_permission_mode.
const modeTimeout = 15 * time.Second

// ModeError says that claude would not run in the mode it was started for.
type ModeError struct {
	Want, Got string
	Reason    string // claude's words, or what went wrong
}

func (e *ModeError) Error() string {
	return fmt.Sprintf("claude started in %s, not %s (the mode you chose), and would not switch: %s", e.Got, e.Want, e.Reason)
}

// reportedMode is the mode an initialize answer names ("" when it names none:
// an older claude, checked later on system/init).
func reportedMode(initResp json.RawMessage) string {
	var r struct {
		Mode string `json:"current_permission_mode"`
	}
	_ = json.Unmarshal(initResp, &r)
	return r.Mode
}

// holdMode makes sure claude runs in want before user lines go through (see
// above). It runs on the handshake goroutine, before initDone is closed.
func (p *Process) holdMode(want string) {
	got := reportedMode(p.initResp)
	if want == "" || got == "" || got == want {
		return
	}
	p.log.Warn("claude started in another permission mode; setting it back", "want", want, "got", got)
	ctx, cancel := context.WithTimeout(context.Background(), modeTimeout)
	defer cancel()
	body, err := p.Control(ctx, "set_permission_mode", map[string]any{"mode": want})
	if err == nil {
		var r struct {
			Mode string `json:"mode"`
		}
		if json.Unmarshal(body, &r) == nil && r.Mode != "" && r.Mode != want {
			err = fmt.Errorf("claude answered mode %s", r.Mode)
		}
	}
	if err != nil {
		reason := err.Error()
		var ce *ControlError
		if errors.As(err, &ce) {
			reason = ce.Message
		}
		p.initErr = &ModeError{Want: want, Got: got, Reason: reason}
		p.refused.Store(true)
		return
	}
	p.modeSetBack = got
}

// ModeSetBack is the mode claude started in when it was not the one asked
// for and was set back before the first prompt ("" when it started right);
// valid once Initialized is closed.
func (p *Process) ModeSetBack() string {
	select {
	case <-p.initDone:
		return p.modeSetBack
	default:
		return ""
	}
}
