package editortools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeEditor answers each tool with a canned JSON result and records the
// arguments it got.
type fakeEditor struct {
	results map[string]string
	err     error
	got     map[string]args
}

func (f *fakeEditor) Call(_ context.Context, tool string, a any) (json.RawMessage, error) {
	if f.got == nil {
		f.got = map[string]args{}
	}
	if x, ok := a.(args); ok {
		f.got[tool] = x
	}
	if f.err != nil {
		return nil, f.err
	}
	r, ok := f.results[tool]
	if !ok {
		return nil, fmt.Errorf("no canned result for %s", tool)
	}
	return json.RawMessage(r), nil
}

func TestParseArgs(t *testing.T) {
	cwd := "/p"
	for _, tc := range []struct {
		tool, in string
		want     args
		err      string
	}{
		{OpenBuffers, `{}`, args{Root: cwd}, ""},
		{OpenBuffers, ``, args{Root: cwd}, ""},
		{OpenBuffers, `{"x":1}`, args{}, `unknown argument "x"`},
		{BufferText, `{"path":"a.lua"}`, args{Root: cwd, Path: "a.lua", Shown: "a.lua", StartLine: 1, Max: MaxTextLines}, ""},
		{BufferText, `{"path":"/abs/../b.txt","start_line":3,"end_line":9}`, args{Root: cwd, Path: "/abs/../b.txt", Shown: "/abs/../b.txt", StartLine: 3, EndLine: 9, Max: MaxTextLines}, ""},
		{BufferText, `{"path":"a","start_line":5,"end_line":2}`, args{}, "end_line 2 is before start_line 5"},
		{BufferText, `{}`, args{}, `"path" is required`},
		{BufferText, `{"path":"  "}`, args{}, `"path" must not be empty`},
		{BufferText, `{"path":3}`, args{}, `"path" must be a string`},
		{Diagnostics, `{}`, args{Root: cwd}, ""},
		{Diagnostics, `{"path":null}`, args{Root: cwd}, ""},
		{LSPDefinition, `{"path":"b.go","line":4,"column":9}`, args{Root: cwd, Path: "b.go", Shown: "b.go", Line: 4, Column: 9}, ""},
		{LSPHover, `{"path":"b.go","line":0,"column":9}`, args{}, `"line" must be a whole number ≥ 1`},
		{LSPHover, `{"path":"b.go","line":1.5,"column":9}`, args{}, `"line" must be a whole number`},
		{LSPHover, `{"path":"b.go","line":"3","column":9}`, args{}, `"line" must be a whole number`},
		{LSPReferences, `{"path":"b.go","line":3}`, args{}, `"column" is required`},
		{DocumentSymbols, `{"path":"b.go"}`, args{Root: cwd, Path: "b.go", Shown: "b.go"}, ""},
		{WorkspaceSymbols, `{"query":""}`, args{Root: cwd}, ""},
		{WorkspaceSymbols, `{}`, args{}, `"query" is required`},
		{"rm", `{}`, args{}, "unknown tool"},
		{Selection, `[1]`, args{}, "must be a JSON object"},
	} {
		got, err := parseArgs(tc.tool, json.RawMessage(tc.in), cwd)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: err %v, want %q", tc.tool, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %+v %v, want %+v", tc.tool, tc.in, got, err, tc.want)
		}
	}
}

