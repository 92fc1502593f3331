// Package views words a pending request for the front end: its title,
// the fields it shows, the scopes a rule can be saved in, the plan's text,
// and what a batch may do with it. Every string is sanitized here.
package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/form"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/rules"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
)

// Deps is what the words need from the rest of the core.
type Deps struct {
	Sessions  *session.Manager
	Agent     func(sid int, agentID string) *tasks.Agent // the subagent that asks (nil: Claude)
	Home      func() string                              // the home folder paths are shown against
	ConfigDir func() string                              // claude's config folder (the user's settings)
}

// Builder makes the views of requests.
type Builder struct{ deps Deps }

// New returns a Builder.
func New(deps Deps) *Builder { return &Builder{deps: deps} }

// AgentLabel is how a request names its agent: its description (its type
// in parentheses), else "subagent <id>".
func AgentLabel(v *tasks.Agent) string {
	name := v.Description
	if name == "" {
		name = "subagent " + v.ID
	}
	if v.Type != "" {
		name += " (" + v.Type + ")"
	}
	return name
}

// ReviewCap bounds the diff shown by the panel's Review.
const ReviewCap = 400

// Viewer is a kind of request (approval.Kind) that words its own view:
// View completes v, the view's common part; done says v is whole (the
// words of claude's asks, hints and rules, do not apply to it).
type Viewer interface {
	View(v *Request, r approval.Pending) (done bool)
}

// Field is one labelled value of a request, for a person to read.
type Field struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Request is the view model of a pending request. Every string in it is
// sanitized.
type Request struct {
	ID          string       `json:"id"`
	Session     int          `json:"session"`
	SessionName string       `json:"session_name"`
	Tool        string       `json:"tool"`
	Target      string       `json:"target"`
	Surface     string       `json:"surface"`
	Agent       *tasks.Agent `json:"agent,omitempty"` // the subagent that asks (nil: Claude itself)
	Reason      string       `json:"reason,omitempty"`
	Arrived     int64        `json:"arrived"` // unix milliseconds
	Added       int          `json:"added"`
	Removed     int          `json:"removed"`
	FileChange  bool         `json:"file_change"`
	Path        string       `json:"path,omitempty"`   // the real file of a file change
	Exists      bool         `json:"exists"`           // the real file exists
	Staged      string       `json:"staged,omitempty"` // staged proposal file
	// Prepared names the original the editor read ahead for it, when that
	// was asked before the request came (package rooms/ahead).
	Prepared string          `json:"prepared,omitempty"`
	Title    string          `json:"title"`
	Fields   []Field         `json:"fields"`
	Review   []string        `json:"review"`          // full input and, for file changes, the diff
	Input    json.RawMessage `json:"input,omitempty"` // questions and plans need the structure
	Plan     string          `json:"plan,omitempty"`
	// PlanMode: a file change asked while the session plans, before any
	// plan was approved (claude asks it because of the mode).
	PlanMode bool `json:"plan_mode,omitempty"`
	// Hunks of a proposal, for review hunk by hunk (nil when there are
	// more than proposal.MaxHunks: the change is reviewed as a whole).
	Hunks []proposal.Hunk `json:"hunks,omitempty"`
	// How claude asks that it be answered (its can_use_tool hints).
	Hints approval.Hints `json:"hints"`
	// What "Allow for session" allows (the CLI's suggestion, for this
	// session), what "every call" allows, and the rule "Always…" offers;
	// each "" when it is not offered (claude's hints, or nothing to offer).
	SessionChoice string `json:"session_choice"`
	ToolChoice    string `json:"tool_choice"`
	// DirChoice is the folder claude suggests allowing for the session
	// (addDirectories: a write outside the session's folders), "" when
	// none: "allow this folder".
	DirChoice     string `json:"dir_choice,omitempty"`
	Suggested     string `json:"suggested_rule"`
	SuggestedWhat string `json:"suggested_what,omitempty"` // what Suggested covers, in words
	// ServerRule is the rule for every tool of an MCP tool's server
	// (mcp__<server>), offered by "Always…" with ServerChoice's words.
	ServerRule   string `json:"server_rule,omitempty"`
	ServerChoice string `json:"server_choice,omitempty"`
	// Scopes are where "Always…" can save a rule, with their files.
	Scopes []Scope `json:"scopes,omitempty"`
	// Cell says what a NotebookEdit does to which cell; Original is the
	// cell's source before (the proposal's original side).
	Cell     string `json:"cell,omitempty"`
	Original string `json:"original,omitempty"`
	// Unsaved: the proposal's original side is the user's buffer with
	// edits not written yet (a merge made from it), Original its text.
	Unsaved bool `json:"unsaved,omitempty"`
	// Form is an MCP server's form (an elicitation).
	Form *form.Form `json:"form,omitempty"`
	// Said is what Claude said right before the call, in the same message
	// ("" when nothing): why it asks, in its words.
	Said string `json:"said,omitempty"`
	// NoAlways says why "Always…" is not offered ("" when it is): a
	// request only its surface answers, claude's hints (no lasting rule),
	// a read outside the session's folders.
	NoAlways string `json:"no_always,omitempty"`
	// Own: only the request's surface answers it (a plan, a question, a
	// form); a gesture from elsewhere opens the surface instead and is told
	// OwnRefusal. A batch skips it.
	Own        bool   `json:"own,omitempty"`
	OwnRefusal string `json:"own_refusal,omitempty"`
	// NoBatchAllow says why a batch (a selection of sidebar rows) may not
	// allow the request: claude asks for a person's own answer ("" when a
	// batch may; a batch may always deny).
	NoBatchAllow string `json:"no_batch_allow,omitempty"`
	// Outside is set for an editor tool's read outside the session's
	// folders: the path it would read.
	Outside string `json:"outside,omitempty"`
}

