// Package permissions is the room of the permission rules the user keeps:
// a session's own rules (given to claude with apply_flag_settings), the
// rules an answer chose to keep (Always…), the settings files' rules, and
// the rules view (:ClaudeNova rules), with claude's own view of them.
package permissions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
	"github.com/claude-nova/claude-nova.nvim/rplugin/unasked"
)

// Room keeps the sessions' own rules and serves the rules commands.
type Room struct {
	d        *desk.Desk
	home     func() claude.Home // claude's config folder for the environment it runs with
	userHome func() string      // the home folder paths are shown against

	mu    sync.Mutex
	flags map[int]*rules.Session // per session: the rules the user added for it
}

// New returns the permissions room.
func New(d *desk.Desk, home func() claude.Home, userHome func() string) *Room {
	return &Room{d: d, home: home, userHome: userHome, flags: map[int]*rules.Session{}}
}

// Start gives session sid the rules it was started with (claude's
// --settings).
func (rm *Room) Start(sid int, base rules.Permissions) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	rm.flags[sid] = &rules.Session{Base: base}
}

// Forget drops session sid's own rules (the session was forgotten).
func (rm *Room) Forget(sid int) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	delete(rm.flags, sid)
}

// own returns the rules the user added for session sid (created empty).
// Callers hold rm.mu.
func (rm *Room) own(sid int) *rules.Session {
	x, ok := rm.flags[sid]
	if !ok {
		x = &rules.Session{}
		rm.flags[sid] = x
	}
	return x
}

// Apply hands session s's rules to claude (apply_flag_settings, the
// whole lists), queued before whatever is written after it: an answer that
// follows is read by claude with the rules in place. claude also reads its
// settings files again on an apply (checked on 2.1.328: a deny rule written
// to settings.local.json a moment before refused the next request, which
// was otherwise asked), so an apply also makes a file rule just written
// hold at once. claude's reply is awaited in the background.
func (rm *Room) Apply(s *session.Session) error {
	rm.mu.Lock()
	settings := rm.own(s.ID).Settings()
	rm.mu.Unlock()
	ch, err := s.Proc.Begin("apply_flag_settings", map[string]any{"settings": settings})
	if err != nil {
		return fmt.Errorf("session %d: the session's rules could not be sent to claude: %w", s.ID, err)
	}
	rm.d.Log.Info("session rules sent", "session", s.ID, "settings", settings)
	rm.d.Go(func() {
		r := <-ch
		if r.Err != nil {
			rm.d.Log.Warn("apply_flag_settings", "session", s.ID, "err", r.Err)
			if s.State() != session.StateExited && !s.Stopping() {
				rm.d.Notify("error", fmt.Sprintf("session %d: claude did not take the session's rules: %v", s.ID, r.Err))
			}
		}
	})
	return nil
}

// applyAll re-sends every live session's rules, so that each claude reads
// its settings files again (a file rule was added or removed).
func (rm *Room) applyAll() {
	for _, s := range rm.d.Sessions.All() {
		if s.State() == session.StateExited || s.Stopping() {
			continue
		}
		if err := rm.Apply(s); err != nil {
			rm.d.Log.Warn("re-apply session rules", "session", s.ID, "err", err)
		}
	}
}

