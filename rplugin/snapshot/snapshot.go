// Package snapshot records a folder's files just before a command runs and
// just after, so that what the command changed is known as a Write's change
// is: which files, their content before, lines added and removed.
//
// In a git repository it uses git's own machinery: every file (untracked
// ones too, .gitignore honoured) is in an index of the caller's own,
// written as a tree; the user's index, refs and stash are never touched.
// The index is kept between snapshots: one walk (git status) finds what
// changed since the last one and the ignored files together, and only
// what changed is hashed and added. Ignored files are listed (bounded):
// one a command created or deleted is named, its content not kept.
// Outside git, a bounded walk notes each file's size, time and mode: a
// change is named, its content before is not known.
package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
)

// Limits bound a snapshot's work.
type Limits struct {
	Ignored  int   // ignored entries listed (more: Partial)
	Walk     int   // files walked outside git (more: Partial)
	FileSize int64 // a file's content before is kept up to this size
	Budget   int64 // contents before kept, over one comparison
}

// Default limits.
var Default = Limits{Ignored: 2000, Walk: 20000, FileSize: 8 << 20, Budget: 64 << 20}

// Snap is a folder at one moment.
type Snap struct {
	Dir     string // the folder asked for
	Top     string // the repository's top ("" outside git)
	Tree    string // the tree git wrote of every file not ignored
	Ignored map[string]bool
	Walked  map[string]stamp // outside git: rel -> what the walk saw
	Partial bool             // a bound was reached: what is past it is not compared
	// Began and Ended are when the snapshot was read: a file written
	// meanwhile may be in it as it was before or after (MarkUnsure).
	Began, Ended time.Time
}

type stamp struct {
	size  int64
	mtime int64
	mode  fs.FileMode
}

// Take snapshots dir. index is the snapshot index of the caller (one per
// session): created from the repository's own index the first time.
func Take(ctx context.Context, dir, index string, lim Limits) (Snap, error) {
	began := time.Now()
	s, err := take(ctx, dir, index, lim)
	s.Began, s.Ended = began, time.Now()
	return s, err
}

func take(ctx context.Context, dir, index string, lim Limits) (Snap, error) {
	top, err := gitcmd.Run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil || top == "" {
		if ctx.Err() != nil {
			return Snap{}, ctx.Err()
		}
		return walk(dir, lim)
	}
	s := Snap{Dir: dir, Top: top}
	if err := seed(ctx, top, index); err != nil {
		return Snap{}, err
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	// One walk of the folder: what differs from the snapshot index (changed,
	// deleted, untracked) and what is ignored, together.
	out, err := gitcmd.BytesEnv(ctx, top, env, nil, "status", "--porcelain=v2", "-z", "--ignored=matching", "--untracked-files=all", "--no-renames")
	if err != nil {
		return Snap{}, fmt.Errorf("snapshot %s: %w", top, err)
	}
	changed, ignored := statusOf(out)
	if len(changed) > 0 {
		// Only those go into the index (--ignore-errors: a file that cannot
		// be read is left out, named by git; anything else is a failure).
		paths := strings.NewReader(strings.Join(changed, "\x00"))
		if _, err := gitcmd.BytesEnv(ctx, top, append(env, "GIT_LITERAL_PATHSPECS=1"), paths,
			"add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			if _, werr := gitcmd.BytesEnv(ctx, top, env, nil, "write-tree"); werr != nil {
				return Snap{}, fmt.Errorf("snapshot %s: %w", top, err)
			}
		}
	}
	tree, err := gitcmd.BytesEnv(ctx, top, env, nil, "write-tree")
	if err != nil {
		return Snap{}, fmt.Errorf("snapshot %s: %w", top, err)
	}
	s.Tree = strings.TrimSpace(string(tree))
	s.Ignored = map[string]bool{}
	for _, rel := range ignored {
		if len(s.Ignored) >= lim.Ignored {
			s.Partial = true
			break
		}
		s.Ignored[rel] = true
	}
	return s, nil
}

