package claude

import (
	"encoding/json"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// A tool call is read in package toolcall (a can_use_tool request's input
// is decoded once, by ParseLine: PermissionRequest.In); these are its
// names as the sessions know them here.

// ToolFields, Question, FieldsOf and InputObject are what the plugin
// reads of a tool input by name (package toolcall, where a request's
// input is decoded once).
type (
	ToolFields = toolcall.Fields
	Question   = toolcall.Question
)

// FieldsOf decodes a tool input's fields (toolcall.FieldsOf).
func FieldsOf(input json.RawMessage) (ToolFields, error) { return toolcall.FieldsOf(input) }

// InputObject decodes a tool input as an object (toolcall.Object).
func InputObject(input json.RawMessage) (map[string]any, error) { return toolcall.Object(input) }

// Launched, ResultImage and the readers of a call's result are package
// toolcall's, by the names they have here.
type (
	Launched    = toolcall.Launched
	ResultImage = toolcall.ResultImage
)

// LaunchedOf reads a structured result as Launched.
func LaunchedOf(structured json.RawMessage) Launched { return toolcall.LaunchedOf(structured) }

// ResultText is a tool_result's content as text.
func ResultText(content json.RawMessage) string { return toolcall.ResultText(content) }

// ResultImages are the base64 image blocks of a tool_result's content.
func ResultImages(content json.RawMessage) []ResultImage { return toolcall.ResultImages(content) }
