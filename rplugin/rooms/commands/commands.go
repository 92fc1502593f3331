// Package commands sees what a command changed. Just before an allowed
// Bash command runs, the session's folder is snapshotted (package
// snapshot); when its result comes, again, and the two are compared. Each
// file it changed whose content before is known is recorded as a Write's
// change is (the checkpoint of the prompt, the review round, blame); every
// file is named in the transcript under the command, and what cannot be
// restored (an ignored file, one too big, a folder outside git) says so.
package commands

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/snapshot"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// Tools are the tools whose effects are snapshotted.
var Tools = map[string]bool{"Bash": true}

// Deps is what the room is given.
type Deps struct {
	Storage func() string
	// Record records one file a session changed (its content and mode
	// before, the command), as a Write's change is recorded.
	Record func(s *session.Session, path string, was checkpoint.Before)
}

// Room keeps the snapshots taken before commands that have not ended.
type Room struct {
	d    *desk.Desk
	deps Deps
	lim  snapshot.Limits

	mu     sync.Mutex
	dir    string                   // this host's snapshot indexes
	before map[int]map[string]taken // session -> tool_use_id -> the snapshot before
	locks  map[int]*sync.Mutex      // per session: one snapshot at a time on its index
}

type taken struct {
	snap       snapshot.Snap
	command    string
	background bool // run_in_background: compared when its task ends
	// others are the files another session changed while the command ran:
	// not the command's, whatever the snapshots say.
	others map[string]int
}

// New returns the room.
func New(d *desk.Desk, deps Deps) *Room {
	return &Room{d: d, deps: deps, lim: snapshot.Default, before: map[int]map[string]taken{}, locks: map[int]*sync.Mutex{}}
}

// maxRecorded bounds the files of one command recorded as the session's
// (checkpoint, round, blame: each is read and kept); past it they are
// named as not kept.
const maxRecorded = 2000

// limit bounds one snapshot.
const limit = 30 * time.Second

// pop removes and returns the snapshot before sid's command toolUseID.
// Callers hold mu.
func (r *Room) pop(sid int, toolUseID string) (taken, bool) {
	t, ok := r.before[sid][toolUseID]
	delete(r.before[sid], toolUseID)
	return t, ok
}

// Before snapshots the session's folder before the command of tool use id
// runs: from our PreToolUse hook (claude waits for its answer), and again
// when the user allows it (what changed while the user decided is not
// the command's). A failure is logged: the command then runs unseen.
func (r *Room) Before(s *session.Session, toolUseID string, in toolcall.Input) {
	if toolUseID == "" {
		return
	}
	snap, err := r.snap(s)
	if err != nil {
		r.d.Log.Warn("snapshot before a command", "session", s.ID, "err", err)
		return
	}
	r.mu.Lock()
	if r.before[s.ID] == nil {
		r.before[s.ID] = map[string]taken{}
	}
	r.before[s.ID][toolUseID] = taken{snap: snap, command: in.Fields.Command, background: in.Flag("run_in_background"), others: map[string]int{}}
	r.mu.Unlock()
}

// You is the session number Writes takes for the user (a save in Neovim);
// own is what a command's session's own write is recorded as.
const (
	You = 0
	own = -1
)

// Writes says that session sid (You: the user) changes path now (a
// proposal it was allowed, a tool's write, a save): for the commands
// running meanwhile (its own in the background too), that file is not
// theirs.
func (r *Room) Writes(sid int, path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for other, cmds := range r.before {
		who := sid
		if other == sid {
			who = own
		}
		for _, t := range cmds {
			t.others[filepath.Clean(path)] = who
		}
	}
}

// Finished compares the folder after each result of a command snapshotted
// before (one in the background: when its task ends, see TasksChanged),
// records its changes and names them in the transcript.
func (r *Room) Finished(s *session.Session, results []claude.ToolResult) {
	for _, res := range results {
		denied := res.Decision.Decision == "deny" // it never ran (a rule denied it)
		r.mu.Lock()
		t, ok := r.before[s.ID][res.ToolUseID]
		runsOn := ok && t.background && !res.IsError && !denied // its task runs on
		if !runsOn {
			r.pop(s.ID, res.ToolUseID)
		}
		r.mu.Unlock()
		if !ok || runsOn || denied {
			continue
		}
		r.compare(s, t)
	}
}

