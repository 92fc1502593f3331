// Package settingsnote is claude's warning that settings did not load
// (system/informational, tag settings_not_in_effect, from 2.1.330): the
// settings it names, read from its words, said once per session however
// often claude repeats it.
//
// On the wire (2.1.332, sent after system/init when claude runs as an
// Agent SDK app: CLAUDE_AGENT_SDK_VERSION set and an SDK entrypoint):
//
//	{"type":"system","subtype":"informational","tag":"settings_not_in_effect","level":"warning",
//	 "content":"These settings did not load, so nothing in them is in effect, …:\n
//	   <file> (<setting>): <problem>\n  <file>: <problem>\nFix each problem listed, …"}
package settingsnote

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Tag is the informational message's tag.
const Tag = "settings_not_in_effect"

// Problem is one setting claude did not load: the file it is in, the
// setting ("" when the whole file failed), and claude's words for what is
// wrong.
type Problem struct {
	File, Setting, What string
}

var entry = regexp.MustCompile(`^  (\S.*?)(?: \(([^()]+)\))?: (.+)$`)

// Parse reads the problems of content (none when claude says only that
// some settings failed).
func Parse(content string) []Problem {
	var out []Problem
	for _, l := range strings.Split(content, "\n") {
		m := entry.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		out = append(out, Problem{File: m[1], Setting: m[2], What: m[3]})
	}
	return out
}

// Summary is one line for a notification, the settings first (a message
// area cuts a long line): "settings not in effect: hooks.PreToolUse,
// permissions.defaultMode (.claude/settings.json); .claude/settings.local.json
// (all of it)", files relative to cwd when inside it. Without problems,
// claude's first sentence.
func Summary(content, cwd string) string {
	ps := Parse(content)
	if len(ps) == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
		return "claude: " + sanitize.Truncate(sanitize.Line(first), 300)
	}
	var files []string
	settings := map[string][]string{}
	for _, p := range ps {
		f := rel(p.File, cwd)
		if _, ok := settings[f]; !ok {
			files = append(files, f)
			settings[f] = []string{}
		}
		name := p.Setting
		if name == "" {
			name = "all of it"
		}
		if !slices.Contains(settings[f], name) {
			settings[f] = append(settings[f], name)
		}
	}
	var parts []string
	for _, f := range files {
		if names := settings[f]; len(names) == 1 && names[0] == "all of it" {
			parts = append(parts, f+" (all of it)")
		} else {
			parts = append(parts, strings.Join(names, ", ")+" ("+f+")")
		}
	}
	return "settings not in effect: " + sanitize.Truncate(sanitize.Line(strings.Join(parts, "; ")), 400) +
		" (claude did not load them)"
}

// Lines are the problems one a line, for the transcript.
func Lines(content, cwd string) []string {
	var out []string
	for _, p := range Parse(content) {
		l := rel(p.File, cwd)
		if p.Setting != "" {
			l += " (" + p.Setting + ")"
		}
		out = append(out, "not in effect: "+sanitize.Truncate(sanitize.Line(l+": "+p.What), 300))
	}
	return out
}

func rel(file, cwd string) string {
	if cwd == "" || !filepath.IsAbs(file) {
		return file
	}
	if r, err := filepath.Rel(cwd, file); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return file
}

// Once remembers the warnings each session has shown.
type Once struct {
	mu   sync.Mutex
	seen map[int]map[string]bool
}

// First reports whether session has not shown content yet (and remembers
// that it now has).
func (o *Once) First(session int, content string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil {
		o.seen = map[int]map[string]bool{}
	}
	if o.seen[session] == nil {
		o.seen[session] = map[string]bool{}
	}
	if o.seen[session][content] {
		return false
	}
	o.seen[session][content] = true
	return true
}
