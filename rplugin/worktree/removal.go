package worktree

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Removing a worktree deletes every file in it. What follows decides
// whether that loses work: a file the worktree changed is lost when the
// checkout does not have it as the worktree does, unless the user merged
// that very version (applied it, with their edits or not). A lost file may
// go only when the user was told of it by name and chose to remove all the
// same; never one written after they looked.

// Version is a file as it is in one place.
type Version struct {
	Exists bool
	Hash   string      // of its content (a link's target; "" for a folder)
	Mode   os.FileMode // 0o644 or 0o755 (0 for a link or a folder)
}

// Seen is a worktree file's version a merge showed the user, and whether
// they applied it (else they skipped it, or it could not be proposed).
type Seen struct {
	Version
	Applied bool
}

// Entry is a file the worktree changed, as it is there and in the checkout.
type Entry struct {
	Path               string
	Worktree, Checkout Version
}

// Decision is what removing a worktree would lose.
type Decision struct {
	Lost    []string // only in the worktree: removing it deletes them
	Unnamed []string // of Lost, those the user has not been told of
}

// May says whether the worktree may be removed: nothing would be lost, or
// force (the user's "remove all the same") and every lost file was named.
func (d Decision) May(force bool) bool {
	return len(d.Lost) == 0 || (force && len(d.Unnamed) == 0)
}

// Decide says what removing the worktree of entries would lose: seen holds
// what merges showed the user, named what they were told exists only there.
func Decide(entries []Entry, seen map[string]Seen, named map[string]bool) Decision {
	var d Decision
	for _, e := range entries {
		w := e.Worktree
		if !w.Exists {
			continue // deleted there: nothing of it is only there
		}
		if w.Hash != "" && w == e.Checkout {
			continue // the checkout has it as the worktree does
		}
		sn, ok := seen[e.Path]
		shown := ok && w.Hash != "" && sn.Version == w
		if shown && sn.Applied {
			continue // the user merged this very version
		}
		d.Lost = append(d.Lost, e.Path)
		if !shown && !named[e.Path] {
			d.Unnamed = append(d.Unnamed, e.Path)
		}
	}
	sort.Strings(d.Lost)
	sort.Strings(d.Unnamed)
	return d
}

// VersionOf is the file at path as it is now (Exists false when it is not
// there). A folder has no hash: it never counts as the same anywhere.
func VersionOf(path string) Version {
	fi, err := os.Lstat(path)
	if err != nil {
		return Version{}
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return Version{Exists: true}
		}
		return Version{Exists: true, Hash: "link:" + hashOf([]byte(target))}
	case fi.Mode().IsRegular():
		f, err := os.Open(path)
		if err != nil {
			return Version{Exists: true}
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return Version{Exists: true}
		}
		return Version{Exists: true, Hash: hex.EncodeToString(h.Sum(nil)), Mode: modeOf(fi)}
	}
	return Version{Exists: true}
}

// ModeOf is the mode git keeps of the file at path (0o644 or 0o755; 0
// when it is not a regular file there), read without its content.
func ModeOf(path string) os.FileMode {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return modeOf(fi)
}

// VersionOfChange is the worktree side of change c (read again from the
// worktree at path when its text was not kept: a link, a large file).
func VersionOfChange(c Change, path string) Version {
	switch {
	case c.Status == "deleted":
		return Version{}
	case c.Dir:
		return Version{Exists: true}
	case c.Symlink || c.Large:
		return VersionOf(filepath.Join(path, filepath.FromSlash(c.Path)))
	}
	return Version{Exists: true, Hash: hashOf(c.Theirs), Mode: c.Mode}
}

// Entries pairs each change of br (the worktree at path) with the checkout's
// file of the same name.
func Entries(br Branch, path string) []Entry {
	out := make([]Entry, 0, len(br.Changes))
	for _, c := range br.Changes {
		out = append(out, Entry{Path: c.Path, Worktree: VersionOfChange(c, path),
			Checkout: VersionOf(filepath.Join(br.Top, filepath.FromSlash(c.Path)))})
	}
	return out
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