// statusOf reads git status --porcelain=v2 -z: the paths whose worktree
// differs from the index (changed, deleted, unmerged, untracked) and the
// ignored ones (a folder ends in /).
func statusOf(raw []byte) (changed, ignored []string) {
	recs := strings.Split(string(raw), "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 2 {
			continue
		}
		switch r[0] {
		case '?':
			changed = append(changed, r[2:])
		case '!':
			ignored = append(ignored, r[2:])
		case '1', '2', 'u':
			// "1 XY sub mH mI mW hH hI path", "2 … X<score> path" then the
			// original path, "u XY sub m1 m2 m3 mW h1 h2 h3 path".
			fields := 8
			switch r[0] {
			case '2':
				fields = 9
			case 'u':
				fields = 10
			}
			parts := strings.SplitN(r, " ", fields+1)
			if len(parts) == fields+1 && len(parts[1]) == 2 && (parts[1][1] != '.' || r[0] == 'u') {
				changed = append(changed, parts[fields])
			}
			if r[0] == '2' {
				i++ // the original path
			}
		}
	}
	return changed, ignored
}

// seed makes the snapshot index a copy of the repository's own the first
// time (its stat cache spares git hashing every file again).
func seed(ctx context.Context, top, index string) error {
	if _, err := os.Stat(index); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(index), 0o700); err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	own, err := gitcmd.Run(ctx, top, "rev-parse", "--git-path", "index")
	if err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	if !filepath.IsAbs(own) {
		own = filepath.Join(top, own)
	}
	b, err := os.ReadFile(own)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no commit, nothing added: git starts the index
	}
	if err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	tmp := index + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	return os.Rename(tmp, index)
}

func walk(dir string, lim Limits) (Snap, error) {
	s := Snap{Dir: dir, Walked: map[string]stamp{}}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: not compared
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if len(s.Walked) >= lim.Walk {
			s.Partial = true
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		s.Walked[filepath.ToSlash(rel)] = stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
		return nil
	})
	if err != nil {
		return Snap{}, fmt.Errorf("snapshot %s: %w", dir, err)
	}
	return s, nil
}

// Status says what happened to a file.
type Status byte

// The statuses of a change.
const (
	Created Status = 'A'
	Changed Status = 'M'
	Deleted Status = 'D'
)

// Change is one file a command changed.
type Change struct {
	Rel    string // as the repository (or the folder) names it, with /
	Path   string // absolute
	Status Status
	// Before is the content before the command (nil: the file did not
	// exist, or it is not known: see Unknown).
	Before *string
	// Unknown says the content before is not kept: outside git, an
	// ignored file, or past the size or budget limits. It is named, not
	// restorable.
	Unknown bool
	Ignored bool // an ignored file (or folder, ending in /)
	Binary  bool
	Mode    fs.FileMode // permission bits before (a file that existed, in git)
	Added   int         // lines
	Removed int
	// Unsure: the file was written while a snapshot was read, so whether
	// the command made this change is not known (MarkUnsure).
	Unsure bool
}

// Compare lists what changed from before to after (the same folder).
func Compare(ctx context.Context, before, after Snap, lim Limits) ([]Change, error) {
	if before.Top != after.Top {
		return nil, fmt.Errorf("snapshots of two folders (%s, %s)", before.Top, after.Top)
	}
	if before.Top == "" {
		return compareWalks(before, after, lim), nil
	}
	var out []Change
	if before.Tree != after.Tree {
		raw, err := gitcmd.Bytes(ctx, before.Top, nil, "diff-tree", "-r", "-z", "--no-renames", "--numstat", before.Tree, after.Tree)
		if err != nil {
			return nil, fmt.Errorf("compare snapshots: %w", err)
		}
		counts := numstat(raw)
		raw, err = gitcmd.Bytes(ctx, before.Top, nil, "diff-tree", "-r", "-z", "--no-renames", before.Tree, after.Tree)
		if err != nil {
			return nil, fmt.Errorf("compare snapshots: %w", err)
		}
		out, err = changes(ctx, before, raw, counts, lim)
		if err != nil {
			return nil, err
		}
	}
	out = append(out, ignoredChanges(before, after)...)
	return out, nil
}

