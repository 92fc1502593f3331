package gitai

import (
	"sort"
	"strconv"
)

// Agent is the prompt of a Claude session that wrote a line.
type Agent struct {
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

// Build is the note of commit sha, by author ("Name <email>": who amended
// lines), for the lines Claude wrote per file (the file's path in the
// commit, relative to the repository). ok is false when no line is
// Claude's: such a commit gets no note.
func Build(sha, author string, files map[string][]Line) (n Note, ok bool) {
	n.Meta = Meta{SchemaVersion: Schema, BaseCommitSHA: sha, Prompts: map[string]Prompt{}}
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
			pk := PromptKey(l.Agent.SessionID, l.Agent.Turn)
			rec, seen := n.Meta.Prompts[pk]
			if !seen {
				rec = promptOf(l.Agent, author)
			}
			rec.TotalAdditions++
			key := pk
			if l.Amended {
				rec.OverridenLines++
				key = human
			} else {
				rec.AcceptedLines++
			}
			n.Meta.Prompts[pk] = rec
			if _, ok := byKey[key]; !ok {
				keys = append(keys, key)
			}
			byKey[key] = append(byKey[key], l.N)
		}
		if len(keys) == 0 {
			continue
		}
		sort.Strings(keys)
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

func promptOf(a Agent, author string) Prompt {
	id := a.SessionID
	if id == "" {
		id = "unknown"
	}
	attrs := map[string]string{AttrWriter: WriterValue, AttrTurn: strconv.Itoa(a.Turn)}
	if a.Prompt != "" {
		attrs[AttrPrompt] = a.Prompt
	}
	if a.Name != "" {
		attrs[AttrName] = a.Name
	}
	var human *string
	if author != "" {
		human = &author // who worked with Claude, as far as the commit says
	}
	return Prompt{AgentID: AgentID{Tool: "claude", ID: id, Model: a.Model}, HumanAuthor: human, CustomAttributes: attrs}
}
