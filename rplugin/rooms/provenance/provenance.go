// Package provenance is the room that keeps who wrote each line in git,
// where other tools read it: when a commit lands in a session's
// repository (made anywhere: a shell, fugitive, lazygit, a hook), it
// writes a Git AI authorship note (package gitai, refs/notes/ai) on it for
// the lines of that commit Claude wrote, per session and prompt, the lines
// the user amended in Claude's proposals marked as the user's. It reads
// those notes back for blame (a committed line's author survives a
// restart, another machine, a fresh clone), shows a commit's note as a
// person reads it, and pushes the notes ref when asked, never by itself.
//
// How it notices a commit: a session's repository is watched from the
// session's start by polling the stat of HEAD and its reflog (no git
// process while nothing changes), and stays watched after the session
// ends; the last HEAD seen is kept in storage, and every repository kept
// there is watched again once the host starts (Resume), session or not:
// commits made while Neovim was closed get their note then, and an amend
// or a rebase keeps its note while the host runs.
package provenance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

// Deps is what the room asks of the rest of the core.
type Deps struct {
	// Storage is the plugin's storage folder.
	Storage func() string
	// Enabled says whether notes are written (option provenance).
	Enabled func() bool
	// Known says whether the live record knows who wrote path's lines.
	Known func(path string) bool
	// Authors is who wrote each line of text (path's content at some
	// commit), from the live record: index i is line i (1-based).
	Authors func(path, text string) []review.Author
	// Prompts is what a note says of a prompt (option
	// provenance.prompts; nil: a reference only).
	Prompts func() gitai.PromptMode
}

// Poll is how often a watched repository's HEAD is looked at.
const Poll = time.Second

// maxCommits bounds the commits noted at once (a long pull is not ours).
const maxCommits = 200

// Room watches the session repositories' commits.
type Room struct {
	d    *desk.Desk
	deps Deps

	mu      sync.Mutex
	repos   map[string]*repo       // by top folder
	tops    map[string]string      // folder -> its repository's top ("": none)
	outside map[string]bool        // sessions' folders in no repository (yet)
	notes   map[string]*gitai.Note // by notes ref and commit: its note, parsed (nil: none)
	blamed  map[string]headBlame   // by file: its lines at HEAD, from the notes
	// troubled are the repositories (by top) whose notes ref could not be
	// read or written, the user told; a note written there again clears it.
	troubled map[string]bool
	stop     chan struct{}
	ctx      context.Context // cancelled by Close: a note being written stops
	cancel   context.CancelFunc
	running  bool
	work     sync.Mutex // one check at a time
	version  string     // the plugin's (the notes' git_ai_version; UseVersion)
}

// UseVersion names the plugin's version in the notes it writes
// (git_ai_version).
func (r *Room) UseVersion(v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.version = v
}

// Version is the plugin's version as the notes name it ("" : none).
func (r *Room) Version() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.version
}

type repo struct {
	top, gitDir string
	sig         string // the stat of HEAD and its reflog when last looked at
	head        string // the last HEAD seen
}

