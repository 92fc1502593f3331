// Package plannote is the user's line comments on a plan (ExitPlanMode) as
// Claude reads them: each quoted with its lines of the plan as the user
// left it, sent with the approval (beside the tool's result) or with
// "keep planning" (in the answer itself).
package plannote

import (
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
)

// Comment is one line comment on the plan: lines From-To (1-based,
// inclusive) of the plan as sent with it.
type Comment struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Text string `json:"text"`
}

// maxComments bounds what one answer carries.
const maxComments = 200

// Check refuses comments that name no line of a plan of n lines, or say
// nothing.
func Check(cs []Comment, n int) error {
	if len(cs) > maxComments {
		return fmt.Errorf("%d comments on one plan (at most %d)", len(cs), maxComments)
	}
	for i, c := range cs {
		switch {
		case strings.TrimSpace(c.Text) == "":
			return fmt.Errorf("comment %d says nothing", i+1)
		case c.From < 1 || c.To < c.From || c.To > n:
			return fmt.Errorf("comment %d names lines %d-%d of a plan of %d lines", i+1, c.From, c.To, n)
		}
	}
	return nil
}

// Message is what Claude is told of the comments on plan: a head naming
// how many and what to do with them, then each with its lines quoted (the
// commented lines marked ">") and its text. "" when there are none.
func Message(plan string, cs []Comment) string {
	if len(cs) == 0 {
		return ""
	}
	lines := strings.Split(plan, "\n")
	var b strings.Builder
	if len(cs) == 1 {
		b.WriteString("The user left 1 comment on lines of the plan.")
	} else {
		fmt.Fprintf(&b, "The user left %d comments on lines of the plan.", len(cs))
	}
	b.WriteString(" Each quotes the plan's lines it is about, the commented lines marked \">\". Take every comment into account; where you disagree, say why.\n")
	for i, c := range cs {
		where := fmt.Sprintf("line %d", c.From)
		if c.To > c.From {
			where = fmt.Sprintf("lines %d-%d", c.From, c.To)
		}
		fmt.Fprintf(&b, "\n### Comment %d, plan %s\n", i+1, where)
		b.WriteString(review.Quote(lines, c.From, c.To))
		b.WriteString(strings.TrimSpace(c.Text))
		b.WriteString("\n")
	}
	return b.String()
}

// Approved is the transcript's line for a plan approved into mode m, with
// the user's edits and comments when there were.
func Approved(edited bool, comments int, m string) string {
	var with []string
	if edited {
		with = append(with, "your edits")
	}
	switch {
	case comments == 1:
		with = append(with, "your comment")
	case comments > 1:
		with = append(with, fmt.Sprintf("your %d comments", comments))
	}
	if len(with) == 0 {
		return "Plan approved; mode: " + m
	}
	return "Plan approved with " + strings.Join(with, " and ") + "; mode: " + m
}
