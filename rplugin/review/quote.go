package review

import "strings"

// Quote is lines from-to (1-based, inclusive) of lines quoted as a review
// comment's code is: Context lines around them, the commented ones marked
// ">", numbered, fenced (the plan's comments are quoted the same way).
func Quote(lines []string, from, to int) string {
	var b strings.Builder
	writeQuote(&b, Item{From: from, To: to, Lines: lines})
	return b.String()
}