// New returns the room.
func New(d *desk.Desk, deps Deps) *Room {
	ctx, cancel := context.WithCancel(context.Background())
	return &Room{d: d, deps: deps, repos: map[string]*repo{}, tops: map[string]string{}, outside: map[string]bool{}, notes: map[string]*gitai.Note{},
		blamed: map[string]headBlame{}, troubled: map[string]bool{}, stop: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// Watch starts watching the repository of session s's folder (nothing
// when it is not in one). Commits made since the last HEAD seen there
// (while Neovim was closed) are noted at once.
func (r *Room) Watch(s *session.Session) { r.watchDir(s.Cwd(), false) }

// watchDir starts watching the repository of folder cwd. A folder in none
// is looked at again each Poll (a stat per folder up, no git process) and
// watched once a repository holds it: a git init while the session runs.
// Such a repository (fresh) is new to the session: every commit in it is.
func (r *Room) watchDir(cwd string, fresh bool) {
	r.d.Go(func() {
		ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
		defer cancel()
		top := r.topOf(ctx, cwd)
		if top == "" {
			r.mu.Lock()
			r.outside[cwd] = true
			start := !r.running
			r.running = true
			r.mu.Unlock()
			if start {
				r.d.Go(r.loop)
			}
			return
		}
		r.mu.Lock()
		if _, ok := r.repos[top]; ok {
			r.mu.Unlock()
			return
		}
		gitDir, err := gitcmd.Run(ctx, top, "rev-parse", "--absolute-git-dir")
		if err != nil {
			r.mu.Unlock()
			r.d.Log.Info("provenance: no git folder", "top", top, "err", err)
			return
		}
		rp := &repo{top: top, gitDir: gitDir}
		r.repos[top] = rp
		start := !r.running
		r.running = true
		r.mu.Unlock()
		saved, had := r.loadHead(top)
		if !had && !fresh {
			head, _ := gitcmd.Run(ctx, top, "rev-parse", "-q", "--verify", "HEAD")
			saved = head
		}
		if !had {
			// Known from now on: a host that starts later (Resume) watches
			// it, even if this one ends before its first commit is noted.
			r.saveHead(top, saved)
		}
		r.work.Lock()
		rp.head = saved
		r.work.Unlock()
		r.check(ctx, rp)
		if start {
			r.d.Go(r.loop)
		}
	})
}

// Resume watches again every repository whose last HEAD is kept in
// storage (one a session ran in, this run or before) that is still there,
// in the background: an amend or a rebase there keeps its note with no
// session running. Repositories watched already are left as they are.
func (r *Room) Resume() {
	r.d.Go(func() {
		ents, err := os.ReadDir(filepath.Join(r.deps.Storage(), "provenance"))
		if err != nil {
			return // none kept yet
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(r.deps.Storage(), "provenance", e.Name()))
			var hf headFile
			if err != nil || json.Unmarshal(data, &hf) != nil || hf.Top == "" || !filepath.IsAbs(hf.Top) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(hf.Top, ".git")); err != nil {
				continue // gone, or no longer a repository's top
			}
			r.mu.Lock()
			_, watched := r.repos[hf.Top]
			r.mu.Unlock()
			if !watched {
				r.watchDir(hf.Top, false)
			}
		}
	})
}

// Close stops watching; a note being written is given up.
func (r *Room) Close() {
	r.cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
}

func (r *Room) loop() {
	t := time.NewTicker(Poll)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		r.mu.Lock()
		repos := make([]*repo, 0, len(r.repos))
		for _, rp := range r.repos {
			repos = append(repos, rp)
		}
		var found []string
		for dir := range r.outside {
			if dotGitAbove(dir) {
				found = append(found, dir)
				delete(r.outside, dir)
			}
		}
		r.mu.Unlock()
		for _, dir := range found {
			r.watchDir(dir, true)
		}
		for _, rp := range repos {
			ctx, cancel := context.WithTimeout(r.ctx, 60*time.Second)
			r.check(ctx, rp)
			cancel()
		}
	}
}

// signature is the stat of HEAD, its reflog and the branch it names: it
// changes with every commit, checkout and reset. (git writes a commit's
// reflog before it moves the branch: a look between the two sees the log
// grown and the old commit, and only the branch's own stat tells the next
// look that it moved since.)
func signature(gitDir string) string {
	var b strings.Builder
	stat := func(p string) bool {
		fi, err := os.Stat(p)
		if err == nil {
			fmt.Fprintf(&b, "%d.%d;", fi.ModTime().UnixNano(), fi.Size())
		}
		return err == nil
	}
	stat(filepath.Join(gitDir, "HEAD"))
	stat(filepath.Join(gitDir, "logs", "HEAD"))
	for _, p := range branchFiles(gitDir) {
		if stat(p) {
			break
		}
	}
	return b.String()
}

