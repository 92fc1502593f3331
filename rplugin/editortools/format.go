package editortools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/mcp"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// MaxDiagnostics bounds the diagnostics one answer lists (the most severe
// first: a model reads them all); the answer says how many were left out.
const MaxDiagnostics = 200

// MaxLocations bounds the locations and symbols one answer lists.
const MaxLocations = 300

// Diag is one vim.diagnostic entry as the editor reports it (1-based line
// and character column).
type Diag struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity int    `json:"severity"` // 1 error, 2 warning, 3 info, 4 hint
	Source   string `json:"source"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// diagSet is how the editor sends diagnostics: each path once, each item
// naming its file by index. Asked with a limit (args.Limit), it sends each
// file's limit most severe only, and Counts has each file's count of every
// severity ({errors, warnings, infos, hints}, as Paths).
type diagSet struct {
	Paths  []string    `json:"paths"`
	Counts []sevCounts `json:"counts"`
	Items  []struct {
		File     int    `json:"file"`
		Line     int    `json:"line"`
		Col      int    `json:"col"`
		Severity int    `json:"severity"`
		Source   string `json:"source"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"items"`
}

// sevCounts is one file's count of errors, warnings, infos and hints.
type sevCounts [4]int

func (c sevCounts) total() int { return max(c[0], 0) + max(c[1], 0) + max(c[2], 0) + max(c[3], 0) }

// counted reports whether the editor sent each file's counts (asked with
// a limit): its items are then only the most severe.
func (s *diagSet) counted() bool {
	return s != nil && len(s.Counts) > 0 && len(s.Counts) == len(s.Paths)
}

func (s *diagSet) diags() []Diag {
	if s == nil {
		return nil
	}
	out := make([]Diag, 0, len(s.Items))
	for _, it := range s.Items {
		path := ""
		if it.File >= 0 && it.File < len(s.Paths) {
			path = s.Paths[it.File]
		}
		out = append(out, Diag{Path: path, Line: it.Line, Col: it.Col, Severity: it.Severity, Source: it.Source, Code: it.Code, Message: it.Message})
	}
	return out
}

var severities = []string{"", "error", "warning", "info", "hint"}

func severity(n int) string {
	if n >= 1 && n < len(severities) {
		return severities[n]
	}
	return "note"
}

func oneLine(s string) string { return sanitize.Collapse(s) }

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// tally is how many diagnostics there are of each severity (1 error … 4
// hint; 0 any other).
type tally [5]int

func tallyOf(ds []Diag) tally {
	var n tally
	for _, d := range ds {
		if d.Severity >= 1 && d.Severity <= 4 {
			n[d.Severity]++
		} else {
			n[0]++
		}
	}
	return n
}

func (n tally) total() int { return n[0] + n[1] + n[2] + n[3] + n[4] }

// tallyIn is the count of every severity in the files keep lets through:
// the editor's counts when it sent them, else those of items.
func (s *diagSet) tallyIn(items []Diag, keep func(path string) bool) tally {
	if !s.counted() {
		return tallyOf(items)
	}
	var n tally
	for i, c := range s.Counts {
		if keep(s.Paths[i]) {
			for sev := 1; sev <= 4; sev++ {
				n[sev] += max(c[sev-1], 0)
			}
		}
	}
	return n
}

// counts says how many errors and warnings (else infos and hints) ds has:
// "2 errors, 1 warning", "none".
func counts(ds []Diag) string { return tallyOf(ds).String() }

func (n tally) String() string {
	var parts []string
	for sev := 1; sev <= 4; sev++ {
		if n[sev] > 0 && (sev <= 2 || n[1]+n[2] == 0) {
			parts = append(parts, plural(n[sev], severities[sev]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// line is one diagnostic for the model: "a.lua:3:7: error: msg [source code]".
func (d Diag) line(show func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: %s: %s", show(d.Path), d.Line, d.Col, severity(d.Severity), oneLine(d.Message))
	tag := strings.TrimSpace(strings.TrimSpace(d.Source) + " " + strings.TrimSpace(d.Code))
	if tag != "" {
		fmt.Fprintf(&b, " [%s]", oneLine(tag))
	}
	return b.String()
}

func sortByPlace(ds []Diag) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Severity < b.Severity
	})
}

// capDiags keeps the max most severe, in the order of the file.
func capDiags(ds []Diag, max int) []Diag {
	if len(ds) <= max {
		sortByPlace(ds)
		return ds
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Severity < ds[j].Severity })
	kept := ds[:max]
	sortByPlace(kept)
	return kept
}

type bufferInfo struct {
	Path     string `json:"path"`
	Filetype string `json:"filetype"`
	Modified bool   `json:"modified"`
	Visible  bool   `json:"visible"`
	Current  bool   `json:"current"`
	Cursor   int    `json:"cursor_line"`
	Lines    int    `json:"lines"`
	Loaded   bool   `json:"loaded"`
}

type textResult struct {
	Open     bool     `json:"open"`
	Path     string   `json:"path"`
	Modified bool     `json:"modified"`
	OnDisk   bool     `json:"on_disk"`
	Filetype string   `json:"filetype"`
	From     int      `json:"from"`
	To       int      `json:"to"`
	Total    int      `json:"total"`
	Lines    []string `json:"lines"`
}

type selectionResult struct {
	Path     string   `json:"path"`
	Kind     string   `json:"kind"` // "char", "line", "block", "cursor"
	FromLine int      `json:"from_line"`
	FromCol  int      `json:"from_col"`
	ToLine   int      `json:"to_line"`
	ToCol    int      `json:"to_col"`
	Modified bool     `json:"modified"`
	Filetype string   `json:"filetype"`
	Lines    []string `json:"lines"`
}

type diagResult struct {
	Open        bool     `json:"open"`
	Loaded      int      `json:"loaded"` // buffers looked at (no path)
	Diagnostics *diagSet `json:"diagnostics"`
}

// Location is a place a language server pointed to.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Text string `json:"text"`
}

type symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Col       int    `json:"col"`
	Detail    string `json:"detail"`
	Container string `json:"container"`
	Depth     int    `json:"depth"`
}

type lspResult struct {
	Clients   []string   `json:"clients"`   // attached to the buffer
	Supported []string   `json:"supported"` // of those, serving the method
	Method    string     `json:"method"`
	Errors    []string   `json:"errors"`
	TimedOut  bool       `json:"timed_out"`
	Locations []Location `json:"locations"`
	Hover     []string   `json:"hover"`
	Symbols   []symbol   `json:"symbols"`
}

// describe turns the editor's answer into text for the model. When the
// answer would carry text from outside the session's folders, it also
// returns the question to ask the user before it is given.
func describe(tool string, a args, out json.RawMessage, sc *scope) (Outcome, *Question, error) {
	switch tool {
	case OpenBuffers:
		var r struct {
			Buffers []bufferInfo `json:"buffers"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			return Outcome{}, nil, err
		}
		return openBuffers(r.Buffers, sc), nil, nil
	case BufferText:
		var r textResult
		if err := json.Unmarshal(out, &r); err != nil {
			return Outcome{}, nil, err
		}
		o := bufferText(r, a.Shown)
		if !r.Open {
			return o, nil, nil
		}
		for _, p := range []string{a.Path, r.Path} {
			if !sc.open(p) {
				what := "the text of " + sc.show(p) + " (open in your editor"
				if r.Modified {
					what += ", with unsaved changes"
				}
				return o, &Question{Path: sc.check(p).Real, Shown: sc.show(p), What: what + ")"}, nil
			}
		}
		return o, nil, nil
	case Selection:
		var r selectionResult
		if err := json.Unmarshal(out, &r); err != nil {
			return Outcome{}, nil, err
		}
		o := selection(r, sc.show)
		if !sc.open(r.Path) {
			where := fmt.Sprintf("line %d", r.FromLine)
			if r.ToLine != r.FromLine {
				where = fmt.Sprintf("lines %d-%d", r.FromLine, r.ToLine)
			}
			what := "your selection in " + sc.show(r.Path) + " (" + where + ")"
			if r.Kind == "cursor" {
				what = "the line under your cursor in " + sc.show(r.Path) + " (" + where + ")"
			}
			return o, &Question{Path: sc.check(r.Path).Real, Shown: sc.show(r.Path), What: what}, nil
		}
		return o, nil, nil
	case Diagnostics:
		var r diagResult
		if err := json.Unmarshal(out, &r); err != nil {
			return Outcome{}, nil, err
		}
		o := diagnostics(r.Open, r.Loaded, r.Diagnostics, a, sc)
		if a.Path != "" && r.Open && !sc.open(a.Path) {
			return o, &Question{Path: a.Path, Shown: sc.show(a.Path), What: "the diagnostics of " + sc.show(a.Path)}, nil
		}
		return o, nil, nil
	case LSPDefinition, LSPReferences, LSPHover, DocumentSymbols, WorkspaceSymbols:
		var r lspResult
		if err := json.Unmarshal(out, &r); err != nil {
			return Outcome{}, nil, err
		}
		o := lsp(tool, r, a, sc)
		if (tool == LSPHover || tool == DocumentSymbols) && len(r.Supported) > 0 && !sc.open(a.Path) {
			what := "the symbols of " + sc.show(a.Path) + " (from your language server)"
			if tool == LSPHover {
				what = fmt.Sprintf("the hover text at %s:%d:%d (from your language server)", sc.show(a.Path), a.Line, a.Column)
			}
			return o, &Question{Path: a.Path, Shown: sc.show(a.Path), What: what}, nil
		}
		return o, nil, nil
	}
	return Outcome{}, nil, fmt.Errorf("unknown tool %q", tool)
}

