package rules

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Session holds the rules the user added for one session. claude keeps
// them: the plugin sends the whole list with apply_flag_settings after
// every change (a later apply replaces the lists, so a rule taken out is
// no longer enforced), and claude's own matcher applies them. Base holds
// the flag layer's rules claude started with (its --settings), which every
// apply keeps.
type Session struct {
	Base  Permissions
	Allow []string
	Deny  []string
}

// list is the session's list of behavior ("allow" or "deny").
func (s *Session) list(behavior string) *[]string {
	switch behavior {
	case "allow":
		return &s.Allow
	case "deny":
		return &s.Deny
	}
	return nil
}

// Add adds rule to the behavior list; it reports false when the rule was
// there already or the behavior is not allow or deny.
func (s *Session) Add(behavior, rule string) bool {
	l := s.list(behavior)
	if l == nil {
		return false
	}
	for _, r := range *l {
		if r == rule {
			return false
		}
	}
	*l = append(*l, rule)
	return true
}

// Remove takes rule out of the behavior list; it reports whether it was
// there.
func (s *Session) Remove(behavior, rule string) bool {
	l := s.list(behavior)
	if l == nil {
		return false
	}
	for i, r := range *l {
		if r == rule {
			*l = append((*l)[:i:i], (*l)[i+1:]...)
			return true
		}
	}
	return false
}

// Has reports whether the list of behavior holds rule.
func (s *Session) Has(behavior, rule string) bool {
	l := s.list(behavior)
	if l == nil {
		return false
	}
	for _, r := range *l {
		if r == rule {
			return true
		}
	}
	return false
}

// Settings is the apply_flag_settings payload: the whole allow and deny
// lists, base rules first. Lists are always sent, empty ones too: an
// apply replaces each list it names.
func (s *Session) Settings() map[string]any {
	join := func(base, own []string) []string {
		out := append([]string{}, base...)
		for _, r := range own {
			dup := false
			for _, b := range base {
				dup = dup || b == r
			}
			if !dup {
				out = append(out, r)
			}
		}
		return out
	}
	perms := map[string]any{"allow": join(s.Base.Allow, s.Allow), "deny": join(s.Base.Deny, s.Deny)}
	return map[string]any{"permissions": perms}
}

// FlagBase reads the rules claude was started with in its flag layer: the
// --settings argument of argv (a JSON object, or a file, relative to cwd).
// Every apply_flag_settings keeps them. Anything unreadable has none.
func FlagBase(argv []string, cwd string) Permissions {
	var value string
	for i, a := range argv {
		switch {
		case a == "--settings" && i+1 < len(argv):
			value = argv[i+1]
		case strings.HasPrefix(a, "--settings="):
			value = strings.TrimPrefix(a, "--settings=")
		}
	}
	value = strings.TrimSpace(value)
	if value == "" {
		return Permissions{}
	}
	b := []byte(value)
	if !strings.HasPrefix(value, "{") {
		if !filepath.IsAbs(value) {
			value = filepath.Join(cwd, value)
		}
		var err error
		if b, err = readSmall(value); err != nil {
			return Permissions{}
		}
	}
	var f struct {
		Permissions Permissions `json:"permissions"`
	}
	if json.Unmarshal(b, &f) != nil {
		return Permissions{}
	}
	return f.Permissions
}
