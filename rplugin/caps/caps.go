// Package caps is what one claude says it can do, learnt from its own
// words: the capabilities its system/init lists. A behaviour that needs one
// asks the set, never the version (a release may ship a capability late,
// or take one back).
package caps

import "sync"

// Capabilities of system/init the host acts on.
const (
	// AskUnanswered: an AskUserQuestion answer may set
	// annotations[question].unanswered (skipped, replied_in_chat,
	// dismissed). A claude without it may refuse the whole answer.
	AskUnanswered = "ask_user_question_unanswered_v1"
)

// Set is one claude's capabilities; the zero value is not ready (New).
type Set struct {
	mu    sync.Mutex
	names map[string]bool
}

// New returns an empty set: nothing is known before system/init.
func New() *Set { return &Set{names: map[string]bool{}} }

// Learn records the capabilities system/init listed (each init lists them
// all: the newest list replaces the one before).
func (c *Set) Learn(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = make(map[string]bool, len(names))
	for _, n := range names {
		c.names[n] = true
	}
}

// Has reports whether claude listed name.
func (c *Set) Has(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[name]
}
