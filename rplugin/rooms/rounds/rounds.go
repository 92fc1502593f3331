// Package rounds is the room of the review loop (package review): a
// session's round (what Claude changed since the review baseline), the
// user's comments on lines (kept per session folder; sent to Claude as one
// message, which closes the round), and who wrote each line of a file
// Claude changed (kept per session folder). Every change Claude makes
// reaches it from its tool result (Changed): applied proposals and
// acceptEdits writes alike. Rewind, the changes view and review rounds ask
// it whose a change is.
package rounds

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Deps is what the room asks of the rest of the core.
type Deps struct {
	// Storage is the plugin's storage folder (the review keeps its
	// files there, per session folder).
	Storage func() string
	// Home is the user's home folder (how paths are shown).
	Home func() string
	// Policy is the boundary comments are kept within, for session s
	// (nil: no session runs, cwd is the editor's folder).
	Policy func(s *session.Session, cwd string) boundary.Policy
	// Send sends a prompt to a session (queued while a turn runs).
	Send func(s *session.Session, prompt string) error
	// Committed is who wrote each line of text (path's content) as the
	// authorship notes of the commits that made its lines say (index i:
	// line i, 1-based; nil: none known). Nil: not asked.
	Committed func(path, text string) []review.Author
}

// Room is the review loop's state. Its lock also orders the writes to the
// review's files.
type Room struct {
	d    *desk.Desk
	deps Deps

	mu      sync.Mutex
	folders map[string]*folderReview // by session folder
	rounds  map[int]*roundState      // by session id
	// amends are the proposals the user amended, by path, until claude
	// reports the write: what Claude proposed and what the user saved.
	amends map[string]amendment
}

// New returns the review room.
func New(d *desk.Desk, deps Deps) *Room {
	return &Room{d: d, deps: deps, folders: map[string]*folderReview{}, rounds: map[int]*roundState{}, amends: map[string]amendment{}}
}

func (r *Room) storage() string { return r.deps.Storage() }
func (r *Room) home() string    { return r.deps.Home() }
func (r *Room) send(s *session.Session, prompt string) error {
	return r.deps.Send(s, prompt)
}
func (r *Room) policy(s *session.Session, cwd string) boundary.Policy {
	return r.deps.Policy(s, cwd)
}

type amendment struct{ proposed, saved string }

type roundState struct {
	r      *review.Round
	looked string // the claude session id whose kept round was looked for
}

// folderReview is one session folder's comments and blame.
type folderReview struct {
	cwd, dir string
	comments *review.Comments
	blame    map[string]*review.Blame
}

// folderOf returns the review of session folder cwd (its comments read
// from disk at first use). A comments file that cannot be read is moved
// aside, never written over, and the user is told. Called with r.mu held.
func (r *Room) folderOf(cwd string) *folderReview {
	cwd = filepath.Clean(cwd)
	if f, ok := r.folders[cwd]; ok {
		return f
	}
	dir := review.FolderDir(r.storage(), cwd)
	cs, err := review.LoadComments(dir)
	if err != nil {
		aside := filepath.Join(dir, fmt.Sprintf("comments.json.unread-%d", time.Now().Unix()))
		if rerr := os.Rename(filepath.Join(dir, "comments.json"), aside); rerr == nil {
			r.d.Notify("warn", fmt.Sprintf("review comments of %s could not all be read (%v): the file is kept as %s", cwd, err, aside))
		} else {
			r.d.Notify("warn", fmt.Sprintf("review comments of %s could not all be read: %v", cwd, err))
		}
		if len(cs.All()) > 0 {
			_ = review.SaveComments(dir, cwd, cs) // the ones that were read
		}
	}
	f := &folderReview{cwd: cwd, dir: dir, comments: cs, blame: map[string]*review.Blame{}}
	r.folders[cwd] = f
	return f
}

// saveComments keeps f's comments on disk; a failure is reported (the
// comments stay in memory).
func (r *Room) saveComments(f *folderReview) error {
	if err := review.SaveComments(f.dir, f.cwd, f.comments); err != nil {
		r.d.Log.Warn("save review comments", "err", err)
		return fmt.Errorf("the comments are kept until Neovim exits, but could not be saved: %w", err)
	}
	return nil
}

// roundOf returns session s's open round: the one kept for its claude
// session (a resumed session goes on with it), else round 1 since the
// session began. Called with r.mu held.
func (r *Room) roundOf(s *session.Session) *roundState {
	rs, ok := r.rounds[s.ID]
	if !ok {
		rs = &roundState{r: review.NewRound(1, s.Started)}
		r.rounds[s.ID] = rs
	}
	if id := s.ClaudeID(); id != "" && rs.looked != id {
		rs.looked = id
		kept, err := review.LoadRound(r.folderOf(s.Cwd()).dir, id)
		if err != nil {
			r.d.Log.Warn("read the kept review round", "session", s.ID, "err", err)
		}
		if kept != nil && len(rs.r.Files()) == 0 {
			rs.r = kept
		}
	}
	return rs
}

