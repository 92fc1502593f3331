// Package gitai writes and reads who wrote a commit's lines as a git
// note in the Git AI standard (authorship log v3, schema
// "authorship/3.0.0", notes ref refs/notes/ai), the shape other tools
// read:
//
//	path/to/file.go
//	  <key> 3-9,14
//	"a path with spaces.go"
//	  <key> 1-5
//	---
//	{ "schema_version": "authorship/3.0.0", "git_ai_version": "…", "base_commit_sha": "…",
//	  "prompts": {}, "sessions": { "s_…": {…} }, "humans": { "h_…": {…} } }
//
// A path line starts at column 0 (quoted when it holds a space, a tab or a
// newline; there is no escaping); each entry line is two spaces, a key and
// the commit's line numbers of that file, ascending, as ranges. As the
// standard was amended (2026-05, git-ai 1.4.0), a key "s_<14 hex>::t_<14
// hex>" names an agent session and one of its checkpoints (here: a prompt
// of the session), resolved in "sessions" by the part before "::"; "h_<14
// hex>" a known human (in "humans"): the lines the user amended in Claude's
// proposal; a bare 16-hex key a prompt in "prompts", the legacy form this
// plugin wrote before and still reads. Notes of the fork that writes
// "authorship/3.1.0" are read too; this package writes 3.0.0.
package gitai

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Schema is the schema_version of the notes written (and read).
const Schema = "authorship/3.0.0"

// Schema31 is the schema_version a fork of the standard writes (it adds
// fields such as x_user_id): read, never written.
const Schema31 = "authorship/3.1.0"

// Ref is the notes ref of the standard.
const Ref = "refs/notes/ai"

// Note is one commit's authorship log.
type Note struct {
	Files []File
	Meta  Meta
}

// File is the attested lines of one file of the commit.
type File struct {
	Path    string
	Entries []Entry
}

// Entry is the lines of a file one prompt (or one human) wrote.
type Entry struct {
	Key    string
	Ranges []Range
}

// Range is lines From..To (1-based, inclusive).
type Range struct{ From, To int }

// Meta is the JSON after the divider.
type Meta struct {
	SchemaVersion string `json:"schema_version"`
	// GitAIVersion is the writer and its version ("claude-nova.nvim
	// 0.1.0"); older notes of ours have null (read as "").
	GitAIVersion  string             `json:"git_ai_version,omitempty"`
	BaseCommitSHA string             `json:"base_commit_sha"`
	Prompts       map[string]Prompt  `json:"prompts"`
	Humans        map[string]Human   `json:"humans,omitempty"`
	Sessions      map[string]Session `json:"sessions,omitempty"`
}

// Session is the record of one agent session (keys "s_…"): who, no
// stats (the standard's session records carry none).
type Session struct {
	AgentID     AgentID `json:"agent_id"`
	HumanAuthor string  `json:"human_author,omitempty"`
	// CustomAttributes: the writer, the session's name and, per trace
	// (prompt), its number and (provenance.prompts = "text") its text.
	CustomAttributes map[string]string `json:"custom_attributes,omitempty"`
}

// Prompt is the record of one prompt of one agent session (the legacy
// form, keys of 16 hex digits: written by this plugin before the standard
// was amended, and by other tools; read, no longer written).
type Prompt struct {
	AgentID     AgentID `json:"agent_id"`
	HumanAuthor *string `json:"human_author"`
	// TotalAdditions is the lines the prompt's changes put in the
	// commit, TotalDeletions the lines they removed (not known here: 0).
	TotalAdditions int `json:"total_additions"`
	TotalDeletions int `json:"total_deletions"`
	// AcceptedLines are Claude's lines as Claude wrote them,
	// OverridenLines Claude's lines the user amended (the standard's
	// spelling).
	AcceptedLines    int               `json:"accepted_lines"`
	OverridenLines   int               `json:"overriden_lines"`
	CustomAttributes map[string]string `json:"custom_attributes,omitempty"`
}

// AgentID names the agent session.
type AgentID struct {
	Tool  string `json:"tool"`
	ID    string `json:"id"`
	Model string `json:"model"`
}

// Human is a person who wrote lines ("Name <email>").
type Human struct {
	Author string `json:"author"`
}

// The custom attributes this plugin writes on a session (and wrote on a
// legacy prompt: AttrPrompt, AttrTurn). Per trace t_…: AttrTurn+"."+trace
// is the prompt's number, AttrPrompt+"."+trace its text (only when the
// user shares prompts' text).
const (
	AttrPrompt  = "prompt"       // the prompt's text (cut)
	AttrTurn    = "turn"         // its number in the session
	AttrName    = "session_name" // the session's name
	AttrWriter  = "writer"       // who wrote the note
	WriterValue = "claude-nova.nvim"
)

// Tool is the agent_id.tool of Claude Code's sessions.
const Tool = "claude"

func hex14(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:14]
}

