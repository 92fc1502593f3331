package session

import "sync"

// Applied is what the user decided about a session's proposals that still
// has to meet claude's side: allowed proposals claude has yet to write,
// content approved for a Write claude must make again (the CLI refused the
// first because the file changed after Claude read it), and notes for
// Claude that go with a tool call's result.
type Applied struct {
	mu       sync.Mutex
	paths    map[string]string // tool_use_id -> path: allowed proposals claude has yet to write
	rewrites map[string][]byte // path -> content the user approved for a Write Claude must make again
	notes    map[string]string // tool_use_id -> what the user changed in its proposal
}

func newApplied() *Applied {
	return &Applied{paths: map[string]string{}, rewrites: map[string][]byte{}, notes: map[string]string{}}
}

// Mark records an allowed proposal claude is about to write.
func (a *Applied) Mark(toolUseID, path string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paths[toolUseID] = path
}

// Written returns (and forgets) the path of an applied proposal whose tool
// call finished.
func (a *Applied) Written(toolUseID string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	path, ok := a.paths[toolUseID]
	delete(a.paths, toolUseID)
	return path, ok
}

// ExpectRewrite records content the user approved for path: Claude was
// asked to read the file again and Write exactly this.
func (a *Applied) ExpectRewrite(path string, content []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rewrites[path] = append([]byte(nil), content...)
}

// TakeRewrite reports whether content is exactly what the user approved
// for path (see ExpectRewrite), and forgets the approval when it is: it
// allows one Write.
func (a *Applied) TakeRewrite(path, content string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	want, ok := a.rewrites[path]
	if !ok || string(want) != content {
		return false
	}
	delete(a.rewrites, path)
	return true
}

// SetResultNote keeps a note for Claude that goes with the result of tool
// call toolUseID (what the user changed in its proposal): our PostToolUse
// hook hands it over beside the result (TakeResultNote).
func (a *Applied) SetResultNote(toolUseID, note string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notes[toolUseID] = note
}

// TakeResultNote returns and forgets the note for toolUseID's result.
func (a *Applied) TakeResultNote(toolUseID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.notes[toolUseID]
	delete(a.notes, toolUseID)
	return n
}

// forget drops what is pending: the session's claude exited.
func (a *Applied) forget() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paths, a.rewrites = map[string]string{}, map[string][]byte{}
}