func (r *Room) saveRound(s *session.Session, rs *roundState) {
	id := s.ClaudeID()
	if id == "" {
		return // kept once claude named the session (its first turn)
	}
	if err := review.SaveRound(r.folderOf(s.Cwd()).dir, id, rs.r); err != nil {
		r.d.Log.Warn("save the review round", "session", s.ID, "err", err)
	}
}

// ExpectAmended notes a proposal the user amended before it was applied:
// when claude reports writing exactly saved to path, the lines the user
// changed within Claude's are marked amended.
func (r *Room) ExpectAmended(path string, proposed, saved []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.amends[path] = amendment{proposed: string(proposed), saved: string(saved)}
}

// Changed records a change Claude made to path (its content before
// was orig; nil: it did not exist): the file joins the session's round,
// comments on it follow the edit, and its lines written by Claude are
// marked so.
// command is the command that changed it ("": a file tool).
func (r *Room) Changed(s *session.Session, path string, orig *string, command, after string, err error) {
	if err != nil {
		r.d.Log.Info("review: read the changed file", "path", path, "err", err)
	}
	before := ""
	if orig != nil {
		before = *orig
	}
	by := review.Author{Session: s.ID, Name: sanitize.FirstLine(s.Name(), 60), ClaudeID: s.ClaudeID(), Time: time.Now().Unix(), Model: s.Info().Model}
	if t, ok := s.Turns.Find(""); ok {
		by.Turn, by.Prompt = t.N, sanitize.Truncate(t.Prompt, 500)
	}
	r.mu.Lock()
	rs := r.roundOf(s)
	if rs.r.ChangedBy(path, orig, command) {
		r.saveRound(s, rs)
	}
	f := r.folderOf(s.Cwd())
	if err == nil && f.comments.Remap(path, before, after) {
		_ = r.saveComments(f)
	}
	var prop *string
	if am, ok := r.amends[path]; ok {
		delete(r.amends, path)
		if am.saved == after {
			prop = &am.proposed
		}
	}
	changed := []string{}
	if err == nil && len(after) <= review.MaxBlameContent && len(before) <= review.MaxBlameContent {
		b := r.blameOf(f, path, before)
		b.Land(before, after, by, prop)
		if err := review.SaveBlame(f.dir, b); err != nil {
			r.d.Log.Warn("save blame", "path", path, "err", err)
		}
		changed = append(changed, path)
	}
	ev := r.event(f)
	ev.Blame = changed
	r.mu.Unlock()
	r.d.UI.Send(ui.EvReview, ev)
}

// Opened tells the front end, when a session starts in a folder that
// has unsent comments (from before a restart of the editor, say), so that
// they show in the buffers of their files at once.
func (r *Room) Opened(s *session.Session) {
	r.mu.Lock()
	f := r.folderOf(s.Cwd())
	n := len(f.comments.Unsent())
	ev := r.event(f)
	r.mu.Unlock()
	if n > 0 {
		r.d.UI.Send(ui.EvReview, ev)
	}
}

// blameOf returns f's blame of path (read from disk, or new: every line of
// known is yours). Called with r.mu held.
func (r *Room) blameOf(f *folderReview, path, known string) *review.Blame {
	if b, ok := f.blame[path]; ok {
		return b
	}
	b, err := review.LoadBlame(f.dir, path)
	if err != nil {
		r.d.Log.Warn("read blame", "path", path, "err", err)
	}
	if b == nil {
		b = review.NewBlame(path, known)
	}
	f.blame[path] = b
	return b
}

// Event tells the front end what the review of a folder holds now.
type Event struct {
	Cwd      string        `json:"cwd"`
	Comments []CommentView `json:"comments"` // unsent, by file and line
	Files    []string      `json:"files"`    // the files in the open rounds of the folder's sessions
	Blame    []string      `json:"blame"`    // files whose blame changed
}

// CommentView is a comment as the front end shows it.
type CommentView struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Rel     string `json:"rel"`
	From    int    `json:"from"`
	To      int    `json:"to"`
	Text    string `json:"text"`
	Session int    `json:"session"`
	Created int64  `json:"created"`
}

func commentView(c review.Comment, cwd string) CommentView {
	return CommentView{ID: c.ID, Path: c.Path, Rel: approval.RelPath(c.Path, cwd), From: c.From, To: c.To,
		Text: sanitize.Text(c.Text), Session: c.Session, Created: c.Created}
}

// event is f's state for the front end. Called with r.mu held.
func (r *Room) event(f *folderReview) Event {
	ev := Event{Cwd: f.cwd, Comments: []CommentView{}, Files: []string{}, Blame: []string{}}
	for _, c := range f.comments.Unsent() {
		ev.Comments = append(ev.Comments, commentView(c, f.cwd))
	}
	seen := map[string]bool{}
	for _, s := range r.d.Sessions.All() {
		rs, ok := r.rounds[s.ID]
		if !ok || filepath.Clean(s.Cwd()) != f.cwd {
			continue
		}
		for _, p := range rs.r.Files() {
			if !seen[p] {
				seen[p] = true
				ev.Files = append(ev.Files, p)
			}
		}
	}
	return ev
}

