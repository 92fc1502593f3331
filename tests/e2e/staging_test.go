package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gRepo makes dir a repository with g.txt committed.
func (e *Env) gRepo(dir string) {
	e.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "g.txt"), []byte("base\n"), 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.gitIn(dir, "init", "-q")
	e.gitIn(dir, "add", ".")
	e.gitIn(dir, "commit", "-qm", "init")
}

// alphaSession starts a session in repository dir's worktree "alpha" that
// changes g.txt to text, applies that change in the worktree and stops.
func (e *Env) alphaSession(dir, text string) int {
	e.t.Helper()
	var id int
	e.Lua(&id, `return require('claudenova').new({ cwd = ..., worktree = 'alpha', prompt = select(2, ...) }).id`, dir,
		Seq(Step("Edit", map[string]any{"file_path": "g.txt", "old_string": "base", "new_string": text})))
	wt := filepath.Join(dir, ".claude", "worktrees", "alpha")
	_, buf := e.WaitProposal()
	focusBuf(e, buf)
	e.Cmd("write")
	e.Eventually(20*time.Second, "the worktree's g.txt", func() bool {
		b, _ := os.ReadFile(filepath.Join(wt, "g.txt"))
		return string(b) == text+"\n"
	})
	e.WaitIdle(id)
	e.Lua(nil, "require('claudenova').stop(...)", id)
	e.Eventually(20*time.Second, "exited", func() bool { st, _ := e.SessionState(id); return st == "exited" })
	return id
}

// mergeProposals waits for n merge proposals and returns their request ids
// by the file each changes, and by the staged file each shows.
func (e *Env) mergeProposals(n int) (byPath, staged map[string]string) {
	e.t.Helper()
	var got []struct {
		ID     string `msgpack:"id"`
		Path   string `msgpack:"path"`
		Staged string `msgpack:"staged"`
	}
	e.Eventually(30*time.Second, "the merge proposals", func() bool {
		e.Lua(&got, `local out = {}
			for id, r in pairs(require('claudenova.store.state').requests) do
				if r.surface == 'proposal' and (r.tool or ''):find('^Merge') then
					table.insert(out, { id = id, path = r.path or '', staged = r.staged or '' })
				end
			end
			return out`)
		return len(got) == n
	})
	byPath, staged = map[string]string{}, map[string]string{}
	for _, r := range got {
		byPath[r.Path], staged[r.Path] = r.ID, r.Staged
	}
	return byPath, staged
}

// saveMerge waits for merge proposal id to open, checks it shows text,
// saves it and waits for path to hold text.
func (e *Env) saveMerge(id, path, text string) {
	e.t.Helper()
	var buf int
	e.Eventually(30*time.Second, "the proposal of "+path+" open", func() bool { buf = e.ProposalBuf(id); return buf != 0 })
	e.WaitGraceOver()
	var lines []string
	e.Lua(&lines, "return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf)
	if strings.Join(lines, "\n") != text {
		e.t.Fatalf("the merge proposal of %s shows %q, want %q", path, lines, text)
	}
	focusBuf(e, buf)
	e.Cmd("write")
	e.Eventually(20*time.Second, path+" applied", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == text+"\n"
	})
}

// checkStagedApart checks that the staged files of two proposals are two
// files in two 0700 folders of storage/proposed, each with its own text.
func checkStagedApart(t *testing.T, storage string, staged [2]string, texts [2]string) {
	t.Helper()
	if staged[0] == "" || filepath.Dir(staged[0]) == filepath.Dir(staged[1]) {
		t.Fatalf("two proposals staged in one folder: %q", staged)
	}
	real, err := filepath.EvalSymlinks(storage)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range staged {
		if filepath.Dir(filepath.Dir(s)) != filepath.Join(real, "proposed") {
			t.Fatalf("staged %s is not in %s", s, filepath.Join(real, "proposed"))
		}
		if fi, err := os.Stat(filepath.Dir(s)); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("the folder of %s: %v %v", s, err, fi)
		}
		if b, err := os.ReadFile(s); err != nil || string(b) != texts[i]+"\n" {
			t.Fatalf("staged %s holds %q (%v), want %q", s, b, err, texts[i])
		}
	}
}

// Two repositories in one editor, each with a worktree named alpha whose
// session changed g.txt its own way, both merged: the two proposals live
// side by side, and each :w writes its own repository's g.txt with its own
// text (both were "merge-alpha-1", staged into one folder: the second
// overwrote the first, whose :w wrote repository 2's text into repository
// 1).
func TestMergeTwoRepositoriesOneWorktreeName(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		repo1, repo2 := e.Project, filepath.Join(e.base, "project2")
		e.gRepo(repo1)
		e.gRepo(repo2)
		s1 := e.alphaSession(repo1, "from repository 1")
		s2 := e.alphaSession(repo2, "from repository 2")
		e.Lua(nil, "require('claudenova').merge(...)", s1)
		e.Lua(nil, "require('claudenova').merge(...)", s2)
		g1, g2 := filepath.Join(repo1, "g.txt"), filepath.Join(repo2, "g.txt")
		ids, staged := e.mergeProposals(2)
		if ids[g1] == "" || ids[g2] == "" {
			t.Fatalf("merge proposals %v", ids)
		}
		checkStagedApart(t, e.Storage, [2]string{staged[g1], staged[g2]}, [2]string{"from repository 1", "from repository 2"})
		e.saveMerge(ids[g1], g1, "from repository 1")
		e.saveMerge(ids[g2], g2, "from repository 2")
		for path, want := range map[string]string{g1: "from repository 1\n", g2: "from repository 2\n"} {
			if b, _ := os.ReadFile(path); string(b) != want {
				t.Fatalf("%s holds %q, want %q", path, b, want)
			}
		}
	})
}

// Two Neovims of one user sharing one storage folder, each merging a
// worktree named alpha of its own repository: each proposal keeps its own
// text and its own target.
func TestMergeTwoInstancesSharedStorage(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		shared := filepath.Join(t.TempDir(), "storage")
		envs := [2]*Env{
			NewEnv(t, v, Options{Setup: map[string]any{"storage": shared}}),
			NewEnv(t, v, Options{Setup: map[string]any{"storage": shared}}),
		}
		texts := [2]string{"from instance 1", "from instance 2"}
		var ids, staged [2]string
		for i, e := range envs {
			e.gRepo(e.Project)
			s := e.alphaSession(e.Project, texts[i])
			e.Lua(nil, "require('claudenova').merge(...)", s)
			byPath, st := e.mergeProposals(1)
			g := filepath.Join(e.Project, "g.txt")
			ids[i], staged[i] = byPath[g], st[g]
		}
		// Both merged, neither saved yet.
		checkStagedApart(t, shared, staged, texts)
		for i, e := range envs {
			e.saveMerge(ids[i], filepath.Join(e.Project, "g.txt"), texts[i])
		}
		for i, e := range envs {
			if got := e.ReadFile("g.txt"); got != texts[i]+"\n" {
				t.Fatalf("instance %d's g.txt holds %q", i+1, got)
			}
		}
	})
}
