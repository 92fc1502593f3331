// Package worktree plans and reads the git worktrees sessions work in:
// claude's own `--worktree NAME` makes .claude/worktrees/NAME on a new
// branch worktree-NAME from HEAD (claude 2.1.328) and works there; this
// package picks a free name, says why a folder cannot have one, and counts
// what a worktree changed since the commit it started from. It runs git,
// never a shell.
package worktree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
)

// Plan is a worktree a new session will make.
type Plan struct {
	Root   string // the repository's top folder
	Name   string // what claude is given: --worktree Name
	Path   string // Root/.claude/worktrees/Name
	Branch string // worktree-Name
	Base   string // the commit it starts from (HEAD now)
}

// ErrNotRepo says the folder is in no git repository.
var ErrNotRepo = errors.New("not in a git repository")

// ErrNoCommit says the repository has no commit for a worktree to start from.
var ErrNoCommit = errors.New("no commit yet to branch from")

// maxName bounds a name made from a prompt.
const maxName = 32

// PlanFor plans a worktree for a session started in dir: named name, or
// after prompt when name is "" ("fix the login bug" → fix-the-login-bug),
// with -2, -3… added while its folder or branch exists or taken (nil:
// nothing else) says its folder is another session's (planned, not yet
// made: sessions started together on one prompt).
func PlanFor(ctx context.Context, dir, name, prompt string, taken func(path string) bool) (Plan, error) {
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return Plan{}, ErrNotRepo
	}
	base, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return Plan{}, ErrNoCommit
	}
	want := Slug(name)
	if name != "" && want != name {
		return Plan{}, fmt.Errorf("worktree name %q: use letters, digits, '-', '_' and '.' (e.g. %q)", name, want)
	}
	if want == "" {
		want = Slug(prompt)
	}
	if want == "" {
		want = "session"
	}
	for i := 1; ; i++ {
		n := want
		if i > 1 {
			n = want + "-" + strconv.Itoa(i)
		}
		p := Plan{Root: root, Name: n, Path: filepath.Join(root, ".claude", "worktrees", n), Branch: "worktree-" + n, Base: base}
		_, statErr := os.Stat(p.Path)
		_, refErr := git(ctx, root, "rev-parse", "--verify", "--quiet", "refs/heads/"+p.Branch)
		if errors.Is(statErr, os.ErrNotExist) && refErr != nil && (taken == nil || !taken(p.Path)) {
			return p, nil
		}
		if i >= 100 {
			return Plan{}, fmt.Errorf("no free worktree name after %s-99", want)
		}
	}
}

// Slug makes a worktree name of s: its first words, lower case, joined by
// '-', at most 32 characters ("" when s has no letter or digit).
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.'):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= maxName {
			break
		}
	}
	out := strings.Trim(b.String(), "-.")
	if len(out) > maxName {
		out = strings.TrimRight(out[:maxName], "-.")
	}
	return out
}

// Stats is what a worktree changed since the commit it started from:
// its commits and its uncommitted work, new files included.
type Stats struct {
	Base    string `json:"base"` // the commit it started from
	Files   int    `json:"files"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// maxUntracked bounds the new files whose lines are counted.
const maxUntracked = 2000

// StatsOf counts what the worktree at path changed against the commit it
// shares with the checkout at root (where it started, whatever either
// committed since).
func StatsOf(ctx context.Context, path, root string) (Stats, error) {
	base, err := baseOf(ctx, path, root)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Base: base}
	out, err := gitBytes(ctx, path, "diff", "--numstat", "-z", base)
	if err != nil {
		return Stats{}, err
	}
	st.addNumstat(out)
	news, err := untracked(ctx, path)
	if err != nil {
		return Stats{}, err
	}
	for i, f := range news {
		st.Files++
		if i < maxUntracked {
			st.Added += lineCount(filepath.Join(path, f))
		}
	}
	return st, nil
}

// untracked lists the worktree's new files git does not track yet (nor
// ignore).
func untracked(ctx context.Context, path string) ([]string, error) {
	return others(ctx, path, "--exclude-standard")
}

// others lists, by git ls-files --others with flags, files git does not
// track in the worktree at path.
func others(ctx context.Context, path string, flags ...string) ([]string, error) {
	out, err := gitBytes(ctx, path, append([]string{"ls-files", "-z", "--others"}, flags...)...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files, nil
}

// baseOf is the commit the worktree at path shares with the checkout at
// root: where it started, whatever either committed since.
func baseOf(ctx context.Context, path, root string) (string, error) {
	head, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("the checkout's HEAD: %w", err)
	}
	base, err := git(ctx, path, "merge-base", "HEAD", head)
	if err != nil {
		return "", fmt.Errorf("the worktree's base: %w", err)
	}
	return base, nil
}

// addNumstat adds git diff --numstat -z output: "added\tremoved\tpath\0",
// a rename "added\tremoved\t\0from\0to\0"; a binary file counts "-".
func (st *Stats) addNumstat(out []byte) {
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		parts := bytes.SplitN(fields[i], []byte{'\t'}, 3)
		if len(parts) != 3 {
			continue
		}
		st.Files++
		a, _ := strconv.Atoi(string(parts[0]))
		r, _ := strconv.Atoi(string(parts[1]))
		st.Added += a
		st.Removed += r
		if len(parts[2]) == 0 {
			i += 2 // a rename: its two paths follow
		}
	}
}

// lineCount counts a text file's lines (0 for a binary or unreadable one).
func lineCount(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	r := bufio.NewReader(f)
	buf := make([]byte, 32<<10)
	last := byte('\n')
	for {
		k, err := r.Read(buf)
		if bytes.IndexByte(buf[:k], 0) >= 0 {
			return 0 // binary
		}
		n += bytes.Count(buf[:k], []byte{'\n'})
		if k > 0 {
			last = buf[k-1]
		}
		if err != nil {
			break
		}
	}
	if last != '\n' {
		n++
	}
	return n
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitcmd.Run(ctx, dir, args...)
}

func gitBytes(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return gitcmd.Bytes(ctx, dir, nil, args...)
}

// BranchOf is the branch checked out in dir ("" when none: detached, or not
// a repository).
func BranchOf(ctx context.Context, dir string) string {
	b, err := git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return b
}
