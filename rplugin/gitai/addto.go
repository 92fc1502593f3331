package gitai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ErrNothingToAdd is AddTo's answer when every line of ours is attested
// by the note already.
var ErrNothingToAdd = errors.New("the note attests every line already")

// AddTo adds note ours to another tool's note of the same commit, the way
// the standard lets several agents share a commit's note: their text is
// kept as it is, line for line, our entry lines go under the file they
// attest (a new file block after theirs), and our sessions, prompts and
// humans join theirs in the metadata, whose other fields are kept as they were. Lines
// their note attests stay theirs: ours are left out there. A note that is
// not the standard's, is about another commit, or shares one of our keys is
// an error, and is to be left alone.
func AddTo(theirs string, ours Note) (string, error) {
	n, err := Parse(theirs)
	if err != nil {
		return "", err
	}
	if n.Meta.BaseCommitSHA != ours.Meta.BaseCommitSHA {
		return "", fmt.Errorf("the note is about commit %q, not %q", n.Meta.BaseCommitSHA, ours.Meta.BaseCommitSHA)
	}
	for k := range ours.Meta.Prompts {
		if _, ok := n.Meta.Prompts[k]; ok {
			return "", fmt.Errorf("the note has our prompt %s already", k)
		}
	}
	for k := range ours.Meta.Sessions {
		if _, ok := n.Meta.Sessions[k]; ok {
			return "", fmt.Errorf("the note has our session %s already", k)
		}
	}
	// Our entries, less the lines their note attests.
	var add []File
	for _, f := range ours.Files {
		if !Writable(f.Path) {
			return "", fmt.Errorf("the path %q cannot be written in a note", f.Path)
		}
		nf := File{Path: f.Path}
		for _, e := range f.Entries {
			var keep []int
			for _, r := range Compress(e.Ranges) {
				for l := r.From; l <= r.To; l++ {
					if n.Who(f.Path, l) == "" {
						keep = append(keep, l)
					}
				}
			}
			if len(keep) > 0 {
				nf.Entries = append(nf.Entries, Entry{Key: e.Key, Ranges: RangesOf(keep)})
			}
		}
		if len(nf.Entries) > 0 {
			add = append(add, nf)
		}
	}
	if len(add) == 0 {
		return "", ErrNothingToAdd
	}
	head, meta, err := splitNote(theirs)
	if err != nil {
		return "", err
	}
	// The attestations: theirs as written, ours under their file's block
	// (after its last entry), or in a block of their own at the end.
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	if head == "" {
		lines = nil
	}
	for _, f := range add {
		var entries []string
		for _, e := range f.Entries {
			if e.Key == "" || strings.ContainsAny(e.Key, " \t\n") {
				return "", fmt.Errorf("the key %q cannot be written in a note", e.Key)
			}
			entries = append(entries, "  "+e.Key+" "+formatRanges(e.Ranges))
		}
		at := -1
		for i, l := range lines {
			if !strings.HasPrefix(l, "  ") && l != "" && unquote(strings.TrimRight(l, "\r")) == f.Path {
				at = i + 1
				for at < len(lines) && strings.HasPrefix(lines[at], "  ") {
					at++
				}
				break
			}
		}
		if at < 0 {
			path := f.Path
			if needsQuotes(path) {
				path = `"` + path + `"`
			}
			lines = append(lines, path)
			lines = append(lines, entries...)
			continue
		}
		lines = append(lines[:at], append(entries, lines[at:]...)...)
	}
	// The metadata: their fields as they were, our prompts and humans added.
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(meta), &top); err != nil {
		return "", fmt.Errorf("%w: its metadata: %v", ErrNotGitAI, err)
	}
	for _, part := range []struct {
		field string
		add   func(map[string]json.RawMessage) error
	}{
		{"prompts", func(m map[string]json.RawMessage) error { return addAll(m, ours.Meta.Prompts, false) }},
		{"sessions", func(m map[string]json.RawMessage) error { return addAll(m, ours.Meta.Sessions, false) }},
		// A human's key is the person's: theirs may name the same one.
		{"humans", func(m map[string]json.RawMessage) error { return addAll(m, ours.Meta.Humans, true) }},
	} {
		m := map[string]json.RawMessage{}
		if raw, ok := top[part.field]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &m); err != nil {
				return "", fmt.Errorf("%w: its %s: %v", ErrNotGitAI, part.field, err)
			}
		}
		if err := part.add(m); err != nil {
			return "", err
		}
		if len(m) == 0 {
			continue
		}
		b, err := marshal(m)
		if err != nil {
			return "", err
		}
		top[part.field] = b
	}
	js, err := marshal(top)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("---\n")
	b.Write(js)
	b.WriteByte('\n')
	return b.String(), nil
}

// addAll puts each of ours into m by its key (keys in order); a key m has
// already is kept as it is when shared, else an error.
func addAll[T any](m map[string]json.RawMessage, ours map[string]T, shared bool) error {
	keys := make([]string, 0, len(ours))
	for k := range ours {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := m[k]; ok {
			if shared {
				continue
			}
			return fmt.Errorf("the note has the key %s already", k)
		}
		b, err := marshal(ours[k])
		if err != nil {
			return err
		}
		m[k] = b
	}
	return nil
}

func marshal(v any) (json.RawMessage, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("write the note's metadata: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(js.Bytes()), "", "  "); err != nil {
		return nil, fmt.Errorf("write the note's metadata: %w", err)
	}
	return out.Bytes(), nil
}

// splitNote cuts a note at its first --- line.
func splitNote(text string) (head, meta string, err error) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.TrimRight(l, "\r") == "---" {
			return strings.Join(lines[:i], "\n"), strings.Join(lines[i+1:], "\n"), nil
		}
	}
	return "", "", fmt.Errorf("%w: no --- line", ErrNotGitAI)
}

// unquote is a path line's path.
func unquote(p string) string {
	if len(p) >= 2 && strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) {
		return p[1 : len(p)-1]
	}
	return p
}

// Rebased is the note text with base_commit_sha set to sha, every other
// byte kept as written: a note git copied to the commit an amend or a
// rebase made (notes.rewriteRef) names the commit it was written for until
// then.
func Rebased(text, sha string) (string, error) {
	head, meta, err := splitNote(text)
	if err != nil {
		return "", err
	}
	loc := baseField.FindStringSubmatchIndex(meta)
	if loc == nil {
		return "", fmt.Errorf("%w: no base_commit_sha", ErrNotGitAI)
	}
	b, err := json.Marshal(sha)
	if err != nil {
		return "", err
	}
	meta = meta[:loc[2]] + string(b) + meta[loc[3]:]
	if head != "" {
		head += "\n"
	}
	return head + "---\n" + meta, nil
}

// baseField is the metadata's base_commit_sha and its value (group 1).
var baseField = regexp.MustCompile(`"base_commit_sha"\s*:\s*("(?:[^"\\]|\\.)*")`)