func openBuffers(bs []bufferInfo, sc *scope) Outcome {
	rel := sc.show
	if len(bs) == 0 {
		return Outcome{Result: mcp.Text("No file buffers are open in the editor."), Headline: "none"}
	}
	var b strings.Builder
	modified := 0
	fmt.Fprintf(&b, "%s open in the editor:\n", plural(len(bs), "buffer"))
	for _, x := range bs {
		if !sc.open(x.Path) {
			fmt.Fprintf(&b, "- %s: outside the project: reading asks the user\n", rel(x.Path))
			continue
		}
		var facts []string
		if x.Modified {
			modified++
			facts = append(facts, "modified (unsaved changes: its text differs from the file on disk)")
		}
		if x.Visible {
			facts = append(facts, "visible in a window")
		} else {
			facts = append(facts, "hidden")
		}
		if x.Current {
			facts = append(facts, "the current buffer")
		}
		if x.Cursor > 0 {
			facts = append(facts, fmt.Sprintf("cursor on line %d", x.Cursor))
		}
		ft := x.Filetype
		if ft == "" {
			ft = "no filetype"
		}
		size := "not loaded"
		if x.Loaded {
			size = plural(x.Lines, "line")
		}
		fmt.Fprintf(&b, "- %s (%s, %s): %s\n", rel(x.Path), ft, size, strings.Join(facts, ", "))
	}
	head := plural(len(bs), "buffer")
	if modified > 0 {
		head += fmt.Sprintf(", %d modified", modified)
	}
	return Outcome{Result: mcp.Text(strings.TrimRight(b.String(), "\n")), Headline: head}
}