// outsideDirs are the folders of dirs outside the session's folder cwd
// (claude may suggest the session's own folder: allowing it means nothing
// to a person).
func outsideDirs(dirs []string, cwd string) []string {
	var out []string
	for _, d := range dirs {
		if cwd == "" || !boundary.Within(cwd, d) {
			out = append(out, d)
		}
	}
	return out
}

// Scope is one place a rule can be saved.
type Scope struct {
	Name  string `json:"name"`  // session, localSettings, projectSettings, userSettings
	Label string `json:"label"` // in words
	Path  string `json:"path,omitempty"`
}

// scopes are the places a rule can be saved for a session in cwd.
func (b *Builder) scopes(cwd string) []Scope {
	home := b.deps.Home()
	show := func(p string) string {
		if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		if rel, err := filepath.Rel(home, p); home != "" && err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + rel
		}
		return p
	}
	out := []Scope{{Name: "session", Label: "this session"}}
	for _, s := range []struct{ name, label string }{
		{"localSettings", "this project, just me"}, {"projectSettings", "this project, shared"}, {"userSettings", "all my projects"},
	} {
		out = append(out, Scope{Name: s.name, Label: s.label, Path: sanitize.Line(show(rules.PathOf(s.name, cwd, b.deps.ConfigDir())))})
	}
	return out
}

