// Package attempts names the sessions of a best of N: the first after its
// prompt, in a few words, the others after the first ("fix-login #2").
package attempts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

// maxStem bounds the name part of an attempt's label: "3 · fix-login #2"
// stays whole in a sidebar 21 columns wide.
const maxStem = 12

// Max is the most sessions a best of N starts.
const Max = 8

// Label is the label of best of N attempt n (0: none) of a prompt, group
// its first session: the first names its group after the prompt, in a few
// words, told apart from the groups of other sessions ("fix-login #1",
// "fix-login-2 #1"); the others take their first's name ("fix-login #2").
func Label(sessions *session.Manager, n, group int, prompt string, inWorktree bool) (string, error) {
	switch {
	case n == 0 && group == 0:
		return "", nil
	case n < 1 || n > Max:
		return "", fmt.Errorf("attempt %d: a best of N numbers its sessions 1 to %d", n, Max)
	case !inWorktree:
		return "", fmt.Errorf("attempt %d: the sessions of a best of N work each in its own worktree (--worktree)", n)
	}
	suffix := " #" + strconv.Itoa(n)
	if n > 1 {
		first, ok := sessions.Get(group)
		if !ok || first.Label == "" {
			return "", fmt.Errorf("attempt %d: session %d is not the first of a best of N", n, group)
		}
		return stemOf(first.Label) + suffix, nil
	}
	want := shortStem(worktree.Slug(prompt))
	if want == "" {
		want = "attempt"
	}
	taken := map[string]bool{}
	for _, s := range sessions.All() {
		if s.Label != "" {
			taken[stemOf(s.Label)] = true
		}
	}
	stem := want
	for i := 2; taken[stem]; i++ {
		stem = want + "-" + strconv.Itoa(i)
	}
	return stem + suffix, nil
}

// stemOf is a label's name part: "fix-login" of "fix-login #2".
func stemOf(label string) string {
	if i := strings.LastIndex(label, " #"); i >= 0 {
		return label[:i]
	}
	return label
}

// small are the words a label does without.
var small = map[string]bool{"a": true, "an": true, "the": true, "to": true, "of": true, "in": true, "on": true,
	"for": true, "and": true, "with": true, "please": true}

// shortStem is a slug's first words within maxStem characters, the small
// ones left out ("fix-the-login-check" → "fix-login"); a first word longer
// than that is cut.
func shortStem(slug string) string {
	var words []string
	for _, w := range strings.Split(slug, "-") {
		if w != "" && !small[w] {
			words = append(words, w)
		}
	}
	out := ""
	for _, w := range words {
		next := w
		if out != "" {
			next = out + "-" + w
		}
		if len(next) > maxStem {
			break
		}
		out = next
	}
	if out == "" && len(words) > 0 {
		out = strings.TrimRight(words[0][:min(maxStem, len(words[0]))], "._")
	}
	return out
}
