package approval

import (
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
)

// State is where a pending request is in its life.
type State int

// The states of a Pending, in order. A request never goes back.
const (
	Registered State = iota // in the registry; the UI has its row
	Presented               // its surface was sent to the UI
	Finished                // answered or withdrawn: gone from the registry
)

// Pending is one can_use_tool request and everything the plugin holds for it
// until it is answered or withdrawn: the request, its route, the
// reconstructed file change with its revision, the staged proposal file.
//
// A Pending lives in a Registry, which is its only owner: every change goes
// through a Registry method under the registry's lock, so what the UI is
// told about a request (added, presented, rebased, removed) happens in the
// order the request lived it. Callers get copies (Get, List): reading one
// never races with a change.
type Pending struct {
	ID      string // registry key: "<session>:<claude request id>"
	Session int
	// Kind answers it (see Kind): every request has one.
	Kind    Kind
	Perm    claude.PermissionRequest
	Arrived time.Time
	Route   Route
	Target  string // short description: relative path, command, ...
	Added   int    // +N lines for file changes
	Removed int    // -M lines for file changes

	// Change is the reconstructed file change of a file request (nil for
	// others). It is never modified in place: a rebase replaces it and
	// increments Rev.
	Change *proposal.Change
	// Summary is Change's counts and hunks, from one diff (nil: not made).
	Summary *proposal.Summary
	Rev     int
	// Staged is the staged proposal file, when Route.Surface == SurfaceProposal.
	Staged string
	// StageKey is the id it was staged under (Restage needs it): the
	// request's, or the tool call's for one made before claude asked.
	StageKey string
	// Prepared is the id under which the editor read the original ahead,
	// when it was asked before the request came (package rooms/ahead).
	Prepared string
	// Conflicts lists the lines (1-based, in the staged file) of the
	// conflict blocks the last rebase wrote; while any remain, a save
	// applies nothing.
	Conflicts []int
	// Elicit is set for an elicitation (an MCP server of the user's asks
	// the user for input): Perm then only names it for display.
	Elicit *claude.ElicitationRequest
	// Outside is set when one of the editor's own tools wants something
	// from outside the session's folders: the host asks before its tool
	// answers (claude is not asked, and gets the tool's result, not an
	// answer). Perm then only names the tool and its arguments.
	Outside *Outside
	// Merge is set for a file of a worktree's branch brought into the
	// checkout (:ClaudeNova merge): claude is not asked, a save writes the
	// file and a rejection skips it. Perm then only names the file.
	Merge *Merge

	state State
}

// Merge is one file of a worktree's branch proposed for the checkout.
type Merge struct {
	Branch  string // the worktree's branch
	Path    string // the file in the checkout
	Rel     string // as the repository names it
	Deleted bool   // the branch deleted it: a save removes it
	// Mode is the file's mode once applied (0o644 or 0o755; 0: as it is).
	Mode os.FileMode
	// Unsaved says the checkout's side is the user's buffer with edits not
	// written yet (Change.Original): Disk is then the file on disk when the
	// merge read it (DiskExists: it was there), what a save checks against.
	Unsaved    bool
	Disk       []byte
	DiskExists bool
}

// Outside is what an editor tool wants from outside the session's folders.
type Outside struct {
	Tool        string // the editor tool (buffer_text, …)
	Path        string // the real path
	Shown       string // the path as a person reads it ("~/notes/todo.txt")
	Folder      string // the folder "allow the folder" lets through (real)
	FolderShown string
	What        string   // "the text of ~/notes/todo.txt (open in your editor)"
	Preview     string   // exactly what Claude would receive
	Inside      []string // the session's folders, as a person reads them
}

// State reports where the request is in its life (as of the copy).
func (p Pending) State() State { return p.state }

// Registry holds the pending requests of all sessions. Finish removes a
// request atomically, which is how "exactly one answer" is enforced: only
// the caller that finished a request may answer it.
//
// The callbacks given to Register, Present, Rebase and Finish run under the
// registry's lock. They must be short and must not call the registry; they
// are meant to hand an event to the UI (which never blocks), so that events
// about one request reach the UI in the order the request lived them: no
// surface is presented after its request was removed.
type Registry struct {
	mu    sync.Mutex
	items map[string]*Pending
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{items: map[string]*Pending{}} }

// Key builds a registry key.
func Key(session int, requestID string) string {
	return strconv.Itoa(session) + ":" + requestID
}

