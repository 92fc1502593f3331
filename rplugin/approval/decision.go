package approval

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
)

// Behaviors a user can choose.
const (
	Allow        = "allow"         // this once (or, with Rules, always: see Decision)
	AllowSession = "allow_session" // and what the CLI suggests, for this session
	AllowTool    = "allow_tool"    // and every call of the tool, for this session
	AllowDir     = "allow_dir"     // and the folder claude suggests (addDirectories), for this session
	Deny         = "deny"
)

// Rules "for this session" (AllowSession, AllowTool, Rules with
// Destination "session") are not carried by the answer: the app hands them
// to claude with apply_flag_settings before it answers, so that they can be
// listed and taken back. Result answers a plain allow for those.

// DefaultDenyMessage is sent when the user denies without a message.
const DefaultDenyMessage = "The user denied this tool use in claude-nova.nvim."

// Decision is what the user chose for one request.
type Decision struct {
	Behavior     string          `json:"behavior"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"` // replaces the echoed input
	Mode         string          `json:"mode,omitempty"`          // setMode on allow (plan approval)
	// Rules and Destination: "Always…". An allow adds the rules (allow) to
	// the destination with the answer; a deny answers deny, and the app
	// saves the rules (deny) itself: claude ignores rules on a deny answer.
	Rules []string `json:"rules,omitempty"`
	// Gesture says the user made it (a key, a command, a surface's
	// answer), not the plugin (a deny as the session ends, a plan's or a
	// question's answer): only a gesture keeps its rules.
	Gesture     bool   `json:"-"`
	Destination string `json:"destination,omitempty"`
	// Interrupt, on a deny, also ends the turn (interrupt: true in the
	// PermissionResult): a firm no that Claude does not retry. The CLI then
	// tells the model its own words ("The user doesn't want to proceed…
	// STOP…"), not Message (checked on 2.1.328).
	Interrupt bool `json:"interrupt,omitempty"`
	// Tell is a message for Claude written with the answer (what the user
	// changed in a proposal); never set from the front end.
	Tell string `json:"-"`
}

// ParsedRules checks Rules and Destination: every rule well formed, the
// destination known. Rules for tools the plugin does not know are allowed,
// as the CLI accepts them: warn lists those tools.
func (d Decision) ParsedRules() (rs []rules.Rule, warn []string, err error) {
	if len(d.Rules) == 0 {
		return nil, nil, nil
	}
	if !rules.ValidDestination(d.Destination) {
		return nil, nil, fmt.Errorf("unknown destination %q (one of session, localSettings, projectSettings, userSettings)", d.Destination)
	}
	for _, s := range d.Rules {
		r, err := rules.Parse(s)
		if err != nil {
			return nil, nil, err
		}
		if !rules.Known(r.Tool) {
			warn = append(warn, r.Tool)
		}
		rs = append(rs, r)
	}
	return rs, warn, nil
}

// Result turns a decision into the answer claude receives.
func (d Decision) Result(r Pending) (claude.PermissionResult, error) {
	input := r.Perm.Input
	if len(d.UpdatedInput) > 0 {
		if !json.Valid(d.UpdatedInput) {
			return claude.PermissionResult{}, errors.New("updated input is not valid JSON")
		}
		input = d.UpdatedInput
	}
	rs, _, err := d.ParsedRules()
	if err != nil {
		return claude.PermissionResult{}, err
	}
	switch d.Behavior {
	case Allow:
		switch {
		case len(rs) > 0 && d.Destination == "session":
			return claude.Allow(input), nil
		case len(rs) > 0:
			var entries []any
			for _, r := range rs {
				entries = append(entries, r.Update())
			}
			return claude.Allow(input, map[string]any{"type": "addRules", "rules": entries,
				"behavior": "allow", "destination": d.Destination}), nil
		case d.Mode != "":
			return claude.Allow(input, claude.SetMode(d.Mode)), nil
		}
		return claude.Allow(input), nil
	case AllowSession:
		c, ok := rules.SessionChoice(r.Perm.ToolName, r.Perm.In.Fields, r.Perm.Suggestions)
		if !ok {
			return claude.PermissionResult{}, errors.New("there is no rule to allow this request for the session with")
		}
		if c.Mode != "" {
			return claude.Allow(input, claude.SetMode(c.Mode)), nil
		}
		return claude.Allow(input), nil
	case AllowTool:
		return claude.Allow(input), nil
	case AllowDir:
		dirs := rules.SuggestedDirs(r.Perm.Suggestions)
		if len(dirs) == 0 {
			return claude.PermissionResult{}, errors.New("claude suggested no folder to allow for this request")
		}
		return claude.Allow(input, map[string]any{"type": "addDirectories", "directories": dirs, "destination": "session"}), nil
	case Deny:
		msg := d.Message
		if msg == "" {
			msg = DefaultDenyMessage
			if len(rs) > 0 {
				msg = "The user denied this and will deny it from now on (rule " + d.Rules[0] + ")."
			}
		}
		res := claude.Deny(msg)
		res.Interrupt = d.Interrupt
		return res, nil
	default:
		return claude.PermissionResult{}, fmt.Errorf("unknown decision %q (want allow, allow_session, allow_tool, allow_dir or deny)", d.Behavior)
	}
}
