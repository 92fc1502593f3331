// Package mode is the permission mode a session runs in: the modes claude
// knows, the one the user chose (the plugin's option, else the settings
// claude reads for the folder, else default), and what to make of a mode
// claude reports. A session never runs in a mode the user did not choose:
// claude's own default differs between versions (2.1.300 started in auto,
// where tools run unasked), so the chosen mode is always passed explicitly,
// and a report of another one is a mismatch to set back.
package mode

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The modes claude accepts (lua/claudenova/setup/config.lua has the same list; a
// test checks they agree).
const (
	Default           = "default"
	AcceptEdits       = "acceptEdits"
	Plan              = "plan"
	Auto              = "auto"
	BypassPermissions = "bypassPermissions"
	DontAsk           = "dontAsk"
)

// All lists the modes in the order they are offered.
var All = []string{Default, AcceptEdits, Plan, Auto, BypassPermissions, DontAsk}

// Valid reports whether m is a mode claude knows.
func Valid(m string) bool { return slices.Contains(All, m) }

// Answered checks claude's answer to set_permission_mode, which names the
// mode it took ({"mode":…}: 2.1.300, 2.1.328 and 2.1.332): nil when it is
// want (or the answer names none), else an error saying which it took.
func Answered(body json.RawMessage, want string) error {
	var r struct {
		Mode string `json:"mode"`
	}
	if json.Unmarshal(body, &r) != nil || r.Mode == "" || r.Mode == want {
		return nil
	}
	return fmt.Errorf("claude answered mode %s, not %s", r.Mode, want)
}

// Check is nil for a known mode, else an error that lists them.
func Check(m string) error {
	if Valid(m) {
		return nil
	}
	return fmt.Errorf("unknown permission mode %q (one of %s)", m, strings.Join(All, ", "))
}

// Source says where a session's starting mode came from.
type Source struct {
	Mode  string
	Where string // "the :ClaudeNova new flag", "the permission_mode option", a settings file, "claude-nova's default"
}

// Setting is one settings file's permissions.defaultMode, with the file.
type Setting struct {
	Path string
	Mode string
}

// Resolve picks the mode a session starts in: asked (a flag of this one
// session: --plan), else option (the plugin's permission_mode), else the
// first settings file that names a defaultMode (settings in claude's order
// of precedence, strongest first), else default. A settings value claude
// does not know is skipped and reported in bad.
func Resolve(asked, option string, settings []Setting) (src Source, bad []Setting) {
	switch {
	case asked != "":
		return Source{asked, "this session's flag"}, nil
	case option != "":
		return Source{option, "the permission_mode option"}, nil
	}
	for _, s := range settings {
		if s.Mode == "" {
			continue
		}
		if !Valid(s.Mode) {
			bad = append(bad, s)
			continue
		}
		return Source{s.Mode, s.Path}, bad
	}
	return Source{Default, "claude-nova's default"}, bad
}

// Guard holds the mode a session's user chose and judges the modes claude
// reports. Safe for concurrent use.
//
// A report is fine when it is the chosen mode, a mode the user is switching
// to (a set_permission_mode or an answer carrying setMode, until claude has
// confirmed it), or plan: claude enters it by itself (EnterPlanMode), and
// in it nothing runs that the chosen mode would have asked about; leaving
// it needs the user's plan approval, which names the mode that follows.
// Anything else is a mismatch the user did not make.
type Guard struct {
	mu      sync.Mutex
	chosen  string
	pending []string
	fixing  string // a mismatch being set back (Fixing)
}

// NewGuard starts a guard on the mode the session was started in.
func NewGuard(chosen string) *Guard {
	if chosen == "" {
		chosen = Default
	}
	return &Guard{chosen: chosen}
}

// Chosen is the mode the user chose.
func (g *Guard) Chosen() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.chosen
}

// Propose records that the user asked for m (claude has not confirmed it
// yet): until Confirm or Drop, a report of m is the user's doing too.
func (g *Guard) Propose(m string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m != "" && !slices.Contains(g.pending, m) {
		g.pending = append(g.pending, m)
	}
}

// Confirm makes m the chosen mode (claude took it).
func (g *Guard) Confirm(m string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m == "" {
		return
	}
	g.chosen = m
	g.pending = slices.DeleteFunc(g.pending, func(p string) bool { return p == m })
}

// Drop forgets a proposal claude refused.
func (g *Guard) Drop(m string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = slices.DeleteFunc(g.pending, func(p string) bool { return p == m })
}

// Allows reports whether a session may run in m, as claude reports it.
func (g *Guard) Allows(m string) bool {
	if m == "" {
		return true // nothing reported
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return m == g.chosen || m == Plan || slices.Contains(g.pending, m)
}

// Report judges a mode claude reports: a mode the user was switching to
// becomes the chosen one; the answer is Allows.
func (g *Guard) Report(m string) bool {
	g.mu.Lock()
	if m != "" && slices.Contains(g.pending, m) {
		g.chosen = m
		g.pending = slices.DeleteFunc(g.pending, func(p string) bool { return p == m })
	}
	g.mu.Unlock()
	return g.Allows(m)
}

// Fixing marks that a mismatch to m is being set back; false when it
// already was (one warning and one set_permission_mode per episode). Done
// ends the episode.
func (g *Guard) Fixing(m string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fixing == m {
		return false
	}
	g.fixing = m
	return true
}

// Done ends a mismatch episode (Fixing).
func (g *Guard) Done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fixing = ""
}

// Unasked says what lets tools run without asking in m, for the warning of
// a mismatch ("" for the modes that ask as default does).
func Unasked(m string) string {
	switch m {
	case AcceptEdits:
		return "file edits and file commands run without asking"
	case Auto:
		return "claude's classifier runs tools without asking"
	case BypassPermissions:
		return "every tool runs without asking"
	case DontAsk:
		return "every tool not allowed by a rule is denied without asking"
	}
	return ""
}
