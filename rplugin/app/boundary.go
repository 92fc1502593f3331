package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/editortools"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// The session's boundary for the editor's tools (package boundary): what
// they may hand Claude unasked. It is enforced where the host answers a
// tools/call, whatever claude decided before (a broad mcp__nvim allow rule
// in the user's settings does not open it): a call whose answer would carry
// text from outside the session's folders becomes a request like any other
// (a sidebar row and a panel), and the tool answers once the user decided.

// settingsTimeout bounds the get_settings a tool call asks claude for.
const settingsTimeout = 2 * time.Second

// cliReads is what claude reported of its read permissions for a session.
type cliReads struct {
	rules boundary.Rules
	dirs  []string // permissions.additionalDirectories
}

// boundaryState is the app's part of every session's boundary.
type boundaryState struct {
	grants map[int]*boundary.Grants           // per session: what the user allowed
	reads  map[int]cliReads                   // per session: claude's last answer
	asks   map[string]chan editortools.Answer // per pending ask: its waiting call
	next   int
}

// grantsOf returns session sid's grants (created empty).
func (a *App) grantsOf(sid int) *boundary.Grants {
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	if a.ed.bounds.grants == nil {
		a.ed.bounds.grants = map[int]*boundary.Grants{}
	}
	g, ok := a.ed.bounds.grants[sid]
	if !ok {
		g = &boundary.Grants{}
		a.ed.bounds.grants[sid] = g
	}
	return g
}

