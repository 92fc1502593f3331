package provenance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitai"
	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Params name a commit (Rev, default HEAD) of the repository holding Cwd.
type Params struct {
	desk.ReplyTo
	Cwd    string `json:"cwd"`
	Rev    string `json:"rev"`
	Remote string `json:"remote"`
}

// View is a commit's note as a person reads it.
type View struct {
	Commit string   `json:"commit"`
	Found  bool     `json:"found"`
	Lines  []string `json:"lines"`
}

// ShowLater is Show as the front end asks for it: git runs in the
// background and the view is the reply.
func (r *Room) ShowLater(p Params) error {
	r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) { return r.Show(p) })
	return nil
}

// PushLater is Push as the front end asks for it: git runs in the
// background and the outcome is the reply.
func (r *Room) PushLater(p Params) error {
	r.d.ReplyLater(p.ReplyTo, func(context.Context) (any, error) { return r.Push(p) })
	return nil
}

// Show is commit p.Rev's note (HEAD by default) of the repository holding
// p.Cwd, as a person reads it.
func (r *Room) Show(p Params) (View, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	top := r.topOf(ctx, p.Cwd)
	if top == "" {
		return View{}, fmt.Errorf("no git repository holds %s", p.Cwd)
	}
	rev := p.Rev
	if rev == "" {
		rev = "HEAD"
	}
	sha, err := gitcmd.Run(ctx, top, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil || sha == "" {
		return View{}, fmt.Errorf("no commit %q in %s", rev, top)
	}
	head, _ := gitcmd.Run(ctx, top, "show", "-s", "--format=%h %s", sha)
	v := View{Commit: sha, Lines: []string{"Commit  " + sanitize.FirstLine(head, 120)}}
	text, found, err := gitai.Show(ctx, top, sha)
	if err != nil {
		return View{}, err
	}
	if !found {
		v.Lines = append(v.Lines, "", "No authorship note: Claude wrote none of this commit's lines (that the editor knows of).")
		return v, nil
	}
	v.Found = true
	n, perr := gitai.Parse(text)
	if perr != nil {
		v.Lines = append(v.Lines, "Note    not in the Git AI format ("+perr.Error()+"); shown as it is", "")
		v.Lines = append(v.Lines, strings.Split(strings.TrimRight(text, "\n"), "\n")...)
		return v, nil
	}
	writer := "another tool"
	if n.Ours() {
		writer = "claude-nova.nvim"
	}
	v.Lines = append(v.Lines, "Note    "+n.Meta.SchemaVersion+" in "+gitai.Ref+", written by "+writer, "")
	written := map[string]int{} // per agent key: its lines
	var keys []string
	for _, f := range n.Files {
		v.Lines = append(v.Lines, f.Path)
		for _, e := range f.Entries {
			lines := 0
			for _, rg := range e.Ranges {
				lines += rg.To - rg.From + 1
			}
			ranges := rangesText(e.Ranges)
			if h, ok := n.Meta.Humans[e.Key]; ok || strings.HasPrefix(e.Key, "h_") {
				v.Lines = append(v.Lines, fmt.Sprintf("  amended by you  %s  (%s; %s)", ranges, desk.Plural(lines, "line"), orWho(h.Author)))
				continue
			}
			a, _ := n.Agent(e.Key)
			v.Lines = append(v.Lines, fmt.Sprintf("  Claude  %s  (%s; %s)", ranges, desk.Plural(lines, "line"), promptLabel(a)))
			if _, ok := written[e.Key]; !ok {
				keys = append(keys, e.Key)
			}
			written[e.Key] += lines
		}
	}
	if len(keys) > 0 {
		v.Lines = append(v.Lines, "", "Prompts")
		sort.Strings(keys)
		for _, k := range keys {
			a, _ := n.Agent(k)
			counts := desk.Plural(written[k], "line")
			if pr, legacy := n.Meta.Prompts[k]; legacy {
				counts = fmt.Sprintf("%d written, %d amended by you", pr.AcceptedLines, pr.OverridenLines)
			}
			v.Lines = append(v.Lines, fmt.Sprintf("  %s · %s session %s · model %s · %s",
				promptLabel(a), orDash(a.Tool), orDash(a.SessionID), orDash(a.Model), counts))
			for _, l := range strings.Split(strings.TrimSpace(a.Prompt), "\n") {
				if l != "" {
					v.Lines = append(v.Lines, "    > "+l)
				}
			}
		}
	}
	return v, nil
}

func rangesText(rs []gitai.Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.From == r.To {
			parts[i] = fmt.Sprint(r.From)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.From, r.To)
		}
	}
	return "lines " + strings.Join(parts, ", ")
}

func promptLabel(a gitai.Agent) string {
	s := "prompt ?"
	if a.SessionID != "" {
		s = "prompt " + strconv.Itoa(a.Turn)
	}
	if name := a.Name; name != "" {
		s += " of “" + sanitize.FirstLine(name, 40) + "”"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func orWho(s string) string {
	if s == "" {
		return "in Claude's proposal"
	}
	return "in Claude's proposal, " + s
}

// Push pushes the notes ref to the remote (Remote, or the current
// branch's, or the only one) in the background; the outcome is told when
// git is done. Never done unasked.
func (r *Room) Push(p Params) (desk.Outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	top := r.topOf(ctx, p.Cwd)
	if top == "" {
		return desk.Outcome{}, fmt.Errorf("no git repository holds %s", p.Cwd)
	}
	if _, err := gitcmd.Run(ctx, top, "rev-parse", "-q", "--verify", gitai.Ref); err != nil {
		return desk.Outcome{Message: "no authorship notes to push here yet (" + gitai.Ref + " is empty)"}, nil
	}
	remote := p.Remote
	if remote == "" {
		remote = gitcmd.RemoteOf(ctx, top)
	}
	if remote == "" {
		return desk.Outcome{}, errors.New("this repository has no remote to push the notes to (:ClaudeNova provenance push {remote})")
	}
	r.d.BackgroundFor(2*time.Minute, func(pctx context.Context) {
		// Ended with the host: :qa never waits for a slow remote.
		if _, err := gitcmd.Run(pctx, top, "push", remote, gitai.Ref+":"+gitai.Ref); err != nil {
			r.d.Notify("error", "pushing the authorship notes failed: "+err.Error())
			return
		}
		r.d.Notify("info", "pushed the authorship notes ("+gitai.Ref+") to "+remote)
	})
	return desk.Outcome{Done: true, Message: "pushing " + gitai.Ref + " to " + remote + "…"}, nil
}