// numbered writes lines as the Read tool does: the line number, a tab, the
// text.
func numbered(b *strings.Builder, from int, lines []string) {
	for i, l := range lines {
		fmt.Fprintf(b, "%6d\t%s\n", from+i, l)
	}
}

func bufferText(r textResult, name string) Outcome {
	if !r.Open {
		return Outcome{Result: mcp.Text(fmt.Sprintf("%s is not open in the editor: read it from disk with Read.", name)), Headline: "not open"}
	}
	var b strings.Builder
	state := "the same as the file on disk"
	head := plural(len(r.Lines), "line")
	switch {
	case !r.OnDisk:
		state = "the file does not exist on disk (a new, unsaved buffer)"
		head += ", not on disk"
	case r.Modified:
		state = "it has unsaved changes: this text differs from the file on disk"
		head += ", unsaved"
	}
	if len(r.Lines) == 0 {
		fmt.Fprintf(&b, "%s in the editor has %s; there is nothing from line %d (%s).", name, plural(r.Total, "line"), r.From, state)
		return Outcome{Result: mcp.Text(b.String()), Headline: head}
	}
	fmt.Fprintf(&b, "%s as the editor has it, lines %d-%d of %d (%s):\n", name, r.From, r.To, r.Total, state)
	numbered(&b, r.From, r.Lines)
	if r.To < r.Total {
		fmt.Fprintf(&b, "(%d more lines: ask again with start_line %d.)\n", r.Total-r.To, r.To+1)
	}
	return Outcome{Result: mcp.Text(strings.TrimRight(b.String(), "\n")), Headline: head}
}

