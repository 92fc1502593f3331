package editortools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

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

// Run calls tool with the model's arguments for a session in cwd (paths
// are relative to it) and describes what the editor said.
func Run(ctx context.Context, ed Editor, cwd, tool string, raw json.RawMessage) Outcome {
	if ed == nil {
		return failed("the editor tools are not connected to Neovim")
	}
	a, err := parseArgs(tool, raw, cwd)
	if err != nil {
		return failed(err.Error())
	}
	out, err := ed.Call(ctx, tool, a)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) {
			return failed(te.Msg)
		}
		return failed(fmt.Sprintf("%s failed: %v", tool, err))
	}
	o, err := describe(tool, a, out, cwd)
	if err != nil {
		return failed(fmt.Sprintf("%s: the editor's answer could not be read: %v", tool, err))
	}
	return o
}

// args are what the Neovim side gets: the model's arguments, checked, with
// the path made absolute, plus the session's folder (a file outside it is
// read only when it is open in the editor already).
type args struct {
	Root      string `json:"root"`
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	Query     string `json:"query,omitempty"`
	Max       int    `json:"max,omitempty"`
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
	if a.Path != "" {
		a.Path = Abs(a.Path, cwd)
	}
	return a, nil
}

// Abs makes path absolute against cwd and cleans it.
func Abs(path, cwd string) string {
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path)
}
