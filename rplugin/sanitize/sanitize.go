// Package sanitize makes text from Claude safe to show in Neovim: terminal
// escape sequences and control characters are removed, invalid UTF-8 is
// replaced, and line breaks are normalized.
package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Text removes ANSI/terminal escape sequences and control characters except
// newline and tab, normalizes CRLF and lone CR to LF and replaces invalid
// UTF-8 with U+FFFD.
func Text(s string) string {
	if isPlain(s) {
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
		case c == 0x9b: // 8-bit CSI is not valid UTF-8 on its own; handled by decoding below
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
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r >= 0x80 && r < 0xa0: // C1 controls
		case r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
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

// Lines splits sanitized text into lines (no phantom empty last line).
func Lines(s string) []string {
	s = Text(s)
	if s == "" {
		return []string{""}
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// FirstLine is s up to its first line break, shortened to n runes (a
// prompt named in one line).
func FirstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return Truncate(s, n)
}

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