// branchFiles are where the loose ref of the branch HEAD names may be: in
// the git folder, then (a worktree's) in the repository's common folder;
// none for a detached HEAD.
func branchFiles(gitDir string) []string {
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return nil
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return nil
	}
	out := []string{filepath.Join(gitDir, ref)}
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		dir := strings.TrimSpace(string(common))
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(gitDir, dir)
		}
		out = append(out, filepath.Join(dir, ref))
	}
	return out
}

// Noted notes now the commits made in the repository holding dir since
// before (a commit the host made itself: :ClaudeNova pr commits in a
// worktree, which no session's folder watch covers). A repository not
// watched yet is watched from before on; one watched goes on from where
// it was.
func (r *Room) Noted(ctx context.Context, dir, before string) {
	top := r.topOf(ctx, dir)
	if top == "" {
		return
	}
	r.mu.Lock()
	rp, watched := r.repos[top]
	r.mu.Unlock()
	if !watched {
		gitDir, err := gitcmd.Run(ctx, top, "rev-parse", "--absolute-git-dir")
		if err != nil {
			r.d.Log.Info("provenance: no git folder", "top", top, "err", err)
			return
		}
		r.mu.Lock()
		if rp, watched = r.repos[top]; !watched {
			rp = &repo{top: top, gitDir: gitDir, head: before}
			r.repos[top] = rp
		}
		r.mu.Unlock()
	}
	r.check(ctx, rp)
}