// TasksChanged compares the folder after the background commands of the
// session whose task ended.
func (r *Room) TasksChanged(s *session.Session) {
	ended := map[string]bool{}
	for _, task := range s.Tasks.List() {
		if task.ToolUseID != "" && !task.Running() {
			ended[task.ToolUseID] = true
		}
	}
	var done []taken
	r.mu.Lock()
	for id, t := range r.before[s.ID] {
		if t.background && ended[id] {
			done = append(done, t)
			delete(r.before[s.ID], id)
		}
	}
	r.mu.Unlock()
	for _, t := range done {
		r.compare(s, t)
	}
}

// compare takes the snapshot after t's command and records what it did.
func (r *Room) compare(s *session.Session, t taken) {
	after, err := r.snap(s)
	if err != nil {
		r.d.Log.Warn("snapshot after a command", "session", s.ID, "err", err)
		r.d.Note(s, fmt.Sprintf("Could not see what `%s` changed: %v", short(t.command), err))
		return
	}
	ctx, cancel := r.d.Bounded(limit)
	cs, err := snapshot.Compare(ctx, t.snap, after, r.lim)
	cancel()
	if err != nil {
		r.d.Log.Warn("compare snapshots", "session", s.ID, "err", err)
		return
	}
	o := split(snapshot.MarkUnsure(t.snap, after, cs), t.others)
	o.Partial = after.Partial
	if len(o.Changes) == 0 && len(o.Others) == 0 && len(o.Unsure) == 0 {
		return
	}
	for _, c := range o.Unsure {
		s.Turns.NotKept(c.Path) // neither the session's nor restorable: named
	}
	cs = o.Changes
	recorded := 0
	for _, c := range cs {
		if c.Unknown || recorded >= maxRecorded {
			s.Turns.NotKept(c.Path)
			continue
		}
		recorded++
		was := checkpoint.Before{By: t.command}
		if c.Status != snapshot.Created && c.Before != nil {
			was.Content, was.Existed, was.Mode = *c.Before, true, c.Mode
		}
		r.deps.Record(s, c.Path, was)
	}
	ctx, cancel = r.d.Bounded(limit)
	diff, err := snapshot.Diff(ctx, t.snap, after, cs, maxDiffLines)
	cancel()
	if err != nil {
		r.d.Log.Warn("diff of a command", "session", s.ID, "err", err)
	}
	// The line names the files; <CR> on it opens the diff beneath.
	r.d.Transcript(s, s.Transcript.Folded(Describe(t.command, o), diff))
}

// maxDiffLines bounds the diff folded under a command's line.
const maxDiffLines = 400

// Outcome is what a command was seen to change.
type Outcome struct {
	Changes []snapshot.Change // its own
	Others  []string          // files another session (or you) wrote meanwhile: "b.txt (session 2)"
	Unsure  []snapshot.Change // files written while a snapshot was read
	Partial bool              // the folder is bigger than a snapshot reads
}

// split sets aside the changes of files another session wrote meanwhile
// and those written while a snapshot was read: neither is the command's.
func split(cs []snapshot.Change, others map[string]int) Outcome {
	var o Outcome
	for _, c := range cs {
		if sid, ok := others[filepath.Clean(c.Path)]; ok {
			if sid == own {
				continue // the session's own tool wrote it: shown as that tool's
			}
			who := fmt.Sprintf("session %d", sid)
			if sid == You {
				who = "you"
			}
			o.Others = append(o.Others, fmt.Sprintf("%s (%s)", c.Rel, who))
			continue
		}
		if c.Unsure {
			o.Unsure = append(o.Unsure, c)
			continue
		}
		o.Changes = append(o.Changes, c)
	}
	return o
}

