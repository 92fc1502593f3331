package tuihook

import (
	"encoding/json"
	"fmt"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
)

// sessionRules are a session's own rules (what apply_flag_settings carries
// for a stream-json claude): the TUI takes no control request, so they
// travel with the next allow the editor answers, as updatedPermissions
// for the session.
type sessionRules struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

// flagRules reads the rules of an apply_flag_settings request's fields.
func flagRules(fields map[string]any) (sessionRules, error) {
	b, err := json.Marshal(fields["settings"])
	if err != nil {
		return sessionRules{}, fmt.Errorf("the session's rules: %w", err)
	}
	var s struct {
		Permissions sessionRules `json:"permissions"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return sessionRules{}, fmt.Errorf("the session's rules: %w", err)
	}
	return s.Permissions, nil
}

// updates are the updatedPermissions that take the TUI from the rules it
// was given to want: rules added, rules removed, each for the session.
func updates(given, want sessionRules) []any {
	var out []any
	for _, l := range []struct {
		behavior   string
		given, now []string
	}{{"allow", given.Allow, want.Allow}, {"deny", given.Deny, want.Deny}} {
		if add := ruleEntries(missing(l.now, l.given)); len(add) > 0 {
			out = append(out, map[string]any{"type": "addRules", "rules": add, "behavior": l.behavior, "destination": "session"})
		}
		if gone := ruleEntries(missing(l.given, l.now)); len(gone) > 0 {
			out = append(out, map[string]any{"type": "removeRules", "rules": gone, "behavior": l.behavior, "destination": "session"})
		}
	}
	return out
}

// missing is what of a is not in b.
func missing(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// ruleEntries are rules as updatedPermissions writes them ({toolName,
// ruleContent}); one that does not parse is left out.
func ruleEntries(rs []string) []any {
	var out []any
	for _, s := range rs {
		r, err := rules.Parse(s)
		if err != nil {
			continue
		}
		e := map[string]any{"toolName": r.Tool}
		if r.Content != "" {
			e["ruleContent"] = r.Content
		}
		out = append(out, e)
	}
	return out
}

// Begin takes the session's rules (apply_flag_settings) for the next
// allow; the TUI takes no other control request.
func (c *Conn) Begin(subtype string, fields map[string]any) (<-chan claude.Reply, error) {
	if subtype != "apply_flag_settings" {
		return nil, ErrTUI
	}
	rs, err := flagRules(fields)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.rules = rs
	c.mu.Unlock()
	ch := make(chan claude.Reply, 1)
	ch <- claude.Reply{Body: json.RawMessage(`{}`)}
	return ch, nil
}

// withRules adds to an allow the session's rules the TUI was not given
// yet; they count as given from then on.
func (c *Conn) withRules(result claude.PermissionResult) claude.PermissionResult {
	if result.Behavior != "allow" {
		return result // claude ignores updatedPermissions on a deny
	}
	c.mu.Lock()
	up := updates(c.given, c.rules)
	c.given = c.rules
	c.mu.Unlock()
	if len(up) > 0 {
		result.UpdatedPermissions = append(append([]any(nil), result.UpdatedPermissions...), up...)
	}
	return result
}
