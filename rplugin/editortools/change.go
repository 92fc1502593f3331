package editortools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/feedback"
)

// AfterChangeTool is the Neovim side's entry for AfterChange (not an MCP
// tool: the model never calls it).
const AfterChangeTool = "after_change"

// DefaultWait is how long AfterChange waits for a file's diagnostics by
// default (option feedback.diagnostics_wait).
const DefaultWait = 2 * time.Second

// MaxNew bounds the new diagnostics one message lists.
const MaxNew = 50

// changeResult is what the editor saw around a change: the file's
// diagnostics before its buffer was reloaded (Baseline false: it was not
// loaded, nothing is known from before) and once its clients went quiet.
type changeResult struct {
	Skipped  string   `json:"skipped"` // why nothing was checked
	Baseline bool     `json:"baseline"`
	Before   *diagSet `json:"before"`
	After    *diagSet `json:"after"`
	Clients  []string `json:"clients"`
	TimedOut bool     `json:"timed_out"`
}

// Report is what AfterChange found out.
type Report struct {
	Path     string
	Cwd      string
	New      []Diag // the errors and warnings that are new
	Baseline bool   // the file's diagnostics from before were known
	Clients  []string
	Skipped  string
	TimedOut bool
}

// Cause says what changed the file, in the words of a message to Claude.
const (
	ByClaude = "your change to"
	ByRewind = "the user's rewind of"
)

// Message is what Claude is told about the change (cause: ByClaude,
// ByRewind): the new errors and warnings, "" when there are none.
func (r Report) Message(cause string) string {
	if len(r.New) == 0 {
		return ""
	}
	return changeNote(cause, approval.RelPath(r.Path, r.Cwd), r.New, r.Baseline, r.Clients, r.Cwd)
}

// AfterChange reloads (or loads) path in the editor after Claude changed it
// on disk, waits up to wait for its language servers to report, and says
// which errors and warnings are new. It takes at most wait plus a little
// (the attach of a server to a freshly loaded buffer), bounded by ctx. Only
// a file inside the session's boundary is looked at, and only diagnostics
// of files inside are reported.
func AfterChange(ctx context.Context, ed Editor, path string, sess Session, wait time.Duration) (Report, error) {
	cwd := sess.Cwd
	rep := Report{Path: path, Cwd: cwd}
	if ed == nil {
		return rep, nil
	}
	sc := newScope(sess)
	if c := sc.check(path); !c.Place.Open() {
		rep.Skipped = "the file is outside the session's folders"
		return rep, nil
	} else {
		path = c.Real
	}
	out, err := ed.Call(ctx, AfterChangeTool, map[string]any{"root": cwd, "path": path, "wait": int(wait / time.Millisecond), "may_load": true})
	if err != nil {
		return rep, err
	}
	var r changeResult
	if err := json.Unmarshal(out, &r); err != nil {
		return rep, fmt.Errorf("after_change: %w", err)
	}
	rep.Clients, rep.Skipped, rep.TimedOut = r.Clients, r.Skipped, r.TimedOut
	if r.Skipped != "" {
		return rep, nil
	}
	rep.New, rep.Baseline = NewDiagnostics(r.Before.diags(), r.After.diags()), r.Baseline
	kept := rep.New[:0]
	for _, d := range rep.New {
		if sc.open(d.Path) {
			kept = append(kept, d)
		}
	}
	rep.New = kept
	return rep, nil
}

type diagKey struct {
	sev                   int
	source, code, message string
}

// NewDiagnostics are the errors and warnings of after that before did not
// have. Lines move when a file is edited, so a diagnostic is matched by what
// it says, not where: each one of before cancels one equal one of after (on
// the same line if there is one).
func NewDiagnostics(before, after []Diag) []Diag {
	left := map[diagKey][]int{} // unmatched lines of before
	for _, d := range before {
		if d.Severity > 2 {
			continue
		}
		k := diagKey{d.Severity, d.Source, d.Code, oneLine(d.Message)}
		left[k] = append(left[k], d.Line)
	}
	var cand []Diag
	for _, d := range after {
		if d.Severity >= 1 && d.Severity <= 2 {
			cand = append(cand, d)
		}
	}
	matched := make([]bool, len(cand))
	take := func(i int, sameLine bool) {
		k := diagKey{cand[i].Severity, cand[i].Source, cand[i].Code, oneLine(cand[i].Message)}
		lines := left[k]
		for j, l := range lines {
			if !sameLine || l == cand[i].Line {
				left[k] = append(lines[:j:j], lines[j+1:]...)
				matched[i] = true
				return
			}
		}
	}
	for i := range cand {
		take(i, true)
	}
	for i := range cand {
		if !matched[i] {
			take(i, false)
		}
	}
	var out []Diag
	for i, d := range cand {
		if !matched[i] {
			out = append(out, d)
		}
	}
	sortByPlace(out)
	return out
}

func changeNote(cause, name string, ds []Diag, baseline bool, clients []string, cwd string) string {
	var b strings.Builder
	from := "the editor"
	if len(clients) > 0 {
		from = "the editor's language server (" + strings.Join(clients, ", ") + ")"
	}
	if baseline {
		fmt.Fprintf(&b, "%s After %s %s, %s reports %s:\n", feedback.Marker, cause, name, from, newCounts(ds))
	} else {
		fmt.Fprintf(&b, "%s After %s %s, %s reports %s (the file was not open in the editor before, so some may be older than the change):\n",
			feedback.Marker, cause, name, from, counts(ds))
	}
	shown := ds
	if len(shown) > MaxNew {
		shown = shown[:MaxNew]
	}
	for _, d := range shown {
		fmt.Fprintf(&b, "- %s\n", d.line(func(p string) string { return approval.RelPath(p, cwd) }))
	}
	if len(ds) > len(shown) {
		fmt.Fprintf(&b, "(%d more left out: call mcp__%s__diagnostics for the whole list.)\n", len(ds)-len(shown), Server)
	}
	return strings.TrimRight(b.String(), "\n")
}

// newCounts is counts with "new": "1 new error, 2 new warnings".
func newCounts(ds []Diag) string {
	c := counts(ds)
	for _, w := range []string{"error", "warning"} {
		c = strings.ReplaceAll(c, " "+w, " new "+w)
	}
	return c
}
