package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// denyRule is a deny rule the user added from this editor. claude ignores
// rules carried by a deny answer, so the plugin keeps session rules itself,
// and writes file rules itself; it also enforces the file rules it wrote
// until claude has reloaded the file (about a second).
type denyRule struct {
	rule        rules.Rule
	destination string
	session     int    // session scope: the session
	cwd         string // local and project scope: the folder
}

// applies reports whether the rule holds for a request of session s.
func (d denyRule) applies(s *session.Session) bool {
	switch d.destination {
	case "session":
		return d.session == s.ID
	case "localSettings", "projectSettings":
		return d.cwd == s.Cwd
	}
	return true // userSettings: everywhere
}

// sessionRule is a rule this editor added for one session (they are not in
// any file, and get_settings does not list them).
type sessionRule struct {
	Rule     string `json:"rule"`
	Behavior string `json:"behavior"`
}

// home is the home folder claude runs with (its user settings live there).
func (a *App) home() string {
	if h := a.options().Env["HOME"]; h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// denied returns the deny rule that refuses this request, if any.
func (a *App) denied(s *session.Session, tool string, input json.RawMessage) (denyRule, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.denies {
		if d.applies(s) && d.rule.Matches(tool, input, s.Cwd) {
			return d, true
		}
	}
	return denyRule{}, false
}

// saveRules keeps the rules of an "Always…" decision before it is answered:
// deny rules are written to their settings file (or kept for the session),
// rules are remembered for the session. An error leaves everything as it
// was and nothing is answered.
func (a *App) saveRules(p approval.Pending, d approval.Decision) error {
	rs, _, err := d.ParsedRules()
	if err != nil || len(rs) == 0 {
		return err
	}
	s, ok := a.sessions.Get(p.Session)
	if !ok {
		return fmt.Errorf("session %d is gone", p.Session)
	}
	if d.Behavior == approval.Deny && d.Destination != "session" {
		path := rules.PathOf(d.Destination, s.Cwd, a.home())
		for _, r := range rs {
			if err := rules.Add(path, "deny", r.String()); err != nil {
				return fmt.Errorf("the deny rule was not saved: %w", err)
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range rs {
		if d.Behavior == approval.Deny {
			a.denies = append(a.denies, denyRule{rule: r, destination: d.Destination, session: s.ID, cwd: s.Cwd})
		}
		if d.Destination == "session" {
			a.sessionRules[s.ID] = append(a.sessionRules[s.ID], sessionRule{Rule: r.String(), Behavior: d.Behavior})
		}
	}
	return nil
}

// rememberSessionChoice records what "Allow for session" allowed.
func (a *App) rememberSessionChoice(p approval.Pending, behavior string) {
	var c rules.Choice
	switch behavior {
	case approval.AllowSession:
		c = rules.SessionChoice(p.Perm.ToolName, p.Perm.Suggestions)
	case approval.AllowTool:
		c = rules.ToolChoice(p.Perm.ToolName)
	default:
		return
	}
	rule := c.Rule
	if c.Mode != "" {
		rule = "mode " + c.Mode
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessionRules[p.Session] = append(a.sessionRules[p.Session], sessionRule{Rule: rule, Behavior: "allow"})
}

// RuleEntry is one rule in effect for a session's folder.
type RuleEntry struct {
	Rule     string `json:"rule"`
	Behavior string `json:"behavior"` // allow, deny, ask
	Source   string `json:"source"`   // session, localSettings, projectSettings, userSettings
	Path     string `json:"path,omitempty"`
}

// RulesView is what :ClaudeNova rules shows.
type RulesView struct {
	Session int         `json:"session"`
	Cwd     string      `json:"cwd"`
	Rules   []RuleEntry `json:"rules"`
	Files   []FileState `json:"files"`
	// ByClaude is set when the file rules are what claude itself reported
	// (get_settings); otherwise the files were read by the plugin.
	ByClaude bool `json:"by_claude"`
	// Untrusted is set when claude ignores the project's shared allow rules
	// (the folder's trust dialog was never accepted).
	Untrusted bool `json:"untrusted"`
}

// FileState says whether a settings file exists and parses.
type FileState struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Error  string `json:"error,omitempty"`
}

// Rules lists the rules in effect for a session (0: the current one, or
// the current folder when no session runs) as read from the files; when a
// session runs, claude's own view (get_settings) follows as an EvRules
// event.
func (a *App) Rules(sid int, cwd string) (RulesView, error) {
	s, err := a.session(sid)
	switch {
	case err == nil:
		cwd = s.Cwd
	case sid != 0 || cwd == "":
		return RulesView{}, err
	default:
		s = nil // no session: the folder's files
	}
	v := a.fileRules(cwd)
	if s != nil {
		v.Session = s.ID
		v.Rules = append(a.sessionRuleEntries(s.ID), v.Rules...)
		if s.State() != session.StateExited {
			a.background(func(ctx context.Context) { a.claudeRules(ctx, s) })
		}
	}
	return v, nil
}

func (a *App) sessionRuleEntries(sid int) []RuleEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []RuleEntry
	for _, r := range a.sessionRules[sid] {
		out = append(out, RuleEntry{Rule: r.Rule, Behavior: r.Behavior, Source: "session"})
	}
	return out
}

// fileRules reads the settings files of a folder.
func (a *App) fileRules(cwd string) RulesView {
	v := RulesView{Cwd: cwd, Untrusted: !trusted(a.home(), cwd)}
	for _, src := range rules.Sources(cwd, a.home()) {
		fs := FileState{Source: src.Name, Path: src.Path}
		if _, err := os.Stat(src.Path); err == nil {
			fs.Exists = true
		}
		perms, err := rules.Read(src.Path)
		if err != nil {
			fs.Error = err.Error()
		}
		v.Files = append(v.Files, fs)
		for _, b := range rules.Behaviors {
			for _, r := range listOf(perms, b) {
				v.Rules = append(v.Rules, RuleEntry{Rule: r, Behavior: b, Source: src.Name, Path: src.Path})
			}
		}
	}
	return v
}

func listOf(p rules.Permissions, behavior string) []string {
	switch behavior {
	case "allow":
		return p.Allow
	case "deny":
		return p.Deny
	}
	return p.Ask
}

// claudeRules asks claude for the settings it uses (get_settings) and
// sends them to the front end.
func (a *App) claudeRules(ctx context.Context, s *session.Session) {
	raw, err := s.Proc.Control(ctx, "get_settings", nil)
	if err != nil {
		a.log.Info("get_settings", "session", s.ID, "err", err)
		return
	}
	var gs struct {
		Sources []struct {
			Source   string `json:"source"`
			Settings struct {
				Permissions rules.Permissions `json:"permissions"`
			} `json:"settings"`
		} `json:"sources"`
		Errors []struct {
			File    string `json:"file"`
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &gs); err != nil {
		a.log.Warn("get_settings answer", "err", err)
		return
	}
	v := RulesView{Session: s.ID, Cwd: s.Cwd, ByClaude: true, Untrusted: !trusted(a.home(), s.Cwd)}
	v.Rules = a.sessionRuleEntries(s.ID)
	paths := map[string]string{}
	for _, src := range rules.Sources(s.Cwd, a.home()) {
		paths[src.Name] = src.Path
		fs := FileState{Source: src.Name, Path: src.Path}
		if _, err := os.Stat(src.Path); err == nil {
			fs.Exists = true
		}
		for _, e := range gs.Errors {
			if filepath.Clean(e.File) == filepath.Clean(src.Path) {
				fs.Error = strings.TrimSpace(e.Message + " " + e.Path)
			}
		}
		v.Files = append(v.Files, fs)
	}
	for _, src := range gs.Sources {
		for _, b := range rules.Behaviors {
			for _, r := range listOf(src.Settings.Permissions, b) {
				v.Rules = append(v.Rules, RuleEntry{Rule: r, Behavior: b, Source: src.Source, Path: paths[src.Source]})
			}
		}
	}
	a.ui.Send(ui.EvRules, v)
}

// RemoveRule takes a file-backed rule out of its settings file.
func (a *App) RemoveRule(e RuleEntry) error {
	if e.Source == "session" || e.Path == "" {
		return errors.New("a session rule ends with its session; only rules in a settings file can be removed")
	}
	known := false
	for _, c := range []string{"userSettings", "projectSettings", "localSettings"} {
		known = known || c == e.Source
	}
	if !known {
		return fmt.Errorf("rules from %s cannot be removed here", e.Source)
	}
	return rules.Remove(e.Path, e.Behavior, e.Rule)
}

// trusted reports whether claude's trust dialog was accepted for cwd (in
// ~/.claude.json): until it is, claude ignores the project's shared allow
// rules.
func trusted(home, cwd string) bool {
	b, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil || len(b) > 16<<20 {
		return false
	}
	var cfg struct {
		Projects map[string]struct {
			Trusted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return false
	}
	return cfg.Projects[cwd].Trusted
}
