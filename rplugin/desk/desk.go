// Package desk is what every room of the core is given: the sessions, the
// outbox to the front end, the log, and background work tracked for
// shutdown. A room (tasks, rounds, …) takes a *Desk and nothing else of
// the app: it talks to the front end by sending events on the outbox, and
// to other rooms only through the calls app wires between them.
package desk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/transcript"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// controlTimeout bounds how long background work (a control request to
// claude, an answer that comes later) may take.
const controlTimeout = 30 * time.Second

// Desk is shared by the rooms. Its zero value is not usable: see New.
type Desk struct {
	Log      *slog.Logger
	UI       ui.Sink
	Sessions *session.Manager

	wg sync.WaitGroup
	// ctx is the root of background work: Close cancels it, so that work
	// under way (a push, a merge) ends when Neovim does.
	ctx    context.Context
	cancel context.CancelFunc
}

// New returns a desk sending to sink.
func New(sink ui.Sink, sessions *session.Manager, log *slog.Logger) *Desk {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Desk{Log: log, UI: sink, Sessions: sessions, ctx: ctx, cancel: cancel}
}

// Close cancels the background work under way (its git, its waits): the
// host is going away.
func (d *Desk) Close() { d.cancel() }

// Later is a call whose answer comes later: a mark (ui.EvMark) with the
// call's token, sent by ReplyLater.
type Later struct {
	ReplyTo
	Session int    `json:"session"`
	ID      string `json:"id"`
}

// ReplyTo is where a later answer goes: the call's token (the host's, never
// the arguments'), and its method (named in the reply for people reading a
// recorded stream).
type ReplyTo struct {
	Token  string `json:"-"`
	Method string `json:"-"`
}

// Replier is implemented by the parameters of a call whose answer comes
// later (they hold a ReplyTo): the host gives them the call's token, and
// its reply waits for ReplyLater's.
type Replier interface{ SetReply(token, method string) }

// SetReply sets where the answer goes.
func (r *ReplyTo) SetReply(token, method string) { r.Token, r.Method = token, method }

// Outcome says what a command did, in words for the user.
type Outcome struct {
	Done    bool   `json:"done"`
	Message string `json:"message"`
}

// Session resolves id (0 = the current session).
func (d *Desk) Session(id int) (*session.Session, error) {
	if id == 0 {
		if s, ok := d.Sessions.Current(); ok {
			return s, nil
		}
		return nil, errors.New("no running session (start one with :ClaudeNova new)")
	}
	s, ok := d.Sessions.Get(id)
	if !ok {
		return nil, fmt.Errorf("no session %d", id)
	}
	return s, nil
}

// Live resolves id (0 = the current session) to a session that has not
// exited.
func (d *Desk) Live(id int) (*session.Session, error) {
	s, err := d.Session(id)
	if err != nil {
		return nil, err
	}
	if s.State() == session.StateExited {
		return nil, fmt.Errorf("session %d has exited", s.ID)
	}
	return s, nil
}

// Transcript sends a session's transcript edits to the front end.
func (d *Desk) Transcript(s *session.Session, ops []bufops.Op) {
	if len(ops) == 0 {
		return
	}
	d.UI.Send(ui.EvTranscript, &bufops.Update{Session: s.ID, Ops: ops})
}

// Note adds a note line to a session's transcript.
func (d *Desk) Note(s *session.Session, text string) {
	d.Transcript(s, s.Transcript.Note(text))
}

// Tell gets a note to Claude: at once while a turn runs (the CLI adds it
// to the turn), else with the next prompt. The transcript shows it.
func (d *Desk) Tell(s *session.Session, note string) {
	d.Transcript(s, s.Transcript.ToldBy(transcript.ToldClaude, note))
	if !d.SendNote(s, note) {
		d.Transcript(s, s.Transcript.Note("Claude reads this note with your next prompt."))
	}
}

// SendNote is Tell without the transcript: true when it went at once.
func (d *Desk) SendNote(s *session.Session, note string) bool {
	switch s.State() {
	case session.StateRunning, session.StateWaiting:
		if err := s.Proc.SendNote(note); err == nil { // no person typed it: isSynthetic
			return true
		}
	}
	s.Tell(note)
	return false
}

// Notify tells the user something. The full text is logged; the front end
// shows it on one line.
func (d *Desk) Notify(level, msg string) {
	d.Log.Info("notify", "level", level, "msg", msg)
	d.UI.Send(ui.EvNotify, map[string]any{"msg": msg, "level": level})
}

// Landed tells the editor that the host wrote a file of the user's (a
// merge, a rewind; claude's own writes are told as its tools finish): its
// buffers follow the disk, unsaved edits kept and told once. tookUnsaved
// says the file now holds the buffer's unsaved text the front end gave
// (a merge made from it): the buffer is read again unless typed in since.
func (d *Desk) Landed(path string, tookUnsaved bool) {
	ev := map[string]any{"path": path}
	if tookUnsaved {
		ev["took_unsaved"] = true
	}
	d.UI.Send(ui.EvFileWritten, ev)
}

// Go runs fn on a goroutine tracked for Wait.
func (d *Desk) Go(fn func()) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		fn()
	}()
}

// Background runs fn with a bounded context, tracked for Wait and
// cancelled by Close.
func (d *Desk) Background(fn func(ctx context.Context)) {
	d.BackgroundFor(controlTimeout, fn)
}

// BackgroundFor is Background with another bound (a push to a remote).
func (d *Desk) BackgroundFor(limit time.Duration, fn func(ctx context.Context)) {
	d.Go(func() {
		ctx, cancel := d.Bounded(limit)
		defer cancel()
		fn(ctx)
	})
}

// Bounded is a context for work done in place (not in the background),
// bounded by limit and ended by Close like background work.
func (d *Desk) Bounded(limit time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(d.ctx, limit)
}

// ReplyLater runs fn in the background and sends its outcome as the
// call's reply (a mark with its token), in the stream like every reply.
func (d *Desk) ReplyLater(to ReplyTo, fn func(ctx context.Context) (any, error)) {
	d.Background(func(ctx context.Context) {
		res, err := fn(ctx)
		d.UI.Send(ui.EvMark, ui.Mark{Token: to.Token, Method: to.Method, Reply: ui.Answered(res, err)})
	})
}

// Wait returns when every goroutine started by Go, Background and
// ReplyLater has returned.
func (d *Desk) Wait() { d.wg.Wait() }

// Plural is "1 file", "2 files".
func Plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