type count struct {
	added, removed int
	binary         bool
}

// numstat reads diff-tree -z --numstat: "added\tremoved\tpath\0".
func numstat(raw []byte) map[string]count {
	m := map[string]count{}
	for _, rec := range bytes.Split(raw, []byte{0}) {
		f := strings.SplitN(string(rec), "\t", 3)
		if len(f) != 3 {
			continue
		}
		a, aerr := strconv.Atoi(f[0])
		r, rerr := strconv.Atoi(f[1])
		m[f[2]] = count{added: a, removed: r, binary: aerr != nil || rerr != nil}
	}
	return m
}

// changes reads diff-tree -z --raw: ":oldmode newmode oldsha newsha S\0path\0".
func changes(ctx context.Context, s Snap, raw []byte, counts map[string]count, lim Limits) ([]Change, error) {
	fields := bytes.Split(raw, []byte{0})
	var out []Change
	var olds []string
	var idx []int
	for i := 0; i+1 < len(fields); i += 2 {
		head := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(head) != 5 {
			continue
		}
		rel := string(fields[i+1])
		c := Change{Rel: rel, Path: filepath.Join(s.Top, filepath.FromSlash(rel))}
		switch head[4][0] {
		case 'A':
			c.Status = Created
		case 'D':
			c.Status = Deleted
		default:
			c.Status = Changed
		}
		n := counts[rel]
		c.Added, c.Removed, c.Binary = n.added, n.removed, n.binary
		if c.Status != Created {
			switch head[0] {
			case "160000", "120000": // a repository inside (its commit), a link (its target): not a file's content
				c.Unknown = true
			default:
				if m, err := strconv.ParseUint(head[0], 8, 32); err == nil {
					c.Mode = fs.FileMode(m).Perm()
				}
				olds = append(olds, head[2])
				idx = append(idx, len(out))
			}
		}
		out = append(out, c)
	}
	if err := befores(ctx, s.Top, out, olds, idx, lim); err != nil {
		return nil, err
	}
	return out, nil
}

// befores reads the content before of the changes at idx (blobs olds),
// within the limits; the others are Unknown.
func befores(ctx context.Context, top string, out []Change, olds []string, idx []int, lim Limits) error {
	if len(olds) == 0 {
		return nil
	}
	sizes, err := gitcmd.Bytes(ctx, top, strings.NewReader(strings.Join(olds, "\n")+"\n"), "cat-file", "--batch-check=%(objectsize)")
	if err != nil {
		return fmt.Errorf("compare snapshots: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(sizes)), "\n")
	var read []string
	var readIdx []int
	var used int64
	for i, sha := range olds {
		size := int64(-1)
		if i < len(lines) {
			if n, err := strconv.ParseInt(strings.TrimSpace(lines[i]), 10, 64); err == nil {
				size = n
			}
		}
		if size < 0 || size > lim.FileSize || used+size > lim.Budget {
			out[idx[i]].Unknown = true
			continue
		}
		used += size
		read = append(read, sha)
		readIdx = append(readIdx, idx[i])
	}
	blobs, err := gitcmd.Objects(ctx, top, read)
	if err != nil {
		return fmt.Errorf("compare snapshots: %w", err)
	}
	for i, b := range blobs {
		if b == nil {
			out[readIdx[i]].Unknown = true
			continue
		}
		text := string(b)
		out[readIdx[i]].Before = &text
	}
	return nil
}

// ignoredChanges names the ignored entries that came or went: their
// content is not kept.
func ignoredChanges(before, after Snap) []Change {
	var out []Change
	for rel := range after.Ignored {
		if !before.Ignored[rel] && !before.Partial {
			out = append(out, Change{Rel: rel, Path: filepath.Join(after.Top, filepath.FromSlash(rel)), Status: Created, Ignored: true, Unknown: true})
		}
	}
	for rel := range before.Ignored {
		if !after.Ignored[rel] && !after.Partial {
			out = append(out, Change{Rel: rel, Path: filepath.Join(after.Top, filepath.FromSlash(rel)), Status: Deleted, Ignored: true, Unknown: true})
		}
	}
	sortChanges(out)
	return out
}

// linesOf counts a new file's lines (binary: it holds a NUL byte); a file
// over max is not read.
func linesOf(path string, size, max int64) (int, bool) {
	if size > max {
		return 0, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return 0, true
	}
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n, false
}

func compareWalks(before, after Snap, lim Limits) []Change {
	var out []Change
	for rel, a := range after.Walked {
		b, ok := before.Walked[rel]
		switch {
		case !ok && !before.Partial:
			c := Change{Rel: rel, Path: filepath.Join(after.Dir, filepath.FromSlash(rel)), Status: Created}
			c.Added, c.Binary = linesOf(c.Path, a.size, lim.FileSize)
			out = append(out, c)
		case ok && b != a:
			out = append(out, Change{Rel: rel, Path: filepath.Join(after.Dir, filepath.FromSlash(rel)), Status: Changed, Unknown: true})
		}
	}
	for rel := range before.Walked {
		if _, ok := after.Walked[rel]; !ok && !after.Partial {
			out = append(out, Change{Rel: rel, Path: filepath.Join(after.Dir, filepath.FromSlash(rel)), Status: Deleted, Unknown: true})
		}
	}
	sortChanges(out)
	return out
}

func sortChanges(cs []Change) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Rel < cs[j].Rel })
}

