package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
)

// Change is one file a worktree changed since its base: its commits and
// its uncommitted work, new files included.
type Change struct {
	Path    string // relative to the repository's top folder ('/'-separated)
	Status  string // "added", "modified" or "deleted"
	Base    []byte // the file at the base (nil when added)
	Theirs  []byte // the file in the worktree now (nil when deleted)
	Binary  bool
	Symlink bool // a symbolic link or a submodule: not brought over as text
}

// Branch is what a worktree changed, for bringing it into the checkout.
type Branch struct {
	Base    string // the commit the worktree and the checkout share
	Top     string // the checkout's top folder
	Changes []Change
}

// maxChanges bounds the files one merge brings over.
const maxChanges = 5000

// ChangesOf lists what the worktree at path changed against the commit it
// shares with the checkout at root, each file with its text at the base
// and in the worktree.
func ChangesOf(ctx context.Context, path, root string) (Branch, error) {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return Branch{}, fmt.Errorf("the worktree %s is gone", path)
	}
	top, err := git(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return Branch{}, fmt.Errorf("the checkout: %w", err)
	}
	base, err := baseOf(ctx, path, root)
	if err != nil {
		return Branch{}, err
	}
	out, err := gitBytes(ctx, path, "diff", "--name-status", "-z", "--no-renames", base)
	if err != nil {
		return Branch{}, err
	}
	status := map[string]string{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		st, p := string(fields[i]), string(fields[i+1])
		switch {
		case st == "A":
			status[p] = "added"
		case st == "D":
			status[p] = "deleted"
		case st != "":
			status[p] = "modified" // M, T
		}
	}
	news, err := untracked(ctx, path)
	if err != nil {
		return Branch{}, err
	}
	for _, f := range news {
		status[f] = "added"
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
		if objs[i] == nil {
			return Branch{}, fmt.Errorf("%s is not in %s", p, base)
		}
		bases[p] = objs[i]
	}
	for p, st := range status {
		c := Change{Path: p, Status: st, Base: bases[p]}
		if st != "deleted" {
			full := filepath.Join(path, filepath.FromSlash(p))
			if fi, err := os.Lstat(full); err == nil && !fi.Mode().IsRegular() {
				c.Symlink = true
			} else if c.Theirs, err = os.ReadFile(full); err != nil {
				return Branch{}, fmt.Errorf("read %s: %w", p, err)
			}
		}
		c.Binary = bytes.IndexByte(c.Base, 0) >= 0 || bytes.IndexByte(c.Theirs, 0) >= 0
		b.Changes = append(b.Changes, c)
	}
	sort.Slice(b.Changes, func(i, j int) bool { return b.Changes[i].Path < b.Changes[j].Path })
	return b, nil
}

// Remove removes the worktree at path (claude locks it while it runs:
// unlocked first) and its branch. Callers make sure no work the user
// wants is only there.
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
