package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
)

// Change is one file a worktree changed since its base: its commits and
// its uncommitted work, new files (ignored ones included) too.
type Change struct {
	Path   string // relative to the repository's top folder ('/'-separated)
	Status string // "added", "modified" or "deleted"
	Base   []byte // the file at the base (nil when added)
	Theirs []byte // the file in the worktree now (nil when deleted)
	// BaseMode and Mode are the file's permission bits at the base and in
	// the worktree now (0o644 or 0o755; 0 where it does not exist).
	BaseMode, Mode os.FileMode
	Binary         bool
	Symlink        bool // a symbolic link or a submodule: not brought over as text
	Ignored        bool // new, and ignored by the repository's ignore rules
	Large          bool // above MaxFileSize: not read, not brought over as text
	Dir            bool // an ignored folder (Path ends in '/'): named, never read
}

// ModeOnly says the change is only to the file's mode (the executable bit).
func (c Change) ModeOnly() bool {
	return c.Status == "modified" && bytes.Equal(c.Base, c.Theirs) && c.BaseMode != c.Mode
}

// Branch is what a worktree changed, for bringing it into the checkout.
type Branch struct {
	Base    string // the commit the worktree and the checkout share
	Top     string // the checkout's top folder
	Changes []Change
}

// maxChanges bounds the files one merge brings over.
const maxChanges = 5000

// MaxFileSize bounds the files read as text (larger ones are named).
const MaxFileSize = 16 << 20

// ErrNotWorktree says a folder is not the worktree git knows: removed or
// replaced by hand.
var ErrNotWorktree = errors.New("not the worktree git knows")

// Present is a cheap look (one stat) at whether the worktree at path is
// still there: its .git file, which a plain folder made in its place has
// not.
func Present(path string) bool {
	fi, err := os.Lstat(filepath.Join(path, ".git"))
	return err == nil && fi.Mode().IsRegular()
}

// Verify checks that path is the worktree git knows for the repository at
// root, on branch (when not ""): a folder deleted by hand and made again is
// not, and git run there would read another repository (the checkout).
func Verify(ctx context.Context, path, root, branch string) error {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return fmt.Errorf("the worktree %s is gone (removed by hand?): nothing read from it", path)
	}
	notIt := func(why string) error {
		return fmt.Errorf("%s is %w (%s; removed or replaced by hand?): nothing read from it", path, ErrNotWorktree, why)
	}
	if !Present(path) {
		return notIt("it has no .git file")
	}
	top, err := git(ctx, path, "rev-parse", "--show-toplevel")
	if err != nil || !samePath(top, path) {
		return notIt("git takes it for " + top)
	}
	mine, err1 := git(ctx, path, "rev-parse", "--path-format=absolute", "--git-common-dir")
	theirs, err2 := git(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err1 != nil || err2 != nil || !samePath(mine, theirs) {
		return notIt("it belongs to another repository")
	}
	if branch != "" {
		if b := BranchOf(ctx, path); b != branch {
			return notIt(fmt.Sprintf("it is on %q, not %s", b, branch))
		}
	}
	return nil
}

