package provenance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// byText is a live record that reads a line's author from its text:
// "C:" Claude's, "A:" Claude's amended by the user, anything else yours.
func byText(path, text string) []review.Author {
	lines := diff.SplitLines(text)
	out := make([]review.Author, len(lines)+1)
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "C:"):
			out[i+1] = review.Author{Kind: review.Claude, ClaudeID: "sess", Model: "m", Turn: 1, Prompt: "p"}
		case strings.HasPrefix(l, "A:"):
			out[i+1] = review.Author{Kind: review.Amended, ClaudeID: "sess", Model: "m", Turn: 1, Prompt: "p"}
		default:
			out[i+1] = review.Author{Kind: review.You}
		}
	}
	return out
}

// fixture is a repository watched by a room whose live record is byText.
type fixture struct {
	t    testing.TB
	top  string
	room *Room
	rp   *repo
	live bool // the live record knows the files
}

func newFixture(t testing.TB, commit bool) *fixture {
	t.Helper()
	if h, ok := t.(interface{ Setenv(string, string) }); ok {
		h.Setenv("HOME", t.TempDir())
		h.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	}
	f := &fixture{t: t, top: t.TempDir(), live: true}
	f.top, _ = filepath.EvalSymlinks(f.top)
	git(t, f.top, "init", "-q")
	git(t, f.top, "config", "user.email", "t@example.com")
	git(t, f.top, "config", "user.name", "t")
	if commit {
		write(t, filepath.Join(f.top, "a.txt"), "one\ntwo\n")
		git(t, f.top, "add", ".")
		git(t, f.top, "commit", "-qm", "init")
	}
	storage := t.TempDir()
	f.room = New(desk.New(nowhere{}, session.NewManager(), nil), Deps{
		Storage: func() string { return storage },
		Enabled: func() bool { return true },
		Known:   func(string) bool { return f.live },
		Authors: byText,
	})
	head, _ := exec.Command("git", "-C", f.top, "rev-parse", "-q", "--verify", "HEAD").Output()
	f.rp = &repo{top: f.top, gitDir: filepath.Join(f.top, ".git"), head: strings.TrimSpace(string(head))}
	return f
}

func (f *fixture) commit(files map[string]string, args ...string) string {
	f.t.Helper()
	for name, text := range files {
		write(f.t, filepath.Join(f.top, name), text)
	}
	git(f.t, f.top, "add", "-A")
	git(f.t, f.top, append([]string{"commit", "-q"}, args...)...)
	return git(f.t, f.top, "rev-parse", "HEAD")
}

func (f *fixture) check() { f.room.check(context.Background(), f.rp) }

func (f *fixture) note(sha string) (string, bool) {
	text, found, err := gitai.Show(context.Background(), f.top, sha)
	if err != nil {
		f.t.Fatal(err)
	}
	return text, found
}

func (f *fixture) attested(sha string) string {
	f.t.Helper()
	text, found := f.note(sha)
	if !found {
		return ""
	}
	head, _, _ := strings.Cut(text, "\n---\n")
	n, err := gitai.Parse(text)
	if err != nil {
		f.t.Fatalf("our note does not parse: %v\n%s", err, text)
	}
	out := []string{}
	for _, l := range strings.Split(head, "\n") {
		if k, rs, ok := strings.Cut(strings.TrimSpace(l), " "); ok && strings.HasPrefix(l, "  ") {
			who := "claude"
			if strings.HasPrefix(k, "h_") {
				who = "you"
			}
			out = append(out, "  "+who+" "+rs)
		} else {
			out = append(out, l)
		}
	}
	_ = n // parsed: the writer's note is read back
	return strings.Join(out, "\n")
}

// noted checks what the note of sha attests (see attested).
func (f *fixture) noted(sha, want string) {
	f.t.Helper()
	f.check()
	if got := f.attested(sha); got != want {
		f.t.Fatalf("note:\n%s\nwant:\n%s", got, want)
	}
}

