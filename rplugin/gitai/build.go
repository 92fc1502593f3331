package gitai

import (
	"sort"
	"strconv"
)

// Agent is the prompt of an agent session that wrote a line.
type Agent struct {
	Tool      string // agent_id.tool (Build: "claude")
	SessionID string // claude's session id
	Model     string
	Name      string // the session's name in the editor
	Turn      int    // the prompt's number in the session (0: a turn claude began)
	Prompt    string // the prompt's text
}

// Line is a line of a file in a commit that Claude wrote: as written, or
// amended by the user in the proposal before it was applied.
type Line struct {
	N       int // its number in the file in the commit
	Agent   Agent
	Amended bool
}

// PromptMode is what a note says of a prompt (option provenance.prompts).
type PromptMode string

const (
	// PromptsRef (the default) names a prompt by reference only: the
	// session's id and the prompt's number in it. Its text stays on this
	// machine (prompts can hold secrets; notes are pushed).
	PromptsRef PromptMode = "ref"
	// PromptsText puts each prompt's text (cut) in the note too.
	PromptsText PromptMode = "text"
)

// Options are how Build writes a note.
type Options struct {
	Prompts PromptMode // "" is PromptsRef
	Version string     // the plugin's version, for git_ai_version
}

// Build is the note of commit sha, by author ("Name <email>": who amended
// lines), for the lines Claude wrote per file (the file's path in the
// commit, relative to the repository). ok is false when no line is
// Claude's: such a commit gets no note. Claude's lines are under session
// keys (s_…::t_…, a trace per prompt), the amended ones under the
// author's human key (h_…).
func Build(sha, author string, files map[string][]Line, o Options) (n Note, ok bool) {
	version := WriterValue
	if o.Version != "" {
		version += " " + o.Version
	}
	n.Meta = Meta{SchemaVersion: Schema, GitAIVersion: version, BaseCommitSHA: sha, Prompts: map[string]Prompt{}}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	human := HumanKey(author)
	for _, p := range paths {
		byKey := map[string][]int{}
		var keys []string
		for _, l := range files[p] {
			if l.N < 1 {
				continue
			}
			id := l.Agent.SessionID
			if id == "" {
				id = "unknown"
			}
			sk, trace := SessionKey(id), TraceKey(id, l.Agent.Turn)
			if n.Meta.Sessions == nil {
				n.Meta.Sessions = map[string]Session{}
			}
			rec, seen := n.Meta.Sessions[sk]
			if !seen {
				rec = sessionOf(id, l.Agent, author)
			}
			rec.CustomAttributes[AttrTurn+"."+trace] = strconv.Itoa(l.Agent.Turn)
			if o.Prompts == PromptsText && l.Agent.Prompt != "" {
				rec.CustomAttributes[AttrPrompt+"."+trace] = l.Agent.Prompt
			}
			n.Meta.Sessions[sk] = rec
			key := sk + "::" + trace
			if l.Amended {
				key = human
			}
			if _, ok := byKey[key]; !ok {
				keys = append(keys, key)
			}
			byKey[key] = append(byKey[key], l.N)
		}
		if len(keys) == 0 {
			continue
		}
		// Claude's entries first, then the user's (as the standard's
		// examples have them).
		sort.Slice(keys, func(i, j int) bool {
			if hi, hj := keys[i] == human, keys[j] == human; hi != hj {
				return hj
			}
			return keys[i] < keys[j]
		})
		f := File{Path: p}
		for _, k := range keys {
			f.Entries = append(f.Entries, Entry{Key: k, Ranges: RangesOf(byKey[k])})
			if k == human {
				if n.Meta.Humans == nil {
					n.Meta.Humans = map[string]Human{}
				}
				n.Meta.Humans[human] = Human{Author: author}
			}
		}
		n.Files = append(n.Files, f)
	}
	return n, len(n.Files) > 0
}

func sessionOf(id string, a Agent, author string) Session {
	attrs := map[string]string{AttrWriter: WriterValue}
	if a.Name != "" {
		attrs[AttrName] = a.Name
	}
	// human_author: who worked with Claude, as far as the commit says.
	return Session{AgentID: AgentID{Tool: Tool, ID: id, Model: a.Model}, HumanAuthor: author, CustomAttributes: attrs}
}
