package approval

import (
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

// Request is one pending can_use_tool request.
type Request struct {
	ID      string // registry key: "<session>:<claude request id>"
	Session int
	Perm    claude.PermissionRequest
	Arrived time.Time
	Route   Route
	Target  string // short description: relative path, command, ...
	Added   int    // +N lines for file changes
	Removed int    // -M lines for file changes
	Staged  string // staged proposal file, when Route.Surface == SurfaceProposal
}

// Registry holds pending requests of all sessions. Take removes a request
// atomically, which is how "exactly one answer" is enforced: only the caller
// that took a request may answer it.
type Registry struct {
	mu    sync.Mutex
	items map[string]*Request
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{items: map[string]*Request{}} }

// Key builds a registry key.
func Key(session int, requestID string) string {
	return strconv.Itoa(session) + ":" + requestID
}

// Add registers r. It reports false if a request with the same key exists.
func (g *Registry) Add(r *Request) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.items[r.ID]; dup {
		return false
	}
	g.items[r.ID] = r
	return true
}

// Get returns the pending request with key id.
func (g *Registry) Get(id string) (*Request, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.items[id]
	return r, ok
}

// Update applies fn to a pending request under the lock.
func (g *Registry) Update(id string, fn func(*Request)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.items[id]
	if ok {
		fn(r)
	}
	return ok
}

// Take removes and returns the request; false if it is no longer pending.
func (g *Registry) Take(id string) (*Request, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.items[id]
	delete(g.items, id)
	return r, ok
}

// TakeSession removes and returns every pending request of a session.
func (g *Registry) TakeSession(session int) []*Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*Request
	for id, r := range g.items {
		if r.Session == session {
			out = append(out, r)
			delete(g.items, id)
		}
	}
	sortByArrival(out)
	return out
}

// List returns pending requests, oldest first.
func (g *Registry) List() []*Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*Request, 0, len(g.items))
	for _, r := range g.items {
		out = append(out, r)
	}
	sortByArrival(out)
	return out
}

// Len counts pending requests.
func (g *Registry) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.items)
}

func sortByArrival(rs []*Request) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Arrived.Equal(rs[j].Arrived) {
			return rs[i].ID < rs[j].ID
		}
		return rs[i].Arrived.Before(rs[j].Arrived)
	})
}