func (b *Builder) Request(r approval.Pending) Request {
	pr := r.Perm
	name := fmt.Sprintf("session %d", r.Session)
	cwd := ""
	planning := false
	said := ""
	if s, ok := b.deps.Sessions.Get(r.Session); ok {
		cwd = s.Cwd()
		name = fmt.Sprintf("%d · %s", r.Session, s.Name())
		planning = s.Mode() == "plan"
		if r.Perm.ToolUseID != "" {
			said = sanitize.Text(s.Transcript.Said(r.Perm.ToolUseID))
		}
	}
	v := Request{
		ID: r.ID, Session: r.Session, SessionName: name, Tool: sanitize.Line(pr.ToolName),
		Target: r.Target, Surface: string(r.Route.Surface), Reason: sanitize.Text(r.Route.Reason),
		Arrived: r.Arrived.UnixMilli(), Added: r.Added, Removed: r.Removed,
		FileChange: approval.IsFileChange(pr.ToolName) || r.Change != nil, Staged: r.Staged, Prepared: r.Prepared, Said: said,
	}
	// Claude writing its own plan file is part of planning.
	v.PlanMode = planning && v.FileChange && !strings.Contains(r.Target, ".claude/plans/")
	shown := v.Tool
	if pr.DisplayName != "" && pr.DisplayName != pr.ToolName {
		shown = sanitize.Line(pr.DisplayName)
	}
	v.Title = shown + " · " + name
	if v.Agent = b.deps.Agent(r.Session, pr.AgentID); v.Agent != nil {
		v.Title = shown + " · " + AgentLabel(v.Agent) + " · " + name
	}
	if approval.OwnSurface(r.Route.Surface) {
		v.Own, v.OwnRefusal, v.NoAlways = true, approval.OwnRefusal(r.Route.Surface), approval.OwnNoRule(r.Route.Surface)
	} else {
		v.NoBatchAllow = approval.Refusal(r, approval.Decision{Behavior: approval.Allow}, approval.ViaBatch)
	}
	if k, ok := r.Kind.(Viewer); ok && k.View(&v, r) {
		return v // a kind of its own: a form, an editor read
	}
	v.Hints = approval.HintsOf(pr)
	if v.Hints.NoRules && v.NoAlways == "" {
		// What a decision with a rule is told (see approval.Refusal).
		v.NoAlways = approval.Refusal(r, approval.Decision{Behavior: approval.Allow, Rules: []string{pr.ToolName}}, approval.ViaCommand)
	}
	if !v.Hints.NoRules {
		if c, ok := rules.SessionChoice(pr.ToolName, pr.In.Fields, pr.Suggestions); ok {
			v.SessionChoice = sanitize.Line(c.Label)
		}
		v.ToolChoice = sanitize.Line(rules.ToolChoice(pr.ToolName).Label)
		if dirs := outsideDirs(rules.SuggestedDirs(pr.Suggestions), cwd); len(dirs) > 0 {
			shown := make([]string, len(dirs))
			for i, d := range dirs {
				shown[i] = boundary.Show(d, "", b.deps.Home())
			}
			v.DirChoice = sanitize.Line("the folder " + strings.Join(shown, ", ") + " this session")
		}
		rule, what := rules.Suggested(pr.ToolName, pr.In.Fields, pr.Suggestions)
		v.Suggested, v.SuggestedWhat = sanitize.Line(rule), what
		mcpName := ""
		if pr.MCPServer != nil {
			mcpName = pr.MCPServer.Name
		}
		if sr := rules.ServerRule(rules.Server(pr.ToolName, mcpName)); sr != "" {
			v.ServerRule = sanitize.Line(sr)
			v.ServerChoice = "every tool of MCP server " + sanitize.Line(rules.Server(pr.ToolName, mcpName))
		}
		v.Scopes = b.scopes(cwd)
	}
	if c := r.Change; c != nil {
		v.Path, v.Exists = c.Path, c.Exists
		if c.Cell != nil {
			v.Cell = sanitize.Line(c.Cell.Label())
			v.Original = string(c.Original)
		}
	}
	v.Fields = fields(pr, r.Change, cwd)
	if pr.Title != "" {
		v.Fields = append([]Field{{"Title", sanitize.Text(pr.Title)}}, v.Fields...)
	}
	if pr.Description != "" && pr.ToolName != "Bash" && pr.Description != filepath.Base(r.Target) {
		v.Fields = append(v.Fields, Field{"Description", sanitize.Text(pr.Description)})
	}
	if pr.DecisionReason != "" {
		v.Fields = append(v.Fields, Field{"Reason", sanitize.Text(pr.DecisionReason)})
	}
	if pr.MatchedAskRule != nil {
		v.Fields = append(v.Fields, Field{"Asked by your rule", sanitize.Line(pr.MatchedAskRule.String() + " (" + pr.MatchedAskRule.Source + ")")})
	}
	if pr.BlockedPath != "" {
		// The path claude's check is about (a command writes it, a read is
		// outside the folder): not a forbidden one.
		v.Fields = append(v.Fields, Field{"Path it touches", sanitize.Line(approval.RelPath(pr.BlockedPath, cwd))})
	}
	if v.Agent != nil {
		v.Fields = append([]Field{{"Agent", AgentLabel(v.Agent)}}, v.Fields...)
	}
	switch r.Route.Surface {
	case approval.SurfaceQuestion:
		v.Input = sanitize.JSON(pr.Input)
	case approval.SurfacePlan:
		v.Input = sanitize.JSON(pr.Input)
		v.Plan = sanitize.Text(b.PlanText(r))
	case approval.SurfacePanel:
		v.Review = b.review(r)
	case approval.SurfaceProposal:
		switch {
		case r.Summary != nil:
			if r.Summary.HunksOK {
				v.Hunks = r.Summary.Hunks
			}
		case r.Change != nil:
			v.Hunks, _ = proposal.Hunks(*r.Change)
		}
	}
	return v
}