// Keep keeps what a decision allows or denies for longer than this
// once, before the answer is sent: rules for the session join the
// session's own rules (given to claude with apply_flag_settings); deny
// rules for a settings file are written to it (claude ignores rules on a
// deny answer); allow rules for a settings file travel with the answer
// (claude writes them where it reads them). Nothing is kept when an error
// is returned, and nothing is answered then.
func (rm *Room) Keep(p approval.Pending, d approval.Decision) error {
	rs, _, err := d.ParsedRules()
	if err != nil {
		return err
	}
	var add []string
	behavior := "allow"
	switch {
	case len(rs) > 0 && d.Destination == "session":
		for _, r := range rs {
			add = append(add, r.String())
		}
		if d.Behavior == approval.Deny {
			behavior = "deny"
		}
	case d.Behavior == approval.AllowSession:
		c, ok := rules.SessionChoice(p.Perm.ToolName, p.Perm.In.Fields, p.Perm.Suggestions)
		if !ok {
			return errors.New("there is no rule to allow this request for the session with")
		}
		add = c.Rules // none for a mode: the mode goes with the answer
	case d.Behavior == approval.AllowTool:
		add = rules.ToolChoice(p.Perm.ToolName).Rules
	}
	s, ok := rm.d.Sessions.Get(p.Session)
	if !ok {
		return fmt.Errorf("session %d is gone", p.Session)
	}
	fileDeny := len(rs) > 0 && d.Behavior == approval.Deny && d.Destination != "session"
	if fileDeny {
		path := rules.PathOf(d.Destination, s.Cwd(), rm.home().Dir)
		for _, r := range rs {
			if err := rules.Add(path, "deny", r.String()); err != nil {
				return fmt.Errorf("the deny rule was not saved: %w", err)
			}
		}
	}
	if len(add) == 0 {
		if fileDeny {
			rm.applyAll()
		}
		return nil
	}
	rm.mu.Lock()
	own := rm.own(s.ID)
	var added []string
	for _, r := range add {
		if own.Add(behavior, r) {
			added = append(added, r)
		}
	}
	rm.mu.Unlock()
	if err := rm.Apply(s); err != nil {
		rm.mu.Lock()
		for _, r := range added {
			own.Remove(behavior, r)
		}
		rm.mu.Unlock()
		return err
	}
	return nil
}

