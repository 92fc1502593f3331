package editortools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/boundary"
)

// fakeGate is a session in /p whose home is /h; it answers every ask as
// told and records it.
type fakeGate struct {
	pol   boundary.Policy
	allow bool
	asked []Question
}

func newGate(allow bool, deny ...string) *fakeGate {
	g := &fakeGate{allow: allow, pol: boundary.Policy{Cwd: "/p", Folders: boundary.NewFolders("/p", "/h")}}
	for _, r := range deny {
		p, ok := boundary.ParseRead(r, "userSettings", boundary.Bases{Home: "/h", Project: "/p", Cwd: "/p"})
		if !ok {
			panic(r)
		}
		g.pol.Rules.Deny = append(g.pol.Rules.Deny, p)
	}
	return g
}

func (g *fakeGate) Check(name string) boundary.Check { return g.pol.Check(name) }

func (g *fakeGate) Ask(_ context.Context, q Question) Answer {
	g.asked = append(g.asked, q)
	if g.allow {
		return Answer{Allowed: true, How: "allowed once by you"}
	}
	return Answer{How: "denied by you", Message: "not my notes"}
}

const todo = "/h/notes/todo.txt"

// Every tool keeps the boundary: text from outside is asked for, lists
// leave outside entries out (counted) or show where but not what, and a
// Read deny rule refuses before the editor is asked.
func TestToolsKeepTheBoundary(t *testing.T) {
	results := map[string]string{
		OpenBuffers: `{"buffers":[{"path":"/p/a.lua","filetype":"lua","lines":3,"loaded":true,"visible":true},
			{"path":"` + todo + `","filetype":"text","modified":true,"lines":9,"loaded":true,"visible":true}]}`,
		BufferText: `{"open":true,"path":"` + todo + `","on_disk":true,"from":1,"to":1,"total":1,"lines":["buy milk"]}`,
		Selection:  `{"path":"` + todo + `","kind":"line","from_line":1,"to_line":1,"lines":["buy milk"]}`,
		Diagnostics: `{"open":true,"loaded":2,"diagnostics":{"paths":["/p/a.lua","` + todo + `"],"items":[
			{"file":0,"line":1,"col":1,"severity":1,"message":"inside error"},
			{"file":1,"line":1,"col":1,"severity":1,"message":"milk is secret"},
			{"file":1,"line":2,"col":1,"severity":2,"message":"eggs too"}]}}`,
		LSPReferences: `{"clients":["gopls"],"supported":["gopls"],"locations":[{"path":"/p/a.go","line":4,"col":6,"text":"func Helper()"},
			{"path":"/h/go/pkg/mod/x/y.go","line":9,"col":2,"text":"secret := Helper()"}]}`,
		LSPHover:         `{"clients":["gopls"],"supported":["gopls"],"hover":["func Secret()"]}`,
		DocumentSymbols:  `{"clients":["gopls"],"supported":["gopls"],"symbols":[{"name":"Secret","kind":"Function","path":"` + todo + `","line":1,"col":1}]}`,
		WorkspaceSymbols: `{"clients":["gopls"],"supported":["gopls"],"symbols":[{"name":"Mine","kind":"Function","path":"/p/a.go","line":1,"col":1},{"name":"Theirs","kind":"Function","path":"/h/other/b.go","line":1,"col":1}]}`,
	}
	for _, tc := range []struct {
		name, tool, in string
		asks           bool     // the user is asked (and denies)
		wants, lacks   []string // in the answer when denied
		head           string
	}{
		{"buffer_text outside", BufferText, `{"path":"` + todo + `"}`, true,
			[]string{"The user did not allow the text of ~/notes/todo.txt (open in your editor)", "The user says: not my notes"}, []string{"buy milk"},
			"outside the project · denied by you"},
		{"buffer_text through ..", BufferText, `{"path":"../h/notes/todo.txt"}`, true, nil, []string{"buy milk"}, "outside the project · denied by you"},
		{"buffer_text as a file uri", BufferText, `{"path":"file://` + todo + `"}`, true, nil, []string{"buy milk"}, "outside the project · denied by you"},
		{"selection outside", Selection, `{}`, true, []string{"your selection in ~/notes/todo.txt (line 1)"}, []string{"buy milk"}, "outside the project · denied by you"},
		{"hover outside", LSPHover, `{"path":"` + todo + `","line":1,"column":1}`, true, []string{"the hover text at ~/notes/todo.txt:1:1"}, []string{"func Secret"}, "outside the project · denied by you"},
		{"document symbols outside", DocumentSymbols, `{"path":"` + todo + `"}`, true, nil, []string{"Secret"}, "outside the project · denied by you"},
		{"diagnostics of an outside file", Diagnostics, `{"path":"` + todo + `"}`, true, nil, []string{"milk is secret"}, "outside the project · denied by you"},
		{"diagnostics of every buffer", Diagnostics, `{}`, false,
			[]string{"a.lua:1:1: error: inside error", "(And 2 diagnostics in 1 file outside the project, not shown"}, []string{"milk", "eggs", "todo"}, "1 error"},
		{"references outside", LSPReferences, `{"path":"a.go","line":4,"column":6}`, false,
			[]string{"a.go:4:6: func Helper()", "~/go/pkg/mod/x/y.go:9:2 (outside the project: its text is not shown)"}, []string{"secret :="}, "2 references (1 outside)"},
		{"workspace symbols", WorkspaceSymbols, `{"query":""}`, false, []string{"Mine", "(And 1 symbol in 1 file outside the project"}, []string{"Theirs"}, "1 symbol"},
		{"open buffers", OpenBuffers, `{}`, false, []string{"- ~/notes/todo.txt: outside the project: reading asks the user"}, []string{"text,", "9 lines"}, "2 buffers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(false)
			o := Run(context.Background(), &fakeEditor{results: results}, Session{Cwd: "/p", Home: "/h", Gate: g}, tc.tool, json.RawMessage(tc.in))
			text := o.Result.Content[0].Text
			if (len(g.asked) > 0) != tc.asks || o.Result.IsError != tc.asks || o.Headline != tc.head {
				t.Fatalf("asked %v, error %v, headline %q (want %q):\n%s", g.asked, o.Result.IsError, o.Headline, tc.head, text)
			}
			for _, w := range tc.wants {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %q:\n%s", w, text)
				}
			}
			for _, l := range tc.lacks {
				if strings.Contains(text, l) {
					t.Errorf("answer has %q:\n%s", l, text)
				}
			}
			if !tc.asks {
				return
			}
			// What the user was shown is exactly what Claude would get.
			if q := g.asked[0]; q.Path != todo || q.Shown != "~/notes/todo.txt" || q.Tool != tc.tool || q.Preview == "" {
				t.Errorf("question %+v", q)
			}
			// Allowed, the same call answers with the text.
			g = newGate(true)
			o = Run(context.Background(), &fakeEditor{results: results}, Session{Cwd: "/p", Home: "/h", Gate: g}, tc.tool, json.RawMessage(tc.in))
			if o.Result.IsError || !strings.HasSuffix(o.Headline, " · allowed once by you") || o.Result.Content[0].Text != g.asked[0].Preview {
				t.Errorf("allowed: %+v (asked %+v)", o, g.asked)
			}
			for _, l := range tc.lacks {
				if !strings.Contains(o.Result.Content[0].Text, l) {
					t.Errorf("allowed, the answer lacks %q:\n%s", l, o.Result.Content[0].Text)
				}
			}
		})
	}
}