func TestRunDescribes(t *testing.T) {
	cwd := "/p"
	ed := &fakeEditor{results: map[string]string{
		OpenBuffers: `{"buffers":[{"path":"/p/a.lua","filetype":"lua","modified":true,"visible":true,"current":true,"cursor_line":3,"lines":3,"loaded":true},
			{"path":"/elsewhere/n.txt","filetype":"","modified":false,"visible":false,"cursor_line":0,"lines":0,"loaded":false}]}`,
		BufferText: `{"open":true,"path":"/p/a.lua","modified":false,"on_disk":true,"from":2,"to":3,"total":10,"lines":["two","three"]}`,
		Selection:  `{"path":"/p/a.lua","kind":"char","from_line":2,"from_col":3,"to_line":2,"to_col":5,"lines":["o x"]}`,
		Diagnostics: `{"open":true,"diagnostics":{"paths":["/p/a.lua"],"items":[{"file":0,"line":9,"col":1,"severity":2,"source":"lua_ls","code":"unused","message":"unused\nlocal"},
			{"file":0,"line":3,"col":12,"severity":1,"source":"","code":"","message":"boom"},
			{"file":0,"line":1,"col":1,"severity":4,"source":"","code":"","message":"a hint"}]}}`,
		LSPDefinition: `{"clients":["gopls"],"supported":["gopls"],"locations":[{"path":"/p/a.go","line":4,"col":6,"text":"func Helper() int"}]}`,
		LSPReferences: `{"clients":["gopls"],"supported":["gopls"],"locations":[{"path":"/p/a.go","line":4,"col":6,"text":"func Helper() int"},{"path":"/p/b.go","line":4,"col":9,"text":"\treturn Helper()"}]}`,
		LSPHover:      `{"clients":["gopls"],"supported":["gopls"],"hover":["func Helper() int","","Helper returns one."],"timed_out":true,"errors":["x: slow"]}`,
		DocumentSymbols: `{"clients":["gopls"],"supported":["gopls"],"symbols":[{"name":"T","kind":"Struct","path":"/p/a.go","line":3,"col":6,"detail":"struct{...}","depth":0},
			{"name":"F","kind":"Field","path":"/p/a.go","line":4,"col":2,"depth":1}]}`,
		WorkspaceSymbols: `{"clients":["lua_ls"],"supported":[]}`,
	}}
	for _, tc := range []struct {
		tool, in, head string
		wants          []string
	}{
		{OpenBuffers, `{}`, "2 buffers, 1 modified", []string{"- a.lua (lua, 3 lines): modified (unsaved changes", "the current buffer, cursor on line 3",
			"- /elsewhere/n.txt: outside the project: reading asks the user"}},
		{BufferText, `{"path":"a.lua","start_line":2,"end_line":3}`, "2 lines", []string{"a.lua as the editor has it, lines 2-3 of 10 (the same as the file on disk):",
			"     2\ttwo\n     3\tthree", "(7 more lines: ask again with start_line 4.)"}},
		{Selection, `{}`, "a.lua:2", []string{"from line 2 column 3 to line 2 column 5:", "     2\to x"}},
		{Diagnostics, `{"path":"a.lua"}`, "1 error, 1 warning", []string{"a.lua: 1 error, 1 warning (and 1 info or hint)\na.lua:1:1: hint: a hint\na.lua:3:12: error: boom\na.lua:9:1: warning: unused local [lua_ls unused]"}},
		{LSPDefinition, `{"path":"b.go","line":4,"column":9}`, "a.go:4", []string{"Definition of the symbol at b.go:4:9 (gopls):\na.go:4:6: func Helper() int"}},
		{LSPReferences, `{"path":"a.go","line":4,"column":6}`, "2 references", []string{"2 references to the symbol at a.go:4:6 (gopls):", "b.go:4:9: return Helper()"}},
		{LSPHover, `{"path":"a.go","line":4,"column":6}`, "hover", []string{"Hover at a.go:4:6 (gopls):\nfunc Helper() int\n\nHelper returns one.",
			"did not answer in time", "an error: x: slow"}},
		{DocumentSymbols, `{"path":"a.go"}`, "2 symbols", []string{"2 symbols in a.go (gopls):\nStruct T  a.go:3:6  struct{...}\n  Field F  a.go:4:2"}},
		{WorkspaceSymbols, `{"query":"x"}`, "no server", []string{"None of the language servers running in the editor (lua_ls) serves workspace/symbol"}},
	} {
		o := Run(context.Background(), ed, Session{Cwd: cwd}, tc.tool, json.RawMessage(tc.in))
		text := o.Result.Content[0].Text
		if o.Result.IsError || o.Headline != tc.head {
			t.Errorf("%s: error %v, headline %q, want %q:\n%s", tc.tool, o.Result.IsError, o.Headline, tc.head, text)
		}
		for _, w := range tc.wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", tc.tool, w, text)
			}
		}
	}
	if got := ed.got[LSPDefinition]; got.Path != "/p/b.go" || got.Root != cwd || !got.MayLoad {
		t.Errorf("the editor got %+v", got)
	}
}

func TestRunFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		ed   Editor
		tool string
		in   string
		want string
	}{
		{"no editor", nil, OpenBuffers, `{}`, "not connected"},
		{"bad arguments", &fakeEditor{}, LSPHover, `{"path":"a"}`, `"line" is required`},
		{"the editor refuses", &fakeEditor{err: &ToolError{Tool: LSPHover, Msg: "/x is outside the session's folder and not open in the editor"}}, LSPHover,
			`{"path":"/x","line":1,"column":1}`, "outside the session's folder"},
		{"the editor is busy", &fakeEditor{err: ErrEditorBusy}, Selection, `{}`, "did not answer in time"},
		{"a bad answer", &fakeEditor{results: map[string]string{Selection: `[]`}}, Selection, `{}`, "could not be read"},
	} {
		var o Outcome
		if tc.ed == nil {
			o = Run(context.Background(), nil, Session{Cwd: "/p"}, tc.tool, json.RawMessage(tc.in))
		} else {
			o = Run(context.Background(), tc.ed, Session{Cwd: "/p"}, tc.tool, json.RawMessage(tc.in))
		}
		if !o.Result.IsError || !strings.Contains(o.Result.Content[0].Text, tc.want) || o.Headline != "failed" {
			t.Errorf("%s: %+v", tc.name, o)
		}
	}
}

func TestNoServerAndNotOpen(t *testing.T) {
	ed := &fakeEditor{results: map[string]string{
		LSPDefinition: `{"clients":[],"supported":[]}`,
		LSPReferences: `{"clients":["lua_ls"],"supported":[]}`,
		BufferText:    `{"open":false}`,
		Diagnostics:   `{"open":false,"items":[]}`,
		Selection:     `{"path":"/p/a.lua","kind":"cursor","from_line":7,"to_line":7,"lines":["x = 1"]}`,
	}}
	for _, tc := range []struct{ tool, in, head, want string }{
		{LSPDefinition, `{"path":"a.lua","line":1,"column":1}`, "no server", "No language server is attached to a.lua in the editor"},
		{LSPReferences, `{"path":"a.lua","line":1,"column":1}`, "no server", "The language servers attached to a.lua (lua_ls) do not serve textDocument/references"},
		{BufferText, `{"path":"a.lua"}`, "not open", "a.lua is not open in the editor: read it from disk with Read."},
		{Diagnostics, `{"path":"/else/x.go"}`, "not open", "/else/x.go is not open in the editor"},
		{Selection, `{}`, "a.lua:7 (cursor)", "No visual selection in a.lua; the cursor is on line 7:\n     7\tx = 1"},
	} {
		o := Run(context.Background(), ed, Session{Cwd: "/p"}, tc.tool, json.RawMessage(tc.in))
		if o.Result.IsError || o.Headline != tc.head || !strings.Contains(o.Result.Content[0].Text, tc.want) {
			t.Errorf("%s: %+v", tc.tool, o)
		}
	}
}

func TestDiagnosticsAreCapped(t *testing.T) {
	var items []map[string]any
	for i := 0; i < MaxDiagnostics+100; i++ {
		sev := 3
		if i%10 == 0 {
			sev = 1
		}
		items = append(items, map[string]any{"file": 0, "line": i + 1, "col": 1, "severity": sev, "message": "m"})
	}
	b, _ := json.Marshal(map[string]any{"open": true, "diagnostics": map[string]any{"paths": []string{"/p/a.go"}, "items": items}})
	o := Run(context.Background(), &fakeEditor{results: map[string]string{Diagnostics: string(b)}}, Session{Cwd: "/p"}, Diagnostics, json.RawMessage(`{"path":"a.go"}`))
	text := o.Result.Content[0].Text
	if o.Headline != fmt.Sprintf("%d errors", (MaxDiagnostics+100+9)/10) || !strings.Contains(text, "(100 less severe diagnostics were left out.)") {
		t.Fatalf("%s\n%s", o.Headline, text[len(text)-200:])
	}
	// Every error is kept; the cut ones are infos.
	if n := strings.Count(text, ": error: "); n != (MaxDiagnostics+100+9)/10 {
		t.Fatalf("%d errors listed", n)
	}
}

