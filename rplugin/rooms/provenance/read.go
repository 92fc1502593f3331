package provenance

import (
	"bufio"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
)

// Committed is who wrote each line of text (path's content, unsaved edits
// and all) as the authorship notes say: git blame of HEAD names the commit
// of each line and its number there, the commit's note says whether Claude
// wrote it (a line of a commit whose note is ours and does not name it:
// Kind You, with the commit); lines of text that differ from HEAD's, or
// whose commit has no note, are nobody's here (the live record knows them). Index i is line i (1-based); nil when the file
// is not in a repository or no note names its lines. HEAD's answer is kept
// until HEAD or the notes move: an edit costs a diff, not a git blame.
func (r *Room) Committed(path, text string) []review.Author {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	top := r.topOf(ctx, filepath.Dir(path))
	if top == "" {
		return nil
	}
	notes, err := gitcmd.Run(ctx, top, "rev-parse", "-q", "--verify", gitai.Ref)
	if err != nil {
		return nil // no note here
	}
	head, err := gitcmd.Run(ctx, top, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(top, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil
	}
	key := head + " " + notes
	r.mu.Lock()
	c, ok := r.blamed[path]
	r.mu.Unlock()
	if !ok || c.key != key {
		c = r.blameHead(ctx, top, filepath.ToSlash(rel), notes)
		c.key = key
		r.mu.Lock()
		r.blamed[path] = c
		r.mu.Unlock()
	}
	if len(c.authors) == 0 {
		return nil
	}
	idx := c.idx
	if text != c.content {
		idx, _ = review.Carry(diff.SplitLines(c.content), diff.SplitLines(text), c.idx)
	}
	out := make([]review.Author, len(idx)+1)
	for i, k := range idx {
		if k > 0 {
			out[i+1] = c.authors[k-1]
		}
	}
	return out
}

// headBlame is who wrote each line of a file at HEAD, from the notes: idx
// has, per line of content, 0 (no note names it) or 1 + an index into
// authors.
type headBlame struct {
	key     string // HEAD and the notes ref it was read at
	content string
	idx     []int
	authors []review.Author
}

func (r *Room) blameHead(ctx context.Context, top, rel, notes string) headBlame {
	var c headBlame
	content, err := gitcmd.Bytes(ctx, top, nil, "cat-file", "blob", "HEAD:"+rel)
	if err != nil {
		return c // not in HEAD
	}
	out, err := gitcmd.Bytes(ctx, top, nil, "blame", "--porcelain", "HEAD", "--", rel)
	if err != nil {
		return c
	}
	c.content = string(content)
	lines := parsePorcelain(string(out))
	c.idx = make([]int, len(diff.SplitLines(c.content)))
	known := map[review.Author]int{}
	put := func(i int, au review.Author) {
		j, ok := known[au]
		if !ok {
			c.authors = append(c.authors, au)
			j = len(c.authors)
			known[au] = j
		}
		c.idx[i] = j
	}
	// A note of ours names every line of its commit Claude wrote: a line
	// it does not name is yours. Once a note of ours covers the file, a
	// line of a commit with no note is yours too: blame says what a fresh
	// clone's says, whatever the live record believed.
	covered := false
	var unnoted []int
	for i, bl := range lines {
		if i >= len(c.idx) {
			break
		}
		n := r.noteOf(ctx, top, bl.sha, notes)
		k := ""
		if n != nil {
			k = n.Who(bl.file, bl.orig)
		}
		switch {
		case k != "":
			put(i, authorOf(n, k, bl.sha))
			covered = covered || n.Ours()
		case n != nil && n.Ours():
			put(i, review.Author{Kind: review.You, Commit: bl.sha})
			covered = covered || n.Names(bl.file)
		default:
			unnoted = append(unnoted, i) // no note, or another tool's that says nothing of it
		}
	}
	if covered {
		for _, i := range unnoted {
			put(i, review.Author{Kind: review.You, Commit: lines[i].sha})
		}
	}
	return c
}

// authorOf is the author the note's key names.
func authorOf(n *gitai.Note, key, sha string) review.Author {
	if strings.HasPrefix(key, "h_") {
		return review.Author{Kind: review.Amended, Commit: sha}
	}
	a, ok := n.Agent(key)
	if !ok {
		return review.Author{Kind: review.Claude, Commit: sha}
	}
	return review.Author{Kind: review.Claude, Commit: sha, ClaudeID: a.SessionID, Model: a.Model,
		Name: a.Name, Turn: a.Turn, Prompt: a.Prompt}
}

// noteOf is commit sha's note, parsed (nil: none, or not the standard's),
// as the notes ref was at commit notes.
func (r *Room) noteOf(ctx context.Context, top, sha, notes string) *gitai.Note {
	key := notes + ":" + sha
	r.mu.Lock()
	n, ok := r.notes[key]
	r.mu.Unlock()
	if ok {
		return n
	}
	text, found, err := gitai.Show(ctx, top, sha)
	if err != nil {
		return nil // not kept: asked again next time
	}
	if found {
		if parsed, perr := gitai.Parse(text); perr == nil {
			n = &parsed
		}
	}
	r.mu.Lock()
	if len(r.notes) > 4096 {
		clear(r.notes) // a bound; the notes are read again
	}
	r.notes[key] = n
	r.mu.Unlock()
	return n
}

// blamed is one line of git blame: its commit, its number and its file's
// path there.
type blamed struct {
	sha  string
	orig int
	file string
}

// parsePorcelain reads git blame --porcelain: per line a header "<sha>
// <orig> <final> [<count>]", the commit's details the first time it
// appears (filename among them), then the line's text after a tab.
func parsePorcelain(out string) []blamed {
	var lines []blamed
	files := map[string]string{}
	var cur blamed
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	header := true
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "\t"):
			if cur.file == "" {
				cur.file = files[cur.sha]
			}
			lines = append(lines, cur)
			header = true
		case header:
			f := strings.Fields(l)
			if len(f) >= 3 && len(f[0]) >= 40 {
				orig, _ := strconv.Atoi(f[1])
				cur = blamed{sha: f[0], orig: orig}
				header = false
			}
		case strings.HasPrefix(l, "filename "):
			cur.file = strings.TrimPrefix(l, "filename ")
			if uq, err := strconv.Unquote(cur.file); err == nil && strings.HasPrefix(cur.file, `"`) {
				cur.file = uq // git quotes a path with unusual characters
			}
			files[cur.sha] = cur.file
		}
	}
	return lines
}
