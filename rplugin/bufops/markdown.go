package bufops

import (
	"regexp"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// The transcript's own line forms (besides markdown text).
const (
	ToolPrefix   = "▸ "   // a tool call: ▸ Tool target outcome time
	DetailFolded = "  │ " // a tool's input or result, folded under its call
	DetailOpen   = "  ┃ " // shown unfolded (a failure, a question's answers)
	NotePrefix   = "> "
)

// HighlightState carries what highlighting needs from one line to the
// next: are we inside a fenced code block, with which fence and language,
// since when.
type HighlightState struct {
	fence string // "```" or "~~~" while inside a block
	lang  string
	start int // first code line of the block
}

var (
	fenceRE    = regexp.MustCompile("^\\s{0,3}(```+|~~~+)\\s*([A-Za-z0-9_+#.-]*)")
	headingRE  = regexp.MustCompile(`^#{1,6} `)
	listRE     = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s`)
	codeSpanRE = regexp.MustCompile("`[^`]+`")
	boldRE     = regexp.MustCompile(`\*\*[^*]+\*\*|__[^_]+__`)
	italicRE   = regexp.MustCompile(`(?:^|[^*\w])(\*[^*\s][^*]*\*)|(?:^|[^_\w])(_[^_\s][^_]*_)`)
	footerRE   = regexp.MustCompile(`^\*[a-z_]+ · .*\*$`)
)

// Highlight computes the marks of lines (line numbers relative to the
// first) and the fenced code blocks that close among them, starting from
// state st, which it advances. It is a pure function of the text: the same
// lines highlight the same way when the transcript is fetched again.
func Highlight(lines []string, st *HighlightState) ([]Mark, []Code) {
	var marks []Mark
	var code []Code
	add := func(i, s, e int, g string) {
		if e < 0 || s < e {
			marks = append(marks, Mark{Line: i, Start: s, End: e, Group: g})
		}
	}
	for i, l := range lines {
		if st.fence != "" {
			if m := fenceRE.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[1], st.fence[:1]) && len(m[1]) >= len(st.fence) && strings.TrimSpace(l) == m[1] {
				add(i, 0, -1, ui.HlFence)
				if i-st.start > 0 || st.start < 0 {
					start := st.start
					if start < 0 {
						start = 0 // the block began before these lines
					}
					code = append(code, Code{Line: start, Count: i - start, Lang: st.lang})
				}
				st.fence, st.lang = "", ""
				continue
			}
			add(i, 0, -1, ui.HlCode)
			continue
		}
		switch {
		case strings.HasPrefix(l, "## You") || strings.HasPrefix(l, "## Claude"):
			add(i, 0, -1, ui.HlHeading)
		case strings.HasPrefix(l, ToolPrefix):
			toolMarks(i, l, 0, add)
		case strings.HasPrefix(l, DetailFolded) || strings.HasPrefix(l, DetailOpen):
			// Inside an agent's block: its own tool lines are tool lines.
			p := nestLen(l)
			if strings.HasPrefix(l[p:], ToolPrefix) {
				add(i, 0, p, ui.HlDetailBar)
				toolMarks(i, l, p, add)
				continue
			}
			bar := max(p, len(DetailFolded))
			if strings.HasPrefix(l[p:], DetailOpen) {
				bar = p + len(DetailOpen)
			}
			add(i, 0, bar, ui.HlDetailBar)
			add(i, bar, -1, ui.HlDetail)
		case strings.HasPrefix(l, NotePrefix) || l == ">":
			add(i, 0, -1, ui.HlQuote)
			inline(i, l, add)
		case footerRE.MatchString(l):
			add(i, 0, -1, ui.HlFooter)
		default:
			if m := fenceRE.FindStringSubmatch(l); m != nil && strings.TrimSpace(l) == strings.TrimSpace(m[0]) {
				st.fence, st.lang, st.start = m[1], m[2], i+1
				add(i, 0, -1, ui.HlFence)
				continue
			}
			if headingRE.MatchString(l) {
				add(i, 0, -1, ui.HlMdHeading)
				continue
			}
			if loc := listRE.FindStringIndex(l); loc != nil {
				add(i, loc[0], loc[1], ui.HlListMarker)
			}
			inline(i, l, add)
		}
	}
	// A block still open continues past these lines: its start is relative
	// to them, so the next call sees it begin before its first line.
	if st.fence != "" {
		st.start -= len(lines)
	}
	return marks, code
}

// inline marks code spans, bold and italic text.
func inline(i int, l string, add func(i, s, e int, g string)) {
	spans := codeSpanRE.FindAllStringIndex(l, -1)
	inSpan := func(p int) bool {
		for _, s := range spans {
			if p >= s[0] && p < s[1] {
				return true
			}
		}
		return false
	}
	for _, s := range spans {
		add(i, s[0], s[1], ui.HlInlineCode)
	}
	for _, s := range boldRE.FindAllStringIndex(l, -1) {
		if !inSpan(s[0]) {
			add(i, s[0], s[1], ui.HlBold)
		}
	}
	for _, m := range italicRE.FindAllStringSubmatchIndex(l, -1) {
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && !inSpan(m[g]) {
				add(i, m[g], m[g+1], ui.HlItalic)
			}
		}
	}
}

// nestLen is the length of the detail prefixes a line starts with (one
// per level of agent it is nested in).
func nestLen(l string) int {
	n := 0
	for strings.HasPrefix(l[n:], DetailFolded) {
		n += len(DetailFolded)
	}
	return n
}

// toolMarks colours a tool line that starts at byte off: ▸ Tool target
// ✓|✗ time, or "· running" while its task runs.
func toolMarks(i int, l string, off int, add func(i, s, e int, g string)) {
	add(i, off, off+len(ToolPrefix), ui.HlToolLine)
	start := off + len(ToolPrefix)
	name, _, _ := strings.Cut(l[start:], " ")
	add(i, start, start+len(name), ui.HlTool)
	for _, o := range []struct{ sym, group string }{{" ✓", ui.HlOk}, {" ✗", ui.HlFail}, {" …", ui.HlAge},
		{" · running", ui.HlAge}, {" · in the background", ui.HlAge}} {
		if p := strings.LastIndex(l, o.sym); p >= start {
			add(i, start+len(name), p, ui.HlTarget)
			add(i, p+1, -1, o.group)
			return
		}
	}
	add(i, start+len(name), -1, ui.HlTarget)
}
