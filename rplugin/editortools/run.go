package editortools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/mcp"
)

// MaxTextLines bounds the lines buffer_text returns per call.
const MaxTextLines = 2000

// Outcome is a tool call's result for the model and, for the transcript,
// a few words on what it found ("2 errors", "b.go:3").
type Outcome struct {
	Result   mcp.Result
	Headline string
}

func failed(msg string) Outcome {
	return Outcome{Result: mcp.Failure(msg), Headline: "failed"}
}

// Session is what a call needs to know of the session that makes it.
type Session struct {
	Cwd  string // relative paths are taken against it
	Home string // paths under it read "~/…"
	// Gate keeps the session's boundary (nil: only Cwd is inside, and
	// nothing outside it is given).
	Gate Gate
	// Timeout bounds the editor's answer (0: only ctx); the wait for the
	// user's answer to an outside read is bounded by ctx alone.
	Timeout time.Duration
}

// Gate is the session's boundary as the tools see it: where a path stands,
// and the user's answer when Claude wants something from outside.
type Gate interface {
	Check(name string) boundary.Check
	Ask(ctx context.Context, q Question) Answer
}

// Question is what Claude wants from outside the session's folders.
type Question struct {
	Tool    string // the tool (buffer_text, …)
	Path    string // the real path
	Shown   string // the path as a person reads it
	What    string // "the text of ~/notes/todo.txt (open in your editor)"
	Preview string // exactly what Claude would receive
}

// Answer is the user's answer to a Question.
type Answer struct {
	Allowed bool
	Message string // the user's words for Claude, on a deny
	How     string // for the transcript: "allowed once", "denied by you", …
}

// Run calls tool with the model's arguments for a session and describes
// what the editor said. Nothing from outside the session's folders reaches
// the answer unless the gate lets it through (see package boundary).
func Run(ctx context.Context, ed Editor, sess Session, tool string, raw json.RawMessage) Outcome {
	if ed == nil {
		return failed("the editor tools are not connected to Neovim")
	}
	a, err := parseArgs(tool, raw, sess.Cwd)
	if err != nil {
		return failed(err.Error())
	}
	sc := newScope(sess)
	if tool == Diagnostics {
		a.Limit = MaxDiagnostics
	}
	if a.Path != "" {
		c := sc.check(a.Path)
		switch {
		case c.NotFile:
			return failed(fmt.Sprintf("%s: %q is not a file path", tool, a.Shown))
		case c.Real == "":
			return failed(fmt.Sprintf("%s: %s cannot be resolved (a loop of symbolic links?)", tool, a.Shown))
		case c.Place == boundary.Refused:
			return refused(tool, sc.show(c.Real), c.Why)
		}
		a.Path, a.MayLoad = c.Real, c.Place.Open()
	}
	callCtx := ctx
	if sess.Timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, sess.Timeout)
		defer cancel()
	}
	out, err := ed.Call(callCtx, tool, a)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) {
			return failed(te.Msg)
		}
		return failed(fmt.Sprintf("%s failed: %v", tool, err))
	}
	o, q, err := describe(tool, a, out, sc)
	if err != nil {
		return failed(fmt.Sprintf("%s: the editor's answer could not be read: %v", tool, err))
	}
	if q == nil {
		return o
	}
	if c := sc.check(q.Path); c.Place == boundary.Refused {
		return refused(tool, q.Shown, c.Why)
	}
	q.Tool, q.Preview = tool, o.Result.Content[0].Text
	ans := sc.ask(ctx, *q)
	if !ans.Allowed {
		return deniedOutside(*q, ans)
	}
	o.Headline += " · " + ans.How
	return o
}

// refused is the answer when one of the user's Read deny rules covers path.
func refused(tool, shown, rule string) Outcome {
	return Outcome{
		Result:   mcp.Failure(fmt.Sprintf("%s: reading %s is denied by the user's settings (rule %s); nothing was read.", tool, shown, rule)),
		Headline: "refused by your rule " + rule,
	}
}