// samePath says a and b name one folder (links resolved).
func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// ChangesOf lists what the worktree at path changed against the commit it
// shares with the checkout at root, each file with its text and mode at the
// base and in the worktree. It checks first that path is the worktree git
// knows on branch ("": any).
func ChangesOf(ctx context.Context, path, root, branch string) (Branch, error) {
	if err := Verify(ctx, path, root, branch); err != nil {
		return Branch{}, err
	}
	top, err := git(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return Branch{}, fmt.Errorf("the checkout: %w", err)
	}
	base, err := baseOf(ctx, path, root)
	if err != nil {
		return Branch{}, err
	}
	out, err := gitBytes(ctx, path, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", base)
	if err != nil {
		return Branch{}, err
	}
	status, modes := parseRaw(out)
	news, err := untracked(ctx, path)
	if err != nil {
		return Branch{}, err
	}
	for _, f := range news {
		status[f] = "added"
	}
	ignored, err := ignoredFiles(ctx, path)
	if err != nil {
		return Branch{}, err
	}
	isIgnored := map[string]bool{}
	for _, f := range ignored {
		if _, ok := status[f]; !ok {
			status[f], isIgnored[f] = "added", true
		}
	}
	if len(status) > maxChanges {
		return Branch{}, fmt.Errorf("the worktree changed %d files, more than %d: merge it with git", len(status), maxChanges)
	}
	b := Branch{Base: base, Top: top}
	var specs, paths []string
	for p, st := range status {
		if st != "added" {
			specs, paths = append(specs, base+":"+p), append(paths, p)
		}
	}
	objs, err := gitcmd.Objects(ctx, path, specs) // one git for every file's base
	if err != nil {
		return Branch{}, err
	}
	bases := map[string][]byte{}
	for i, p := range paths {
		if objs[i] == nil && modes[p][0] != gitLink {
			return Branch{}, fmt.Errorf("%s is not in %s", p, base)
		}
		bases[p] = objs[i]
	}
	for p, st := range status {
		c := Change{Path: p, Status: st, Base: bases[p], Ignored: isIgnored[p]}
		if m, ok := modes[p]; ok {
			c.BaseMode = permOf(m[0])
			if m[0] == gitLink || m[0] == gitSymlink {
				c.Symlink = true
			}
		}
		if strings.HasSuffix(p, "/") {
			c.Dir = true
		} else if st != "deleted" {
			full := filepath.Join(path, filepath.FromSlash(p))
			fi, err := os.Lstat(full)
			switch {
			case err != nil:
				return Branch{}, fmt.Errorf("read %s: %w", p, err)
			case !fi.Mode().IsRegular():
				c.Symlink = true
			case fi.Size() > MaxFileSize:
				c.Large, c.Mode = true, modeOf(fi)
			default:
				c.Mode = modeOf(fi)
				if c.Theirs, err = os.ReadFile(full); err != nil {
					return Branch{}, fmt.Errorf("read %s: %w", p, err)
				}
			}
		}
		c.Binary = bytes.IndexByte(c.Base, 0) >= 0 || bytes.IndexByte(c.Theirs, 0) >= 0
		b.Changes = append(b.Changes, c)
	}
	sort.Slice(b.Changes, func(i, j int) bool { return b.Changes[i].Path < b.Changes[j].Path })
	return b, nil
}

// git's file modes (diff --raw, ls-tree).
const (
	gitLink    = "160000" // a submodule
	gitSymlink = "120000"
)

// parseRaw reads git diff --raw -z: ":oldmode newmode oldsha newsha
// status\0path\0" per file. It returns each path's status and its two modes.
func parseRaw(out []byte) (map[string]string, map[string][2]string) {
	status, modes := map[string]string{}, map[string][2]string{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		head := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		p := string(fields[i+1])
		if len(head) != 5 || p == "" {
			continue
		}
		modes[p] = [2]string{head[0], head[1]}
		switch head[4][:1] {
		case "A":
			status[p] = "added"
		case "D":
			status[p] = "deleted"
		default:
			status[p] = "modified" // M, T
		}
	}
	return status, modes
}

// permOf is the permission bits of a git mode ("100755" → 0o755).
func permOf(mode string) os.FileMode {
	n, err := strconv.ParseUint(mode, 8, 32)
	if err != nil || n == 0 {
		return 0
	}
	if n&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// modeOf is a file's mode as git keeps it: executable or not.
func modeOf(fi os.FileInfo) os.FileMode {
	if fi.Mode().Perm()&0o100 != 0 {
		return 0o755
	}
	return 0o644
}

// ignoredFiles lists the worktree's files its ignore rules hide from git:
// in a worktree made from a commit, every one of them was written since.
// A folder ignored whole is one entry ending in '/' (node_modules/).
func ignoredFiles(ctx context.Context, path string) ([]string, error) {
	return others(ctx, path, "--ignored", "--exclude-standard", "--directory")
}

// Remove removes the worktree at path (claude locks it while it runs:
// unlocked first) and its branch. Callers decide first (Decide) that no
// work the user has not seen is only there: git's own check would miss
// ignored files.
func Remove(ctx context.Context, path, root, branch string) error {
	_, _ = git(ctx, root, "worktree", "unlock", path)
	if _, err := git(ctx, root, "worktree", "remove", "--force", path); err != nil {
		return err
	}
	if branch != "" {
		if _, err := git(ctx, root, "branch", "-D", branch); err != nil {
			return err
		}
	}
	return nil
}