// maxDiffBytes bounds the diff read of one comparison.
const maxDiffBytes = 256 << 10

// Diff is the unified diff of the files of cs whose content before is
// known, from the snapshot before to the one after (not the disk now: a
// later change is not the command's), cut after maxLines lines with a line
// that says so. Outside git it is "" (no content is kept there).
func Diff(ctx context.Context, before, after Snap, cs []Change, maxLines int) (string, error) {
	if before.Top == "" || before.Tree == "" || after.Tree == "" {
		return "", nil
	}
	// The files whose diff fits, about: a change's lines and their context.
	var rels []string
	budget, known := 0, 0
	for _, c := range cs {
		if c.Unknown || c.Ignored {
			continue
		}
		known++
		if len(rels) == 0 || budget <= maxLines {
			rels = append(rels, c.Rel)
			budget += c.Added + c.Removed + 8
		}
	}
	if len(rels) == 0 {
		return "", nil
	}
	args := append([]string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-prefix", before.Tree, after.Tree, "--"}, rels...)
	raw, cut, err := gitcmd.Head(ctx, before.Top, []string{"GIT_LITERAL_PATHSPECS=1"}, maxDiffBytes, args...)
	if err != nil {
		return "", fmt.Errorf("diff of a command: %w", err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	cut = cut || len(rels) < known
	if len(lines) > maxLines {
		lines, cut = lines[:maxLines], true
	}
	text := strings.Join(lines, "")
	if cut {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "… the rest is in :ClaudeNova changes\n"
	}
	return text, nil
}

// mtimeSlack is how far a file's time may lag the clock that wrote it
// (file systems stamp with a coarse clock).
const mtimeSlack = 10 * time.Millisecond

// MarkUnsure marks the changes of cs whose file was last written while a
// snapshot was read: during the one before (the command had not started:
// not its change, yet the snapshot may hold the file before or after that
// write) or since the one after began (something still writing). A file
// created or changed that is gone now is unsure too. A time older than
// the snapshot before is the command's own (cp -p, tar keep times).
func MarkUnsure(before, after Snap, cs []Change) []Change {
	for i := range cs {
		c := &cs[i]
		if c.Status == Deleted || c.Ignored && strings.HasSuffix(c.Rel, "/") {
			continue
		}
		fi, err := os.Lstat(c.Path)
		if err != nil {
			c.Unsure = true
			continue
		}
		at := fi.ModTime()
		// A write just after the snapshot before (the command's) may be
		// stamped a little earlier: the window ends a slack early.
		during := !at.Before(before.Began.Add(-mtimeSlack)) && !at.After(before.Ended.Add(-mtimeSlack))
		c.Unsure = during || !at.Before(after.Began)
	}
	return cs
}
