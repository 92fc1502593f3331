// Package replies reads claude's answers to the plugin's control requests
// (initialize, get_context_usage, mcp_status, get_settings, …): each is
// decoded here into its type, and a room takes the typed value
// (claude.Process.Control hands back the raw answer).
package replies

import (
	"encoding/json"
	"fmt"
	"sort"
)

// InitAnswer is claude's answer to initialize, as far as the plugin reads it.
type InitAnswer struct {
	Commands []SlashCommand `json:"commands"`
	Models   []ModelInfo    `json:"models"`
}

// SlashCommand is one of claude's slash commands.
type SlashCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
}

// ModelInfo is one model claude offers.
type ModelInfo struct {
	Value        string   `json:"value"`
	DisplayName  string   `json:"displayName"`
	Description  string   `json:"description"`
	EffortLevels []string `json:"supportedEffortLevels"`
}

// ContextUsage is get_context_usage's answer: what fills the context window.
type ContextUsage struct {
	Categories []ContextCategory `json:"categories"`
	Total      int               `json:"totalTokens"`
	Max        int               `json:"maxTokens"`
	Percent    float64           `json:"percentage"`
}

// ContextCategory is one row of ContextUsage (system prompt, tools, …).
type ContextCategory struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Kind   string `json:"kind"`
}

// ModelSet is set_model's answer (the model claude switched to, when it says).
type ModelSet struct {
	Model string `json:"model"`
}

// Cancelled is cancel_async_message's answer.
type Cancelled struct {
	Cancelled bool `json:"cancelled"`
}

// TaskOutput is get_task_output's answer.
type TaskOutput struct {
	Output string `json:"output"`
}

// RewindFiles is rewind_files' answer (dry run or not).
type RewindFiles struct {
	CanRewind    bool     `json:"canRewind"`
	Error        string   `json:"error"`
	FilesChanged []string `json:"filesChanged"`
	Insertions   int      `json:"insertions"`
	Deletions    int      `json:"deletions"`
	SkippedLinks int      `json:"skippedLinks"`
}

// MCPStatus is mcp_status's answer.
type MCPStatus struct {
	Servers []MCPServerStatus `json:"mcpServers"`
}

// MCPServerStatus is one server of MCPStatus.
type MCPServerStatus struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Error     string `json:"error"`
	Scope     string `json:"scope"`
	Source    string `json:"source"`
	Transport string `json:"transport"`
	Config    struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		URL     string   `json:"url"`
	} `json:"config"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	ToolCount *int `json:"toolCount"`
}

// UsageAnswer is get_usage's answer, kept as claude shaped it (the front end
// shows its fields by name).
type UsageAnswer map[string]any

// decode reads one control answer of subtype into a T.
func decode[T any](subtype string, raw json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("%s answer: %w", subtype, err)
	}
	return v, nil
}

// DecodeInit reads initialize's answer.
func DecodeInit(raw json.RawMessage) (InitAnswer, error) {
	return decode[InitAnswer]("initialize", raw)
}

// DecodeContextUsage reads get_context_usage's answer; one without a
// window size is an error.
func DecodeContextUsage(raw json.RawMessage) (ContextUsage, error) {
	u, err := decode[ContextUsage]("get_context_usage", raw)
	if err == nil && u.Max == 0 {
		err = fmt.Errorf("get_context_usage answer: no maxTokens")
	}
	return u, err
}

// DecodeModelSet reads set_model's answer.
func DecodeModelSet(raw json.RawMessage) (ModelSet, error) {
	return decode[ModelSet]("set_model", raw)
}

// DecodeCancelled reads cancel_async_message's answer.
func DecodeCancelled(raw json.RawMessage) (Cancelled, error) {
	return decode[Cancelled]("cancel_async_message", raw)
}

// DecodeTaskOutput reads get_task_output's answer.
func DecodeTaskOutput(raw json.RawMessage) (TaskOutput, error) {
	return decode[TaskOutput]("get_task_output", raw)
}

// DecodeRewindFiles reads rewind_files' answer.
func DecodeRewindFiles(raw json.RawMessage) (RewindFiles, error) {
	return decode[RewindFiles]("rewind_files", raw)
}

// DecodeMCPStatus reads mcp_status's answer.
func DecodeMCPStatus(raw json.RawMessage) (MCPStatus, error) {
	return decode[MCPStatus]("mcp_status", raw)
}

// DecodeUsage reads get_usage's answer (an object; anything else is an error).
func DecodeUsage(raw json.RawMessage) (UsageAnswer, error) {
	u, err := decode[UsageAnswer]("get_usage", raw)
	if err == nil && u == nil {
		err = fmt.Errorf("get_usage answer: not an object")
	}
	return u, err
}

// ServerError is one entry of system/init's mcp_server_errors.
type ServerError struct {
	Name    string
	Type    string
	Message string
}

// ServerErrors is mcp_server_errors in whatever shape it comes: a list of
// {name|server|serverName, type, message|error} or a map of name to a
// message or to {message|error}. Entries naming nothing are dropped.
type ServerErrors []ServerError

// UnmarshalJSON reads both shapes; anything else reads as none.
func (e *ServerErrors) UnmarshalJSON(raw []byte) error {
	*e = nil
	var list []map[string]any
	if json.Unmarshal(raw, &list) == nil {
		for _, m := range list {
			se := ServerError{Name: firstString(m, "name", "server", "serverName"), Type: firstString(m, "type"),
				Message: firstString(m, "message", "error")}
			if se.Name == "" && se.Message == "" {
				continue
			}
			*e = append(*e, se)
		}
		return nil
	}
	var byName map[string]any
	if json.Unmarshal(raw, &byName) == nil {
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			msg := fmt.Sprint(byName[n])
			if m, ok := byName[n].(map[string]any); ok {
				msg = firstString(m, "message", "error")
			}
			*e = append(*e, ServerError{Name: n, Message: msg})
		}
	}
	return nil
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// Settings is get_settings' answer: the settings claude uses, per source
// (user, project, local, policy, flags…), the effective ones, and the
// files it could not read.
type Settings struct {
	Effective struct {
		Permissions SettingsPermissions `json:"permissions"`
	} `json:"effective"`
	Sources []SettingsSource `json:"sources"`
	Errors  []SettingsError  `json:"errors"`
}

// SettingsSource is one source of Settings.
type SettingsSource struct {
	Source   string `json:"source"`
	Settings struct {
		Permissions SettingsPermissions `json:"permissions"`
	} `json:"settings"`
}

// SettingsPermissions are the permissions block of a settings source.
type SettingsPermissions struct {
	Allow       []string `json:"allow"`
	Deny        []string `json:"deny"`
	Ask         []string `json:"ask"`
	DefaultMode string   `json:"defaultMode,omitempty"`
	Dirs        []string `json:"additionalDirectories"`
}

// SettingsError is a settings file claude could not read.
type SettingsError struct {
	File    string `json:"file"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// DecodeSettings reads get_settings' answer.
func DecodeSettings(raw json.RawMessage) (Settings, error) {
	return decode[Settings]("get_settings", raw)
}