func selection(r selectionResult, rel func(string) string) Outcome {
	name := "an unnamed buffer"
	if r.Path != "" {
		name = rel(r.Path)
	}
	var b strings.Builder
	where := fmt.Sprintf("line %d", r.FromLine)
	if r.ToLine != r.FromLine {
		where = fmt.Sprintf("lines %d-%d", r.FromLine, r.ToLine)
	}
	switch r.Kind {
	case "cursor":
		fmt.Fprintf(&b, "No visual selection in %s; the cursor is on line %d:\n", name, r.FromLine)
	case "line":
		fmt.Fprintf(&b, "The user's last visual selection, in %s, %s (whole lines):\n", name, where)
	case "block":
		fmt.Fprintf(&b, "The user's last visual selection, in %s, %s, columns %d-%d (a block):\n", name, where, r.FromCol, r.ToCol)
	default:
		fmt.Fprintf(&b, "The user's last visual selection, in %s, from line %d column %d to line %d column %d:\n", name, r.FromLine, r.FromCol, r.ToLine, r.ToCol)
	}
	numbered(&b, r.FromLine, r.Lines)
	if r.Modified {
		b.WriteString("(The buffer has unsaved changes: the file on disk differs.)\n")
	}
	head := fmt.Sprintf("%s:%d", name, r.FromLine)
	if r.ToLine != r.FromLine {
		head += fmt.Sprintf("-%d", r.ToLine)
	}
	if r.Kind == "cursor" {
		head += " (cursor)"
	}
	return Outcome{Result: mcp.Text(strings.TrimRight(b.String(), "\n")), Headline: head}
}

func diagnostics(open bool, loaded int, set *diagSet, a args, sc *scope) Outcome {
	items := set.diags()
	scope := "All loaded buffers"
	note := ""
	inside := func(string) bool { return true }
	if a.Path != "" {
		scope = sc.show(a.Path)
		if !open {
			return Outcome{Result: mcp.Text(fmt.Sprintf("%s is not open in the editor and was not loaded, so the editor has no diagnostics for it.", scope)),
				Headline: "not open"}
		}
	}
	if a.Path == "" {
		// Every loaded buffer: only those inside the boundary are told.
		inside = sc.open
		kept, left, files := items[:0:0], 0, map[string]bool{}
		for _, d := range items {
			if sc.open(d.Path) {
				kept = append(kept, d)
			} else {
				left++
				files[d.Path] = true
			}
		}
		if set.counted() {
			// The editor sent only the most severe: the others count too.
			left = 0
			for i, p := range set.Paths {
				if !sc.open(p) {
					left += set.Counts[i].total()
					files[p] = true
				}
			}
		}
		items, note = kept, outsideNote(left, files, "diagnostic")
	}
	n := set.tallyIn(items, inside)
	if n.total() == 0 || len(items) == 0 {
		msg := fmt.Sprintf("No diagnostics in %s.", scope)
		if a.Path == "" {
			msg = fmt.Sprintf("No diagnostics in the %s loaded in the editor.", plural(loaded, "buffer"))
			if note != "" {
				msg = "No diagnostics in the buffers inside the project. " + note
			}
		}
		return Outcome{Result: mcp.Text(msg), Headline: "none"}
	}
	kept := capDiags(items, MaxDiagnostics)
	cut := n.total() - len(kept)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", scope, n)
	if minor := n[0] + n[3] + n[4]; minor > 0 && minor < n.total() {
		fmt.Fprintf(&b, " (and %s)", plural(minor, "info or hint"))
	}
	b.WriteByte('\n')
	for _, d := range kept {
		b.WriteString(d.line(sc.show))
		b.WriteByte('\n')
	}
	if cut > 0 {
		fmt.Fprintf(&b, "(%d less severe diagnostics were left out.)\n", cut)
	}
	if note != "" {
		b.WriteString(note + "\n")
	}
	return Outcome{Result: mcp.Text(strings.TrimRight(b.String(), "\n")), Headline: n.String()}
}

var methods = map[string]string{
	LSPDefinition: "textDocument/definition", LSPReferences: "textDocument/references", LSPHover: "textDocument/hover",
	DocumentSymbols: "textDocument/documentSymbol", WorkspaceSymbols: "workspace/symbol",
}

