// Package editortools are the tools the editor offers Claude through the
// host's MCP server "nvim" (see package mcp): listed buffers, a buffer's
// text with its unsaved changes, the visual selection, diagnostics and the
// user's language servers. The Go side defines the tools, checks their
// arguments, and turns what the editor reports into text for the model; the
// Neovim side (lua/claudenova/services/tools.lua) only gathers data. Tool calls
// reach Neovim through a Bridge that never blocks the caller beyond a
// deadline.
//
// It also reports what a change broke (AfterChange): the errors and
// warnings a file has after Claude changed it that it did not have before.
package editortools

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/mcp"
)

// Server is the MCP server name the CLI knows the editor by: its tools are
// mcp__nvim__<name>.
const Server = "nvim"

// ToolPrefix starts the model's name of every tool of the server.
const ToolPrefix = "mcp__" + Server + "__"

// Tool names (fixed: the model and the tests call them by these).
const (
	OpenBuffers      = "open_buffers"
	BufferText       = "buffer_text"
	Selection        = "selection"
	Diagnostics      = "diagnostics"
	LSPDefinition    = "lsp_definition"
	LSPReferences    = "lsp_references"
	LSPHover         = "lsp_hover"
	DocumentSymbols  = "document_symbols"
	WorkspaceSymbols = "workspace_symbols"
)

// Instructions tell the model what the server is (MCP initialize).
const Instructions = "The user's live Neovim editor. These tools read what the editor has now: the listed buffers, a buffer's text " +
	"including unsaved changes (which the file on disk does not have), the user's last visual selection, diagnostics " +
	"(vim.diagnostic: language servers, linters), and the user's own language servers (definition, references, hover, symbols). " +
	"Positions are 1-based line and column (columns count characters). Paths may be relative to your working directory."

const schemaNone = `{"type":"object","properties":{},"additionalProperties":false}`

const pathProp = `"path":{"type":"string","description":"File path, absolute or relative to your working directory."}`

const posProps = pathProp + `,
"line":{"type":"integer","minimum":1,"description":"1-based line."},
"column":{"type":"integer","minimum":1,"description":"1-based column (characters) of the symbol on that line."}`

type def struct {
	name, title, desc, schema string
}

var defs = []def{
	{OpenBuffers, "Open buffers", "List the buffers open in the user's editor: path, filetype, whether it has unsaved changes, whether it is visible in a window, and the cursor line.", schemaNone},
	{BufferText, "Buffer text", "The text of a file as the user's editor has it, unsaved changes included (says when it differs from the file on disk). Only for files open in the editor; use Read for others.",
		`{"type":"object","properties":{` + pathProp + `,
"start_line":{"type":"integer","minimum":1,"description":"First line (default 1)."},
"end_line":{"type":"integer","minimum":1,"description":"Last line (default: the end, at most 2000 lines per call)."}},"required":["path"],"additionalProperties":false}`},
	{Selection, "Selection", "The user's last visual selection in the editor (or the cursor line when there is none): path, range and text.", schemaNone},
	{Diagnostics, "Diagnostics", "Diagnostics (errors, warnings, hints from language servers and linters) the editor has for one file, or for every loaded buffer when path is omitted.",
		`{"type":"object","properties":{` + pathProp + `},"additionalProperties":false}`},
	{LSPDefinition, "Go to definition", "Where the symbol at a position is defined, from the language servers attached to the file in the user's editor.",
		`{"type":"object","properties":{` + posProps + `},"required":["path","line","column"],"additionalProperties":false}`},
	{LSPReferences, "Find references", "Every reference to the symbol at a position, from the language servers attached to the file in the user's editor.",
		`{"type":"object","properties":{` + posProps + `},"required":["path","line","column"],"additionalProperties":false}`},
	{LSPHover, "Hover", "The language server's hover text (type, signature, documentation) for the symbol at a position.",
		`{"type":"object","properties":{` + posProps + `},"required":["path","line","column"],"additionalProperties":false}`},
	{DocumentSymbols, "Document symbols", "The symbols (functions, types, variables…) of a file, from its language servers.",
		`{"type":"object","properties":{` + pathProp + `},"required":["path"],"additionalProperties":false}`},
	{WorkspaceSymbols, "Workspace symbols", "Search the symbols of the whole workspace by name, from the language servers running in the user's editor.",
		`{"type":"object","properties":{"query":{"type":"string","description":"Part of a symbol name."}},"required":["query"],"additionalProperties":false}`},
}

// Names lists every tool name, in the order tools/list gives them.
func Names() []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.name
	}
	return out
}

// Known reports whether name is one of the tools.
func Known(name string) bool {
	for _, d := range defs {
		if d.name == name {
			return true
		}
	}
	return false
}

// Tools returns the MCP definitions of the tools in enabled (nil: all), in
// the fixed order; unknown names are left out (see Unknown).
func Tools(enabled []string) []mcp.Tool {
	want := map[string]bool{}
	for _, n := range enabled {
		want[n] = true
	}
	var out []mcp.Tool
	for _, d := range defs {
		if enabled != nil && !want[d.name] {
			continue
		}
		out = append(out, mcp.Tool{
			Name: d.name, Title: d.title, Description: d.desc, InputSchema: json.RawMessage(compact(d.schema)),
			Annotations: &mcp.Annotations{Title: d.title, ReadOnlyHint: true, IdempotentHint: true},
		})
	}
	return out
}

// Unknown returns the names in enabled that are not tools, sorted.
func Unknown(enabled []string) []string {
	var out []string
	for _, n := range enabled {
		if !Known(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// ModelName is the model's name of a tool (mcp__nvim__<name>); ToolName
// undoes it ("" when the name is not one of the server's).
func ModelName(tool string) string { return ToolPrefix + tool }

// ToolName is the tool of a model's tool name, "" when it is not ours.
func ToolName(modelName string) string {
	if !strings.HasPrefix(modelName, ToolPrefix) {
		return ""
	}
	n := strings.TrimPrefix(modelName, ToolPrefix)
	if !Known(n) {
		return ""
	}
	return n
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic("editortools: bad schema: " + err.Error())
	}
	return b.String()
}