func TestACommitGetsANoteOfTheLinesClaudeWrote(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "one\nC:two\nA:three\nC:four\n", "b.txt": "mine\n"}, "-m", "work")
	f.check()
	if got, want := f.attested(sha), "a.txt\n  claude 2,4\n  you 3"; got != want {
		t.Fatalf("note:\n%s\nwant:\n%s", got, want)
	}
	// Only the lines a commit adds are its own: a later commit touching
	// the file attests its new line alone.
	sha2 := f.commit(map[string]string{"a.txt": "one\nC:two\nA:three\nC:four\nC:five\n"}, "-m", "more")
	f.check()
	if got, want := f.attested(sha2), "a.txt\n  claude 5"; got != want {
		t.Fatalf("second note:\n%s\nwant:\n%s", got, want)
	}
	// Blame reads them back: git blame → commit → note.
	authors := f.room.Committed(filepath.Join(f.top, "a.txt"), "one\nC:two\nA:three\nC:four\nC:five\nunsaved\n")
	kinds := ""
	for _, a := range authors[1:] {
		kinds += map[review.Kind]string{"": "-", review.You: "y", review.Claude: "c", review.Amended: "a"}[a.Kind]
	}
	// Line 1 is of a commit with no note, in a file notes of ours cover:
	// yours, as a fresh clone's blame says; the unsaved line is nobody's.
	if kinds != "ycacc-" || authors[2].Commit != sha || authors[5].Commit != sha2 || authors[2].Model != "m" || authors[2].Turn != 1 {
		t.Fatalf("committed authors %q %+v", kinds, authors)
	}
}

// git writes a commit's reflog before it moves the branch: a look between
// the two sees HEAD's log grown and the old commit. The next look must
// still see the commit (it once went unnoted until the next one).
func TestACommitSeenHalfWrittenIsNotedOnTheNextLook(t *testing.T) {
	f := newFixture(t, true)
	f.check()
	write(t, filepath.Join(f.top, "a.txt"), "one\nC:two\n")
	git(t, f.top, "add", "-A")
	tree := git(t, f.top, "write-tree")
	sha := git(t, f.top, "commit-tree", tree, "-p", "HEAD", "-m", "more")
	gitDir := filepath.Join(f.top, ".git")
	logf, err := os.OpenFile(filepath.Join(gitDir, "logs", "HEAD"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(logf, "%s %s t <t@example.com> 1 +0000\tcommit: more\n", f.rp.head, sha); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	f.check() // the reflog grown, the branch not moved yet
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		t.Fatalf("HEAD is %q", head)
	}
	moveRef(t, filepath.Join(gitDir, ref), sha)
	f.noted(sha, "a.txt\n  claude 2")
}

// A worktree's branch is in the repository's common folder: it moving
// there changes the worktree's signature too.
func TestAWorktreesBranchIsInItsSignature(t *testing.T) {
	f := newFixture(t, true)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, f.top, "worktree", "add", "-q", "-b", "side", wt)
	gitDir := git(t, wt, "rev-parse", "--absolute-git-dir")
	before := signature(gitDir)
	sha := git(t, f.top, "commit-tree", git(t, f.top, "write-tree"), "-p", "HEAD", "-m", "moved")
	moveRef(t, filepath.Join(f.top, ".git", "refs", "heads", "side"), sha)
	if after := signature(gitDir); after == before {
		t.Fatalf("the worktree's signature did not change when its branch moved: %q", after)
	}
}

// moveRef moves the loose ref at path to sha as git does: a lock file
// renamed into place, dated later than the ref it replaces whatever the
// clock's grain.
func moveRef(t *testing.T, path, sha string) {
	t.Helper()
	write(t, path+".lock", sha+"\n")
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(path+".lock", later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".lock", path); err != nil {
		t.Fatal(err)
	}
}

func TestNoNoteWithoutAClaudeLine(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "one\ntwo\nthree\n"}, "-m", "mine")
	f.check()
	if _, found := f.note(sha); found {
		t.Fatal("a note on a commit with no Claude line")
	}
}

func TestAnotherToolsNoteIsLeftAlone(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "C:x\n"}, "-m", "w")
	git(t, f.top, "notes", "--ref="+gitai.Ref, "add", "-m", "reviewed by bob", sha)
	f.check()
	if text, _ := f.note(sha); text != "reviewed by bob\n" {
		t.Fatalf("the note became %q", text)
	}
}

