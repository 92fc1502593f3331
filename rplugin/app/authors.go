package app

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// Whose change it is: the folder's blame record knows, per line, which
// session (prompt, time) wrote it, or that the user did. Rewind, the
// changes view and review rounds use it to name changes that are not the
// session's own.

// lineAuthors returns the authors of the lines of now (the file as it is),
// one per line (1-based: index 0 is unused).
func (a *App) lineAuthors(s *session.Session, path, now string) []review.Author {
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	return a.lineAuthorsLocked(s, path, now)
}

// lineAuthorsLocked is lineAuthors for a caller holding rev.mu.
func (a *App) lineAuthorsLocked(s *session.Session, path, now string) []review.Author {
	b := a.blameOf(a.folderOf(s.Cwd()), path, now)
	lines := b.View(now)
	out := make([]review.Author, len(lines)+1)
	for i, ai := range lines {
		if ai < len(b.Authors) {
			out[i+1] = b.Authors[ai]
		}
	}
	return out
}

// otherAuthors names the authors, other than session s, of lines [from, to] of
// now (sorted; none when they are all the session's own).
func otherAuthors(s *session.Session, authors []review.Author, from, to int) []string {
	seen := map[string]bool{}
	var out []string
	for i := max(from, 1); i <= to && i < len(authors); i++ {
		au := authors[i]
		if au.Kind != review.You && au.Session == s.ID {
			continue
		}
		who := "you"
		if au.Kind != review.You {
			who = sessionLabel(au)
		}
		if !seen[who] {
			seen[who] = true
			out = append(out, who)
		}
	}
	sort.Strings(out)
	return out
}

// markAuthors names, per hunk of fc, who wrote its lines when it is not
// session s, and lists those lines (the changes view and a round mark the
// blocks they fall in).
func (a *App) markAuthors(s *session.Session, fc FileChange) FileChange {
	fc.Authors, fc.Others = make([]string, len(fc.Hunks)), []Span{}
	if fc.Error != "" || !fc.Exists || len(fc.Hunks) == 0 {
		return fc
	}
	authors := a.lineAuthors(s, fc.Path, fc.Now)
	for i, h := range fc.Hunks {
		fc.Authors[i] = strings.Join(otherAuthors(s, authors, h.B, h.B+h.Ins-1), " and ")
		for l := h.B; l < h.B+h.Ins; l++ {
			who := strings.Join(otherAuthors(s, authors, l, l), " and ")
			switch n := len(fc.Others); {
			case who == "":
			case n > 0 && fc.Others[n-1].To == l-1 && fc.Others[n-1].Who == who:
				fc.Others[n-1].To = l
			default:
				fc.Others = append(fc.Others, Span{From: l, To: l, Who: who})
			}
		}
	}
	return fc
}

// whoWrote names who, other than the session, wrote the lines of block h
// of fc's file now ("" for the session's own).
func whoWrote(fc FileChange, h checkpoint.Hunk) string {
	seen := map[string]bool{}
	var out []string
	for _, o := range fc.Others {
		if o.To >= h.B && o.From <= h.B+h.Ins-1 && !seen[o.Who] {
			seen[o.Who] = true
			out = append(out, o.Who)
		}
	}
	return strings.Join(out, " and ")
}

// authorsOf names the authors of the lines of now that differ from left,
// as the folder's blame record knows them ("session 2 (“fix greet”,
// 14:02)", "you"), leaving out session s itself.
func (a *App) authorsOf(s *session.Session, path, left, now string) []string {
	authors := a.lineAuthors(s, path, now)
	seen := map[string]bool{}
	var out []string
	for _, h := range checkpoint.Hunks(left, now) {
		for _, who := range otherAuthors(s, authors, h.B, h.B+h.Ins-1) {
			if !seen[who] {
				seen[who] = true
				out = append(out, who)
			}
		}
	}
	sort.Strings(out)
	return out
}

// sessionLabel names a session's change for a person: "session 2 at
// 14:02 (“fix greet”)".
func sessionLabel(au review.Author) string {
	s := fmt.Sprintf("session %d", au.Session)
	if au.Time > 0 {
		s += " at " + time.Unix(au.Time, 0).Format("15:04")
	}
	if au.Prompt != "" {
		s += " (“" + sanitize.FirstLine(au.Prompt, 40) + "”)"
	}
	return s
}