// review is the full input, pretty-printed, and the diff for file changes.
func (b *Builder) review(r approval.Pending) []string {
	var out []string
	var pretty bytes.Buffer
	if json.Indent(&pretty, r.Perm.Input, "", "  ") == nil {
		out = append(out, sanitize.Lines(pretty.String())...)
	} else {
		out = append(out, sanitize.Lines(string(r.Perm.Input))...)
	}
	if c := r.Change; c != nil {
		res := diff.Unified("a/"+r.Target, "b/"+r.Target, string(c.Original), string(c.Proposed), diff.Options{Context: 3, MaxLines: ReviewCap})
		out = append(out, "")
		out = append(out, sanitize.Lines(res.Text)...)
	}
	return out
}

// fields renders a tool input for a person.
func fields(pr claude.PermissionRequest, c *proposal.Change, cwd string) []Field {
	tool, input := pr.ToolName, pr.Input
	in := pr.In.Obj
	if pr.In.Err != nil {
		return []Field{{"Input", sanitize.Text(string(input))}}
	}
	str := func(k string) string { return valueText(in[k]) }
	var fs []Field
	add := func(label, key string) {
		if s := str(key); s != "" {
			fs = append(fs, Field{label, sanitize.Text(s)})
		}
	}
	switch {
	case tool == "Bash":
		add("Command", "command")
		add("Description", "description")
		add("Timeout (ms)", "timeout")
		add("In background", "run_in_background")
	case tool == "NotebookEdit":
		fs = append(fs, Field{"Notebook", sanitize.Line(approval.RelPath(str("notebook_path"), cwd))})
		if c != nil && c.Cell != nil {
			fs = append(fs, Field{"Cell", sanitize.Line(c.Cell.Label())})
			if c.Cell.Mode == "delete" {
				fs = append(fs, Field{"Cell source", sanitize.Text(string(c.Original))})
			}
		} else {
			add("Cell", "cell_id")
			add("Edit mode", "edit_mode")
		}
	case approval.IsFileChange(tool):
		fs = append(fs, Field{"File", sanitize.Line(approval.RelPath(str("file_path"), cwd))})
	case strings.HasPrefix(tool, "mcp__"):
		known, source := "", ""
		if pr.MCPServer != nil {
			known, source = pr.MCPServer.Name, pr.MCPServer.Source
		}
		server := rules.Server(tool, known)
		label := sanitize.Line(server)
		if source != "" {
			label += " (" + sanitize.Line(source) + ")"
		}
		fs = append(fs, Field{"MCP server", label})
		if name, ok := strings.CutPrefix(tool, "mcp__"+server+"__"); ok {
			fs = append(fs, Field{"Tool", sanitize.Line(name)})
		} else {
			fs = append(fs, Field{"Tool", sanitize.Line(tool)})
		}
		if len(in) == 0 {
			fs = append(fs, Field{"Arguments", "(none)"})
		}
		for _, k := range sortedKeys(in) {
			fs = append(fs, Field{sanitize.Line(k), sanitize.Text(valueText(in[k]))})
		}
	case tool == "Read" || tool == "Grep" || tool == "Glob" || tool == "WebFetch" || tool == "WebSearch" || tool == "LS":
		for _, k := range sortedKeys(in) {
			fs = append(fs, Field{k, sanitize.Text(str(k))})
		}
	default:
		fs = append(fs, Field{"Input", prettyJSON(input)})
	}
	return fs
}

// valueText is a JSON value as a person reads it: a string as it is,
// anything else as (indented) JSON.
func valueText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	case map[string]any, []any:
		b, _ := json.MarshalIndent(t, "", "  ")
		return string(b)
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Most important first, the rest alphabetical.
	rank := map[string]int{"file_path": 0, "path": 1, "pattern": 2, "url": 3, "query": 4, "prompt": 5}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		ra, oka := rank[a]
		rb, okb := rank[b]
		switch {
		case oka && okb:
			return ra < rb
		case oka != okb:
			return oka
		default:
			return a < b
		}
	})
	return keys
}

func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return sanitize.Text(string(raw))
	}
	return sanitize.Text(b.String())
}

// PlanText is the plan to show: input.plan (older CLIs), else what the
// session's transcript knows (see transcript.Transcript.Plan).
func (b *Builder) PlanText(r approval.Pending) string {
	if plan := r.Perm.In.Fields.Plan; plan != "" {
		return plan
	}
	s, ok := b.deps.Sessions.Get(r.Session)
	if !ok {
		return ""
	}
	return s.Transcript.Plan(r.Perm.ToolUseID, proposal.ReadFile)
}
