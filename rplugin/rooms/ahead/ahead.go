// Package ahead makes a file change's proposal while claude checks the
// change, before it asks for it.
//
// Claude names a tool call (its assistant message) and then checks it
// before it asks for permission: between the two the real CLI (2.1.328)
// took at the least 5–8 ms for an Edit of a 1,000-line file and 16–20 ms
// for one of 100,000 lines, 9 and 26 ms typically (make bench times it).
// The host's part of a proposal (read the file, make the file as it would
// be after the change, sum it up, stage it) takes from a fraction of a
// millisecond to 10 ms, and used to begin only once claude asked. Here it
// begins when the call is named; when claude asks for exactly that call,
// on a file still as it was read, the request takes what was made. A call
// claude never asks for (a rule allowed it, it was denied without asking,
// the turn or the session ended) has its staged file removed.
//
// Nothing here decides anything: a call made ahead is only a staged file
// in the host's own storage until a request takes it, and a request that
// finds the file changed, or its input or folder not the one named, is
// made again the usual way.
package ahead

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"sync"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	modes "github.com/claude-nova/claude-nova.nvim/rplugin/mode"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

const (
	// MaxInput is the largest tool input made ahead: an Edit's is small, a
	// Write's holds the whole file and is decoded a second time here.
	MaxInput = 1 << 20
	// maxCalls bounds the calls being made or waiting to be asked for, in
	// all sessions (each holds its file twice in memory).
	maxCalls = 16
	// makers is how many calls are made at once (the others wait their
	// turn): a message that names many large edits reads few files at a
	// time.
	makers = 2
	// maxHeld bounds the bytes the calls made and not yet asked for hold
	// (a file before and after its change): what is over is made when
	// claude asks, as before.
	maxHeld = 256 << 20
)

// Made is a file change made ahead.
type Made struct {
	Change  proposal.Change
	Summary proposal.Summary
	// Staged is the staged file; StageKey the id it was staged under (the
	// tool call's id, not the request's).
	Staged, StageKey string
}

type key struct {
	session int
	toolUse string
}

// call is one named tool call being made, or made.
type call struct {
	done    chan struct{} // closed once made (or failed, or dropped)
	tool    string
	in      toolcall.Input
	cwd     string
	storage string
	made    Made
	// prepared is the id the editor was asked to read a large original
	// under ("" for none, or once it was told to drop it).
	prepared string
	ok       bool          // made and staged
	dropped  bool          // no request will take it: unstage what is made
	begun    chan struct{} // closed once its maker began, or waits its turn
	started  bool          // its maker began (else a request makes it itself)
	held     int           // the bytes it holds, counted in Room.held
}

// Room holds the calls made ahead, by session and tool call.
type Room struct {
	log *slog.Logger
	// stage is held while a staged folder is made or handed over, and by
	// the sweep of stale proposals: a folder being staged is kept by
	// neither the registry nor this room yet.
	stage sync.Locker
	read  func(string) ([]byte, error)
	send  func(event string, data any) // to the front end (ui.Sink's Send)
	// settings are the options in effect: where proposals are staged, and
	// how edits are reviewed ("proposal" or "panel").
	settings func() (storage, review string)

	mu      sync.Mutex
	calls   map[key]*call
	held    int            // bytes the calls hold (maxHeld)
	maxHeld int            // maxHeld; tests lower it
	turns   chan struct{}  // a place among the makers
	work    sync.WaitGroup // what runs on goroutines of its own
}

// New returns a room. stage is the lock shared with the stale sweep; read
// reads a file (proposal.ReadFile); send sends an event to the front end;
// settings gives the options in effect.
func New(log *slog.Logger, stage sync.Locker, read func(string) ([]byte, error), send func(string, any),
	settings func() (storage, review string)) *Room {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Room{log: log, stage: stage, read: read, send: send, settings: settings, calls: map[key]*call{},
		maxHeld: maxHeld, turns: make(chan struct{}, makers)}
}

// Eligible says whether a tool call is one this room makes ahead: a file
// change a proposal shows (not a notebook's cell), with an input of at
// most MaxInput bytes.
func Eligible(tool string, input []byte) bool {
	return proposal.IsFileChange(tool) && tool != "NotebookEdit" && len(input) <= MaxInput
}

// Names reports whether an assistant message names a call this room makes
// ahead (Eligible): what a message of text needs to know, with no lock.
func Names(a *claude.Assistant) bool {
	if a == nil {
		return false
	}
	for _, b := range a.Content {
		if makes(b) {
			return true
		}
	}
	return false
}

// makes says whether block b names a call this room makes.
func makes(b claude.Block) bool {
	return b.Type == "tool_use" && b.ID != "" && Eligible(b.Name, b.Input)
}

