// Package pr is the room that takes a worktree session's branch to a pull
// request (:ClaudeNova pr): it drafts a commit message from the session's
// prompts for the user to edit, and only on the user's :w of that draft
// commits the worktree's uncommitted work, pushes the branch to the user's
// remote and opens the pull request with gh when gh is installed and logged
// in (else it says where and how). The authorship notes go along only when
// the user set provenance.push. git and gh run in the background, never on
// a call Neovim waits on.
package pr

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

// Deps are what the room is given.
type Deps struct {
	// SessionFor is the session of branch's worktree in the repository
	// holding cwd (brought back, no claude, when none runs there).
	SessionFor func(ctx context.Context, cwd, branch string) (*session.Session, error)
	// PushNotes says whether the authorship notes go with a push
	// (provenance.push).
	PushNotes func() bool
	// Noted writes the notes of the commits made in dir since before (the
	// commit just made), as for any commit of the user's.
	Noted func(ctx context.Context, dir, before string)
}

// Room drafts and opens pull requests.
type Room struct {
	d    *desk.Desk
	deps Deps

	mu     sync.Mutex
	drafts map[string]Draft // by id: only a draft shown to the user is committed
}

// New returns the room.
func New(d *desk.Desk, deps Deps) *Room {
	return &Room{d: d, deps: deps, drafts: map[string]Draft{}}
}

// DraftParams name the branch: a session (0: the one in view is sent), or
// a worktree's branch of the repository holding Cwd.
type DraftParams struct {
	desk.ReplyTo
	Session int    `json:"session"`
	Branch  string `json:"branch"`
	Cwd     string `json:"cwd"`
}

// Draft is what :ClaudeNova pr shows before anything is done.
type Draft struct {
	ID      string   `json:"id"`
	Session int      `json:"session"`
	Branch  string   `json:"branch"`
	Path    string   `json:"path"`    // the worktree
	Root    string   `json:"root"`    // the checkout
	Base    string   `json:"base"`    // the checkout's branch: the pull request's base
	Remote  string   `json:"remote"`  // "" when the repository has none
	Message string   `json:"message"` // drafted from the session's prompts
	Dirty   []string `json:"dirty"`   // uncommitted files (git status)
	Commits int      `json:"commits"` // the branch's commits since it started
	Notes   bool     `json:"notes"`   // the authorship notes go too (provenance.push)
}

// gitTimeout bounds the reads of a draft; pushTimeout a commit, push and gh.
const (
	gitTimeout  = 20 * time.Second
	pushTimeout = 3 * time.Minute
)

// DraftLater answers with the draft of the branch's pull request.
func (r *Room) DraftLater(p DraftParams) error {
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		s, err := r.sessionOf(ctx, p)
		if err != nil {
			return nil, err
		}
		d, err := r.draft(ctx, s)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.drafts[d.ID] = d
		r.mu.Unlock()
		return d, nil
	})
	return nil
}

func (r *Room) sessionOf(ctx context.Context, p DraftParams) (*session.Session, error) {
	if strings.TrimSpace(p.Branch) != "" {
		return r.deps.SessionFor(ctx, p.Cwd, strings.TrimSpace(p.Branch))
	}
	return r.d.Session(p.Session)
}