// The editor gets the real path, and may load a file only inside; a deny
// rule refuses before the editor is asked; a name that is not a file is
// never sent.
func TestTheEditorGetsTheResolvedPath(t *testing.T) {
	ed := &fakeEditor{results: map[string]string{
		BufferText: `{"open":true,"path":"/p/a.lua","on_disk":true,"from":1,"to":1,"total":1,"lines":["x"]}`,
		LSPHover:   `{"clients":[],"supported":[]}`,
		Selection:  `{"path":"/p/.env","kind":"line","from_line":1,"to_line":1,"lines":["KEY=1"]}`,
	}}
	g := newGate(true, "Read(.env)")
	sess := Session{Cwd: "/p", Home: "/h", Gate: g}
	o := Run(context.Background(), ed, sess, BufferText, json.RawMessage(`{"path":"sub/../a.lua"}`))
	if o.Result.IsError || ed.got[BufferText].Path != "/p/a.lua" || !ed.got[BufferText].MayLoad {
		t.Fatalf("%+v, the editor got %+v", o, ed.got[BufferText])
	}
	o = Run(context.Background(), ed, sess, LSPHover, json.RawMessage(`{"path":"`+todo+`","line":1,"column":1}`))
	if ed.got[LSPHover].MayLoad || ed.got[LSPHover].Path != todo {
		t.Fatalf("the editor got %+v", ed.got[LSPHover])
	}
	delete(ed.got, BufferText)
	o = Run(context.Background(), ed, sess, BufferText, json.RawMessage(`{"path":"conf/.env"}`))
	if !o.Result.IsError || !strings.Contains(o.Result.Content[0].Text, "denied by the user's settings (rule Read(.env))") || ed.got[BufferText].Path != "" {
		t.Fatalf("a denied path: %+v; the editor got %+v", o, ed.got[BufferText])
	}
	o = Run(context.Background(), ed, sess, Selection, json.RawMessage(`{}`))
	if !o.Result.IsError || strings.Contains(o.Result.Content[0].Text, "KEY") || len(g.asked) != 0 {
		t.Fatalf("a selection in a denied file: %+v (asked %v)", o, g.asked)
	}
	for _, name := range []string{"term://bash", "claudenova://sidebar"} {
		o = Run(context.Background(), ed, sess, BufferText, json.RawMessage(`{"path":"`+name+`"}`))
		if !o.Result.IsError || !strings.Contains(o.Result.Content[0].Text, "is not a file path") {
			t.Fatalf("%s: %+v", name, o)
		}
	}
	// A selection in an unnamed buffer is not a file inside: asked.
	ed.results[Selection] = `{"path":"","kind":"cursor","from_line":1,"to_line":1,"lines":["scratch"]}`
	g.allow = false
	o = Run(context.Background(), ed, sess, Selection, json.RawMessage(`{}`))
	if !o.Result.IsError || len(g.asked) != 1 || strings.Contains(o.Result.Content[0].Text, "scratch") {
		t.Fatalf("an unnamed buffer: %+v (asked %v)", o, g.asked)
	}
}

// After a change, only diagnostics of files inside are told, and a file
// outside is not looked at.
func TestAfterChangeKeepsTheBoundary(t *testing.T) {
	ed := &fakeEditor{results: map[string]string{AfterChangeTool: `{"baseline":true,"clients":["x"],
		"after":{"paths":["/p/b.go","` + todo + `"],"items":[{"file":0,"line":1,"col":1,"severity":1,"message":"in"},{"file":1,"line":1,"col":1,"severity":1,"message":"out"}]}}`}}
	sess := Session{Cwd: "/p", Home: "/h", Gate: newGate(true)}
	rep, err := AfterChange(context.Background(), ed, "/p/b.go", sess, 0)
	if err != nil || len(rep.New) != 1 || rep.New[0].Message != "in" {
		t.Fatalf("%+v %v", rep, err)
	}
	delete(ed.got, AfterChangeTool)
	rep, _ = AfterChange(context.Background(), ed, todo, sess, 0)
	if rep.Skipped == "" || len(rep.New) != 0 {
		t.Fatalf("outside: %+v", rep)
	}
}