// Named starts making every file change an assistant message names, for a
// session working in cwd, in permission mode mode, when claude will ask for
// them and they will be shown as proposals: a session whose mode lets edits
// through unasked, or edits reviewed in the panel, make none. It returns at
// once; the work runs on goroutines of its own.
func (r *Room) Named(session int, cwd, mode string, a *claude.Assistant) {
	switch mode {
	case modes.AcceptEdits, modes.BypassPermissions, modes.DontAsk:
		return
	}
	storage, review := r.settings()
	if a == nil || approval.ReviewEdits(review) == approval.ReviewPanel {
		return
	}
	for _, b := range a.Content {
		if !makes(b) {
			continue
		}
		k := key{session, b.ID}
		c := &call{done: make(chan struct{}), begun: make(chan struct{}), tool: b.Name, cwd: cwd, storage: storage}
		r.mu.Lock()
		_, dup := r.calls[k]
		full := len(r.calls) >= maxCalls
		if !dup && !full {
			r.calls[k] = c
		}
		r.mu.Unlock()
		if dup || full {
			continue
		}
		r.work.Add(1)
		go func() {
			defer r.work.Done()
			r.make(k, c, b.Input)
		}()
	}
}

// make reconstructs, sums up and stages one call, in its turn.
func (r *Room) make(k key, c *call, input []byte) {
	defer close(c.done)
	waited := false
	select {
	case r.turns <- struct{}{}:
	default:
		// Every maker busy: a request that comes meanwhile makes the
		// change itself rather than wait for its turn.
		waited = true
		close(c.begun)
		r.turns <- struct{}{}
	}
	defer func() { <-r.turns }()
	r.mu.Lock()
	c.started = !c.dropped
	r.mu.Unlock()
	if !waited {
		close(c.begun)
	}
	if !c.started {
		return // a request made it itself meanwhile, or it was dropped
	}
	c.in = toolcall.Decode(input)
	// The editor reads a large original meanwhile too: what it would do
	// once the request came (see ReadAhead).
	id, told := fmt.Sprintf("ahead:%d:%s", k.session, k.toolUse), false
	change, err := proposal.ReconstructOf(c.tool, c.in, c.cwd, readTelling(r.read, r.send, id, &told))
	if told {
		r.mu.Lock()
		c.prepared = id
		r.mu.Unlock()
	}
	if err != nil {
		r.unstage(c)
		return // the request will say why, when claude asks
	}
	r.mu.Lock()
	size := len(change.Original) + len(change.Proposed)
	full := r.held+size > r.maxHeld
	if !full {
		r.held += size
		c.held = size
	}
	r.mu.Unlock()
	if full {
		r.log.Debug("not made ahead: the room holds enough", "session", k.session, "tool_use_id", k.toolUse, "bytes", size)
		r.unstage(c)
		return
	}
	sum := proposal.Summarize(change)
	r.stage.Lock()
	defer r.stage.Unlock()
	r.mu.Lock()
	dropped := c.dropped
	r.mu.Unlock()
	if dropped {
		r.unstage(c)
		return
	}
	staged, err := proposal.Stage(c.storage, k.toolUse, change.StagePath(), change.Proposed)
	if err != nil {
		r.log.Debug("stage ahead", "session", k.session, "tool_use_id", k.toolUse, "err", err)
		r.unstage(c)
		return
	}
	r.mu.Lock()
	c.made = Made{Change: change, Summary: sum, Staged: staged, StageKey: k.toolUse}
	c.ok = true
	r.mu.Unlock()
}

// Taken is the file change a request asks for: made ahead (Staged set),
// or made when claude asked (to be staged by the request).
type Taken struct {
	Change *proposal.Change // nil when it could not be made (Err says why)
	Err    error
	// Staged and StageKey are set for a change made ahead: its staged file
	// and the id it was staged under (Restage needs it); Prepared the id
	// the editor read its original under, when it was asked to.
	Staged, StageKey, Prepared string
	summary                    *proposal.Summary
	summed                     chan proposal.Summary
}

// Summary is the change's counts and hunks (it waits for them when they
// are still being summed up).
func (t *Taken) Summary() *proposal.Summary {
	if t.summary == nil && t.summed != nil {
		sum := <-t.summed
		t.summary = &sum
	}
	return t.summary
}