// check notes the commits that moved HEAD since it was last seen.
func (r *Room) check(ctx context.Context, rp *repo) {
	r.work.Lock()
	defer r.work.Unlock()
	sig := signature(rp.gitDir)
	if sig == rp.sig {
		return
	}
	head, err := gitcmd.Run(ctx, rp.top, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil || head == "" {
		return // no commit yet
	}
	rp.sig = sig
	if head == rp.head {
		return
	}
	var commits []string
	rng := head
	if rp.head != "" {
		rng = rp.head + ".." + head
	}
	out, err := gitcmd.Run(ctx, rp.top, "rev-list", "--reverse", "--max-count="+strconv.Itoa(maxCommits), rng)
	if err != nil {
		// The last HEAD seen is gone (a reset, a gc): only HEAD is new.
		commits = []string{head}
	} else {
		commits = strings.Fields(out)
	}
	for _, c := range commits {
		if err := r.noteCommit(ctx, rp, c); err != nil {
			r.d.Log.Warn("provenance: note a commit", "commit", c, "err", err)
			r.trouble(ctx, rp, c, err)
		}
		if ctx.Err() != nil {
			rp.sig = "" // given up (Neovim exits): the next start goes on from the last HEAD kept
			return
		}
	}
	rp.head = head
	r.saveHead(rp.top, head)
}

// noteCommit writes the note of commit sha when Claude wrote lines of it.
func (r *Room) noteCommit(ctx context.Context, rp *repo, sha string) error {
	if r.deps.Enabled != nil && !r.deps.Enabled() {
		return nil
	}
	// Another tool's note in the standard's format gets our lines added
	// (gitai.AddTo keeps every line of theirs); one in another format is
	// left to whoever wrote it.
	theirs, found, err := gitai.Show(ctx, rp.top, sha)
	if err != nil {
		return &refError{read: true, err: err}
	}
	if found {
		n, perr := gitai.Parse(theirs)
		copied := perr == nil && n.Ours() && n.Meta.BaseCommitSHA != "" && n.Meta.BaseCommitSHA != sha
		if copied {
			// git copied it from the commit an amend or a rebase replaced
			// (notes.rewriteRef): it is this commit's now.
			return r.rebased(ctx, rp.top, sha, theirs, n.Meta.BaseCommitSHA)
		}
		if perr == nil && n.Ours() {
			return nil
		}
		if perr != nil {
			r.d.Log.Info("provenance: the commit has a note in another format; left as it is", "commit", sha, "why", perr)
			return nil
		}
	}
	info, err := gitcmd.Run(ctx, rp.top, "show", "-s", "--format=%ct%x00%an <%ae>%x00%cn%x00%ce%x00%P", sha)
	if err != nil {
		return err
	}
	parts := strings.SplitN(info, "\x00", 5)
	if len(parts) != 5 {
		return fmt.Errorf("read commit %s: %q", sha, info)
	}
	when, _ := strconv.ParseInt(parts[0], 10, 64)
	author, parents := parts[1], strings.Fields(parts[4])
	committer := []string{parts[2], parts[3]}
	if len(parents) > 1 {
		return nil // a merge: its branches' commits carry their own notes
	}
	changes, err := changedFiles(ctx, rp.top, sha)
	if err != nil {
		return err
	}
	files := map[string][]gitai.Line{}
	for _, ch := range changes {
		abs := filepath.Join(rp.top, filepath.FromSlash(ch.path))
		if r.deps.Known == nil || !r.deps.Known(abs) {
			continue
		}
		if !gitai.Writable(ch.path) {
			r.d.Log.Info("provenance: a path the note format cannot hold; left out", "path", ch.path)
			continue
		}
		lines, err := r.claudeLines(ctx, rp.top, sha, parents, ch, abs, when)
		if err != nil {
			r.d.Log.Info("provenance: read a file of the commit", "path", ch.path, "err", err)
			continue
		}
		if len(lines) > 0 {
			files[ch.path] = lines
		}
	}
	opts := gitai.Options{Prompts: gitai.PromptsRef}
	if r.deps.Prompts != nil {
		opts.Prompts = r.deps.Prompts()
	}
	opts.Version = r.Version()
	n, ok := gitai.Build(sha, author, files, opts)
	switch {
	case !ok && found:
		return nil // no line of Claude's: their note stays as it is
	case !ok:
		return r.copyRewritten(ctx, rp, sha, committer)
	case found:
		text, err := gitai.AddTo(theirs, n)
		if err != nil {
			r.d.Log.Info("provenance: the commit has another tool's note; ours not added", "commit", sha, "why", err)
			return nil
		}
		return r.writeText(ctx, rp.top, sha, n, text, true, committer)
	}
	return r.write(ctx, rp.top, sha, n, committer)
}

// rebased makes the note git copied to commit sha (text, written for
// commit from) name sha, as its committer.
func (r *Room) rebased(ctx context.Context, top, sha, text, from string) error {
	out, err := gitai.Rebased(text, sha)
	if err != nil {
		return nil // not ours to mend
	}
	who, err := gitcmd.Run(ctx, top, "show", "-s", "--format=%cn%x00%ce", sha)
	if err != nil {
		return err
	}
	name, email, _ := strings.Cut(who, "\x00")
	if err := gitai.Add(ctx, top, sha, out, true, name, email); err != nil {
		return &refError{err: err}
	}
	r.d.Log.Info("provenance: a note git copied names its new commit", "commit", sha, "from", from)
	return nil
}

// write adds note n on commit sha, made as committer (name, email); a
// failure is told (the user committed expecting it).
func (r *Room) write(ctx context.Context, top, sha string, n gitai.Note, committer []string) error {
	text, err := gitai.Format(n)
	if err != nil {
		return err
	}
	return r.writeText(ctx, top, sha, n, text, false, committer)
}

// refError is the notes ref failing: it could not be read (it names no
// notes tree: a corrupt or foreign ref) or not be written (locked, no
// room, no permission).
type refError struct {
	read bool
	err  error
}

func (e *refError) Error() string { return e.err.Error() }
func (e *refError) Unwrap() error { return e.err }

// trouble tells the user, once per repository until a note is written
// there again, that commit sha got no note and why, with the fix when the
// notes ref is at fault. Nothing when Neovim exits meanwhile.
func (r *Room) trouble(ctx context.Context, rp *repo, sha string, err error) {
	if ctx.Err() != nil {
		return
	}
	r.mu.Lock()
	told := r.troubled[rp.top]
	r.troubled[rp.top] = true
	r.mu.Unlock()
	if told {
		return
	}
	short := gitcmd.Short(sha)
	why := strings.TrimSpace(err.Error())
	var re *refError
	// What failed first and the fix next: the line is cut to the screen
	// (:messages keeps it whole).
	msg := fmt.Sprintf("no authorship note on %s: %s", short, why)
	switch {
	case errors.As(err, &re) && re.read:
		msg = fmt.Sprintf("no authorship note on %s: %s cannot be read (not a notes tree). Fix, in %s: git update-ref %s-unreadable %s && git update-ref -d %s (keeps it aside, starts afresh; git said: %s)",
			short, gitai.Ref, rp.top, gitai.Ref, gitai.Ref, gitai.Ref, why)
	case errors.As(err, &re) && strings.Contains(why, ".lock"):
		msg = fmt.Sprintf("no authorship note on %s: %s is locked. Fix: if no git runs in %s, remove %s and commit again (git said: %s)",
			short, gitai.Ref, rp.top, filepath.Join(rp.gitDir, filepath.FromSlash(gitai.Ref)+".lock"), why)
	case errors.As(err, &re):
		msg = fmt.Sprintf("no authorship note on %s: %s could not be written (git said: %s)", short, gitai.Ref, why)
	}
	r.d.Notify("warn", msg+" (told once)")
}

// writeText writes text, the note holding n, on commit sha (over the note
// there when replace: another tool's, with ours added to it).
func (r *Room) writeText(ctx context.Context, top, sha string, n gitai.Note, text string, replace bool, committer []string) error {
	if err := gitai.Add(ctx, top, sha, text, replace, committer...); err != nil {
		return &refError{err: err}
	}
	r.mu.Lock()
	delete(r.troubled, top)
	r.mu.Unlock()
	claude, amended := n.Counts()
	// The command first: the line is cut to the screen's width.
	msg := fmt.Sprintf(":ClaudeNova provenance shows %s's note: %s by Claude in %s", gitcmd.Short(sha), desk.Plural(claude, "line"), desk.Plural(len(n.Files), "file"))
	if amended > 0 {
		msg += fmt.Sprintf(", %d amended by you", amended)
	}
	r.d.Log.Info("provenance: wrote a note", "commit", sha, "files", len(n.Files), "claude", claude, "amended", amended)
	r.d.Notify("info", msg+" (a git note, refs/notes/ai)")
	return nil
}

// copyRewritten carries a note to a commit an amend or a rebase made,
// when the live record knows none of its lines (it is on another machine,
// say), as git notes copy does: from the commit an amend replaced (the
// reflog's entry before it), or from the commit a rebase picked (the
// commit of ORIG_HEAD's that has the same patch id). A note that is not
// the standard's is left to whoever wrote it.
func (r *Room) copyRewritten(ctx context.Context, rp *repo, sha string, committer []string) error {
	out, err := gitcmd.Run(ctx, rp.top, "reflog", "-n", "2", "--format=%H%x00%gs", "HEAD")
	if err != nil {
		return nil
	}
	entries := strings.Split(out, "\n")
	now, subject, _ := strings.Cut(entries[0], "\x00")
	old := ""
	switch {
	case now != sha:
	case strings.HasPrefix(subject, "commit (amend)") && len(entries) > 1:
		old, _, _ = strings.Cut(entries[1], "\x00")
	case strings.HasPrefix(subject, "rebase"):
		old = r.picked(ctx, rp.top, sha)
	}
	if old == "" || old == sha {
		return nil
	}
	text, found, err := gitai.Show(ctx, rp.top, old)
	if err != nil || !found {
		return err
	}
	n, err := gitai.Parse(text)
	if err != nil {
		return nil
	}
	n.Meta.BaseCommitSHA = sha
	r.d.Log.Info("provenance: a rewritten commit keeps its note", "commit", sha, "from", old)
	return r.write(ctx, rp.top, sha, n, committer)
}

// picked is the commit a rebase made sha from: the one among ORIG_HEAD's
// commits that HEAD lacks with the same patch id ("" when none is).
func (r *Room) picked(ctx context.Context, top, sha string) string {
	ids := func(args ...string) map[string]string {
		patch, err := gitcmd.Bytes(ctx, top, nil, args...)
		if err != nil {
			return nil
		}
		out, err := gitcmd.Bytes(ctx, top, bytes.NewReader(patch), "patch-id", "--stable")
		if err != nil {
			return nil
		}
		m := map[string]string{}
		for _, l := range strings.Split(string(out), "\n") {
			if id, commit, ok := strings.Cut(l, " "); ok {
				m[id] = commit
			}
		}
		return m
	}
	mine := ids("show", "--format=commit %H", sha)
	before := ids("log", "-p", "--format=commit %H", "--max-count="+strconv.Itoa(maxCommits), "ORIG_HEAD", "^"+sha)
	for id := range mine {
		if c, ok := before[id]; ok {
			return c
		}
	}
	return ""
}

// change is a file a commit added, changed or renamed.
type change struct{ path, from string }

// changedFiles lists the files commit sha added or changed against its
// first parent (a root commit: all of them), renames followed.
func changedFiles(ctx context.Context, top, sha string) ([]change, error) {
	out, err := gitcmd.Bytes(ctx, top, nil, "diff-tree", "-r", "-M", "--root", "--no-commit-id", "-z", "--name-status", sha)
	if err != nil {
		return nil, err
	}
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var cs []change
	for i := 0; i < len(f); {
		st := f[i]
		switch {
		case st == "":
			i++
		case strings.HasPrefix(st, "R") || strings.HasPrefix(st, "C"):
			if i+2 < len(f) {
				cs = append(cs, change{path: f[i+2], from: f[i+1]})
			}
			i += 3
		case st == "A":
			if i+1 < len(f) {
				cs = append(cs, change{path: f[i+1]})
			}
			i += 2
		case st == "M" || st == "T":
			if i+1 < len(f) {
				cs = append(cs, change{path: f[i+1], from: f[i+1]})
			}
			i += 2
		default: // D and the rest: nothing of the file is in the commit
			i += 2
		}
	}
	return cs, nil
}

// claudeLines is the lines the commit added to a file that the live
// record says Claude wrote (before the commit was made).
func (r *Room) claudeLines(ctx context.Context, top, sha string, parents []string, ch change, abs string, when int64) ([]gitai.Line, error) {
	specs := []string{sha + ":" + ch.path}
	if ch.from != "" && len(parents) > 0 {
		specs = append(specs, parents[0]+":"+ch.from)
	}
	objs, err := gitcmd.Objects(ctx, top, specs) // both sides in one git
	if err != nil {
		return nil, err
	}
	now, err := text(objs[0], ch.path)
	if err != nil {
		return nil, err
	}
	before := ""
	if len(objs) > 1 {
		if before, err = text(objs[1], ch.from); err != nil {
			return nil, err
		}
	}
	authors := r.deps.Authors(abs, now)
	nl := diff.SplitLines(now)
	ours := map[int]bool{} // the lines the commit added, by our diff (1-based)
	for _, c := range diff.Lines(diff.SplitLines(before), nl) {
		for k := c.B; k < c.B+c.Ins; k++ {
			ours[k+1] = true
		}
	}
	added := ours
	if theirs := blamedTo(ctx, top, sha, ch.path); theirs != nil {
		added = theirs
	}
	claudes := func(au review.Author) bool {
		return au.Kind != review.You && au.Kind != "" && (au.Time == 0 || au.Time <= when+60)
	}
	// Where git's alignment differs from the live record's (a repeated
	// or blank line added beside its twin), a line git calls new that the
	// record calls yours takes the author of its twin that the record
	// calls Claude's and git calls old: the note says what a fresh clone's
	// git blame reads, with as many of Claude's lines.
	twins := map[string][]review.Author{}
	for line := 1; line < len(authors) && line <= len(nl); line++ {
		if ours[line] && !added[line] && claudes(authors[line]) {
			twins[nl[line-1]] = append(twins[nl[line-1]], authors[line])
		}
	}
	var out []gitai.Line
	for line := 1; line < len(authors) && line <= len(nl); line++ {
		if !added[line] {
			continue
		}
		au := authors[line]
		if !claudes(au) {
			t := twins[nl[line-1]]
			if ours[line] || len(t) == 0 {
				continue
			}
			au, twins[nl[line-1]] = t[0], t[1:]
		}
		out = append(out, gitai.Line{N: line, Amended: au.Kind == review.Amended, Agent: gitai.Agent{
			SessionID: au.ClaudeID, Model: au.Model, Name: au.Name, Turn: au.Turn, Prompt: au.Prompt,
		}})
	}
	return out, nil
}

// blamedTo is the lines of path that git blame of commit sha says the
// commit itself wrote (1-based; nil when git cannot say): the lines a
// clone's blame looks up in the commit's note.
func blamedTo(ctx context.Context, top, sha, path string) map[int]bool {
	out, err := gitcmd.Bytes(ctx, top, nil, "blame", "--porcelain", sha, "--", path)
	if err != nil {
		return nil
	}
	mine := map[int]bool{}
	for i, bl := range parsePorcelain(string(out)) {
		if bl.sha == sha {
			mine[i+1] = true
		}
	}
	return mine
}

// text is a file's content read from git (missing, too large or binary:
// an error).
func text(out []byte, path string) (string, error) {
	if out == nil {
		return "", fmt.Errorf("%s is not in the commit", path)
	}
	if len(out) > review.MaxBlameContent {
		return "", fmt.Errorf("%s is larger than the blame keeps", path)
	}
	if strings.IndexByte(string(out), 0) >= 0 {
		return "", errors.New("a binary file")
	}
	return string(out), nil
}

// topOf is the top folder of the repository holding dir ("": none).
func (r *Room) topOf(ctx context.Context, dir string) string {
	dir = filepath.Clean(dir)
	r.mu.Lock()
	top, ok := r.tops[dir]
	r.mu.Unlock()
	if ok && (top != "" || !dotGitAbove(dir)) {
		// A folder in no repository is asked of git again once a .git
		// appears above it (a git init while the session runs): a stat per
		// folder up, no git process, while none does.
		return top
	}
	top, err := gitcmd.Run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		top = ""
	}
	r.mu.Lock()
	r.tops[dir] = top
	r.mu.Unlock()
	return top
}

// dotGitAbove reports whether dir or a folder above it holds a .git.
func dotGitAbove(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}

// The last HEAD seen per repository: <storage>/provenance/<key>.json.

type headFile struct {
	Top  string `json:"top"`
	Head string `json:"head"`
}

func (r *Room) headPath(top string) string {
	sum := sha256.Sum256([]byte(top))
	return filepath.Join(r.deps.Storage(), "provenance", hex.EncodeToString(sum[:8])+".json")
}

func (r *Room) loadHead(top string) (string, bool) {
	data, err := os.ReadFile(r.headPath(top))
	if err != nil {
		return "", false
	}
	var hf headFile
	if json.Unmarshal(data, &hf) != nil || hf.Top != top {
		return "", false
	}
	return hf.Head, true
}

func (r *Room) saveHead(top, head string) {
	data, _ := json.Marshal(headFile{Top: top, Head: head})
	p := r.headPath(top)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
		err = atomicfile.Write(p, data, atomicfile.Options{})
		if err != nil {
			r.d.Log.Warn("provenance: keep the last HEAD seen", "err", err)
		}
	}
}