func lsp(tool string, r lspResult, a args, sc *scope) Outcome {
	rel := sc.show
	method := methods[tool]
	at := ""
	if a.Path != "" {
		at = rel(a.Path)
		if a.Line > 0 {
			at += fmt.Sprintf(":%d:%d", a.Line, a.Column)
		}
	}
	if len(r.Supported) == 0 {
		var msg string
		switch {
		case tool == WorkspaceSymbols && len(r.Clients) == 0:
			msg = "No language server is running in the editor, so there are no workspace symbols to search. Use Grep instead."
		case tool == WorkspaceSymbols:
			msg = fmt.Sprintf("None of the language servers running in the editor (%s) serves %s. Use Grep instead.", strings.Join(r.Clients, ", "), method)
		case len(r.Clients) == 0:
			msg = fmt.Sprintf("No language server is attached to %s in the editor, so there is no %s for it. Use Grep or Read instead.", rel(a.Path), method)
		default:
			msg = fmt.Sprintf("The language servers attached to %s (%s) do not serve %s. Use Grep or Read instead.", rel(a.Path), strings.Join(r.Clients, ", "), method)
		}
		return Outcome{Result: mcp.Text(msg), Headline: "no server"}
	}
	servers := strings.Join(r.Supported, ", ")
	var b strings.Builder
	var head string
	switch tool {
	case LSPDefinition, LSPReferences:
		what := "Definition"
		if tool == LSPReferences {
			what = "References"
		}
		locs, cut := capLocations(r.Locations)
		switch {
		case len(r.Locations) == 0:
			fmt.Fprintf(&b, "%s: %s (%s) found none for the symbol at %s.\n", what, servers, method, at)
			head = "none"
		case tool == LSPDefinition:
			fmt.Fprintf(&b, "Definition of the symbol at %s (%s):\n", at, servers)
			head = fmt.Sprintf("%s:%d", rel(locs[0].Path), locs[0].Line)
			if len(r.Locations) > 1 {
				head = plural(len(r.Locations), "definition")
			}
		default:
			fmt.Fprintf(&b, "%s to the symbol at %s (%s):\n", plural(len(r.Locations), "reference"), at, servers)
			head = plural(len(r.Locations), "reference")
		}
		outside := 0
		for _, l := range locs {
			if !sc.open(l.Path) {
				// Where, never what: the line's text is from outside.
				fmt.Fprintf(&b, "%s:%d:%d (outside the project: its text is not shown)\n", rel(l.Path), l.Line, l.Col)
				outside++
				continue
			}
			fmt.Fprintf(&b, "%s:%d:%d: %s\n", rel(l.Path), l.Line, l.Col, strings.TrimSpace(l.Text))
		}
		if outside > 0 {
			head += fmt.Sprintf(" (%d outside)", outside)
		}
		if cut > 0 {
			fmt.Fprintf(&b, "(%d more left out.)\n", cut)
		}
	case LSPHover:
		text := strings.TrimSpace(strings.Join(r.Hover, "\n"))
		if text == "" {
			fmt.Fprintf(&b, "%s has no hover text for the symbol at %s.\n", servers, at)
			head = "none"
		} else {
			fmt.Fprintf(&b, "Hover at %s (%s):\n%s\n", at, servers, text)
			head = "hover"
		}
	case DocumentSymbols, WorkspaceSymbols:
		syms := r.Symbols
		note := ""
		if tool == WorkspaceSymbols {
			kept, left, files := syms[:0:0], 0, map[string]bool{}
			for _, s := range syms {
				if sc.open(s.Path) {
					kept = append(kept, s)
				} else {
					left++
					files[s.Path] = true
				}
			}
			syms, note = kept, outsideNote(left, files, "symbol")
			r.Symbols = kept
		}
		cut := 0
		if len(syms) > MaxLocations {
			cut = len(syms) - MaxLocations
			syms = syms[:MaxLocations]
		}
		if tool == DocumentSymbols {
			fmt.Fprintf(&b, "%s in %s (%s):\n", plural(len(r.Symbols), "symbol"), at, servers)
		} else {
			fmt.Fprintf(&b, "%s matching %q (%s):\n", plural(len(r.Symbols), "symbol"), a.Query, servers)
		}
		for _, s := range syms {
			indent := strings.Repeat("  ", min(s.Depth, 8))
			fmt.Fprintf(&b, "%s%s %s  %s:%d:%d", indent, s.Kind, oneLine(s.Name), rel(s.Path), s.Line, s.Col)
			if s.Detail != "" {
				fmt.Fprintf(&b, "  %s", oneLine(s.Detail))
			}
			if s.Container != "" && tool == WorkspaceSymbols {
				fmt.Fprintf(&b, "  (in %s)", oneLine(s.Container))
			}
			b.WriteByte('\n')
		}
		if cut > 0 {
			fmt.Fprintf(&b, "(%d more left out.)\n", cut)
		}
		if note != "" {
			b.WriteString(note + "\n")
		}
		head = plural(len(r.Symbols), "symbol")
	}
	if r.TimedOut {
		b.WriteString("(Some language servers did not answer in time; this may be incomplete.)\n")
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "(A language server answered with an error: %s)\n", oneLine(e))
	}
	return Outcome{Result: mcp.Text(strings.TrimRight(b.String(), "\n")), Headline: head}
}

func capLocations(ls []Location) ([]Location, int) {
	if len(ls) <= MaxLocations {
		return ls, 0
	}
	return ls[:MaxLocations], len(ls) - MaxLocations
}