// The editor sends each file's most severe only, with its counts
// (diags_of with a limit): the answer is the one all of them would give.
func TestDiagnosticsCountedByTheEditor(t *testing.T) {
	type item = map[string]any
	// sevs[f][i]: the severity of file f's i-th diagnostic, in its order.
	mixed := func(n int, pick func(i int) int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = pick(i)
		}
		return out
	}
	// whole is every diagnostic; cut is what the editor sends with limit.
	sets := func(paths []string, sevs [][]int, limit int) (whole, cut map[string]any) {
		var all, kept []item
		var counts []sevCounts
		for f, ss := range sevs {
			var n sevCounts
			for _, s := range ss {
				n[s-1]++
			}
			counts = append(counts, n)
			upto, before := 4, 0
			for sev := 1; sev <= 4; sev++ {
				if before+n[sev-1] >= limit {
					upto = sev
					break
				}
				before += n[sev-1]
			}
			room := limit - before
			for i, s := range ss {
				it := item{"file": f, "line": i + 1, "col": 1, "severity": s, "message": fmt.Sprintf("m%d", i)}
				all = append(all, it)
				if s < upto || (s == upto && room > 0) {
					if s == upto {
						room--
					}
					kept = append(kept, it)
				}
			}
		}
		return map[string]any{"paths": paths, "items": all}, map[string]any{"paths": paths, "items": kept, "counts": counts}
	}
	for _, tc := range []struct {
		name  string
		in    string
		paths []string
		sevs  [][]int
	}{
		{"a file of every severity", `{"path":"a.go"}`, []string{"/p/a.go"}, [][]int{mixed(1000, func(i int) int { return i%4 + 1 })}},
		{"few errors, many hints", `{"path":"a.go"}`, []string{"/p/a.go"}, [][]int{mixed(700, func(i int) int { return []int{1, 2, 4, 4, 4, 4, 4}[i%7] })}},
		{"fewer than the limit", `{"path":"a.go"}`, []string{"/p/a.go"}, [][]int{mixed(30, func(i int) int { return i%3 + 2 })}},
		{"every buffer, one outside", `{}`, []string{"/p/a.go", "/else/b.go", "/p/c.go"}, [][]int{
			mixed(150, func(i int) int { return i%2 + 1 }),
			mixed(400, func(i int) int { return 1 }),
			mixed(300, func(i int) int { return i%4 + 1 }),
		}},
	} {
		whole, cut := sets(tc.paths, tc.sevs, MaxDiagnostics)
		answer := func(set map[string]any) Outcome {
			b, _ := json.Marshal(map[string]any{"open": true, "loaded": len(tc.paths), "diagnostics": set})
			ed := &fakeEditor{results: map[string]string{Diagnostics: string(b)}}
			o := Run(context.Background(), ed, Session{Cwd: "/p"}, Diagnostics, json.RawMessage(tc.in))
			if l := ed.got[Diagnostics].Limit; l != MaxDiagnostics {
				t.Errorf("%s: the editor was asked for %d at most, not %d", tc.name, l, MaxDiagnostics)
			}
			return o
		}
		want, got := answer(whole), answer(cut)
		if want.Headline != got.Headline || want.Result.Content[0].Text != got.Result.Content[0].Text {
			t.Errorf("%s: from the counts\n%s\n%s\nnot as from all\n%s\n%s", tc.name, got.Headline, got.Result.Content[0].Text, want.Headline, want.Result.Content[0].Text)
		}
	}
}