// deniedOutside is the answer when the user did not let Claude have what it
// asked for from outside the session's folders.
func deniedOutside(q Question, ans Answer) Outcome {
	msg := fmt.Sprintf("The user did not allow %s: %s is outside this session's folders, and reading it needs the user's consent. Nothing was read.", q.What, q.Shown)
	if m := strings.TrimSpace(ans.Message); m != "" {
		msg += " The user says: " + m
	}
	how := ans.How
	if how == "" {
		how = "denied"
	}
	return Outcome{Result: mcp.Failure(msg), Headline: "outside the project · " + how}
}

// args are what the Neovim side gets: the model's arguments, checked, with
// the path made absolute, plus the session's folder (a file outside it is
// read only when it is open in the editor already).
type args struct {
	Root string `json:"root"`
	// Path is the real path (resolved by the boundary); Shown is how the
	// model named it (for the model's answer); MayLoad lets the editor
	// load the file when it is not open (only inside the boundary).
	Path      string `json:"path,omitempty"`
	Shown     string `json:"-"`
	MayLoad   bool   `json:"may_load,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	Query     string `json:"query,omitempty"`
	Max       int    `json:"max,omitempty"`
	// Limit is how many diagnostics the answer lists (MaxDiagnostics):
	// the editor sends each file's most severe only, and counts the rest.
	Limit int `json:"limit,omitempty"`
}

func parseArgs(tool string, raw json.RawMessage, cwd string) (args, error) {
	var in map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		return args{}, fmt.Errorf("%s: arguments must be a JSON object", tool)
	}
	a := args{Root: cwd}
	str := func(k string, required bool) (string, error) {
		v, ok := in[k]
		if !ok || string(v) == "null" {
			if required {
				return "", fmt.Errorf("%s: %q is required", tool, k)
			}
			return "", nil
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", fmt.Errorf("%s: %q must be a string", tool, k)
		}
		if required && strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%s: %q must not be empty", tool, k)
		}
		return s, nil
	}
	num := func(k string, required bool) (int, error) {
		v, ok := in[k]
		if !ok || string(v) == "null" {
			if required {
				return 0, fmt.Errorf("%s: %q is required (1-based)", tool, k)
			}
			return 0, nil
		}
		var f float64
		if json.Unmarshal(v, &f) != nil || f != float64(int(f)) || f < 1 || f > 1e9 {
			return 0, fmt.Errorf("%s: %q must be a whole number ≥ 1 (positions are 1-based)", tool, k)
		}
		return int(f), nil
	}
	var err error
	known := map[string]bool{}
	use := func(keys ...string) {
		for _, k := range keys {
			known[k] = true
		}
	}
	switch tool {
	case OpenBuffers, Selection:
	case BufferText:
		use("path", "start_line", "end_line")
		if a.Path, err = str("path", true); err != nil {
			return a, err
		}
		if a.StartLine, err = num("start_line", false); err != nil {
			return a, err
		}
		if a.EndLine, err = num("end_line", false); err != nil {
			return a, err
		}
		if a.StartLine == 0 {
			a.StartLine = 1
		}
		if a.EndLine != 0 && a.EndLine < a.StartLine {
			return a, fmt.Errorf("%s: end_line %d is before start_line %d", tool, a.EndLine, a.StartLine)
		}
		a.Max = MaxTextLines
	case Diagnostics:
		use("path")
		if a.Path, err = str("path", false); err != nil {
			return a, err
		}
	case LSPDefinition, LSPReferences, LSPHover:
		use("path", "line", "column")
		if a.Path, err = str("path", true); err != nil {
			return a, err
		}
		if a.Line, err = num("line", true); err != nil {
			return a, err
		}
		if a.Column, err = num("column", true); err != nil {
			return a, err
		}
	case DocumentSymbols:
		use("path")
		if a.Path, err = str("path", true); err != nil {
			return a, err
		}
	case WorkspaceSymbols:
		use("query")
		if a.Query, err = str("query", false); err != nil {
			return a, err
		}
		if _, ok := in["query"]; !ok {
			return a, fmt.Errorf("%s: %q is required", tool, "query")
		}
	default:
		return a, fmt.Errorf("unknown tool %q", tool)
	}
	for k := range in {
		if !known[k] {
			return a, fmt.Errorf("%s: unknown argument %q", tool, k)
		}
	}
	a.Shown = a.Path // resolved by Run, through the boundary
	return a, nil
}

// Abs makes path absolute against cwd and cleans it.
func Abs(path, cwd string) string {
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path)
}