// Arg names the review a call is about: the session in view (0: the
// current one), else, with no session, the editor's folder.
type Arg struct {
	Session int    `json:"session"`
	Cwd     string `json:"cwd"`
}

// session is the session of a call (nil with no session running) and
// the folder whose review it is.
func (r *Room) session(p Arg) (*session.Session, string, error) {
	s, err := r.d.Session(p.Session)
	if err == nil {
		return s, s.Cwd(), nil
	}
	if p.Session != 0 {
		return nil, "", err
	}
	if p.Cwd == "" || !filepath.IsAbs(p.Cwd) {
		return nil, "", errors.New("no session, and no folder to keep the review in")
	}
	return nil, filepath.Clean(p.Cwd), nil
}

// RoundView is a session's open round: every file Claude changed since the
// review baseline, each from its baseline to now.
type RoundView struct {
	Session int                     `json:"session"`
	Round   int                     `json:"round"`
	Since   int64                   `json:"since"` // Unix seconds
	Files   []checkpoint.FileChange `json:"files"`
}

// Round is session p.Session's open round. Files a round tracks that
// changed outside Claude's Write and Edit (a command) join it here.
func (r *Room) Round(p Arg) (RoundView, error) {
	s, err := r.d.Session(p.Session)
	if err != nil {
		return RoundView{}, err
	}
	v, err := r.round(s)
	if err != nil {
		return v, err
	}
	// Whose each hunk is: a round shows what changed since the baseline,
	// other sessions' and the user's changes to those files too.
	for i := range v.Files {
		v.Files[i] = r.MarkAuthors(s, v.Files[i])
	}
	return v, nil
}

func (r *Room) round(s *session.Session) (RoundView, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.roundOf(s)
	grew := false
	for _, path := range rs.r.Tracked() {
		now, exists, err := proposal.ReadNow(path)
		if err == nil && rs.r.Seen(path, now, exists) {
			grew = true
		}
	}
	if grew {
		r.saveRound(s, rs)
	}
	v := RoundView{Session: s.ID, Round: rs.r.N, Since: rs.r.Since.Unix(), Files: []checkpoint.FileChange{}}
	for _, path := range rs.r.Files() {
		fc := roundChange(s, rs.r, path)
		if fc.Error == "" && len(fc.Hunks) == 0 {
			continue // back as it was at the baseline
		}
		v.Files = append(v.Files, fc)
	}
	if len(v.Files) == 0 {
		return v, fmt.Errorf("Claude has changed no file since %s (round %d of session %d; a file only a command changed is seen once a round tracks it)",
			rs.r.Since.Local().Format("15:04"), rs.r.N, s.ID)
	}
	return v, nil
}

// roundChange is one file of a round: at the baseline and now.
func roundChange(s *session.Session, r *review.Round, path string) checkpoint.FileChange {
	fc := checkpoint.FileChange{Path: path, Rel: approval.RelPath(path, s.Cwd()), Hunks: []checkpoint.Hunk{}}
	b, ok := r.Baseline(path)
	switch {
	case !ok:
		fc.Error = fmt.Sprintf("Claude did not change %s in round %d", fc.Rel, r.N)
		return fc
	case b.Dropped:
		fc.Error = review.ErrDropped.Error()
		return fc
	}
	fc.Before, fc.Existed, fc.By = b.Content, b.Existed, b.By
	now, exists, err := proposal.ReadNow(path)
	if err != nil {
		fc.Error = err.Error()
		return fc
	}
	return fc.With(now, exists)
}

// RoundFile is path in session s's open round (for an undo).
func (r *Room) RoundFile(s *session.Session, path string) checkpoint.FileChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return roundChange(s, r.roundOf(s).r, path)
}

// CommentParams add a comment on lines From-To of Path.
type CommentParams struct {
	Arg
	Path string `json:"path"`
	From int    `json:"from"`
	To   int    `json:"to"`
	Text string `json:"text"`
	// Buffer is the file's buffer when it has unsaved edits (the code
	// quoted is the buffer's); nil: the file on disk.
	Buffer *string `json:"buffer"`
}

// CommentAdded is the comment kept and what to tell the user.
type CommentAdded struct {
	Comment CommentView `json:"comment"`
	Message string      `json:"message"`
	Cwd     string      `json:"cwd"`  // the session folder that keeps it
	Hint    string      `json:"hint"` // what to do next, said when there is room
}

