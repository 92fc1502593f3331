package boundary

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Pattern is one of the CLI's Read rules, ready to match real paths.
// The specifier follows the CLI's documented forms: "//path" from the
// file system's root, "~/path" from the home folder, "/path" from the
// project's folder, "./path" or "path" from the working directory; a
// pattern without a slash matches that name at any depth (as in
// .gitignore); "*" stays within a folder, "**" crosses folders; a rule
// that matches a folder covers everything in it. "Read" alone matches
// every path.
type Pattern struct {
	Rule   string // as written ("Read(~/notes/**)")
	Source string // the settings it came from (userSettings, …)
	all    bool
	re     *regexp.Regexp
}

// Bases are what the specifiers of rules are relative to.
type Bases struct {
	Home, Project, Cwd string
}

// ParseRead reads rule as a Read rule; ok is false for a rule of another
// tool or one whose specifier cannot be read.
func ParseRead(rule, source string, b Bases) (Pattern, bool) {
	rule = strings.TrimSpace(rule)
	p := Pattern{Rule: rule, Source: source}
	if rule == "Read" {
		p.all = true
		return p, true
	}
	spec, ok := strings.CutPrefix(rule, "Read(")
	if !ok || !strings.HasSuffix(spec, ")") {
		return Pattern{}, false
	}
	spec = strings.TrimSuffix(spec, ")")
	if spec == "" || spec == "**" || spec == "*" {
		p.all = true
		return p, true
	}
	var base, rest string
	anyDepth := false
	switch {
	case strings.HasPrefix(spec, "//"):
		base, rest = "/", spec[2:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		base, rest = b.Home, strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "/"):
		base, rest = b.Project, spec[1:]
	case strings.HasPrefix(spec, "./"):
		base, rest = b.Cwd, spec[2:]
	default:
		base, rest = b.Cwd, spec
		anyDepth = !strings.Contains(strings.TrimSuffix(spec, "/"), "/")
	}
	if base == "" {
		return Pattern{}, false
	}
	if r, err := Resolve(base, b.Cwd); err == nil {
		base = r
	}
	rest = strings.TrimSuffix(rest, "/")
	glob := globRegexp(rest)
	prefix := regexp.QuoteMeta(strings.TrimSuffix(base, "/"))
	var expr string
	switch {
	case rest == "":
		expr = prefix + `(?:/.*)?`
	case anyDepth:
		expr = prefix + `/(?:.*/)?` + glob + `(?:/.*)?`
	default:
		expr = prefix + `/` + glob + `(?:/.*)?`
	}
	re, err := regexp.Compile(`^` + expr + `$`)
	if err != nil {
		return Pattern{}, false
	}
	p.re = re
	return p, true
}

// globRegexp turns a gitignore-style glob into a regular expression.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			i++
			if i+1 < len(g) && g[i+1] == '/' {
				i++
				b.WriteString(`(?:.*/)?`)
			} else {
				b.WriteString(`.*`)
			}
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// Match reports whether the rule covers path (real, absolute).
func (p Pattern) Match(path string) bool {
	if p.all {
		return true
	}
	return p.re != nil && p.re.MatchString(filepath.Clean(path))
}

// Rules are the CLI's Read rules for a session, as get_settings reported
// them.
type Rules struct {
	Allow, Deny []Pattern
}

// Denying returns the deny rule that covers any of paths, if one does.
func (r Rules) Denying(paths ...string) (Pattern, bool) {
	for _, d := range r.Deny {
		for _, p := range paths {
			if p != "" && d.Match(p) {
				return d, true
			}
		}
	}
	return Pattern{}, false
}

// Allowing returns the allow rule that covers path, if one does.
func (r Rules) Allowing(path string) (Pattern, bool) {
	for _, a := range r.Allow {
		if a.Match(path) {
			return a, true
		}
	}
	return Pattern{}, false
}