func (r *Room) draft(ctx context.Context, s *session.Session) (Draft, error) {
	wt := s.World.Worktree()
	if wt == nil || wt.Branch == "" {
		return Draft{}, fmt.Errorf("session %d has no worktree: :ClaudeNova pr takes a worktree session's branch (:ClaudeNova new --worktree)", s.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	if err := worktree.Verify(ctx, wt.Path, wt.Root, wt.Branch); err != nil {
		return Draft{}, err
	}
	d := Draft{ID: newID(), Session: s.ID, Branch: wt.Branch, Path: wt.Path, Root: wt.Root, Notes: r.deps.PushNotes()}
	status, err := gitcmd.Bytes(ctx, wt.Path, nil, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return Draft{}, err
	}
	d.Dirty = dirtyFiles(string(status))
	base := wt.Base
	if base == "" {
		base, _ = gitcmd.Run(ctx, wt.Path, "merge-base", "HEAD", "refs/heads/"+d.Branch)
	}
	if base != "" {
		if n, err := gitcmd.Run(ctx, wt.Path, "rev-list", "--count", base+"..HEAD"); err == nil {
			_, _ = fmt.Sscan(n, &d.Commits)
		}
	}
	if len(d.Dirty) == 0 && d.Commits == 0 {
		return Draft{}, fmt.Errorf("%s has nothing to commit and no commit since it started: no pull request to open", sanitize.Line(d.Branch))
	}
	d.Base, _ = gitcmd.Run(ctx, wt.Root, "symbolic-ref", "--quiet", "--short", "HEAD")
	d.Remote = gitcmd.RemoteOf(ctx, wt.Root)
	var prompts []string
	for _, t := range s.Turns.Turns() {
		prompts = append(prompts, t.Prompt)
	}
	d.Message = Message(prompts, d.Dirty)
	return d, nil
}

// dirtyFiles are the paths of git status --porcelain -z (a rename's
// former path, the entry after it, left out).
func dirtyFiles(status string) []string {
	var out []string
	entries := strings.Split(status, "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		out = append(out, sanitize.Line(e[3:]))
		if e[0] == 'R' || e[0] == 'C' {
			i++
		}
	}
	return out
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// maxTitle bounds a drafted title (git's convention).
const maxTitle = 72

// Message drafts a commit message from a session's prompts: the first
// prompt's first line as the title, every prompt in the body, then the
// files.
func Message(prompts, files []string) string {
	title := ""
	var said []string // each prompt on one line, safe to show
	for _, p := range prompts {
		one := sanitize.Truncate(strings.Join(strings.Fields(sanitize.Line(p)), " "), 200)
		if one == "" {
			continue
		}
		said = append(said, one)
		if title == "" {
			first, _, _ := strings.Cut(strings.TrimSpace(p), "\n")
			title = sanitize.Truncate(strings.TrimSpace(sanitize.Line(first)), maxTitle)
		}
	}
	if title == "" {
		title = "Changes made in a Claude session"
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	if len(said) > 0 {
		b.WriteString("\nPrompts:\n")
		for _, p := range said {
			b.WriteString("- " + p + "\n")
		}
	}
	if len(files) > 0 {
		b.WriteString("\nFiles:\n")
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
	}
	return b.String()
}

// Clean is a message as git keeps it: lines that start with # dropped,
// blank lines at either end trimmed.
func Clean(msg string) string {
	var keep []string
	for _, l := range strings.Split(msg, "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		keep = append(keep, strings.TrimRight(l, " \t\r"))
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// CommitParams are the user's :w of a draft: its id and the message.
type CommitParams struct {
	ID      string `json:"id"`
	Message string `json:"message"`
}

// Commit commits, pushes and opens the pull request of the draft the
// user saved, in the background (a push may take minutes): the answer is
// at once, the outcome is told when git and gh are done.
func (r *Room) Commit(p CommitParams) (desk.Outcome, error) {
	r.mu.Lock()
	d, ok := r.drafts[p.ID]
	delete(r.drafts, p.ID)
	r.mu.Unlock()
	if !ok {
		return desk.Outcome{}, errors.New("this pull request draft is no longer open (:ClaudeNova pr drafts it again)")
	}
	msg := Clean(p.Message)
	if msg == "" {
		r.mu.Lock()
		r.drafts[p.ID] = d // still open: write a message
		r.mu.Unlock()
		return desk.Outcome{}, errors.New("the message is empty: nothing committed, nothing pushed")
	}
	r.d.BackgroundFor(pushTimeout, func(ctx context.Context) {
		out, err := r.publish(ctx, d, msg)
		level, said := "info", out.Message
		if err != nil {
			level, said = "error", err.Error()
		}
		r.d.Notify(level, said)
		if s, ok := r.d.Sessions.Get(d.Session); ok {
			r.d.Note(s, "**Pull request:** "+said+".") // kept where the session's work is read
		}
	})
	what := "pushing " + d.Branch
	if len(d.Dirty) > 0 {
		what = "committing and " + what
	}
	return desk.Outcome{Done: true, Message: what + "…"}, nil
}

// Outcome is what a pull request's publication did.
type Outcome struct {
	Message string `json:"message"`
	Commit  string `json:"commit"` // the commit made ("" when nothing was uncommitted)
	Pushed  bool   `json:"pushed"`
	URL     string `json:"url"`     // the pull request's (gh), else where to open one
	Command string `json:"command"` // what to run when gh could not
}

func (r *Room) publish(ctx context.Context, d Draft, msg string) (Outcome, error) {
	var out Outcome
	done := ""
	if len(d.Dirty) > 0 {
		before, _ := gitcmd.Run(ctx, d.Path, "rev-parse", "HEAD")
		if _, err := gitcmd.Run(ctx, d.Path, "add", "-A"); err != nil {
			return out, fmt.Errorf("commit on %s: %w", d.Branch, err)
		}
		if _, err := gitcmd.Bytes(ctx, d.Path, strings.NewReader(msg+"\n"), "commit", "-q", "-F", "-"); err != nil {
			return out, fmt.Errorf("commit on %s: %w", d.Branch, err)
		}
		out.Commit, _ = gitcmd.Run(ctx, d.Path, "rev-parse", "HEAD")
		done = "committed " + gitcmd.Short(out.Commit) + " on " + d.Branch + "; "
		if r.deps.Noted != nil {
			// Its authorship note, as any commit of the user's gets one.
			r.deps.Noted(ctx, d.Path, before)
		}
	}
	if d.Remote == "" {
		return out, fmt.Errorf("%snot pushed: this repository has no remote (git remote add origin URL, then :ClaudeNova pr again)", done)
	}
	_, said, err := gitcmd.Both(ctx, d.Path, nil, "push", "-u", d.Remote, "refs/heads/"+d.Branch+":refs/heads/"+d.Branch)
	if err != nil {
		return out, fmt.Errorf("%sthe push to %s was refused: %w", done, d.Remote, err)
	}
	out.Pushed = true
	done += "pushed " + d.Branch + " to " + d.Remote
	if d.Notes {
		if _, err := gitcmd.Run(ctx, d.Path, "rev-parse", "-q", "--verify", gitai.Ref); err == nil {
			if _, err := gitcmd.Run(ctx, d.Path, "push", d.Remote, gitai.Ref+":"+gitai.Ref); err != nil {
				done += " (the authorship notes were not: " + sanitize.FirstLine(err.Error(), 120) + ")"
			} else {
				done += " with the authorship notes"
			}
		}
	}
	title, body, _ := strings.Cut(msg, "\n")
	args := []string{"pr", "create", "--head", d.Branch, "--title", title, "--body", strings.TrimSpace(body)}
	if d.Base != "" {
		args = append(args, "--base", d.Base)
	}
	url, why := gh(ctx, d.Path, args)
	if why == "" {
		out.URL = url
		out.Message = done + "; opened the pull request " + url
		return out, nil
	}
	out.URL = pushURL(said)
	fill := []string{"gh", "pr", "create", "--head", d.Branch, "--fill"}
	if d.Base != "" {
		fill = append(fill, "--base", d.Base)
	}
	out.Command = shellquote.Join(fill...)
	out.Message = done + "; " + why + ": open the pull request "
	if out.URL != "" {
		out.Message += "at " + out.URL + " or "
	}
	out.Message += "with: " + out.Command
	return out, nil
}

// gh opens the pull request with gh: its URL, else why it could not
// ("" when it did).
func gh(ctx context.Context, dir string, args []string) (string, string) {
	bin, err := exec.LookPath("gh")
	if err != nil {
		return "", "gh is not installed"
	}
	auth := exec.CommandContext(ctx, bin, "auth", "status")
	auth.Dir = dir
	gitcmd.InGroup(auth)
	if err := auth.Run(); err != nil {
		return "", "gh is not logged in (gh auth login)"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	gitcmd.InGroup(cmd)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "", "gh pr create failed (" + sanitize.FirstLine(strings.TrimSpace(string(b)), 160) + ")"
	}
	lines := strings.Fields(strings.TrimSpace(string(b)))
	if len(lines) == 0 {
		return "", ""
	}
	return sanitize.Line(lines[len(lines)-1]), ""
}

// pushURL is the address a remote named in its answer to a push (GitHub,
// GitLab: "remote:   https://…/pull/new/branch"), "" when none.
func pushURL(said string) string {
	for _, l := range strings.Split(said, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "remote:"))
		if strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
			return sanitize.Line(strings.Fields(l)[0])
		}
	}
	return ""
}