// commentPath checks that a comment may go on path: a file inside the
// session's folders.
func (r *Room) commentPath(s *session.Session, cwd, path string) (string, error) {
	c := r.policy(s, cwd).Check(path)
	switch {
	case c.NotFile:
		return "", errors.New("a comment goes on a line of a file: this buffer is not a file (in the changes view, comment on the right side)")
	case c.Place == boundary.Refused:
		return "", fmt.Errorf("refused: your rule %s keeps %s from Claude, so no comment on it is sent", c.Why, sanitize.Line(path))
	case c.Place != boundary.Inside:
		return "", fmt.Errorf("refused: %s is outside the session's folder %s; comments go on files Claude works on there", sanitize.Line(boundary.Show(c.Real, cwd, r.home())), sanitize.Line(boundary.Show(cwd, "", r.home())))
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return "", fmt.Errorf("a comment goes on a line of a file: %s is a folder", sanitize.Line(boundary.Show(p, cwd, r.home())))
	}
	return filepath.Clean(p), nil
}

// touched reports whether lines from-to of text (path now) are among what
// Claude changed in session s's open round. Called with r.mu held.
func (r *Room) touched(s *session.Session, path string, from, to int, text string) bool {
	if s == nil {
		return false
	}
	rs, ok := r.rounds[s.ID]
	if !ok {
		return false
	}
	b, ok := rs.r.Baseline(path)
	if !ok || b.Dropped {
		return false
	}
	var hs [][2]int
	for _, h := range checkpoint.Hunks(b.Content, text) {
		hs = append(hs, [2]int{h.B, h.Ins})
	}
	return review.Touches(from, to, hs)
}

// roundAuthors names the other sessions that wrote lines from-to of text
// that changed in s's round ("" when none did): the review says whose they
// are. Called with r.mu held.
func (r *Room) roundAuthors(s *session.Session, path string, from, to int, text string) string {
	rs, ok := r.rounds[s.ID]
	if !ok {
		return ""
	}
	b, ok := rs.r.Baseline(path)
	if !ok || b.Dropped {
		return ""
	}
	authors := r.lineAuthorsLocked(s, path, text)
	seen := map[string]bool{}
	var who []string
	for _, h := range checkpoint.Hunks(b.Content, text) {
		for _, w := range otherAuthors(s, authors, max(from, h.B), min(to, h.B+h.Ins-1)) {
			if w == "you" {
				continue // the user's own edit of the lines: theirs to comment on
			}
			if !seen[w] {
				seen[w] = true
				who = append(who, w)
			}
		}
	}
	return strings.Join(who, " and ")
}

// textOf is the text a comment on path quotes: the unsaved buffer's, else
// the file's on disk (ok false: it cannot be read).
func textOf(path string, buffer *string) (string, bool) {
	if buffer != nil {
		return *buffer, true
	}
	now, exists, err := proposal.ReadNow(path)
	return now, err == nil && exists
}

func linesOf(text string) []string {
	ls := diff.SplitLines(text)
	for i, l := range ls {
		ls[i] = strings.TrimRight(strings.TrimSuffix(l, "\n"), "\r")
	}
	if ls == nil {
		ls = []string{}
	}
	return ls
}

// AddComment keeps a comment on lines p.From-p.To of p.Path. It is refused
// when empty, or on a file outside the session's folders; on a line Claude
// did not change it is kept, and the message (and the review) say so.
func (r *Room) AddComment(p CommentParams) (CommentAdded, error) {
	s, cwd, err := r.session(p.Arg)
	if err != nil {
		return CommentAdded{}, err
	}
	if strings.TrimSpace(p.Text) == "" {
		return CommentAdded{}, errors.New(review.ErrEmpty.Error() + " (:ClaudeNova comment {text})")
	}
	if p.From < 1 || p.To < p.From {
		return CommentAdded{}, fmt.Errorf("no line %d-%d to comment on", p.From, p.To)
	}
	path, err := r.commentPath(s, cwd, p.Path)
	if err != nil {
		return CommentAdded{}, err
	}
	text, ok := textOf(path, p.Buffer)
	var code []string
	if ok {
		ls := linesOf(text)
		if p.From > len(ls) && !(len(ls) == 0 && p.From == 1) {
			return CommentAdded{}, fmt.Errorf("%s has %d lines: no line %d to comment on", approval.RelPath(path, cwd), len(ls), p.From)
		}
		if len(ls) > 0 {
			code = ls[p.From-1 : min(p.To, len(ls))]
		}
	}
	sid := 0
	if s != nil {
		sid = s.ID
	}
	c, err := review.NewComment(path, p.From, p.To, p.Text, code, sid, time.Now())
	if err != nil {
		return CommentAdded{}, err
	}
	r.mu.Lock()
	f := r.folderOf(cwd)
	if err := f.comments.Add(c); err != nil {
		r.mu.Unlock()
		return CommentAdded{}, err
	}
	saveErr := r.saveComments(f)
	changed := r.touched(s, path, c.From, c.To, text)
	n := len(f.comments.Unsent())
	ev := r.event(f)
	r.mu.Unlock()
	r.d.UI.Send(ui.EvReview, ev)
	rel := approval.RelPath(path, cwd)
	msg := fmt.Sprintf("comment %d kept on %s:%s", n, rel, rangeShort(c.From, c.To))
	var notes []string
	if !changed {
		notes = append(notes, "a line Claude did not change in this round (sent all the same, and said so)")
	}
	if p.Buffer != nil {
		notes = append(notes, "quoted from the unsaved buffer")
	}
	if len(notes) > 0 {
		msg += ": " + strings.Join(notes, "; ")
	}
	if saveErr != nil {
		msg += "; " + saveErr.Error()
	}
	return CommentAdded{Comment: commentView(c, cwd), Message: msg, Cwd: filepath.Clean(cwd),
		Hint: ":ClaudeNova comments send sends the review"}, nil
}