// Another agent's tool noted the commit in the standard's format: our
// lines join its note (its lines and prompt kept), and a second look adds
// nothing more.
func TestOurLinesJoinAnotherToolsGitAINote(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "theirs\nC:ours\n", "b.txt": "x\n"}, "-m", "both")
	theirs := "a.txt\n  0123456789abcdef 1\nb.txt\n  0123456789abcdef 1\n---\n" +
		`{"schema_version":"authorship/3.0.0","base_commit_sha":"` + sha + `","prompts":{"0123456789abcdef":` +
		`{"agent_id":{"tool":"cursor","id":"s1","model":"m"},"human_author":null,"total_additions":2,"total_deletions":0,"accepted_lines":2,"overriden_lines":0}}}` + "\n"
	file := filepath.Join(t.TempDir(), "note")
	write(t, file, theirs)
	git(t, f.top, "notes", "--ref="+gitai.Ref, "add", "-F", file, sha)
	f.check()
	text, _ := f.note(sha)
	n, err := gitai.Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if n.Who("a.txt", 1) != "0123456789abcdef" || n.Who("b.txt", 1) != "0123456789abcdef" || n.Who("a.txt", 2) == "" || !n.Ours() {
		t.Fatalf("the joined note:\n%s", text)
	}
	if n.Meta.Prompts["0123456789abcdef"].AgentID.Tool != "cursor" {
		t.Fatalf("their prompt: %+v", n.Meta.Prompts)
	}
	f.check()
	if again, _ := f.note(sha); again != text {
		t.Fatalf("a second look changed the note:\n%s", again)
	}
}

func TestARenamedFileIsNotedUnderItsNewName(t *testing.T) {
	f := newFixture(t, true)
	if err := os.Mkdir(filepath.Join(f.top, "dir with space"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, f.top, "mv", "a.txt", "dir with space/b.txt")
	sha := f.commit(map[string]string{"dir with space/b.txt": "one\ntwo\nC:three\n"}, "-m", "move")
	f.check()
	if got, want := f.attested(sha), "\"dir with space/b.txt\"\n  claude 3"; got != want {
		t.Fatalf("note:\n%s\nwant:\n%s", got, want)
	}
}

func TestNoCommitsYetThenTheFirstOne(t *testing.T) {
	f := newFixture(t, false)
	f.check() // no HEAD: nothing, no error
	sha := f.commit(map[string]string{"a.txt": "C:first\n"}, "-m", "root")
	f.noted(sha, "a.txt\n  claude 1")
}

func TestADetachedHeadsCommitIsNoted(t *testing.T) {
	f := newFixture(t, true)
	git(t, f.top, "checkout", "-q", "--detach")
	sha := f.commit(map[string]string{"a.txt": "one\ntwo\nC:three\n"}, "-m", "detached")
	f.noted(sha, "a.txt\n  claude 3")
}

// An amend whose lines the live record no longer knows (another machine)
// keeps the note of the commit it replaced, as git notes copy does.
func TestAnAmendKeepsTheNote(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "one\ntwo\nC:three\n"}, "-m", "w")
	f.check()
	f.live = false
	amended := f.commit(nil, "--amend", "-m", "w, reworded")
	f.check()
	text, found := f.note(amended)
	if !found || !strings.Contains(text, `"base_commit_sha": "`+amended+`"`) || !strings.HasPrefix(text, "a.txt\n") {
		t.Fatalf("the amended commit's note (found %v):\n%s", found, text)
	}
	if _, found := f.note(sha); !found {
		t.Fatal("the replaced commit lost its note")
	}
}

func TestTurnedOffWritesNothing(t *testing.T) {
	f := newFixture(t, true)
	f.room.deps.Enabled = func() bool { return false }
	sha := f.commit(map[string]string{"a.txt": "C:x\n"}, "-m", "w")
	f.check()
	if _, found := f.note(sha); found {
		t.Fatal("a note while provenance = false")
	}
}

// commitBig commits a 10,000-line file of Claude's lines (the i-th
// version).
func (f *fixture) commitBig(i int) string {
	var sb strings.Builder
	for l := range 10000 {
		fmt.Fprintf(&sb, "C:line %d of %d\n", l, i)
	}
	return f.commit(map[string]string{"big.txt": sb.String()}, "-m", "big")
}