// Answered is told of the user's answer to request p of session s, just
// before claude hears of it: an allowed command's folder is snapshotted
// again (what changed while the user decided is not the command's), a
// denied one never runs, an allowed file change is not the change of
// another session's command running now.
func (r *Room) Answered(s *session.Session, p approval.Pending, allowed bool) {
	switch {
	case Tools[p.Perm.ToolName] && allowed:
		r.Before(s, p.Perm.ToolUseID, p.Perm.In)
	case Tools[p.Perm.ToolName]:
		r.mu.Lock()
		r.pop(s.ID, p.Perm.ToolUseID)
		r.mu.Unlock()
	case allowed && p.Change != nil:
		r.Writes(s.ID, p.Change.Path)
	}
}

// Forget drops what is kept for a session that ended.
func (r *Room) Forget(sid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.before, sid)
	if r.dir != "" {
		_ = os.Remove(filepath.Join(r.dir, fmt.Sprintf("%d.index", sid)))
	}
}

// Close removes this host's snapshot indexes.
func (r *Room) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir != "" {
		_ = os.RemoveAll(r.dir)
	}
}

// snap snapshots the session's folder on its own index (one at a time).
func (r *Room) snap(s *session.Session) (snapshot.Snap, error) {
	index, lock, err := r.indexOf(s.ID)
	if err != nil {
		return snapshot.Snap{}, err
	}
	lock.Lock()
	defer lock.Unlock()
	ctx, cancel := r.d.Bounded(limit)
	defer cancel()
	return snapshot.Take(ctx, s.Cwd(), index, r.lim)
}

// indexOf is the session's snapshot index: in a folder of this host's own
// (two Neovims, each with a session 1, never share one).
func (r *Room) indexOf(sid int) (string, *sync.Mutex, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		dir := filepath.Join(r.deps.Storage(), "snapshots", fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b[:])))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("snapshot folder: %w", err)
		}
		r.dir = dir
	}
	l, ok := r.locks[sid]
	if !ok {
		l = &sync.Mutex{}
		r.locks[sid] = l
	}
	return filepath.Join(r.dir, fmt.Sprintf("%d.index", sid)), l, nil
}

func short(command string) string { return sanitize.FirstLine(command, 60) }

// Describe is the transcript's line for what a command changed:
// "`sed -i …` changed 2 files +1 −1: a.txt, new.txt (new)".
func Describe(command string, o Outcome) string {
	cs := o.Changes
	added, removed := 0, 0
	var names, unknown []string
	for _, c := range cs {
		added += c.Added
		removed += c.Removed
		name := c.Rel
		switch c.Status {
		case snapshot.Created:
			name += " (new)"
		case snapshot.Deleted:
			name += " (deleted)"
		}
		if c.Ignored {
			name += " (ignored)"
		}
		names = append(names, name)
		if c.Unknown {
			unknown = append(unknown, c.Rel)
		}
	}
	files := "1 file"
	if len(cs) != 1 {
		files = fmt.Sprintf("%d files", len(cs))
	}
	line := fmt.Sprintf("`%s` changed %s +%d −%d: %s", short(command), files, added, removed, sanitize.List(names, 8))
	if len(cs) == 0 {
		line = fmt.Sprintf("`%s` changed no file of its own", short(command))
	}
	if len(o.Others) > 0 {
		line += fmt.Sprintf(". Not its changes (written meanwhile): %s", sanitize.List(o.Others, 8))
	}
	if len(o.Unsure) > 0 {
		rels := make([]string, len(o.Unsure))
		for i, c := range o.Unsure {
			rels[i] = c.Rel
		}
		line += fmt.Sprintf(". Unsure whether it changed (written while the folder was read; not kept for rewind): %s", sanitize.List(rels, 8))
	}
	if len(unknown) > 0 {
		line += fmt.Sprintf(". Not restorable by rewind (its content before is not kept): %s", sanitize.List(unknown, 8))
	}
	if o.Partial {
		line += ". The folder is bigger than a snapshot reads: changes past its limit are not listed"
	}
	return line
}
