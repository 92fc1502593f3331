// Package sanitize is the one place that makes text from Claude (or from
// its tools) safe to show in Neovim or to use in a name: terminal escape
// sequences go, invalid UTF-8 is replaced and line breaks are normalized.
// For display (Text, Line, Lines) the other control characters, and the
// characters that reorder or hide text (bidi controls, zero-width ones),
// are shown as Vim shows them ("^G", "<202e>"): what the user approves is
// what they see. For names (Strip) they are dropped.
package sanitize

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text removes terminal escape sequences, normalizes CRLF and lone CR to
// LF, replaces invalid UTF-8 with U+FFFD, and shows the other control
// characters (but newline and tab), bidi controls and zero-width characters
// visibly ("^H", "<85>", "<202e>").
func Text(s string) string { return clean(s, true) }

// Strip is Text for a name (a file name, an id in a message): what Text
// would show as a mark is left out, and so are line breaks, tabs and
// invalid UTF-8.
func Strip(s string) string { return clean(s, false) }

func clean(s string, show bool) string {
	if isPlain(s) && (show || !strings.ContainsAny(s, "\n\t")) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b: // ESC: skip the whole sequence
			i = skipEscape(s, i)
			continue
		case !show && (c == '\r' || c == '\n' || c == '\t'):
			i++
			continue
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
				continue
			}
			b.WriteByte('\n')
			i++
			continue
		case c == '\n' || c == '\t':
			b.WriteByte(c)
			i++
			continue
		case c < 0x20 || c == 0x7f:
			if show {
				b.WriteByte('^')
				b.WriteByte(c ^ 0x40) // ^@ … ^_, and DEL as ^?
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			if show {
				b.WriteRune(utf8.RuneError)
			}
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f:
			// 8-bit CSI, OSC, DCS, PM, APC: the whole sequence goes.
			i = skip8bit(s, i+size, r)
			continue
		case r == 0x2028 || r == 0x2029:
			if show {
				b.WriteByte('\n')
			}
		case r >= 0x80 && r < 0xa0, hides(r): // C1 controls; bidi, zero-width
			if show {
				fmt.Fprintf(&b, "<%x>", r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hides reports the characters that reorder text (bidi controls) or are
// not seen (zero-width ones, the byte order mark in the middle of text).
func hides(r rune) bool {
	switch {
	case r == 0x061C, r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2069, r == 0xFEFF:
		return true
	}
	return false
}

// skip8bit returns the index after an 8-bit control sequence whose
// introducer (r) ended at i.
func skip8bit(s string, i int, r rune) int {
	if r == 0x9b { // CSI: parameters and intermediates, then a final byte
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			i++
		}
		return i
	}
	// A control string, up to its terminator: BEL, ESC \ or ST.
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}

// Line is Text with line breaks and tabs turned into spaces: for one-line
// fields such as a sidebar row.
func Line(s string) string {
	s = Text(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// List names items for a person on one line: up to most of them, then how
// many more ("a.txt, b.txt and 3 more").
func List(items []string, most int) string { return ListOf(items, most, len(items)) }

// ListOf is List of the first items of total ones (the rest only
// counted).
func ListOf(items []string, most, total int) string {
	shown := items[:min(most, len(items))]
	if total <= len(shown) {
		return Line(strings.Join(shown, ", "))
	}
	return Line(strings.Join(shown, ", ")) + fmt.Sprintf(" and %d more", total-len(shown))
}

// Lines splits sanitized text into lines (no phantom empty last line).
func Lines(s string) []string {
	s = Text(s)
	if s == "" {
		return []string{""}
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// FirstLine is the first line of s that is not blank, trimmed and
// shortened to n runes: how a prompt, a title or a reason is named in one
// line. (The one such helper; Collapse joins every line instead.)
func FirstLine(s string, n int) string {
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line != "" {
			return strings.TrimSpace(Truncate(line, n))
		}
	}
	return ""
}

// LastLines is the last n lines of s (all of s when it has fewer): the end
// of a command's error output, where its reason usually is.
func LastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Collapse is s on one line: every run of white space, line breaks
// included, becomes one space.
func Collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Truncate shortens s to at most n runes, ending with "…" when cut.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

// skipEscape returns the index after the escape sequence starting at s[i].
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40-0x7e
		i++
		for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
			i++
		}
		return min(i+1, len(s))
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: until BEL or ST (ESC \)
		i++
		for i < len(s) {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			i++
		}
		return i
	default: // two-byte sequence (ESC c, ESC 7, ...), possibly with intermediates
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		return min(i+1, len(s))
	}
}
