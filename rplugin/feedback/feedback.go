// Package feedback writes what Claude is told about the user's own changes:
// the CLI reports an amended allow as if Claude's input had been applied
// (its history keeps Claude's tool input, the tool result says the file is
// "current in your context"), so the plugin tells Claude, in a message of
// its own, what was really written and why.
package feedback

import (
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Marker starts every message the plugin writes to Claude on the user's
// behalf, so a reader (the transcript, a test model) can tell it from a
// prompt the user typed.
const Marker = "[claude-nova]"

// MaxDiffLines caps the diff in a message; the message says when it was cut.
const MaxDiffLines = 200

// Range is a span of lines in Claude's proposal (1-based, inclusive; To <
// From for a hunk that only deletes lines: it sits before line From).
type Range struct {
	Hunk int `json:"hunk"`
	From int `json:"from"`
	To   int `json:"to"`
}

func (r Range) String() string {
	switch {
	case r.To < r.From:
		return fmt.Sprintf("hunk %d (a deletion before line %d of your proposal)", r.Hunk, r.From)
	case r.To == r.From:
		return fmt.Sprintf("hunk %d (line %d of your proposal)", r.Hunk, r.From)
	}
	return fmt.Sprintf("hunk %d (lines %d-%d of your proposal)", r.Hunk, r.From, r.To)
}

// Note is the user's note on one hunk (Hunk 0: on the whole change).
type Note struct {
	Range
	Text string `json:"text"`
}

// Review is what the user did with a proposal's hunks.
type Review struct {
	Notes    []Note  `json:"notes"`
	Rejected []Range `json:"rejected"`
	Hunks    int     `json:"hunks"` // hunks the proposal had
}

// Empty reports whether the user left neither notes nor rejected hunks.
func (r Review) Empty() bool { return len(r.Notes) == 0 && len(r.Rejected) == 0 }

// Amendment is a proposal as Claude made it and as the user applied it.
type Amendment struct {
	Path     string // the file, as shown to the user (relative to the session)
	Proposed string // Claude's proposal
	Applied  string // what the file now holds
	Review   Review
}

// Changed reports whether what was applied differs from Claude's proposal.
func (a Amendment) Changed() bool { return a.Proposed != a.Applied }

// Message is what Claude is told after the change was applied: the diff
// from its proposal to what was written, the hunks the user put back, and
// the user's notes. It is "" when the user changed nothing and left no
// note.
func (a Amendment) Message() string {
	if !a.Changed() && a.Review.Empty() {
		return ""
	}
	var b strings.Builder
	if a.Changed() {
		fmt.Fprintf(&b, "%s The user changed your edit of %s before it was applied. The file on disk is what was written, not what your tool call said: use the diff below (from your proposal to what was written) as your picture of the file.\n", Marker, a.Path)
		writeDiff(&b, "your proposal", "what was written", a.Proposed, a.Applied, a.Path)
	} else {
		fmt.Fprintf(&b, "%s The user applied your edit of %s as you proposed it, and left notes.\n", Marker, a.Path)
	}
	a.Review.write(&b)
	return strings.TrimRight(b.String(), "\n")
}

func (r Review) write(b *strings.Builder) {
	if len(r.Rejected) > 0 {
		b.WriteString("The user rejected these hunks of your proposal; the original lines were kept there:\n")
		for _, h := range r.Rejected {
			fmt.Fprintf(b, "- %s\n", h)
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("The user's notes:\n")
		for _, n := range r.Notes {
			if n.Hunk == 0 {
				fmt.Fprintf(b, "- %s\n", oneLine(n.Text))
			} else {
				fmt.Fprintf(b, "- on %s: %s\n", n.Range, oneLine(n.Text))
			}
		}
	}
}

// Rejection is the deny message when the user rejected the whole change:
// the notes, if any, say why.
func Rejection(path string, r Review) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The user rejected all changes to %s; the file was not changed.", path)
	if len(r.Notes) > 0 {
		b.WriteString(" Their notes:\n")
		for _, n := range r.Notes {
			if n.Hunk == 0 {
				fmt.Fprintf(&b, "- %s\n", oneLine(n.Text))
			} else {
				fmt.Fprintf(&b, "- on %s: %s\n", n.Range, oneLine(n.Text))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string { return sanitize.Collapse(s) }

// Rewound is what Claude is told after the user restored files to their
// state before an earlier prompt (the CLI's rewind_files changes the files
// only: Claude's history still says its edits were made). notRestored is
// a sentence on what stayed as it was ("" for none).
func Rewound(prompt string, files []string, skipped int, notRestored string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s The user rewound files to their state before their prompt %q. Your edits of these files since then are undone on disk (your earlier tool calls did happen, but their changes are gone): read a file again before you edit it.\n", Marker, oneLine(sanitize.FirstLine(prompt, 80)))
	for _, f := range files {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "%d linked file(s) were left as they were.\n", skipped)
	}
	b.WriteString(notRestored)
	return strings.TrimRight(b.String(), "\n")
}

// UndoneByOther is what a session is told when the user, rewinding or
// undoing in another session, chose to undo that session's later changes
// too.
func UndoneByOther(by int, name string, files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s The user undid, from session %d (%s), your later changes to these files: read a file again before you edit it.\n", Marker, by, oneLine(name))
	for _, f := range files {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Undone is what Claude is told when the user undid a hunk of a change it
// made in an earlier turn: the diff from what Claude left to what is on disk.
func Undone(path, claudes, now string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s The user undid part of your change to %s after it was written: the diff below goes from what you left to what is on disk now. Use it as your picture of the file.\n", Marker, path)
	writeDiff(&b, "what you wrote", "on disk now", claudes, now, path)
	return strings.TrimRight(b.String(), "\n")
}

// writeDiff writes the diff from a to b as a fenced block, capped at
// MaxDiffLines (saying so, and to read path again, when cut).
func writeDiff(b *strings.Builder, fromName, toName, from, to, path string) {
	res := diff.Unified(fromName, toName, from, to, diff.Options{Context: 2, MaxLines: MaxDiffLines})
	b.WriteString("```diff\n")
	b.WriteString(res.Text)
	if !strings.HasSuffix(res.Text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("```\n")
	if res.Truncated > 0 {
		fmt.Fprintf(b, "(The diff was cut after %d lines; %d more lines of it were left out. Read %s before you edit it again.)\n", MaxDiffLines, res.Truncated, path)
	}
}

// Rewrite is the deny message for a reviewed Write whose file changed on
// disk after Claude read it (the CLI refuses such a Write whatever the
// answer): the content the user approved, merged with the outside change,
// and how to get it written.
func Rewrite(path, content string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s Your Write of %s was not applied: the file changed on disk after you read it (Claude Code refuses such a write). The user reviewed your write and merged it with the change on disk; the content below is what they approved. Read %s again, then Write exactly this content to it, byte for byte (it is allowed without asking again):\n", Marker, path, path)
	fence := "```"
	for strings.Contains(content, fence) {
		fence += "`"
	}
	b.WriteString(fence + "\n")
	b.WriteString(content)
	if !strings.HasSuffix(content, "\n") {
		b.WriteString("\n")
		fmt.Fprintf(&b, "%s\n(The content does not end with a newline.)", fence)
		return b.String()
	}
	b.WriteString(fence)
	return b.String()
}
