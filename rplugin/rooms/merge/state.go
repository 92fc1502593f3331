package merge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

// What merges of a repository's worktree branches showed the user (and
// whether every file was settled) is kept on disk, one file a repository
// in storage: a removal after a restart, or from another Neovim of the
// user's, knows what was merged.

// record is the merges of one repository's branches.
type record struct {
	Root     string                   `json:"root"`
	Branches map[string]*branchRecord `json:"branches"`
}

// branchRecord is what merges of one branch showed the user.
type branchRecord struct {
	Path   string                   `json:"path"`
	Merged bool                     `json:"merged"` // a merge's every file was settled
	Seen   map[string]worktree.Seen `json:"seen"`
	Named  []string                 `json:"named"`
}

// recordPath is where the merges of the repository at root are kept.
func (r *Room) recordPath(root string) string {
	h := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(r.storage(), "worktrees", hex.EncodeToString(h[:8])+".json")
}

// loadRecord reads the merges of the repository at root (an empty record
// when there are none yet).
func (r *Room) loadRecord(root string) (record, error) {
	rec := record{Root: root, Branches: map[string]*branchRecord{}}
	b, err := os.ReadFile(r.recordPath(root))
	if errors.Is(err, os.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("read what was merged: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return record{Root: root, Branches: map[string]*branchRecord{}}, fmt.Errorf("read what was merged (%s): %w", r.recordPath(root), err)
	}
	if rec.Branches == nil {
		rec.Branches = map[string]*branchRecord{}
	}
	return rec, nil
}

// load fills m from what is kept of its branch (nothing when none is).
func (r *Room) load(m *run) {
	rec, err := r.loadRecord(m.root)
	if err != nil {
		r.d.Log.Warn("merge state", "err", err)
		return
	}
	br := rec.Branches[m.branch]
	if br == nil || filepath.Clean(br.Path) != filepath.Clean(m.path) {
		return // another worktree of that name, made since
	}
	for p, s := range br.Seen {
		m.seen[p] = s
	}
	for _, p := range br.Named {
		m.named[p] = true
	}
	m.merged = br.Merged
}

// save keeps what m showed the user (gone: the branch was removed). Called
// with r.mu held: the file is small, written once a file is settled.
func (r *Room) save(m *run, gone bool) {
	rec, err := r.loadRecord(m.root)
	if err != nil {
		r.d.Log.Warn("merge state", "err", err)
	}
	if gone {
		delete(rec.Branches, m.branch)
	} else {
		br := &branchRecord{Path: m.path, Merged: m.merged, Seen: m.seen}
		for p := range m.named {
			br.Named = append(br.Named, p)
		}
		sort.Strings(br.Named)
		rec.Branches[m.branch] = br
	}
	path := r.recordPath(m.root)
	if len(rec.Branches) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.d.Log.Warn("merge state", "err", err)
		}
		return
	}
	b, err := json.MarshalIndent(rec, "", " ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = atomicfile.Write(path, b, atomicfile.Options{Perm: 0o600})
	}
	if err != nil {
		r.d.Log.Warn("keep merge state", "path", path, "err", err)
	}
}

// runOf is the run of session sid's branch in wt, made (and filled from
// disk) when there is none. Called with r.mu held.
func (r *Room) runOf(sid int, path, root, branch string) *run {
	if m := r.merges[sid]; m != nil {
		return m
	}
	m := &run{branch: branch, path: path, root: root, pending: map[string]string{},
		seen: map[string]worktree.Seen{}, named: map[string]bool{}, versions: map[string]worktree.Version{}}
	r.load(m)
	r.merges[sid] = m
	return m
}
