package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
)

// ExcludeLine keeps claude's worktrees (.claude/worktrees/NAME, each a git
// checkout of its own) out of the repository's `git status` and `git add
// -A`, which would add one as an embedded repository.
const ExcludeLine = "/.claude/worktrees/"

// excluding are the lines that already keep .claude/worktrees/ out: ours,
// and those a person writes for it or for all of .claude/.
var excluding = map[string]bool{
	"/.claude/worktrees/": true, "/.claude/worktrees": true, "/.claude/worktrees/*": true,
	".claude/worktrees/": true, ".claude/worktrees": true, ".claude/worktrees/*": true,
	"/.claude/": true, "/.claude": true, "/.claude/*": true,
	".claude/": true, ".claude": true, ".claude/*": true,
}

// Exclude keeps the worktrees of the repository holding dir out of `git
// status`: it adds ExcludeLine to the repository's info/exclude (the
// common git folder's, shared by all its worktrees; never a .gitignore of
// the user's), unless something already ignores them. It reports whether
// it wrote the file. It runs git: never on a call the editor waits for.
func Exclude(ctx context.Context, dir string) (bool, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return false, ErrNotRepo
	}
	if _, err := git(ctx, top, "check-ignore", "-q", ".claude/worktrees/"); err == nil {
		return false, nil // ignored already (exit 0): nothing to add
	}
	common, err := git(ctx, top, "rev-parse", "--git-common-dir")
	if err != nil {
		return false, fmt.Errorf("the repository's git folder: %w", err)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(top, common)
	}
	return excludeIn(filepath.Join(common, "info", "exclude"))
}

// excludeIn adds ExcludeLine to the exclude file at path (made, with its
// folder, when missing) unless a line of it already excludes the
// worktrees. Two hosts adding it at once both write the same text: the
// file is replaced whole, never appended to twice.
func excludeIn(path string) (bool, error) {
	old, err := os.ReadFile(path)
	perm := fs.FileMode(0o644)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, fmt.Errorf("exclude worktrees: %w", err)
		}
	case err != nil:
		return false, fmt.Errorf("exclude worktrees: %w", err)
	default:
		if st, err := os.Stat(path); err == nil {
			perm = st.Mode().Perm()
		}
	}
	text, changed := withExclude(old)
	if !changed {
		return false, nil
	}
	if err := atomicfile.Write(path, text, atomicfile.Options{Perm: perm}); err != nil {
		return false, fmt.Errorf("exclude worktrees: %w", err)
	}
	return true, nil
}

// withExclude is the exclude file's text with ExcludeLine added (after a
// line of its own), and whether it had to be.
func withExclude(old []byte) ([]byte, bool) {
	for _, l := range bytes.Split(old, []byte{'\n'}) {
		l = bytes.TrimRight(l, " \r") // git ignores unescaped trailing spaces
		if excluding[string(l)] {
			return old, false
		}
	}
	out := append([]byte(nil), old...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, "# claude-nova: the worktrees of Claude sessions\n"+ExcludeLine+"\n"...)
	return out, true
}