// Take returns the file change pr asks for, and it returns holding the
// stage lock: the caller unlocks it once the request is registered (a
// folder handed over here is kept by the sweep in neither this room nor
// the registry meanwhile). The change made ahead is taken when it was made
// from the same tool, input and folder, and the file is still what it was
// read as (read again, byte for byte); else it is unstaged, and the change
// is made now from read (its summary summed up while the request stages
// it).
func (r *Room) Take(session int, pr claude.PermissionRequest, cwd string, read func(string) ([]byte, error)) *Taken {
	k := key{session, pr.ToolUseID}
	r.mu.Lock()
	c := r.calls[k]
	r.mu.Unlock()
	if c != nil {
		<-c.begun
		r.mu.Lock()
		if !c.started && r.calls[k] == c {
			// Still waiting its turn: made here rather than waited for.
			c.dropped = true
			delete(r.calls, k)
			c = nil
		}
		r.mu.Unlock()
	}
	if c != nil {
		<-c.done // it takes the stage lock to stage: waited for before taking it
	}
	r.stage.Lock()
	r.mu.Lock()
	if r.calls[k] != c || c == nil { // dropped meanwhile
		c = nil
	} else {
		delete(r.calls, k)
	}
	ok := c != nil && c.ok
	r.mu.Unlock()
	if c != nil {
		r.release(c) // the request holds it now, or nobody
	}
	if ok && c.tool == pr.ToolName && c.cwd == cwd && reflect.DeepEqual(c.in.Obj, pr.In.Obj) && r.unchanged(c.made.Change) {
		m := c.made
		return &Taken{Change: &m.Change, Staged: m.Staged, StageKey: m.StageKey, Prepared: c.prepared, summary: &m.Summary}
	}
	if ok {
		r.unstage(c)
	}
	r.stage.Unlock()
	t := &Taken{}
	change, err := proposal.ReconstructOf(pr.ToolName, pr.In, cwd, read)
	if err != nil {
		t.Err = err
	} else {
		t.Change = &change
		// Summed up while it is staged: two passes over a file of
		// megabytes, at once, while Neovim waits for the proposal.
		t.summed = make(chan proposal.Summary, 1)
		go func() { t.summed <- proposal.Summarize(change) }()
	}
	r.stage.Lock()
	return t
}

// unchanged reports whether the file a change was made from is still
// what was read: the same bytes, or still missing for a new file. It
// compares as it reads, a part at a time (no copy of a file of megabytes).
func (r *Room) unchanged(c proposal.Change) bool {
	fi, err := os.Stat(c.Path)
	if !c.Exists {
		return errors.Is(err, fs.ErrNotExist)
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(c.Original)) {
		return false
	}
	f, err := os.Open(c.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	want := c.Original
	for {
		n, err := f.Read(buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false // it grew, or differs
		}
		want = want[n:]
		if err == io.EOF {
			return len(want) == 0
		}
		if err != nil {
			return false
		}
	}
}

// Finished drops the calls of session that ended without being asked for
// (their results came: a rule allowed them, or they were refused).
func (r *Room) Finished(session int, results []claude.ToolResult) {
	for _, res := range results {
		r.drop(func(k key) bool { return k.session == session && k.toolUse == res.ToolUseID })
	}
}

// Forget drops every call of session: its turn ended, or the session did.
func (r *Room) Forget(session int) {
	r.drop(func(k key) bool { return k.session == session })
}

// drop removes the calls that match; what they staged is removed once
// made.
func (r *Room) drop(match func(key) bool) {
	var gone []*call
	r.mu.Lock()
	for k, c := range r.calls {
		if match(k) {
			c.dropped = true
			delete(r.calls, k)
			gone = append(gone, c)
		}
	}
	r.mu.Unlock()
	for _, c := range gone {
		r.work.Add(1)
		go func() {
			defer r.work.Done()
			<-c.done
			r.unstage(c)
		}()
	}
}

// unprepare tells the front end that the original it read ahead for c,
// if any, will not be needed.
func (r *Room) unprepare(c *call) {
	r.mu.Lock()
	id := c.prepared
	c.prepared = ""
	r.mu.Unlock()
	if id != "" {
		r.send(ui.EvProposalUnprepare, map[string]string{"id": id})
	}
}

// release takes what c holds off the room's count.
func (r *Room) release(c *call) {
	r.mu.Lock()
	r.held -= c.held
	c.held = 0
	r.mu.Unlock()
}

// unstage gives back what c holds: its bytes, the original the editor read
// for it, its staged folder.
func (r *Room) unstage(c *call) {
	r.release(c)
	r.unprepare(c)
	r.mu.Lock()
	staged, ok := c.made.Staged, c.ok
	c.ok = false
	r.mu.Unlock()
	if !ok {
		return
	}
	if err := proposal.Unstage(c.storage, staged); err != nil {
		r.log.Warn("remove a proposal made ahead that no request took", "path", staged, "err", err)
	}
}

// Keep adds the folders of the proposals staged here to keep, by the
// name CleanStale reads (the caller holds the stage lock).
func (r *Room) Keep(keep map[string]bool, name func(staged string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if c.ok {
			keep[name(c.made.Staged)] = true
		}
	}
}

// Settle waits until every call being made is made and every call dropped
// is unstaged.
func (r *Room) Settle() { r.work.Wait() }

// Pending is how many calls are being made or wait to be asked for.
func (r *Room) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}