// Register adds p and calls announce with it under the lock. It reports
// false (and calls nothing) if a request with the same key exists.
func (g *Registry) Register(p *Pending, announce func(Pending)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.items[p.ID]; dup {
		return false
	}
	p.state = Registered
	g.items[p.ID] = p
	if announce != nil {
		announce(*p)
	}
	return true
}

// Present calls show under the lock if the request is still pending and
// records that its surface was shown. It reports whether it was pending.
func (g *Registry) Present(id string, show func(Pending)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.items[id]
	if !ok {
		return false
	}
	p.state = Presented
	if show != nil {
		show(*p)
	}
	return true
}

// Get returns a copy of the pending request with key id.
func (g *Registry) Get(id string) (Pending, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.items[id]
	if !ok {
		return Pending{}, false
	}
	return *p, true
}

// Rebase replaces the change of a pending proposal, provided its revision
// is still rev (nobody rebased it meanwhile): Change becomes next, Conflicts
// conflicts, Rev is incremented, and tell is called under the lock with the
// result. It reports whether it did so.
func (g *Registry) Rebase(id string, rev int, next *proposal.Change, conflicts []int, tell func(Pending)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.items[id]
	if !ok || p.Rev != rev {
		return false
	}
	p.Change = next
	p.Summary = nil // of the change it replaced
	p.Conflicts = conflicts
	p.Rev++
	if tell != nil {
		tell(*p)
	}
	return true
}

// Finish removes the request and calls tell with it under the lock. It
// reports false if the request is no longer pending (nothing is called).
func (g *Registry) Finish(id string, tell func(Pending)) (Pending, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.items[id]
	if !ok {
		return Pending{}, false
	}
	delete(g.items, id)
	p.state = Finished
	if tell != nil {
		tell(*p)
	}
	return *p, true
}

// FinishIf calls answer under the lock while the request is still
// pending, and removes it only when answer succeeds (then tell is called,
// also under the lock). An answer that could not be queued leaves the
// request pending: it is never lost. It reports whether the request was
// pending; err is answer's error.
func (g *Registry) FinishIf(id string, answer func(Pending) error, tell func(Pending)) (p Pending, pending bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	it, ok := g.items[id]
	if !ok {
		return Pending{}, false, nil
	}
	if err := answer(*it); err != nil {
		return *it, true, err
	}
	delete(g.items, id)
	it.state = Finished
	if tell != nil {
		tell(*it)
	}
	return *it, true, nil
}

// FinishSession removes every pending request claude asked of a session
// (its claude exited or was stopped), oldest first, calling tell for each
// under the lock. A merge proposal stays: the user asked for it, and it
// outlives the session whose branch it brings over.
func (g *Registry) FinishSession(session int, tell func(Pending)) []Pending {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*Pending
	for id, p := range g.items {
		if p.Session == session && !p.Kind.Outlives() {
			out = append(out, p)
			delete(g.items, id)
		}
	}
	sortByArrival(out)
	res := make([]Pending, 0, len(out))
	for _, p := range out {
		p.state = Finished
		if tell != nil {
			tell(*p)
		}
		res = append(res, *p)
	}
	return res
}

// List returns copies of the pending requests, oldest first.
func (g *Registry) List() []Pending {
	g.mu.Lock()
	defer g.mu.Unlock()
	ps := make([]*Pending, 0, len(g.items))
	for _, p := range g.items {
		ps = append(ps, p)
	}
	sortByArrival(ps)
	out := make([]Pending, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// Count counts the pending requests of a session (all sessions when
// session is 0).
func (g *Registry) Count(session int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if session == 0 {
		return len(g.items)
	}
	n := 0
	for _, p := range g.items {
		if p.Session == session {
			n++
		}
	}
	return n
}

// StagedDirs returns the names of the staging directories of live
// proposals (filepath.Base(filepath.Dir(Staged))), for the stale sweep.
func (g *Registry) StagedDirs(dirOf func(string) string) map[string]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	keep := map[string]bool{}
	for _, p := range g.items {
		if p.Staged != "" {
			keep[dirOf(p.Staged)] = true
		}
	}
	return keep
}

func sortByArrival(ps []*Pending) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Arrived.Equal(ps[j].Arrived) {
			return ps[i].ID < ps[j].ID
		}
		return ps[i].Arrived.Before(ps[j].Arrived)
	})
}
