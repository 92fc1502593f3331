package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/checkpoint"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/review"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// The review loop (package review): a session's round (what Claude changed
// since the review baseline), the user's comments on lines (kept per
// session folder; sent to Claude as one message, which closes the round),
// and who wrote each line of a file Claude changed (kept per session
// folder). Every change Claude makes reaches here from its tool result
// (recordChanges): applied proposals and acceptEdits writes alike.

// reviewState is the app's part of the review. Its lock also orders the
// writes to the review's files.
type reviewState struct {
	mu      sync.Mutex
	folders map[string]*folderReview // by session folder
	rounds  map[int]*roundState      // by session id
	// amends are the proposals the user amended, by path, until claude
	// reports the write: what Claude proposed and what the user saved.
	amends map[string]amendment
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
// aside, never written over, and the user is told. Called with rev.mu held.
func (a *App) folderOf(cwd string) *folderReview {
	cwd = filepath.Clean(cwd)
	if a.rev.folders == nil {
		a.rev.folders = map[string]*folderReview{}
	}
	if f, ok := a.rev.folders[cwd]; ok {
		return f
	}
	dir := review.FolderDir(a.options().Storage, cwd)
	cs, err := review.LoadComments(dir)
	if err != nil {
		aside := filepath.Join(dir, fmt.Sprintf("comments.json.unread-%d", time.Now().Unix()))
		if rerr := os.Rename(filepath.Join(dir, "comments.json"), aside); rerr == nil {
			a.notify("warn", fmt.Sprintf("review comments of %s could not all be read (%v): the file is kept as %s", cwd, err, aside))
		} else {
			a.notify("warn", fmt.Sprintf("review comments of %s could not all be read: %v", cwd, err))
		}
		if len(cs.All()) > 0 {
			_ = review.SaveComments(dir, cwd, cs) // the ones that were read
		}
	}
	f := &folderReview{cwd: cwd, dir: dir, comments: cs, blame: map[string]*review.Blame{}}
	a.rev.folders[cwd] = f
	return f
}

// saveComments keeps f's comments on disk; a failure is reported (the
// comments stay in memory).
func (a *App) saveComments(f *folderReview) error {
	if err := review.SaveComments(f.dir, f.cwd, f.comments); err != nil {
		a.log.Warn("save review comments", "err", err)
		return fmt.Errorf("the comments are kept until Neovim exits, but could not be saved: %w", err)
	}
	return nil
}

// roundOf returns session s's open round: the one kept for its claude
// session (a resumed session goes on with it), else round 1 since the
// session began. Called with rev.mu held.
func (a *App) roundOf(s *session.Session) *roundState {
	if a.rev.rounds == nil {
		a.rev.rounds = map[int]*roundState{}
	}
	rs, ok := a.rev.rounds[s.ID]
	if !ok {
		rs = &roundState{r: review.NewRound(1, s.Started)}
		a.rev.rounds[s.ID] = rs
	}
	if id := s.ClaudeID(); id != "" && rs.looked != id {
		rs.looked = id
		kept, err := review.LoadRound(a.folderOf(s.Cwd()).dir, id)
		if err != nil {
			a.log.Warn("read the kept review round", "session", s.ID, "err", err)
		}
		if kept != nil && len(rs.r.Files()) == 0 {
			rs.r = kept
		}
	}
	return rs
}

func (a *App) saveRound(s *session.Session, rs *roundState) {
	id := s.ClaudeID()
	if id == "" {
		return // kept once claude named the session (its first turn)
	}
	if err := review.SaveRound(a.folderOf(s.Cwd()).dir, id, rs.r); err != nil {
		a.log.Warn("save the review round", "session", s.ID, "err", err)
	}
}

// readNow reads a file as it is now: its text and whether it exists.
func readNow(path string) (string, bool, error) {
	data, err := proposal.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(data), true, nil
}

// expectAmended notes a proposal the user amended before it was applied:
// when claude reports writing exactly saved to path, the lines the user
// changed within Claude's are marked amended.
func (a *App) expectAmended(path string, proposed, saved []byte) {
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	if a.rev.amends == nil {
		a.rev.amends = map[string]amendment{}
	}
	a.rev.amends[path] = amendment{proposed: string(proposed), saved: string(saved)}
}

// reviewChanged records a change Claude made to path (its content before
// was orig; nil: it did not exist): the file joins the session's round,
// comments on it follow the edit, and its lines written by Claude are
// marked so.
func (a *App) reviewChanged(s *session.Session, path string, orig *string, after string, err error) {
	if err != nil {
		a.log.Info("review: read the changed file", "path", path, "err", err)
	}
	before := ""
	if orig != nil {
		before = *orig
	}
	by := review.Author{Session: s.ID, Name: sanitize.FirstLine(s.Name(), 60), ClaudeID: s.ClaudeID(), Time: time.Now().Unix()}
	if t, ok := s.Turns.Find(""); ok {
		by.Turn, by.Prompt = t.N, sanitize.Truncate(t.Prompt, 500)
	}
	a.rev.mu.Lock()
	rs := a.roundOf(s)
	if rs.r.Changed(path, orig) {
		a.saveRound(s, rs)
	}
	f := a.folderOf(s.Cwd())
	if err == nil && f.comments.Remap(path, before, after) {
		_ = a.saveComments(f)
	}
	var prop *string
	if am, ok := a.rev.amends[path]; ok {
		delete(a.rev.amends, path)
		if am.saved == after {
			prop = &am.proposed
		}
	}
	changed := []string{}
	if err == nil && len(after) <= review.MaxBlameContent && len(before) <= review.MaxBlameContent {
		b := a.blameOf(f, path, before)
		b.Land(before, after, by, prop)
		if err := review.SaveBlame(f.dir, b); err != nil {
			a.log.Warn("save blame", "path", path, "err", err)
		}
		changed = append(changed, path)
	}
	ev := a.reviewEvent(f)
	ev.Blame = changed
	a.rev.mu.Unlock()
	a.ui.Send(ui.EvReview, ev)
}

// reviewOpened tells the front end, when a session starts in a folder that
// has unsent comments (from before a restart of the editor, say), so that
// they show in the buffers of their files at once.
func (a *App) reviewOpened(s *session.Session) {
	a.rev.mu.Lock()
	f := a.folderOf(s.Cwd())
	n := len(f.comments.Unsent())
	ev := a.reviewEvent(f)
	a.rev.mu.Unlock()
	if n > 0 {
		a.ui.Send(ui.EvReview, ev)
	}
}

// blameOf returns f's blame of path (read from disk, or new: every line of
// known is yours). Called with rev.mu held.
func (a *App) blameOf(f *folderReview, path, known string) *review.Blame {
	if b, ok := f.blame[path]; ok {
		return b
	}
	b, err := review.LoadBlame(f.dir, path)
	if err != nil {
		a.log.Warn("read blame", "path", path, "err", err)
	}
	if b == nil {
		b = review.NewBlame(path, known)
	}
	f.blame[path] = b
	return b
}

// ReviewEvent tells the front end what the review of a folder holds now.
type ReviewEvent struct {
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

// reviewEvent is f's state for the front end. Called with rev.mu held.
func (a *App) reviewEvent(f *folderReview) ReviewEvent {
	ev := ReviewEvent{Cwd: f.cwd, Comments: []CommentView{}, Files: []string{}, Blame: []string{}}
	for _, c := range f.comments.Unsent() {
		ev.Comments = append(ev.Comments, commentView(c, f.cwd))
	}
	seen := map[string]bool{}
	for _, s := range a.sessions.All() {
		rs, ok := a.rev.rounds[s.ID]
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

// ReviewArg names the review a call is about: the session in view (0: the
// current one), else, with no session, the editor's folder.
type ReviewArg struct {
	Session int    `json:"session"`
	Cwd     string `json:"cwd"`
}

// reviewSession is the session of a call (nil with no session running) and
// the folder whose review it is.
func (a *App) reviewSession(p ReviewArg) (*session.Session, string, error) {
	s, err := a.session(p.Session)
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
	Session int          `json:"session"`
	Round   int          `json:"round"`
	Since   int64        `json:"since"` // Unix seconds
	Files   []FileChange `json:"files"`
}

// ReviewRound is session p.Session's open round. Files a round tracks that
// changed outside Claude's Write and Edit (a command) join it here.
func (a *App) ReviewRound(p ReviewArg) (RoundView, error) {
	s, err := a.session(p.Session)
	if err != nil {
		return RoundView{}, err
	}
	v, err := a.reviewRound(s)
	if err != nil {
		return v, err
	}
	// Whose each hunk is: a round shows what changed since the baseline,
	// other sessions' and the user's changes to those files too.
	for i := range v.Files {
		v.Files[i] = a.markAuthors(s, v.Files[i])
	}
	return v, nil
}

func (a *App) reviewRound(s *session.Session) (RoundView, error) {
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	rs := a.roundOf(s)
	grew := false
	for _, path := range rs.r.Tracked() {
		now, exists, err := readNow(path)
		if err == nil && rs.r.Seen(path, now, exists) {
			grew = true
		}
	}
	if grew {
		a.saveRound(s, rs)
	}
	v := RoundView{Session: s.ID, Round: rs.r.N, Since: rs.r.Since.Unix(), Files: []FileChange{}}
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
func roundChange(s *session.Session, r *review.Round, path string) FileChange {
	fc := FileChange{Path: path, Rel: approval.RelPath(path, s.Cwd()), Hunks: []checkpoint.Hunk{}}
	b, ok := r.Baseline(path)
	switch {
	case !ok:
		fc.Error = fmt.Sprintf("Claude did not change %s in round %d", fc.Rel, r.N)
		return fc
	case b.Dropped:
		fc.Error = review.ErrDropped.Error()
		return fc
	}
	fc.Before, fc.Existed = b.Content, b.Existed
	now, exists, err := readNow(path)
	if err != nil {
		fc.Error = err.Error()
		return fc
	}
	return fc.with(now, exists)
}

// roundFileChange is path in session s's open round (for an undo).
func (a *App) roundFileChange(s *session.Session, path string) FileChange {
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	return roundChange(s, a.roundOf(s).r, path)
}

// CommentParams add a comment on lines From-To of Path.
type CommentParams struct {
	ReviewArg
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

// folderPolicy is the boundary comments are kept within: the session's
// folders (its working directory and added directories, from what claude
// last reported: no call waits on claude here) and its Read deny rules;
// with no session, the editor's folder.
func (a *App) folderPolicy(s *session.Session, cwd string) boundary.Policy {
	if s == nil {
		return boundary.Policy{Cwd: cwd, Folders: boundary.NewFolders(cwd, a.home())}
	}
	a.ed.mu.Lock()
	reads := a.ed.bounds.reads[s.ID]
	a.ed.mu.Unlock()
	dirs := append(boundary.AddDirs(a.options().Args), reads.dirs...)
	return boundary.Policy{Cwd: s.Cwd(), Folders: boundary.NewFolders(s.Cwd(), a.home(), dirs...), Rules: reads.rules}
}

// commentPath checks that a comment may go on path: a file inside the
// session's folders.
func (a *App) commentPath(s *session.Session, cwd, path string) (string, error) {
	c := a.folderPolicy(s, cwd).Check(path)
	switch {
	case c.NotFile:
		return "", errors.New("a comment goes on a line of a file: this buffer is not a file (in the changes view, comment on the right side)")
	case c.Place == boundary.Refused:
		return "", fmt.Errorf("refused: your rule %s keeps %s from Claude, so no comment on it is sent", c.Why, sanitize.Line(path))
	case c.Place != boundary.Inside:
		return "", fmt.Errorf("refused: %s is outside the session's folder %s; comments go on files Claude works on there", sanitize.Line(boundary.Show(c.Real, cwd, a.home())), sanitize.Line(boundary.Show(cwd, "", a.home())))
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), nil
}

// touched reports whether lines from-to of text (path now) are among what
// Claude changed in session s's open round. Called with rev.mu held.
func (a *App) touched(s *session.Session, path string, from, to int, text string) bool {
	if s == nil {
		return false
	}
	rs, ok := a.rev.rounds[s.ID]
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
// are. Called with rev.mu held.
func (a *App) roundAuthors(s *session.Session, path string, from, to int, text string) string {
	rs, ok := a.rev.rounds[s.ID]
	if !ok {
		return ""
	}
	b, ok := rs.r.Baseline(path)
	if !ok || b.Dropped {
		return ""
	}
	authors := a.lineAuthorsLocked(s, path, text)
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
	now, exists, err := readNow(path)
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
func (a *App) AddComment(p CommentParams) (CommentAdded, error) {
	s, cwd, err := a.reviewSession(p.ReviewArg)
	if err != nil {
		return CommentAdded{}, err
	}
	if strings.TrimSpace(p.Text) == "" {
		return CommentAdded{}, errors.New(review.ErrEmpty.Error() + " (:ClaudeNova comment {text})")
	}
	if p.From < 1 || p.To < p.From {
		return CommentAdded{}, fmt.Errorf("no line %d-%d to comment on", p.From, p.To)
	}
	path, err := a.commentPath(s, cwd, p.Path)
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
	a.rev.mu.Lock()
	f := a.folderOf(cwd)
	if err := f.comments.Add(c); err != nil {
		a.rev.mu.Unlock()
		return CommentAdded{}, err
	}
	saveErr := a.saveComments(f)
	changed := a.touched(s, path, c.From, c.To, text)
	n := len(f.comments.Unsent())
	ev := a.reviewEvent(f)
	a.rev.mu.Unlock()
	a.ui.Send(ui.EvReview, ev)
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

// ReviewComments lists the folder's unsent comments.
func (a *App) ReviewComments(p ReviewArg) (CommentsView, error) {
	s, cwd, err := a.reviewSession(p)
	if err != nil {
		return CommentsView{}, err
	}
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	f := a.folderOf(cwd)
	ev := a.reviewEvent(f)
	v := CommentsView{Cwd: cwd, Comments: ev.Comments, Files: ev.Files}
	if s != nil {
		rs := a.roundOf(s)
		v.Session, v.Round, v.Since = s.ID, rs.r.N, rs.r.Since.Unix()
	}
	return v, nil
}

// CommentEdit changes (Text) or deletes (Delete) comment ID.
type CommentEdit struct {
	ReviewArg
	ID     string `json:"id"`
	Text   string `json:"text"`
	Delete bool   `json:"delete"`
}

// EditComment edits or deletes an unsent comment.
func (a *App) EditComment(p CommentEdit) (CommentsView, error) {
	_, cwd, err := a.reviewSession(p.ReviewArg)
	if err != nil {
		return CommentsView{}, err
	}
	a.rev.mu.Lock()
	f := a.folderOf(cwd)
	if p.Delete {
		_, err = f.comments.Delete(p.ID)
	} else {
		_, err = f.comments.Edit(p.ID, p.Text)
	}
	if err == nil {
		err = a.saveComments(f)
	}
	ev := a.reviewEvent(f)
	a.rev.mu.Unlock()
	if err != nil {
		return CommentsView{}, err
	}
	a.ui.Send(ui.EvReview, ev)
	return a.ReviewComments(p.ReviewArg)
}

// CommentMove is where a comment's lines are now in its file's buffer.
type CommentMove struct {
	ID   string `json:"id"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// MovesParams carry comments' new places (their buffers were edited).
type MovesParams struct {
	ReviewArg
	Moves []CommentMove `json:"moves"`
}

// MoveComments records where the comments are now.
func (a *App) MoveComments(p MovesParams) error {
	_, cwd, err := a.reviewSession(p.ReviewArg)
	if err != nil {
		return err
	}
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	a.moveComments(a.folderOf(cwd), p.Moves)
	return nil
}

func (a *App) moveComments(f *folderReview, moves []CommentMove) {
	moved := false
	for _, m := range moves {
		if f.comments.Move(m.ID, m.From, m.To) {
			moved = true
		}
	}
	if moved {
		_ = a.saveComments(f)
	}
}

// SendReviewParams send the open round's comments to a session. Buffers
// are the texts of buffers with unsaved edits, by path: the code quoted
// is theirs.
type SendReviewParams struct {
	Session int               `json:"session"`
	Buffers map[string]string `json:"buffers"`
	Moves   []CommentMove     `json:"moves"`
}

// SendReview sends every unsent comment of the session's folder to the
// session as one message (queued like any prompt while a turn runs). The
// round closes: the next one begins now, the comments are marked sent.
func (a *App) SendReview(p SendReviewParams) (Outcome, error) {
	s, err := a.session(p.Session)
	if err != nil {
		return Outcome{}, err
	}
	if s.State() == session.StateExited {
		return Outcome{}, fmt.Errorf("session %d has exited: resume it (:ClaudeNova resume) to send the review; the comments are kept", s.ID)
	}
	now := time.Now()
	a.rev.mu.Lock()
	f := a.folderOf(s.Cwd())
	a.moveComments(f, p.Moves)
	rs := a.roundOf(s)
	msg, ids, files := a.composeReview(s, f, rs.r, p.Buffers, now)
	round := rs.r.N
	a.rev.mu.Unlock()
	if len(ids) == 0 {
		return Outcome{}, errors.New("no comments to send: :ClaudeNova comment {text} adds one on the line under the cursor (<localleader>c in the changes view)")
	}
	busy := s.State() == session.StateRunning || s.State() == session.StateWaiting
	if err := a.send(s, msg); err != nil {
		return Outcome{}, err
	}
	a.rev.mu.Lock()
	f.comments.MarkSent(ids, now, round)
	_ = a.saveComments(f)
	track := append(rs.r.Files(), rs.r.Tracked()...)
	rs.r = rs.r.Next(now, dedupe(track), readNow)
	a.saveRound(s, rs)
	ev := a.reviewEvent(f)
	a.rev.mu.Unlock()
	a.ui.Send(ui.EvReview, ev)
	a.log.Info("review sent", "session", s.ID, "comments", len(ids), "files", files, "bytes", len(msg))
	out := fmt.Sprintf("review sent to session %d: %s in %s; round %d begins", s.ID, plural(len(ids), "comment"), plural(files, "file"), round+1)
	if busy {
		out = fmt.Sprintf("review queued for session %d (Claude takes it when its turn allows): %s in %s; round %d begins", s.ID, plural(len(ids), "comment"), plural(files, "file"), round+1)
	}
	return Outcome{Done: true, Message: out}, nil
}

// composeReview is the message of the folder's unsent comments, their ids
// and the number of files. Called with rev.mu held.
func (a *App) composeReview(s *session.Session, f *folderReview, r *review.Round, buffers map[string]string, now time.Time) (string, []string, int) {
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
			it.Changed = a.touched(s, c.Path, c.From, c.To, src.text)
			it.Who = a.roundAuthors(s, c.Path, c.From, c.To, src.text)
		}
		items = append(items, it)
		ids = append(ids, c.ID)
		files[c.Path] = true
	}
	rv := review.Review{Since: r.Since, Now: now, Items: items}
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
	ReviewArg
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
func (a *App) Blame(p BlameParams) (BlameView, error) {
	s, cwd, _ := a.reviewSession(p.ReviewArg)
	if p.Path == "" || !filepath.IsAbs(p.Path) {
		return BlameView{}, errors.New("blame needs a file (this buffer has none)")
	}
	path := filepath.Clean(p.Path)
	var text string
	if p.Text != nil {
		text = *p.Text
	} else {
		now, _, err := readNow(path)
		if err != nil {
			return BlameView{}, err
		}
		text = now
	}
	dirs := []string{}
	if s != nil {
		dirs = append(dirs, s.Cwd())
	}
	if cwd != "" {
		dirs = append(dirs, cwd)
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	a.rev.mu.Lock()
	defer a.rev.mu.Unlock()
	storage := a.options().Storage
	for _, d := range dedupe(dirs) {
		f, loaded := a.rev.folders[filepath.Clean(d)]
		if !loaded {
			if !review.HasBlame(review.FolderDir(storage, d), path) {
				continue
			}
			f = a.folderOf(d)
		}
		if _, ok := f.blame[path]; !ok && !review.HasBlame(f.dir, path) {
			continue
		}
		b := a.blameOf(f, path, text)
		return blameView(b, path, b.View(text)), nil
	}
	n := len(diff.SplitLines(text))
	return BlameView{Path: path, Authors: []AuthorView{{Author: review.Author{Kind: review.You}, Label: "yours"}},
		Lines: make([]int, n), Yours: n}, nil
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