// home is the home folder paths are shown against ("~/…") and Read rules
// start from: claude's, as its environment has it.
func (a *App) home() string {
	if h := a.options().Env["HOME"]; h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// cliReadsOf asks claude for its read permissions (get_settings): the
// Read rules of every settings source and the additional directories. When
// claude cannot answer in time, its last answer stands.
func (a *App) cliReadsOf(ctx context.Context, s *session.Session) cliReads {
	ctx, cancel := context.WithTimeout(ctx, settingsTimeout)
	defer cancel()
	raw, err := s.Proc.Control(ctx, "get_settings", nil)
	if err == nil {
		var r cliReads
		if r, err = parseReads(raw, s.Cwd(), a.home()); err == nil {
			a.ed.mu.Lock()
			if a.ed.bounds.reads == nil {
				a.ed.bounds.reads = map[int]cliReads{}
			}
			a.ed.bounds.reads[s.ID] = r
			a.ed.mu.Unlock()
			return r
		}
	}
	a.log.Info("get_settings for the boundary", "session", s.ID, "err", err)
	a.ed.mu.Lock()
	defer a.ed.mu.Unlock()
	return a.ed.bounds.reads[s.ID]
}

// parseReads reads the Read rules and additional directories out of a
// get_settings answer.
func parseReads(raw json.RawMessage, cwd, home string) (cliReads, error) {
	var gs struct {
		Effective struct {
			Permissions struct {
				Dirs []string `json:"additionalDirectories"`
			} `json:"permissions"`
		} `json:"effective"`
		Sources []struct {
			Source   string `json:"source"`
			Settings struct {
				Permissions struct {
					Allow []string `json:"allow"`
					Deny  []string `json:"deny"`
					Dirs  []string `json:"additionalDirectories"`
				} `json:"permissions"`
			} `json:"settings"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(raw, &gs); err != nil {
		return cliReads{}, fmt.Errorf("get_settings: %w", err)
	}
	bases := boundary.Bases{Home: home, Project: cwd, Cwd: cwd}
	var r cliReads
	seen := map[string]bool{}
	addDir := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			r.dirs = append(r.dirs, d)
		}
	}
	for _, d := range gs.Effective.Permissions.Dirs {
		addDir(d)
	}
	for _, src := range gs.Sources {
		p := src.Settings.Permissions
		for _, d := range p.Dirs {
			addDir(d)
		}
		for _, rule := range p.Allow {
			if pat, ok := boundary.ParseRead(rule, src.Source, bases); ok {
				r.rules.Allow = append(r.rules.Allow, pat)
			}
		}
		for _, rule := range p.Deny {
			if pat, ok := boundary.ParseRead(rule, src.Source, bases); ok {
				r.rules.Deny = append(r.rules.Deny, pat)
			}
		}
	}
	return r, nil
}

// policyOf is session s's boundary now.
func (a *App) policyOf(ctx context.Context, s *session.Session) boundary.Policy {
	reads := a.cliReadsOf(ctx, s)
	dirs := append(boundary.AddDirs(a.options().Args), reads.dirs...)
	return boundary.Policy{
		Cwd:     s.Cwd(),
		Folders: boundary.NewFolders(s.Cwd(), a.home(), dirs...),
		Rules:   reads.rules,
		Grants:  a.grantsOf(s.ID),
	}
}

// gate is one tool call's view of its session's boundary: the policy is
// read (from claude) once, at the first path the call meets.
type toolGate struct {
	a       *App
	s       *session.Session
	ctx     context.Context
	control string          // the mcp_message control request ("" when unknown)
	input   json.RawMessage // the call's arguments, for the request's view
	pol     *boundary.Policy
}

func (g *toolGate) Check(name string) boundary.Check {
	if g.pol == nil {
		p := g.a.policyOf(g.ctx, g.s)
		g.pol = &p
	}
	return g.pol.Check(name)
}

func (g *toolGate) Ask(ctx context.Context, q editortools.Question) editortools.Answer {
	if g.pol == nil {
		g.Check(q.Path)
	}
	return g.a.askOutside(ctx, g.s, *g.pol, g.control, g.input, q)
}

// toolSession is what an editor tool call of session s needs.
func (a *App) toolSession(ctx context.Context, s *session.Session, control string, input json.RawMessage) editortools.Session {
	return editortools.Session{
		Cwd: s.Cwd(), Home: a.home(), Timeout: toolCallTimeout,
		Gate: &toolGate{a: a, s: s, ctx: ctx, control: control, input: input},
	}
}

// askOutside asks the user whether Claude may have what an editor tool
// found outside the session's folders, and waits for the answer: a request
// like any other (registered, then presented), answered by Decide, withdrawn
// when claude cancels the call or the session ends.
func (a *App) askOutside(ctx context.Context, s *session.Session, pol boundary.Policy, control string, input json.RawMessage, q editortools.Question) editortools.Answer {
	a.ed.mu.Lock()
	a.ed.bounds.next++
	if control == "" {
		control = fmt.Sprintf("nvim-ask-%d", a.ed.bounds.next)
	}
	id := approval.Key(s.ID, control)
	if a.ed.bounds.asks == nil {
		a.ed.bounds.asks = map[string]chan editortools.Answer{}
	}
	answer := make(chan editortools.Answer, 1)
	a.ed.bounds.asks[id] = answer
	a.ed.mu.Unlock()
	defer func() {
		a.ed.mu.Lock()
		delete(a.ed.bounds.asks, id)
		a.ed.mu.Unlock()
	}()
	home := a.home()
	folder := filepath.Dir(q.Path)
	var inside []string
	for _, f := range pol.Folders {
		inside = append(inside, boundary.Show(f, "", home))
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	p := &approval.Pending{
		ID: id, Session: s.ID, Arrived: time.Now(),
		Perm:   claude.PermissionRequest{RequestID: control, ToolName: editortools.ModelName(q.Tool), Input: input},
		Route:  approval.Route{Surface: approval.SurfacePanel},
		Target: sanitize.Line(q.Shown),
		Outside: &approval.Outside{
			Tool: q.Tool, Path: q.Path, Shown: sanitize.Line(q.Shown),
			Folder: folder, FolderShown: sanitize.Line(boundary.Show(folder, "", home)),
			What: sanitize.Line(q.What), Preview: q.Preview, Inside: inside,
		},
	}
	view := a.view(*p)
	if !a.register(p, s, view) {
		return editortools.Answer{How: "not asked (a request with its id is pending)"}
	}
	a.log.Info("asked: outside the session's folders", "session", s.ID, "tool", q.Tool, "path", q.Path)
	a.reg.Present(id, func(approval.Pending) { a.ui.Send(ui.EvPresent, view) })
	select {
	case ans := <-answer:
		return ans
	case <-ctx.Done():
		a.finish(id, "withdrawn: claude cancelled the call")
		return editortools.Answer{How: "withdrawn (the call was cancelled)"}
	}
}

// answerOutside settles an ask with the user's decision: the waiting call
// gets it (and the grant, for the session, is kept first).
func (a *App) answerOutside(r approval.Pending, d approval.Decision) error {
	ans := editortools.Answer{Allowed: d.Behavior != approval.Deny, Message: d.Message}
	outcome := approval.Outcome(approval.Deny)
	switch d.Behavior {
	case approval.Allow:
		ans.How, outcome = "allowed once by you", "allowed once"
	case approval.AllowSession:
		ans.How, outcome = "allowed by you for this session", approval.Outcome(approval.AllowSession)+": "+r.Outside.Shown
	case approval.AllowTool:
		ans.How, outcome = "allowed by you for this session (its folder)", approval.Outcome(approval.AllowSession)+": "+r.Outside.FolderShown+"/"
	case approval.Deny:
		ans.How = "denied by you"
	default:
		return fmt.Errorf("unknown decision %q (want allow, allow_session, allow_tool or deny)", d.Behavior)
	}
	return a.finishWith(r, outcome, func(_ *session.Session, p approval.Pending) error {
		switch d.Behavior {
		case approval.AllowSession:
			a.grantsOf(p.Session).AllowFile(p.Outside.Path)
		case approval.AllowTool:
			a.grantsOf(p.Session).AllowFolder(p.Outside.Folder)
		}
		a.deliverOutside(p.ID, ans)
		return nil
	})
}

// deliverOutside hands an answer to the call waiting on ask id (once: a
// later answer, the withdrawal after a decision, is dropped).
func (a *App) deliverOutside(id string, ans editortools.Answer) {
	a.ed.mu.Lock()
	ch := a.ed.bounds.asks[id]
	a.ed.mu.Unlock()
	if ch != nil {
		select {
		case ch <- ans:
		default:
		}
	}
}

// BoundaryView is a session's boundary as :checkhealth shows it.
type BoundaryView struct {
	Session int      `json:"session"`
	Name    string   `json:"name"`
	Folders []string `json:"folders"` // counted as inside
	Granted []string `json:"granted"` // allowed by the user for the session
	Allow   []string `json:"allow"`   // claude's Read allow rules
	Deny    []string `json:"deny"`    // claude's Read deny rules
}

// Boundaries lists the boundary of every running session (claude is asked
// for its read rules, each bounded).
func (a *App) Boundaries() []BoundaryView {
	var out []BoundaryView
	home := a.home()
	for _, s := range a.sessions.All() {
		if s.State() == session.StateExited {
			continue
		}
		pol := a.policyOf(context.Background(), s)
		v := BoundaryView{Session: s.ID, Name: s.Name()}
		for _, f := range pol.Folders {
			v.Folders = append(v.Folders, boundary.Show(f, "", home))
		}
		for _, g := range pol.Grants.List() {
			v.Granted = append(v.Granted, boundary.Show(g, "", home))
		}
		for _, r := range pol.Rules.Allow {
			v.Allow = append(v.Allow, r.Rule)
		}
		for _, r := range pol.Rules.Deny {
			v.Deny = append(v.Deny, r.Rule)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session < out[j].Session })
	return out
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
