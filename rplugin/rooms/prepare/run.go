package prepare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
)

// Summary is what a setup did.
type Summary struct {
	Copied  []string // files copied in, relative to the top folder
	Skipped []string // matched, not copied (and why)
	Ran     int      // commands (or the script) run
}

func (s Summary) String() string {
	parts := []string{}
	switch len(s.Copied) {
	case 0:
	case 1, 2, 3:
		parts = append(parts, "copied "+strings.Join(s.Copied, ", "))
	default:
		parts = append(parts, "copied "+desk.Plural(len(s.Copied), "file"))
	}
	if len(s.Skipped) > 0 {
		parts = append(parts, desk.Plural(len(s.Skipped), "file")+" not copied")
	}
	if s.Ran > 0 {
		parts = append(parts, "ran "+desk.Plural(s.Ran, "command"))
	}
	if len(parts) == 0 {
		return "nothing to do"
	}
	return strings.Join(parts, "; ")
}

// waitDelay bounds the wait for a command's output once it was ended.
const waitDelay = 2 * time.Second

// Run sets up the worktree at dir of the checkout at root: cfg.Copy's
// files copied in, then cfg.Setup's commands (or cfg.Script) run there,
// each in a process group of its own ended with ctx. What it does and the
// commands' output (stdout and stderr) go to out. The first failure ends
// it.
func Run(ctx context.Context, cfg Config, root, dir, branch string, out io.Writer) (Summary, error) {
	var sum Summary
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return sum, fmt.Errorf("the worktree %s was not made", dir)
	}
	for _, pat := range cfg.Copy {
		copied, skipped, err := copyIn(root, dir, pat)
		for _, f := range copied {
			fmt.Fprintf(out, "copied %s\n", f)
		}
		for _, f := range skipped {
			fmt.Fprintf(out, "not copied: %s\n", f)
		}
		sum.Copied = append(sum.Copied, copied...)
		sum.Skipped = append(sum.Skipped, skipped...)
		if err != nil {
			return sum, err
		}
	}
	env := append(os.Environ(), "CLAUDENOVA_ROOT="+root, "CLAUDENOVA_WORKTREE="+dir, "CLAUDENOVA_BRANCH="+branch)
	var cmds []*exec.Cmd
	var names []string
	if cfg.Script != "" {
		script, err := inside(root, cfg.Script)
		if err != nil {
			return sum, fmt.Errorf("worktree.setup %q: %w", cfg.Script, err)
		}
		cmds = append(cmds, exec.CommandContext(ctx, script))
		names = append(names, cfg.Script)
	}
	for _, c := range cfg.Setup {
		cmds = append(cmds, exec.CommandContext(ctx, "sh", "-c", c))
		names = append(names, c)
	}
	for i, cmd := range cmds {
		if err := ctx.Err(); err != nil {
			return sum, fmt.Errorf("before %q: %w", names[i], err)
		}
		fmt.Fprintf(out, "$ %s\n", names[i])
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdout, cmd.Stderr = out, out // stdin: none (a command that asks reads nothing)
		gitcmd.InGroup(cmd)
		cmd.WaitDelay = waitDelay
		err := cmd.Run()
		sum.Ran++
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			fmt.Fprintf(out, "[%s]\n", err)
			return sum, fmt.Errorf("%q: %w", names[i], err)
		}
	}
	return sum, nil
}

// inside resolves rel against root, refusing a path outside it.
func inside(root, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", errors.New("must be a path relative to the project's top folder")
	}
	clean := filepath.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", errors.New("must stay inside the project")
	}
	return filepath.Join(root, clean), nil
}

// copyIn copies the checkout's regular files that match pattern (relative
// to root, path.Match syntax) into the worktree dir: never over a file the
// worktree has (a tracked file is there already), never a symbolic link,
// a folder, or what is under .git or the worktrees' own folder.
func copyIn(root, dir, pattern string) (copied, skipped []string, err error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, nil, fmt.Errorf("worktree.copy %q: %w", pattern, err)
	}
	if _, err := inside(root, filepath.FromSlash(pattern)); err != nil {
		return nil, nil, fmt.Errorf("worktree.copy %q: %w", pattern, err)
	}
	matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
	if err != nil {
		return nil, nil, fmt.Errorf("worktree.copy %q: %w", pattern, err)
	}
	for _, m := range matches {
		rel, err := filepath.Rel(root, m)
		if err != nil {
			continue
		}
		slash := filepath.ToSlash(rel)
		if slash == ".git" || strings.HasPrefix(slash, ".git/") || slash == ".claude/worktrees" || strings.HasPrefix(slash, ".claude/worktrees/") {
			continue
		}
		fi, err := os.Lstat(m)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			skipped = append(skipped, slash+" (not a regular file)")
			continue
		}
		to := filepath.Join(dir, rel)
		if _, err := os.Lstat(to); err == nil {
			skipped = append(skipped, slash+" (the worktree has it)")
			continue
		}
		if err := copyFile(m, to, fi.Mode().Perm()); err != nil {
			return copied, skipped, fmt.Errorf("copy %s into the worktree: %w", slash, err)
		}
		copied = append(copied, slash)
	}
	return copied, skipped, nil
}

// copyFile copies from to a new file to (never over one) with mode perm.
func copyFile(from, to string, perm fs.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		_ = os.Remove(to)
		return err
	}
	return dst.Close()
}