// RuleEntry is one rule in effect for a session's folder.
type RuleEntry struct {
	Rule     string `json:"rule"`
	Behavior string `json:"behavior"` // allow, deny, ask
	Source   string `json:"source"`   // session, localSettings, projectSettings, userSettings, flagSettings
	Path     string `json:"path,omitempty"`
	Session  int    `json:"session,omitempty"` // the session of a session rule
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
func (rm *Room) Rules(sid int, cwd string) (RulesView, error) {
	s, err := rm.d.Session(sid)
	switch {
	case err == nil:
		cwd = s.Cwd()
	case sid != 0 || cwd == "":
		return RulesView{}, err
	default:
		s = nil // no session: the folder's files
	}
	v := rm.fileRules(cwd)
	if s != nil {
		v.Session = s.ID
		v.Rules = append(rm.sessionRuleEntries(s.ID), v.Rules...)
		if s.State() != session.StateExited {
			rm.d.Background(func(ctx context.Context) { rm.claudeRules(ctx, s) })
		}
	}
	return v, nil
}

func (rm *Room) sessionRuleEntries(sid int) []RuleEntry {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	var out []RuleEntry
	own := rm.own(sid)
	for _, b := range []struct {
		name string
		list []string
	}{{"allow", own.Allow}, {"deny", own.Deny}} {
		for _, r := range b.list {
			out = append(out, RuleEntry{Rule: r, Behavior: b.name, Source: "session", Session: sid})
		}
	}
	return out
}

// fileRules reads the settings files of a folder.
func (rm *Room) fileRules(cwd string) RulesView {
	home := rm.home()
	v := RulesView{Cwd: cwd, Untrusted: !trusted(home, cwd)}
	for _, src := range rules.Sources(cwd, home.Dir) {
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
func (rm *Room) claudeRules(ctx context.Context, s *session.Session) {
	raw, err := s.Proc.Control(ctx, "get_settings", nil)
	if err != nil {
		rm.d.Log.Info("get_settings", "session", s.ID, "err", err)
		return
	}
	gs, err := replies.DecodeSettings(raw)
	if err != nil {
		rm.d.Log.Warn("get_settings answer", "err", err)
		return
	}
	home := rm.home()
	v := RulesView{Session: s.ID, Cwd: s.Cwd(), ByClaude: true, Untrusted: !trusted(home, s.Cwd())}
	v.Rules = rm.sessionRuleEntries(s.ID)
	paths := map[string]string{}
	for _, src := range rules.Sources(s.Cwd(), home.Dir) {
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
	rm.mu.Lock()
	own := *rm.own(s.ID)
	rm.mu.Unlock()
	for _, src := range gs.Sources {
		for _, b := range rules.Behaviors {
			p := src.Settings.Permissions
			for _, r := range listOf(rules.Permissions{Allow: p.Allow, Deny: p.Deny, Ask: p.Ask}, b) {
				if src.Source == "flagSettings" && own.Has(b, r) {
					continue // the session's own rules, listed above
				}
				v.Rules = append(v.Rules, RuleEntry{Rule: r, Behavior: b, Source: src.Source, Path: paths[src.Source]})
			}
		}
	}
	rm.d.UI.Send(ui.EvRules, v)
}

// RemoveRule takes a rule back: a session rule out of the session's own
// rules (claude gets the lists without it at once), a file rule out of its
// settings file (and every claude reads its settings again at once).
func (rm *Room) RemoveRule(e RuleEntry) error {
	if e.Source == "session" {
		s, err := rm.d.Session(e.Session)
		if err != nil {
			return err
		}
		if s.State() == session.StateExited {
			return fmt.Errorf("session %d has exited: its rules ended with it", s.ID)
		}
		rm.mu.Lock()
		own := rm.own(s.ID)
		removed := own.Remove(e.Behavior, e.Rule)
		rm.mu.Unlock()
		if !removed {
			return fmt.Errorf("session %d has no %s rule %s", s.ID, e.Behavior, e.Rule)
		}
		if err := rm.Apply(s); err != nil {
			rm.mu.Lock()
			own.Add(e.Behavior, e.Rule)
			rm.mu.Unlock()
			return err
		}
		return nil
	}
	known := false
	for _, c := range []string{"userSettings", "projectSettings", "localSettings"} {
		known = known || c == e.Source
	}
	if !known || e.Path == "" {
		return fmt.Errorf("rules from %s cannot be removed here", e.Source)
	}
	if err := rules.Remove(e.Path, e.Behavior, e.Rule); err != nil {
		return err
	}
	rm.applyAll()
	return nil
}

// trusted reports whether claude's trust dialog was accepted for cwd (in
// claude's global config): until it is, claude ignores the project's shared
// allow rules.
func trusted(home claude.Home, cwd string) bool {
	b, err := readRegular(home.Global, 16<<20)
	if err != nil {
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

// readRegular reads a small regular file (never a FIFO, which would hang
// the caller), at most max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, fmt.Errorf("%s is not a small regular file", path)
	}
	return os.ReadFile(path)
}

// AllowRules are the allow rules the plugin knows for session s, with
// where each lives: the session's own, the ones it was started with, and
// those of the settings files claude reads for its folder.
func (rm *Room) AllowRules(s *session.Session) []unasked.Rule {
	var out []unasked.Rule
	rm.mu.Lock()
	if own := rm.flags[s.ID]; own != nil {
		for _, r := range own.Allow {
			out = append(out, unasked.Rule{Rule: r, Where: "this session"})
		}
		for _, r := range own.Base.Allow {
			out = append(out, unasked.Rule{Rule: r, Where: "claude's --settings"})
		}
	}
	rm.mu.Unlock()
	srcs := rules.Sources(s.Cwd(), rm.home().Dir)
	for i := len(srcs) - 1; i >= 0; i-- {
		perms, err := rules.Read(srcs[i].Path)
		if err != nil {
			continue
		}
		for _, r := range perms.Allow {
			out = append(out, unasked.Rule{Rule: r, Where: boundary.Show(srcs[i].Path, s.Cwd(), rm.userHome())})
		}
	}
	return out
}