// SessionKey is the key of claude session id as the standard makes it:
// "s_" and 14 hex digits of SHA-256("claude:<id>").
func SessionKey(sessionID string) string { return "s_" + hex14(Tool+":"+sessionID) }

// TraceKey is the trace of prompt turn of claude session id: "t_" and 14
// hex digits of a SHA-256. The standard asks a trace unique per
// checkpoint; a prompt is this plugin's checkpoint, and a trace made from
// it is the same wherever the note is written again (an amend, a rebase).
func TraceKey(sessionID string, turn int) string {
	return "t_" + hex14(Tool+":"+sessionID+":"+strconv.Itoa(turn))
}

// AttestKey is the attestation key of prompt turn of claude session id:
// "s_…::t_…".
func AttestKey(sessionID string, turn int) string {
	return SessionKey(sessionID) + "::" + TraceKey(sessionID, turn)
}

// HumanKey is the key of a person ("Name <email>"), as the standard makes
// it: "h_" and 14 hex digits of its SHA-256.
func HumanKey(author string) string {
	sum := sha256.Sum256([]byte(author))
	return "h_" + hex.EncodeToString(sum[:])[:14]
}

// Writable says whether path can be written in a note: the format has no
// escaping, so a path holding a double quote or a newline cannot be read
// back, nor a quoted one holding a backslash (strict readers unquote with
// escapes), nor "---" (the divider).
func Writable(path string) bool {
	if path == "" || path == "---" || strings.ContainsAny(path, "\"\n\r") {
		return false
	}
	return !needsQuotes(path) || !strings.Contains(path, `\`)
}

func needsQuotes(path string) bool { return strings.ContainsAny(path, " \t\n") }

// Format writes the note as the standard lays it out. Files and entries
// whose path cannot be written are left out (see Writable); entries with
// no range too. Ranges are sorted and merged.
func Format(n Note) (string, error) {
	var b strings.Builder
	for _, f := range n.Files {
		if !Writable(f.Path) {
			return "", fmt.Errorf("the path %q cannot be written in a note", f.Path)
		}
		var entries []string
		for _, e := range f.Entries {
			rs := Compress(e.Ranges)
			if len(rs) == 0 {
				continue
			}
			if e.Key == "" || strings.ContainsAny(e.Key, " \t\n") {
				return "", fmt.Errorf("the key %q cannot be written in a note", e.Key)
			}
			entries = append(entries, "  "+e.Key+" "+formatRanges(rs))
		}
		if len(entries) == 0 {
			continue
		}
		if needsQuotes(f.Path) {
			b.WriteString(`"` + f.Path + `"`)
		} else {
			b.WriteString(f.Path)
		}
		b.WriteByte('\n')
		for _, e := range entries {
			b.WriteString(e + "\n")
		}
	}
	b.WriteString("---\n")
	m := n.Meta
	if m.Prompts == nil {
		m.Prompts = map[string]Prompt{} // required, if empty
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false) // "Ada <ada@example.com>" as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return "", fmt.Errorf("write the note's metadata: %w", err)
	}
	b.Write(js.Bytes())
	return b.String(), nil
}

func formatRanges(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.From == r.To {
			parts[i] = strconv.Itoa(r.From)
		} else {
			parts[i] = strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
		}
	}
	return strings.Join(parts, ",")
}

// Compress sorts ranges and merges those that touch or overlap; ranges
// below line 1 or upside down are dropped.
func Compress(rs []Range) []Range {
	var in []Range
	for _, r := range rs {
		if r.From >= 1 && r.To >= r.From {
			in = append(in, r)
		}
	}
	sort.Slice(in, func(i, j int) bool { return in[i].From < in[j].From })
	var out []Range
	for _, r := range in {
		if n := len(out); n > 0 && r.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

// RangesOf is the ranges of line numbers (any order, repeats allowed).
func RangesOf(lines []int) []Range {
	rs := make([]Range, 0, len(lines))
	for _, l := range lines {
		rs = append(rs, Range{l, l})
	}
	return Compress(rs)
}

// ErrNotGitAI is a note that is not in the standard's format.
var ErrNotGitAI = errors.New("not a Git AI authorship note")

// Parse reads a note. A note in another format is ErrNotGitAI (wrapped,
// with why).
func Parse(text string) (Note, error) {
	var n Note
	lines := strings.Split(text, "\n")
	div := -1
	for i, l := range lines {
		if strings.TrimRight(l, "\r") == "---" {
			div = i
			break
		}
	}
	if div < 0 {
		return n, fmt.Errorf("%w: no --- line", ErrNotGitAI)
	}
	var cur *File
	for i, l := range lines[:div] {
		l = strings.TrimRight(l, "\r")
		switch {
		case l == "":
		case strings.HasPrefix(l, "  "):
			if cur == nil {
				return n, fmt.Errorf("%w: line %d: an entry before any file", ErrNotGitAI, i+1)
			}
			key, spec, ok := strings.Cut(strings.TrimSpace(l), " ")
			if !ok {
				return n, fmt.Errorf("%w: line %d: an entry without lines", ErrNotGitAI, i+1)
			}
			rs, err := parseRanges(spec)
			if err != nil {
				return n, fmt.Errorf("%w: line %d: %v", ErrNotGitAI, i+1, err)
			}
			cur.Entries = append(cur.Entries, Entry{Key: key, Ranges: rs})
		default:
			p := l
			if len(p) >= 2 && strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) {
				p = p[1 : len(p)-1]
			}
			n.Files = append(n.Files, File{Path: p})
			cur = &n.Files[len(n.Files)-1]
		}
	}
	files := n.Files[:0]
	for _, f := range n.Files {
		if len(f.Entries) > 0 {
			files = append(files, f)
		}
	}
	n.Files = files
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.Join(lines[div+1:], "\n"))))
	if err := dec.Decode(&n.Meta); err != nil {
		return n, fmt.Errorf("%w: its metadata: %v", ErrNotGitAI, err)
	}
	if n.Meta.SchemaVersion != Schema && n.Meta.SchemaVersion != Schema31 {
		return n, fmt.Errorf("%w: schema %q", ErrNotGitAI, n.Meta.SchemaVersion)
	}
	if n.Meta.Prompts == nil && n.Meta.Sessions == nil {
		return n, fmt.Errorf("%w: no prompts", ErrNotGitAI)
	}
	return n, nil
}

func parseRanges(spec string) ([]Range, error) {
	var rs []Range
	for _, part := range strings.Split(spec, ",") {
		if part == "" {
			continue
		}
		a, b, isRange := strings.Cut(part, "-")
		from, err := strconv.Atoi(a)
		if err != nil {
			return nil, fmt.Errorf("lines %q", part)
		}
		to := from
		if isRange {
			if to, err = strconv.Atoi(b); err != nil {
				return nil, fmt.Errorf("lines %q", part)
			}
		}
		if from < 1 || to < from {
			return nil, fmt.Errorf("lines %q", part)
		}
		rs = append(rs, Range{from, to})
	}
	return rs, nil
}

// Ours says whether this plugin wrote (some of) the note.
func (n Note) Ours() bool {
	for _, s := range n.Meta.Sessions {
		if s.CustomAttributes[AttrWriter] == WriterValue {
			return true
		}
	}
	for _, p := range n.Meta.Prompts {
		if p.CustomAttributes[AttrWriter] == WriterValue {
			return true
		}
	}
	return false
}

// Agent is who key names, when an agent: "s_…::t_…" through its session
// record (the prompt's number and text from the custom attributes this
// plugin writes), a bare key through its legacy prompt record. A human's
// key, or one the metadata lacks, is not.
func (n Note) Agent(key string) (Agent, bool) {
	if strings.HasPrefix(key, "h_") || key == "" {
		return Agent{}, false
	}
	if strings.HasPrefix(key, "s_") {
		sk, trace, _ := strings.Cut(key, "::")
		s, ok := n.Meta.Sessions[sk]
		if !ok {
			return Agent{}, false
		}
		turn, _ := strconv.Atoi(s.CustomAttributes[AttrTurn+"."+trace])
		return Agent{Tool: s.AgentID.Tool, SessionID: s.AgentID.ID, Model: s.AgentID.Model, Name: s.CustomAttributes[AttrName],
			Turn: turn, Prompt: s.CustomAttributes[AttrPrompt+"."+trace]}, true
	}
	p, ok := n.Meta.Prompts[key]
	if !ok {
		return Agent{}, false
	}
	turn, _ := strconv.Atoi(p.CustomAttributes[AttrTurn])
	return Agent{Tool: p.AgentID.Tool, SessionID: p.AgentID.ID, Model: p.AgentID.Model, Name: p.CustomAttributes[AttrName],
		Turn: turn, Prompt: p.CustomAttributes[AttrPrompt]}, true
}

// Counts is how many lines the note attests to agents and to humans.
func (n Note) Counts() (ai, human int) {
	for _, f := range n.Files {
		for _, e := range f.Entries {
			lines := 0
			for _, r := range e.Ranges {
				lines += r.To - r.From + 1
			}
			if strings.HasPrefix(e.Key, "h_") {
				human += lines
			} else {
				ai += lines
			}
		}
	}
	return ai, human
}

// Names says whether the note attests lines of path.
func (n Note) Names(path string) bool {
	for _, f := range n.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}

// Who is the key that attests line of path ("" when none does).
func (n Note) Who(path string, line int) string {
	for _, f := range n.Files {
		if f.Path != path {
			continue
		}
		for _, e := range f.Entries {
			for _, r := range e.Ranges {
				if line >= r.From && line <= r.To {
					return e.Key
				}
			}
		}
	}
	return ""
}