func rangeShort(from, to int) string {
	if to > from {
		return fmt.Sprintf("%d-%d", from, to)
	}
	return fmt.Sprint(from)
}

// CommentsView is the open round's comments of a folder.
type CommentsView struct {
	Cwd      string        `json:"cwd"`
	Session  int           `json:"session"` // 0: no session runs
	Round    int           `json:"round"`
	Since    int64         `json:"since"`
	Comments []CommentView `json:"comments"`
	Files    []string      `json:"files"`
}

// Comments lists the folder's unsent comments.
func (r *Room) Comments(p Arg) (CommentsView, error) {
	s, cwd, err := r.session(p)
	if err != nil {
		return CommentsView{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.folderOf(cwd)
	ev := r.event(f)
	v := CommentsView{Cwd: cwd, Comments: ev.Comments, Files: ev.Files}
	if s != nil {
		rs := r.roundOf(s)
		v.Session, v.Round, v.Since = s.ID, rs.r.N, rs.r.Since.Unix()
	}
	return v, nil
}

// CommentEdit changes (Text) or deletes (Delete) comment ID.
type CommentEdit struct {
	Arg
	ID     string `json:"id"`
	Text   string `json:"text"`
	Delete bool   `json:"delete"`
}

// EditComment edits or deletes an unsent comment.
func (r *Room) EditComment(p CommentEdit) (CommentsView, error) {
	_, cwd, err := r.session(p.Arg)
	if err != nil {
		return CommentsView{}, err
	}
	r.mu.Lock()
	f := r.folderOf(cwd)
	if p.Delete {
		_, err = f.comments.Delete(p.ID)
	} else {
		_, err = f.comments.Edit(p.ID, p.Text)
	}
	if err == nil {
		err = r.saveComments(f)
	}
	ev := r.event(f)
	r.mu.Unlock()
	if err != nil {
		return CommentsView{}, err
	}
	r.d.UI.Send(ui.EvReview, ev)
	return r.Comments(p.Arg)
}

// CommentMove is where a comment's lines are now in its file's buffer.
type CommentMove struct {
	ID   string `json:"id"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// MovesParams carry comments' new places (their buffers were edited).
type MovesParams struct {
	Arg
	Moves []CommentMove `json:"moves"`
}

// MoveComments records where the comments are now.
func (r *Room) MoveComments(p MovesParams) error {
	_, cwd, err := r.session(p.Arg)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.moveComments(r.folderOf(cwd), p.Moves)
	return nil
}

func (r *Room) moveComments(f *folderReview, moves []CommentMove) {
	moved := false
	for _, m := range moves {
		if f.comments.Move(m.ID, m.From, m.To) {
			moved = true
		}
	}
	if moved {
		_ = r.saveComments(f)
	}
}

// SendParams send the open round's comments to a session. Buffers
// are the texts of buffers with unsaved edits, by path: the code quoted
// is theirs.
type SendParams struct {
	Session int               `json:"session"`
	Buffers map[string]string `json:"buffers"`
	Moves   []CommentMove     `json:"moves"`
}

// Send sends every unsent comment of the session's folder to the
// session as one message (queued like any prompt while a turn runs). The
// round closes: the next one begins now, the comments are marked sent.
func (r *Room) Send(p SendParams) (desk.Outcome, error) {
	s, err := r.d.Session(p.Session)
	if err != nil {
		return desk.Outcome{}, err
	}
	if s.State() == session.StateExited {
		return desk.Outcome{}, fmt.Errorf("session %d has exited: resume it (:ClaudeNova resume) to send the review; the comments are kept", s.ID)
	}
	now := time.Now()
	r.mu.Lock()
	f := r.folderOf(s.Cwd())
	r.moveComments(f, p.Moves)
	rs := r.roundOf(s)
	msg, ids, files := r.compose(s, f, rs.r, p.Buffers, now)
	round := rs.r.N
	r.mu.Unlock()
	if len(ids) == 0 {
		return desk.Outcome{}, errors.New("no comments to send: :ClaudeNova comment {text} adds one on the line under the cursor (<localleader>c in the changes view)")
	}
	busy := s.State() == session.StateRunning || s.State() == session.StateWaiting
	if err := r.send(s, msg); err != nil {
		return desk.Outcome{}, err
	}
	r.mu.Lock()
	f.comments.MarkSent(ids, now, round)
	_ = r.saveComments(f)
	track := append(rs.r.Files(), rs.r.Tracked()...)
	rs.r = rs.r.Next(now, dedupe(track), proposal.ReadNow)
	r.saveRound(s, rs)
	ev := r.event(f)
	r.mu.Unlock()
	r.d.UI.Send(ui.EvReview, ev)
	r.d.Log.Info("review sent", "session", s.ID, "comments", len(ids), "files", files, "bytes", len(msg))
	out := fmt.Sprintf("review sent to session %d: %s in %s; round %d begins", s.ID, desk.Plural(len(ids), "comment"), desk.Plural(files, "file"), round+1)
	if busy {
		out = fmt.Sprintf("review queued for session %d (Claude takes it when its turn allows): %s in %s; round %d begins", s.ID, desk.Plural(len(ids), "comment"), desk.Plural(files, "file"), round+1)
	}
	return desk.Outcome{Done: true, Message: out}, nil
}

// compose is the message of the folder's unsent comments, their ids
// and the number of files. Called with r.mu held.
func (r *Room) compose(s *session.Session, f *folderReview, rd *review.Round, buffers map[string]string, now time.Time) (string, []string, int) {
	type source struct {
		text  string
		lines []string
		ok    bool
		saved bool
	}
	sources := map[string]*source{}
	var items []review.Item
	var ids []string
	files := map[string]bool{}
	for _, c := range f.comments.Unsent() {
		src, ok := sources[c.Path]
		if !ok {
			src = &source{saved: true}
			if text, held := buffers[c.Path]; held {
				src.text, src.ok, src.saved = text, true, false
			} else {
				src.text, src.ok = textOf(c.Path, nil)
			}
			if src.ok {
				src.lines = linesOf(src.text)
			}
			sources[c.Path] = src
		}
		it := review.Item{Rel: approval.RelPath(c.Path, s.Cwd()), From: c.From, To: c.To, Text: c.Text, Code: c.Code,
			Unsaved: !src.saved}
		if src.ok {
			it.Lines = src.lines
			it.Changed = r.touched(s, c.Path, c.From, c.To, src.text)
			it.Who = r.roundAuthors(s, c.Path, c.From, c.To, src.text)
		}
		items = append(items, it)
		ids = append(ids, c.ID)
		files[c.Path] = true
	}
	rv := review.Review{Since: rd.Since, Now: now, Items: items}
	return rv.Message(), ids, len(files)
}

func dedupe(ps []string) []string {
	seen := map[string]bool{}
	out := ps[:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// BlameParams ask who wrote each line of Path. Text is its buffer (the
// lines that differ from what the host knows are the user's); nil: the
// file on disk.
type BlameParams struct {
	Arg
	Path string  `json:"path"`
	Text *string `json:"text"`
}

// AuthorView is one author of a file's lines, in words.
type AuthorView struct {
	review.Author
	Label string `json:"label"` // "Claude · session 1 · prompt 2 · 14:03"
}

// BlameView is who wrote each line of a file: Lines has an index into
// Authors per line of the text asked about (0: yours). Known is false when
// Claude never changed the file (in a session folder the host knows).
type BlameView struct {
	Path    string       `json:"path"`
	Known   bool         `json:"known"`
	Authors []AuthorView `json:"authors"`
	Lines   []int        `json:"lines"`
	Claude  int          `json:"claude"`  // lines Claude wrote
	Amended int          `json:"amended"` // lines Claude wrote and you amended
	Yours   int          `json:"yours"`
}

// Blame says who wrote each line of a file: the blame is looked for in the
// session's folder, the editor's, and each folder above the file.
func (r *Room) Blame(p BlameParams) (BlameView, error) {
	s, cwd, _ := r.session(p.Arg)
	if p.Path == "" || !filepath.IsAbs(p.Path) {
		return BlameView{}, errors.New("blame needs a file (this buffer has none)")
	}
	path := filepath.Clean(p.Path)
	var text string
	if p.Text != nil {
		text = *p.Text
	} else {
		now, _, err := proposal.ReadNow(path)
		if err != nil {
			return BlameView{}, err
		}
		text = now
	}
	var dirs []string
	if s != nil {
		dirs = append(dirs, s.Cwd())
	}
	if cwd != "" {
		dirs = append(dirs, cwd)
	}
	var committed []review.Author
	if r.deps.Committed != nil {
		committed = r.deps.Committed(path, text)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(diff.SplitLines(text))
	var v BlameView
	if b := r.recordOf(path, dirs); b != nil {
		v = blameView(b, path, b.View(text))
	} else {
		v = BlameView{Path: path, Authors: []AuthorView{{Author: review.Author{Kind: review.You}, Label: "yours"}},
			Lines: make([]int, n), Yours: n}
	}
	return withCommitted(v, committed), nil
}

// recordOf is the live blame record of path kept in one of dirs or a
// folder above the file (nil: none). Called with r.mu held.
func (r *Room) recordOf(path string, dirs []string) *review.Blame {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	storage := r.storage()
	for _, d := range dedupe(dirs) {
		f, loaded := r.folders[filepath.Clean(d)]
		if !loaded {
			if !review.HasBlame(review.FolderDir(storage, d), path) {
				continue
			}
			f = r.folderOf(d)
		}
		if _, ok := f.blame[path]; !ok && !review.HasBlame(f.dir, path) {
			continue
		}
		return r.blameOf(f, path, "")
	}
	return nil
}

// Known says whether a live blame record of path is kept (in a folder
// above it).
func (r *Room) Known(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordOf(filepath.Clean(path), nil) != nil
}

// AuthorsIn is who wrote each line of text (path's content then), from
// the live record kept above path: index i is line i (1-based; nil when
// no record is kept).
func (r *Room) AuthorsIn(path, text string) []review.Author {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.recordOf(filepath.Clean(path), nil)
	if b == nil {
		return nil
	}
	return perLine(b, text)
}

// perLine is the author of each line of text by b (1-based: index 0 is
// unused).
func perLine(b *review.Blame, text string) []review.Author {
	lines := b.View(text)
	out := make([]review.Author, len(lines)+1)
	for i, ai := range lines {
		if ai < len(b.Authors) {
			out[i+1] = b.Authors[ai]
		}
	}
	return out
}

// Merged adds a file a merge brought from session s's worktree into the
// checkout to s's round (orig: the checkout's file before, nil when it was
// not there): the round lists it with what the merge changed, as for any
// change of the session's. Who wrote its lines is Adopt's to say.
func (r *Room) Merged(s *session.Session, path string, orig *string) {
	r.mu.Lock()
	rs := r.roundOf(s)
	if rs.r.Changed(path, orig) {
		r.saveRound(s, rs)
	}
	ev := r.event(r.folderOf(s.Cwd()))
	r.mu.Unlock()
	r.d.UI.Send(ui.EvReview, ev)
}

// Adopt records that a file of a worktree's branch (src, as srcText) was
// merged into the checkout's dst (before → after): the lines that came as
// they are keep their authors, kept in the folder of the checkout's top
// (root). Nothing is recorded when src's authors are not known.
func (r *Room) Adopt(dst, before, after, src, srcText, root string) {
	r.mu.Lock()
	sb := r.recordOf(filepath.Clean(src), nil)
	if sb == nil {
		r.mu.Unlock()
		return
	}
	from := perLine(sb, srcText)
	f := r.folderOf(root)
	b := r.blameOf(f, dst, before)
	b.Adopt(before, after, srcText, from)
	if err := review.SaveBlame(f.dir, b); err != nil {
		r.d.Log.Warn("save blame", "path", dst, "err", err)
	}
	ev := r.event(f)
	ev.Blame = []string{dst}
	r.mu.Unlock()
	r.d.UI.Send(ui.EvReview, ev)
}

// withCommitted makes the lines of commits with an authorship note of
// ours read as the notes say (committed: per line, 1-based; an author
// with a Commit), so that blame here says what a fresh clone's says; the
// live record keeps the rest (uncommitted lines, commits with no note),
// where another tool's note may only name lines it calls yours.
func withCommitted(v BlameView, committed []review.Author) BlameView {
	idx := map[review.Author]int{}
	changed := false
	for i, l := range v.Lines {
		if i+1 >= len(committed) || committed[i+1].Kind == "" {
			continue
		}
		au := committed[i+1]
		if au.Commit == "" && l < len(v.Authors) && v.Authors[l].Kind != review.You {
			continue
		}
		if au.Kind == review.You {
			if l < len(v.Authors) && v.Authors[l].Kind == review.You {
				continue
			}
			au = review.Author{Kind: review.You}
		}
		k, ok := idx[au]
		if !ok {
			k = -1
			for j, a := range v.Authors {
				if a.Author == au {
					k = j
					break
				}
			}
			if k < 0 {
				k = len(v.Authors)
				v.Authors = append(v.Authors, AuthorView{Author: au, Label: authorLabel(au)})
			}
			idx[au] = k
		}
		v.Lines[i] = k
		v.Known = v.Known || au.Kind != review.You
		changed = true
	}
	if changed {
		v.Claude, v.Amended, v.Yours = 0, 0, 0
		for _, l := range v.Lines {
			switch v.Authors[l].Kind {
			case review.Claude:
				v.Claude++
			case review.Amended:
				v.Amended++
			default:
				v.Yours++
			}
		}
	}
	return v
}

func blameView(b *review.Blame, path string, lines []int) BlameView {
	v := BlameView{Path: path, Known: true, Lines: lines}
	for _, au := range b.Authors {
		v.Authors = append(v.Authors, AuthorView{Author: au, Label: authorLabel(au)})
	}
	c := b.Counts(lines)
	v.Claude, v.Amended, v.Yours = c[review.Claude], c[review.Amended], c[review.You]
	return v
}

func authorLabel(au review.Author) string {
	if au.Kind == review.You {
		return "yours"
	}
	who := "Claude"
	if au.Kind == review.Amended {
		who = "Claude, amended by you"
	}
	parts := []string{who}
	if au.Session > 0 {
		parts = append(parts, fmt.Sprintf("session %d", au.Session))
	}
	if au.Turn > 0 {
		parts = append(parts, fmt.Sprintf("prompt %d", au.Turn))
	}
	if au.Commit != "" {
		parts = append(parts, "commit "+gitcmd.Short(au.Commit))
	}
	if au.Time > 0 {
		t := time.Unix(au.Time, 0).Local()
		if time.Since(t) < 20*time.Hour {
			parts = append(parts, t.Format("15:04"))
		} else {
			parts = append(parts, t.Format("Jan 2 15:04"))
		}
	}
	return strings.Join(parts, " · ")
}

// Whose change it is: the folder's blame record knows, per line, which
// session (prompt, time) wrote it, or that the user did. Rewind, the
// changes view and review rounds use it to name changes that are not the
// session's own.

// LineAuthors returns the authors of the lines of now (the file as it is),
// one per line (1-based: index 0 is unused).
func (r *Room) LineAuthors(s *session.Session, path, now string) []review.Author {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lineAuthorsLocked(s, path, now)
}

// lineAuthorsLocked is LineAuthors for a caller holding r.mu.
func (r *Room) lineAuthorsLocked(s *session.Session, path, now string) []review.Author {
	return perLine(r.blameOf(r.folderOf(s.Cwd()), path, now), now)
}

// otherAuthors names the authors, other than session s, of lines [from, to] of
// now (sorted; none when they are all the session's own).
func otherAuthors(s *session.Session, authors []review.Author, from, to int) []string {
	seen := map[string]bool{}
	var out []string
	for i := max(from, 1); i <= to && i < len(authors); i++ {
		au := authors[i]
		if au.Kind != review.You && au.Session == s.ID {
			continue
		}
		who := "you"
		if au.Kind != review.You {
			who = sessionLabel(au)
		}
		if !seen[who] {
			seen[who] = true
			out = append(out, who)
		}
	}
	sort.Strings(out)
	return out
}

// MarkAuthors names, per hunk of fc, who wrote its lines when it is not
// session s, and lists those lines (the changes view and a round mark the
// blocks they fall in).
func (r *Room) MarkAuthors(s *session.Session, fc checkpoint.FileChange) checkpoint.FileChange {
	fc.Authors, fc.Others = make([]string, len(fc.Hunks)), []checkpoint.Span{}
	if fc.Error != "" || !fc.Exists || len(fc.Hunks) == 0 {
		return fc
	}
	authors := r.LineAuthors(s, fc.Path, fc.Now)
	for i, h := range fc.Hunks {
		fc.Authors[i] = strings.Join(otherAuthors(s, authors, h.B, h.B+h.Ins-1), " and ")
		for l := h.B; l < h.B+h.Ins; l++ {
			who := strings.Join(otherAuthors(s, authors, l, l), " and ")
			switch n := len(fc.Others); {
			case who == "":
			case n > 0 && fc.Others[n-1].To == l-1 && fc.Others[n-1].Who == who:
				fc.Others[n-1].To = l
			default:
				fc.Others = append(fc.Others, checkpoint.Span{From: l, To: l, Who: who})
			}
		}
	}
	return fc
}

// AuthorsOf names the authors of the lines of now that differ from left,
// as the folder's blame record knows them ("session 2 (“fix greet”,
// 14:02)", "you"), leaving out session s itself.
func (r *Room) AuthorsOf(s *session.Session, path, left, now string) []string {
	authors := r.LineAuthors(s, path, now)
	seen := map[string]bool{}
	var out []string
	for _, h := range checkpoint.Hunks(left, now) {
		for _, who := range otherAuthors(s, authors, h.B, h.B+h.Ins-1) {
			if !seen[who] {
				seen[who] = true
				out = append(out, who)
			}
		}
	}
	sort.Strings(out)
	return out
}

// sessionLabel names a session's change for a person: "session 2 at
// 14:02 (“fix greet”)".
func sessionLabel(au review.Author) string {
	s := fmt.Sprintf("session %d", au.Session)
	if au.Time > 0 {
		s += " at " + time.Unix(au.Time, 0).Format("15:04")
	}
	if au.Prompt != "" {
		s += " (“" + sanitize.FirstLine(au.Prompt, 40) + "”)"
	}
	return s
}

// Rebase makes the folder's blame record follow a file the rewind
// wrote: lines it put back are the user's again.
func (r *Room) Rebase(s *session.Session, path, content string, exists bool) {
	if !exists || len(content) > review.MaxBlameContent {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.folderOf(s.Cwd())
	b := r.blameOf(f, path, content)
	b.Rebase(content)
	if err := review.SaveBlame(f.dir, b); err != nil {
		r.d.Log.Warn("save blame", "path", path, "err", err)
	}
}