// BenchmarkNoteOf10kLineCommit: the note of a commit adding a
// 10,000-line file Claude wrote, git's processes included (off the
// editor's loop; this is how long a commit waits for its note).
func BenchmarkNoteOf10kLineCommit(b *testing.B) {
	benchOnBigCommits(b, func(f *fixture, sha string) error { return f.room.noteCommit(context.Background(), f.rp, sha) })
}

// BenchmarkGitNotesAddControl is git's own part of the same work: one
// `git notes add` of a one-line note on a commit like the one above. The
// note's cost is read against it.
func BenchmarkGitNotesAddControl(b *testing.B) {
	benchOnBigCommits(b, func(f *fixture, sha string) error { return gitai.Add(context.Background(), f.top, sha, "x\n", false) })
}

// benchOnBigCommits times fn on a fresh 10,000-line commit each round (the
// commit itself is not timed).
func benchOnBigCommits(b *testing.B, fn func(f *fixture, sha string) error) {
	b.Setenv("HOME", b.TempDir())
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f := newFixture(b, true)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		sha := f.commitBig(i)
		b.StartTimer()
		if err := fn(f, sha); err != nil {
			b.Fatal(err)
		}
	}
}

func TestShowWordsTheNote(t *testing.T) {
	f := newFixture(t, true)
	sha := f.commit(map[string]string{"a.txt": "one\nC:two\nA:three\n"}, "-m", "louder")
	f.check()
	v, err := f.room.Show(Params{Cwd: f.top})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Commit  " + sha[:7] + " louder",
		"Note    authorship/3.0.0 in refs/notes/ai, written by claude-nova.nvim",
		"",
		"a.txt",
		"  Claude  lines 2  (1 line; prompt 1)",
		"  amended by you  lines 3  (1 line; in Claude's proposal, t <t@example.com>)",
		"",
		"Prompts",
		"  prompt 1 · claude session sess · model m · 1 line",
	}
	if strings.Join(v.Lines, "\n") != strings.Join(want, "\n") || !v.Found || v.Commit != sha {
		t.Fatalf("view:\n%s\nwant:\n%s", strings.Join(v.Lines, "\n"), strings.Join(want, "\n"))
	}
	// A commit without a note says so; a revision that is none is an error.
	f.commit(map[string]string{"b.txt": "mine\n"}, "-m", "mine")
	f.check()
	if v, err := f.room.Show(Params{Cwd: f.top}); err != nil || v.Found || !strings.Contains(strings.Join(v.Lines, "\n"), "No authorship note") {
		t.Fatalf("no note: %+v %v", v, err)
	}
	if _, err := f.room.Show(Params{Cwd: f.top, Rev: "nope"}); err == nil || !strings.Contains(err.Error(), `no commit "nope"`) {
		t.Fatalf("bad rev: %v", err)
	}
	// Push: no remote is a message, a local bare remote gets the ref.
	if _, err := f.room.Push(Params{Cwd: f.top}); err == nil || !strings.Contains(err.Error(), "no remote") {
		t.Fatalf("push without a remote: %v", err)
	}
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	git(t, f.top, "remote", "add", "origin", bare)
	out, err := f.room.Push(Params{Cwd: f.top})
	if err != nil || !strings.Contains(out.Message, "to origin") {
		t.Fatalf("push: %+v %v", out, err)
	}
	f.room.d.Wait()
	if got := git(t, bare, "notes", "--ref="+gitai.Ref, "show", sha); !strings.Contains(got, "authorship/3.0.0") {
		t.Fatalf("the remote's note: %s", got)
	}
}

// Where git knows no identity (only the commit carries one), the note is
// still written, as the commit's committer.
func TestANoteWithoutAnIdentityConfigured(t *testing.T) {
	f := newFixture(t, true)
	git(t, f.top, "config", "--unset", "user.name")
	git(t, f.top, "config", "--unset", "user.email")
	sha := f.commit(map[string]string{"a.txt": "C:x\n"}, "-m", "w")
	f.noted(sha, "a.txt\n  claude 1")
}

