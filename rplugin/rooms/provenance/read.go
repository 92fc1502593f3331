package provenance

import (
	"bufio"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
)

// Committed is who wrote each line of text (path's content, unsaved edits
// and all) as the authorship notes say: git blame names the commit of
// each line and its number there, the commit's note says whether Claude
// wrote it. Index i is line i (1-based); nil when the file is not in a
// repository or no note names its lines.
func (r *Room) Committed(path, text string) []review.Author {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	top := r.topOf(ctx, filepath.Dir(path))
	if top == "" {
		return nil
	}
	if _, err := gitcmd.Run(ctx, top, "rev-parse", "-q", "--verify", gitai.Ref); err != nil {
		return nil // no note here
	}
	rel, err := filepath.Rel(top, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil
	}
	out, err := gitcmd.Bytes(ctx, top, strings.NewReader(text), "blame", "--porcelain", "--contents", "-", "--", filepath.ToSlash(rel))
	if err != nil {
		return nil // not tracked, no commit yet
	}
	lines := parsePorcelain(string(out))
	authors := make([]review.Author, len(lines)+1)
	found := false
	for i, bl := range lines {
		if strings.Trim(bl.sha, "0") == "" {
			continue // not committed yet
		}
		n := r.noteOf(ctx, top, bl.sha)
		if n == nil {
			continue
		}
		key := n.Who(bl.file, bl.orig)
		if key == "" {
			continue
		}
		authors[i+1] = authorOf(n, key, bl.sha)
		found = true
	}
	if !found {
		return nil
	}
	return authors
}

// authorOf is the author the note's key names.
func authorOf(n *gitai.Note, key, sha string) review.Author {
	if strings.HasPrefix(key, "h_") {
		return review.Author{Kind: review.Amended, Commit: sha}
	}
	p, ok := n.Meta.Prompts[key]
	if !ok {
		return review.Author{Kind: review.Claude, Commit: sha}
	}
	turn, _ := strconv.Atoi(p.CustomAttributes[gitai.AttrTurn])
	return review.Author{Kind: review.Claude, Commit: sha, ClaudeID: p.AgentID.ID, Model: p.AgentID.Model,
		Name: p.CustomAttributes[gitai.AttrName], Turn: turn, Prompt: p.CustomAttributes[gitai.AttrPrompt]}
}

// noteOf is commit sha's note, parsed (nil: none, or not the standard's).
func (r *Room) noteOf(ctx context.Context, top, sha string) *gitai.Note {
	r.mu.Lock()
	n, ok := r.notes[sha]
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
	r.notes[sha] = n
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
