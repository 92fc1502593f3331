// Package fileindex keeps, per folder, the list of its files for @-completion
// in the prompt input, and ranks them against what the user typed with a
// fuzzy match. The list is git's (tracked and untracked files, .gitignore
// respected) in a git work tree, else a walk of the folder; it is built off
// the editor's loop, any size, and refreshed when it is older than a few
// seconds (the old list answers meanwhile).
package fileindex

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// MaxAge is how old a list may be before a query rebuilds it (in the
// background: the old list answers that query).
const MaxAge = 10 * time.Second

// skipDirs are never walked (a folder that is not a git work tree).
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

// List is one folder's files, relative, sorted as git or the walk gave them.
type List struct {
	Root  string
	Files []string
	Git   bool // from git ls-files
	Built time.Time
}

// Lister builds a folder's list (Build; tests swap in their own).
type Lister func(ctx context.Context, root string) (List, error)

// Indexes holds the list of every folder asked about. Safe for concurrent
// use.
type Indexes struct {
	build Lister
	now   func() time.Time

	mu      sync.Mutex
	lists   map[string]*entry
	queries map[string]*lastQuery // per root: the last query and its candidates
}

type entry struct {
	list     *List
	building chan struct{} // closed when the build under way ends
	err      error
}

type lastQuery struct {
	list  *List
	query string
	cands []int // indices into list.Files that matched query
}

// New returns empty indexes that build lists with b (nil: Build).
func New(b Lister) *Indexes {
	if b == nil {
		b = Build
	}
	return &Indexes{build: b, now: time.Now, lists: map[string]*entry{}, queries: map[string]*lastQuery{}}
}

// Build lists root's files: git's list in a git work tree, else a walk.
func Build(ctx context.Context, root string) (List, error) {
	l := List{Root: root, Built: time.Now()}
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err == nil {
		l.Git = true
		seen := map[string]bool{}
		sc := bufio.NewScanner(&out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sc.Split(splitNUL)
		for sc.Scan() {
			if f := sc.Text(); f != "" && !seen[f] {
				seen[f] = true // a file with a merge conflict is listed once per stage
				l.Files = append(l.Files, f)
			}
		}
		return l, nil
	} else if ctx.Err() != nil {
		return l, ctx.Err()
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable folder: skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(root, p); err == nil {
			l.Files = append(l.Files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(l.Files)
	return l, err
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// list returns root's list, building it when there is none (waiting for
// that, bounded by ctx) or rebuilding it in the background when it is old.
func (x *Indexes) list(ctx context.Context, root string) (*List, error) {
	x.mu.Lock()
	e, ok := x.lists[root]
	if !ok {
		e = &entry{}
		x.lists[root] = e
	}
	if e.building == nil && (e.list == nil || x.now().Sub(e.list.Built) > MaxAge) {
		x.startBuild(root, e)
	}
	l, building := e.list, e.building
	x.mu.Unlock()
	if l != nil {
		return l, nil
	}
	select {
	case <-building:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if e.list != nil {
		return e.list, nil
	}
	if e.err != nil {
		return nil, e.err
	}
	return nil, errors.New("the file list could not be built")
}

// startBuild builds root's list on a goroutine of its own. Callers hold mu.
func (x *Indexes) startBuild(root string, e *entry) {
	done := make(chan struct{})
	e.building = done
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		l, err := x.build(ctx, root)
		x.mu.Lock()
		if err == nil || len(l.Files) > 0 {
			l.Built = x.now()
			e.list, e.err = &l, nil
		} else {
			e.err = err
		}
		e.building = nil
		x.mu.Unlock()
		close(done)
	}()
}

// Created puts a file just written (an absolute path) into every list of a
// folder that holds it, at once, and makes the next query of those folders
// rebuild their list in the background (a file the rebuild does not list,
// an ignored one, leaves the list then).
func (x *Indexes) Created(path string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for root, e := range x.lists {
		rel, err := filepath.Rel(root, path)
		if e.list == nil || err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		l := *e.list
		l.Built = time.Time{}
		if !slices.Contains(l.Files, rel) {
			l.Files = append(slices.Clip(l.Files), rel)
		}
		e.list = &l
	}
}

// Result is what a query found.
type Result struct {
	Files []string `json:"files"` // best first
	Total int      `json:"total"` // files that matched
	Of    int      `json:"of"`    // files in the list
}

// Query ranks root's files against query (fuzzy: its characters in order,
// case-insensitive; see Score) and returns the best limit of them. An
// empty query lists the first files.
func (x *Indexes) Query(ctx context.Context, root, query string, limit int) (Result, error) {
	l, err := x.list(ctx, root)
	if err != nil {
		return Result{}, err
	}
	res := Result{Of: len(l.Files)}
	if query == "" {
		res.Total = len(l.Files)
		res.Files = append([]string(nil), l.Files[:min(limit, len(l.Files))]...)
		return res, nil
	}
	q := strings.ToLower(query)
	// A longer query than the last one of the same list only narrows it:
	// look at the files that matched before.
	x.mu.Lock()
	last := x.queries[root]
	x.mu.Unlock()
	var from []int
	if last != nil && last.list == l && strings.HasPrefix(q, last.query) {
		from = last.cands
	}
	var cands []int
	top := newTop(limit)
	visit := func(i int) {
		s, ok := Score(q, l.Files[i])
		if !ok {
			return
		}
		cands = append(cands, i)
		top.add(i, s, l.Files[i])
	}
	if from != nil {
		for _, i := range from {
			visit(i)
		}
	} else {
		for i := range l.Files {
			if i&4095 == 0 && ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			visit(i)
		}
	}
	x.mu.Lock()
	x.queries[root] = &lastQuery{list: l, query: q, cands: cands}
	x.mu.Unlock()
	res.Total = len(cands)
	for _, c := range top.sorted() {
		res.Files = append(res.Files, l.Files[c.i])
	}
	return res, nil
}