// A rebase whose commits the live record no longer knows keeps their
// notes: each picked commit's note goes to the commit the rebase made.
func TestARebaseKeepsTheNotes(t *testing.T) {
	f := newFixture(t, true)
	main := git(t, f.top, "symbolic-ref", "--short", "HEAD")
	git(t, f.top, "checkout", "-q", "-b", "topic")
	sha := f.commit(map[string]string{"c.txt": "C:one\nC:two\n"}, "-m", "topic work")
	f.check()
	if f.attested(sha) == "" {
		t.Fatal("no note on the topic commit")
	}
	git(t, f.top, "checkout", "-q", main)
	f.commit(map[string]string{"d.txt": "theirs\n"}, "-m", "upstream")
	git(t, f.top, "checkout", "-q", "topic")
	f.live = false
	git(t, f.top, "rebase", "-q", main)
	f.check()
	rebased := git(t, f.top, "rev-parse", "HEAD")
	if rebased == sha {
		t.Fatal("nothing was rebased")
	}
	text, found := f.note(rebased)
	if !found || !strings.HasPrefix(text, "c.txt\n") || !strings.Contains(text, `"base_commit_sha": "`+rebased+`"`) {
		t.Fatalf("the rebased commit's note (found %v):\n%s", found, text)
	}
}

// A shallow clone (history cut at depth 1): a commit made there is noted,
// and blame there reads the note back.
func TestAShallowCloneIsNoted(t *testing.T) {
	f := newFixture(t, true)
	f.commit(map[string]string{"a.txt": "one\ntwo\nthree\n"}, "-m", "second")
	clone := filepath.Join(t.TempDir(), "shallow")
	git(t, filepath.Dir(clone), "clone", "-q", "--depth=1", "file://"+f.top, clone)
	git(t, clone, "config", "user.email", "t@example.com")
	git(t, clone, "config", "user.name", "t")
	f.top = clone
	head := git(t, clone, "rev-parse", "HEAD")
	f.rp = &repo{top: clone, gitDir: filepath.Join(clone, ".git"), head: head}
	sha := f.commit(map[string]string{"a.txt": "one\ntwo\nthree\nC:four\n"}, "-m", "in the clone")
	f.noted(sha, "a.txt\n  claude 4")
	// Blame in the shallow clone reads it back.
	authors := f.room.Committed(filepath.Join(clone, "a.txt"), "one\ntwo\nthree\nC:four\n")
	if len(authors) != 5 || authors[4].Kind != review.Claude || authors[4].Commit != sha {
		t.Fatalf("committed authors %+v", authors)
	}
}

// Neovim exiting (Close) gives up a check: the last HEAD kept is not moved
// past commits that got no note, so the next start notes them.
func TestAClosedRoomKeepsTheLastHead(t *testing.T) {
	f := newFixture(t, true)
	before := f.rp.head
	sha := f.commit(map[string]string{"a.txt": "C:x\n"}, "-m", "w")
	f.room.Close()
	f.room.check(f.room.ctx, f.rp)
	if f.rp.head != before {
		t.Fatalf("the last HEAD moved to %s", f.rp.head)
	}
	if _, found := f.note(sha); found {
		t.Fatal("a note written after Close")
	}
}

// A session's folder in no repository is watched once one holds it (git
// init while the session runs): its first commit gets its note.
func TestAFolderThatBecomesARepositoryIsWatched(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	storage := t.TempDir()
	room := New(desk.New(nowhere{}, session.NewManager(), nil), Deps{
		Storage: func() string { return storage },
		Enabled: func() bool { return true },
		Known:   func(string) bool { return true },
		Authors: byText,
	})
	defer room.Close()
	room.watchDir(dir, false)
	deadline := time.Now().Add(5 * time.Second)
	for {
		room.mu.Lock()
		outside := room.outside[dir]
		room.mu.Unlock()
		if outside {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the folder was not kept to look at again")
		}
		time.Sleep(10 * time.Millisecond)
	}
	git(t, dir, "init", "-q")
	write(t, filepath.Join(dir, "a.txt"), "one\nC:two\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "first")
	sha := git(t, dir, "rev-parse", "HEAD")
	deadline = time.Now().Add(10 * time.Second)
	for {
		if _, found, _ := gitai.Show(context.Background(), dir, sha); found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first commit after git init got no note")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