func TestNewDiagnostics(t *testing.T) {
	d := func(line, sev int, msg string) Diag {
		return Diag{Path: "/p/b.go", Line: line, Col: 1, Severity: sev, Source: "compiler", Message: msg}
	}
	for _, tc := range []struct {
		name          string
		before, after []Diag
		want          []Diag
	}{
		{"nothing before", nil, []Diag{d(4, 1, "undefined: x")}, []Diag{d(4, 1, "undefined: x")}},
		{"moved by the edit: not new", []Diag{d(4, 1, "undefined: x")}, []Diag{d(9, 1, "undefined: x")}, nil},
		{"one more of the same", []Diag{d(4, 1, "undefined: x")}, []Diag{d(4, 1, "undefined: x"), d(8, 1, "undefined: x")}, []Diag{d(8, 1, "undefined: x")}},
		{"the same line wins the match", []Diag{d(8, 1, "undefined: x")}, []Diag{d(4, 1, "undefined: x"), d(8, 1, "undefined: x")}, []Diag{d(4, 1, "undefined: x")}},
		{"fixed ones are not reported", []Diag{d(4, 1, "undefined: x")}, nil, nil},
		{"hints and infos never count", nil, []Diag{d(1, 3, "info"), d(2, 4, "hint")}, nil},
		{"a warning is not an error", []Diag{d(4, 2, "undefined: x")}, []Diag{d(4, 1, "undefined: x")}, []Diag{d(4, 1, "undefined: x")}},
		{"whitespace in messages does not matter", []Diag{d(4, 1, "a\n  b")}, []Diag{d(4, 1, "a b")}, nil},
	} {
		got := NewDiagnostics(tc.before, tc.after)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAfterChange(t *testing.T) {
	ed := &fakeEditor{results: map[string]string{AfterChangeTool: `{"baseline":true,"clients":["gopls"],
		"before":{"paths":["/p/b.go"],"items":[{"file":0,"line":2,"col":1,"severity":1,"source":"compiler","message":"old"}]},
		"after":{"paths":["/p/b.go"],"items":[{"file":0,"line":3,"col":1,"severity":1,"source":"compiler","message":"old"},
			{"file":0,"line":4,"col":9,"severity":1,"source":"compiler","code":"UndeclaredName","message":"undefined: Helperx"}]}}`}}
	rep, err := AfterChange(context.Background(), ed, "/p/b.go", Session{Cwd: "/p"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := "[claude-nova] After your change to b.go, the editor's language server (gopls) reports 1 new error:\n" +
		"- b.go:4:9: error: undefined: Helperx [compiler UndeclaredName]"
	if got := rep.Message(ByClaude); got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
	if !strings.HasPrefix(rep.Message(ByRewind), "[claude-nova] After the user's rewind of b.go,") {
		t.Fatal(rep.Message(ByRewind))
	}
	ed.results[AfterChangeTool] = `{"baseline":false,"clients":[],"after":{"paths":["/p/c.go"],"items":[{"file":0,"line":1,"col":1,"severity":2,"message":"w"}]}}`
	rep, _ = AfterChange(context.Background(), ed, "/p/c.go", Session{Cwd: "/p"}, time.Second)
	if got := rep.Message(ByClaude); !strings.Contains(got, "After your change to c.go, the editor reports 1 warning (the file was not open in the editor before") {
		t.Fatal(got)
	}
	ed.results[AfterChangeTool] = `{"skipped":"the buffer has unsaved changes"}`
	rep, _ = AfterChange(context.Background(), ed, "/p/c.go", Session{Cwd: "/p"}, time.Second)
	if rep.Message(ByClaude) != "" || rep.Skipped == "" {
		t.Fatalf("%+v", rep)
	}
	if rep, err := AfterChange(context.Background(), nil, "/p/c.go", Session{Cwd: "/p"}, time.Second); err != nil || rep.Message(ByClaude) != "" {
		t.Fatalf("no editor: %+v %v", rep, err)
	}
}

func TestBridge(t *testing.T) {
	t.Run("answered at once", func(t *testing.T) {
		b := NewBridge(func(token, tool, a string, wait int) (string, error) {
			if tool != "selection" || a != `{"root":"/p"}` || wait <= 0 {
				return "", fmt.Errorf("got %s %s %d", tool, a, wait)
			}
			return `{"ok":true,"result":{"x":1}}`, nil
		})
		out, err := b.Call(context.Background(), "selection", args{Root: "/p"})
		if err != nil || string(out) != `{"x":1}` {
			t.Fatalf("%s %v", out, err)
		}
	})
	t.Run("answered later", func(t *testing.T) {
		var b *Bridge
		b = NewBridge(func(token, _, _ string, _ int) (string, error) {
			go b.Resolve(token, true, json.RawMessage(`{"late":true}`), "")
			return "", nil
		})
		out, err := b.Call(context.Background(), "lsp_hover", nil)
		if err != nil || string(out) != `{"late":true}` {
			t.Fatalf("%s %v", out, err)
		}
	})
	t.Run("the editor refuses", func(t *testing.T) {
		b := NewBridge(func(string, string, string, int) (string, error) {
			return `{"ok":false,"error":"no such file: /p/x"}`, nil
		})
		_, err := b.Call(context.Background(), "lsp_hover", nil)
		var te *ToolError
		if !errors.As(err, &te) || te.Msg != "no such file: /p/x" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("Neovim does not answer", func(t *testing.T) {
		block := make(chan struct{})
		defer close(block)
		b := NewBridge(func(string, string, string, int) (string, error) {
			<-block // in input(), say
			return "", nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := b.Call(ctx, "selection", nil); !errors.Is(err, ErrEditorBusy) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a late answer nobody waits for", func(t *testing.T) {
		b := NewBridge(func(string, string, string, int) (string, error) { return "", nil })
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, _ = b.Call(ctx, "lsp_hover", nil)
		b.Resolve("1", true, nil, "") // dropped, never blocks
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(b.waiting) != 0 {
			t.Fatalf("tokens left: %v", b.waiting)
		}
	})
	t.Run("RPC error", func(t *testing.T) {
		b := NewBridge(func(string, string, string, int) (string, error) { return "", errors.New("channel closed") })
		if _, err := b.Call(context.Background(), "selection", nil); err == nil || !strings.Contains(err.Error(), "channel closed") {
			t.Fatalf("%v", err)
		}
	})
}

func TestTools(t *testing.T) {
	all := Tools(nil)
	if len(all) != len(Names()) {
		t.Fatalf("%d tools", len(all))
	}
	for _, tl := range all {
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s (%v)", tl.Name, tl.InputSchema, err)
		}
		if !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tl.Name)
		}
	}
	some := Tools([]string{"selection", "diagnostics"})
	if len(some) != 2 || some[0].Name != "selection" || some[1].Name != "diagnostics" {
		t.Fatalf("%v", some)
	}
	if got := Tools([]string{}); len(got) != 0 {
		t.Fatalf("an empty list offers %d tools", len(got))
	}
	if bad := Unknown([]string{"selection", "rm", "ls"}); strings.Join(bad, ",") != "ls,rm" {
		t.Fatal(bad)
	}
	if ToolName("mcp__nvim__diagnostics") != "diagnostics" || ToolName("mcp__other__diagnostics") != "" || ToolName("mcp__nvim__rm") != "" {
		t.Fatal("ToolName")
	}
}

// The Lua config lists the same tools (its schema validates them and
// documents the default).
func TestLuaListsTheSameTools(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "lua", "claudenova", "setup", "config.lua"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`local EDITOR_TOOLS = \{([^}]*)\}`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no EDITOR_TOOLS in config.lua")
	}
	var lua []string
	for _, q := range regexp.MustCompile(`"([a-z_]+)"`).FindAllSubmatch(m[1], -1) {
		lua = append(lua, string(q[1]))
	}
	if strings.Join(lua, ",") != strings.Join(Names(), ",") {
		t.Fatalf("config.lua lists %v, the host %v", lua, Names())
	}
}
