package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/bufops"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

func msg(t *testing.T, s string) claude.Message {
	t.Helper()
	m, err := claude.ParseLine([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// replay applies ops to a buffer the way the front end does.
func replay(t *testing.T, buf []string, ops []Op) []string {
	t.Helper()
	for _, op := range ops {
		if op.Op != "set" || op.Index < 0 || op.Index+op.Count > len(buf) {
			t.Fatalf("bad op %+v on %d lines", op, len(buf))
		}
		rest := append(append([]string(nil), op.Lines...), buf[op.Index+op.Count:]...)
		buf = append(buf[:op.Index], rest...)
	}
	return buf
}

func TestTranscriptFlow(t *testing.T) {
	tr := newTestTranscript("/p")
	var ops []Op
	ops = append(ops, tr.Prompt("hello\x1b[31m")...)
	ops = append(ops, tr.Apply(msg(t, `{"type":"assistant","message":{"content":[{"type":"text","text":"hi there"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"list"}}]}}`))...)
	ops = append(ops, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"<tool_use_error>denied: no</tool_use_error>"}]}}`))...)
	ops = append(ops, tr.Apply(msg(t, `{"type":"result","subtype":"success","duration_ms":1500,"total_cost_usd":0.0012,"usage":{"input_tokens":1000,"output_tokens":234}}`))...)
	got := strings.Join(tr.Lines(), "\n")
	want := "## You\n\nhello\n\n## Claude\n\nhi there\n\n▸ Bash `ls -la` ✗ 0.0 s\n  │ # list\n  │ $ ls -la\n  ┃ denied: no\n\n*done · 1.5 s · 1,234 tokens · $0.0012*"
	if got != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", got, want)
	}
	if buf := replay(t, nil, ops); strings.Join(buf, "\n") != want {
		t.Fatalf("replayed ops:\n%s", strings.Join(buf, "\n"))
	}
}

// A streamed reply shows as it is written; the finished block replaces the
// draft in place, once, with nothing left of it.
func TestStreamingDraft(t *testing.T) {
	tr := newTestTranscript("/p")
	ev := func(e string) []Op {
		return tr.Apply(msg(t, `{"type":"stream_event","api_message_id":"m1","event":`+e+`}`))
	}
	var ops []Op
	ops = append(ops, tr.Prompt("go")...)
	ops = append(ops, ev(`{"type":"message_start","message":{"id":"m1"}}`)...)
	ops = append(ops, ev(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`)...)
	ops = append(ops, ev(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me see"}}`)...)
	buf := replay(t, nil, ops)
	if buf[len(buf)-1] != "> _thinking… (3 words)_" {
		t.Fatalf("thinking draft %q", buf[len(buf)-1])
	}
	ops = append(ops, tr.Apply(msg(t, `{"type":"assistant","thinking_duration_ms":1200,"message":{"id":"m1","content":[{"type":"thinking","thinking":"let me see"}]}}`))...)
	ops = append(ops, ev(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)...)
	for _, d := range []string{"Here is ", "**bold** text\n", "```go\nfunc x() {}\n", "```\n", "done"} {
		dj, _ := json.Marshal(d)
		ops = append(ops, ev(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":`+string(dj)+`}}`)...)
	}
	mid := replay(t, nil, ops)
	if !strings.Contains(strings.Join(mid, "\n"), "Here is **bold** text\n```go\nfunc x() {}\n```\ndone") {
		t.Fatalf("partial text not shown:\n%s", strings.Join(mid, "\n"))
	}
	ops = append(ops, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Here is **bold** text\n`+"```go\\nfunc x() {}\\n```"+`\ndone"}]}}`))...)
	final := replay(t, nil, ops)
	want := "## You\n\ngo\n\n## Claude\n\n> _thought for 1.2 s_\n  │ let me see\n\nHere is **bold** text\n```go\nfunc x() {}\n```\ndone"
	if got := strings.Join(final, "\n"); got != want || strings.Join(tr.Lines(), "\n") != want {
		t.Fatalf("after the final message:\n%s\nwant:\n%s", got, want)
	}
	// The final op highlights the code block with its language.
	last := ops[len(ops)-1]
	if len(last.Code) != 1 || last.Code[0].Lang != "go" || last.Code[0].Count != 1 {
		t.Fatalf("code blocks %+v", last.Code)
	}
}

// A long tool result shows its first lines; the whole is kept for gf.
func TestLongToolResultIsCut(t *testing.T) {
	tr := newTestTranscript("/p")
	tr.Spill(filepath.Join(t.TempDir(), "s.md"), 1000)
	tr.Apply(msg(t, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/p/big.txt"}}]}}`))
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "%d\tline %d\n", i+1, i+1)
	}
	content, _ := json.Marshal(b.String())
	tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"r1","content":`+string(content)+`}]}}`))
	lines := tr.Lines()
	if len(lines) > 30 || !strings.Contains(lines[len(lines)-1], "… 4980 more lines (gf opens the whole result)") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	path, ok := tr.ToolAt(len(lines) - 1)
	if !ok {
		t.Fatal("no file for the whole result")
	}
	if whole, _ := os.ReadFile(path); strings.Count(string(whole), "\n") != 5000 {
		t.Fatalf("whole result has %d lines", strings.Count(string(whole), "\n"))
	}
}

func TestPlanSources(t *testing.T) {
	tr := newTestTranscript("/p")
	tr.Apply(msg(t, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"p1","name":"ExitPlanMode","input":{"plan":"1. do it"}}]}}`))
	if got := tr.Plan("p1", nil); got != "1. do it" {
		t.Fatalf("plan %q", got)
	}
	tr.Apply(msg(t, `{"type":"assistant","message":{"content":[{"type":"text","text":"my plan in text"}]}}`))
	read := func(string) ([]byte, error) { return nil, errNope }
	if got := tr.Plan("other", read); got != "my plan in text" {
		t.Fatalf("fallback plan %q", got)
	}
}

var errNope = &json.SyntaxError{}

// A long block becomes ops of at most bufops.MaxOpLines lines, numbered one after
// the other; Split and Coalesce keep what the ops do.
func TestOpsSplitAndCoalesce(t *testing.T) {
	tr := newTestTranscript("/p")
	lines := make([]string, 700)
	for i := range lines {
		lines[i] = fmt.Sprint("l", i)
	}
	ops := tr.Note(strings.Join(lines, "\n"))
	prev := 0
	for _, op := range ops {
		if len(op.Lines) > bufops.MaxOpLines || op.Prev != prev || op.Seq != prev+1 {
			t.Fatalf("op prev %d seq %d with %d lines", op.Prev, op.Seq, len(op.Lines))
		}
		prev = op.Seq
	}
	u := &bufops.Update{Session: 1, Ops: ops}
	want := replay(t, nil, ops)
	var got []string
	parts := u.Split(300)
	for _, p := range parts {
		pu := p.(*bufops.Update)
		if pu.Size() > 300 {
			t.Fatalf("part of %d lines", pu.Size())
		}
		got = replay(t, got, pu.Ops)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(parts) < 3 {
		t.Fatalf("split changed the result (%d parts)", len(parts))
	}
	// Streamed growth of the last line coalesces into one op.
	mk := func(prev, index, count int, lines ...string) Op {
		op := bufops.Set(index, count, lines, nil, nil)
		op.Prev, op.Seq = prev, prev+1
		return op
	}
	a := &bufops.Update{Session: 1, Ops: []Op{mk(0, 5, 0, "he")}}
	for i, next := range []Op{mk(1, 5, 1, "hello"), mk(2, 5, 1, "hello world", ""), mk(3, 6, 1, "more")} {
		if !a.Coalesce(&bufops.Update{Session: 1, Ops: []Op{next}}) || len(a.Ops) != 1 {
			t.Fatalf("step %d not merged: %+v", i, a.Ops)
		}
	}
	if op := a.Ops[0]; strings.Join(op.Lines, "|") != "hello world|more" || op.Count != 0 || op.Prev != 0 || op.Seq != 4 {
		t.Fatalf("coalesced %+v", op)
	}
	if a.Coalesce(&bufops.Update{Session: 1, Ops: []Op{mk(7, 6, 1, "gap")}}); len(a.Ops) != 2 {
		t.Fatal("ops with a gap between them were merged")
	}
	if a.Coalesce(&bufops.Update{Session: 2, Ops: []Op{mk(0, 0, 0, "c")}}) {
		t.Fatal("coalesced another session")
	}
}

// A long transcript keeps a bounded tail in memory; the rest is on disk,
// and a snapshot rebuilds the whole text.
func TestTranscriptSpills(t *testing.T) {
	tr := newTestTranscript("/p")
	file := filepath.Join(t.TempDir(), "t", "s.md")
	tr.Spill(file, 100)
	var want []string
	for i := 0; i < 1000; i++ {
		ops := tr.Note(fmt.Sprintf("line %d", i))
		for _, op := range ops {
			want = append(want, op.Lines...)
		}
	}
	if n := len(tr.Lines()); n > 125 {
		t.Fatalf("%d lines in memory", n)
	}
	sn := tr.Snapshot()
	b, err := os.ReadFile(sn.File)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(head) != sn.First {
		t.Fatalf("file has %d lines, first is %d", len(head), sn.First)
	}
	if got := append(head, sn.Lines...); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatal("spilled transcript differs from the whole")
	}
}

// Text after a list never runs into its last item (a blank line between
// text blocks), while consecutive tool lines stay packed.
func TestBlocksAreSeparated(t *testing.T) {
	tr := newTestTranscript("/p")
	tr.Prompt("go")
	tr.Apply(msg(t, `{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"Steps:\n- one\n- two"}]}}`))
	tr.Apply(msg(t, `{"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"Then done."}]}}`))
	tr.Apply(msg(t, `{"type":"assistant","message":{"id":"c","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/a"}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/p/b"}}]}}`))
	got := strings.Join(tr.Lines(), "\n")
	want := "## You\n\ngo\n\n## Claude\n\nSteps:\n- one\n- two\n\nThen done.\n\n▸ Read a …\n▸ Read b …"
	if got != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// A long streamed reply is bounded in memory while it streams (its
// finished lines go to the spill file), and its final message keeps the
// draft: nothing is written again, and the whole transcript is exact.
func TestLongStreamSpillsWhileItStreams(t *testing.T) {
	for _, n := range []int{50, 5000} { // a short reply is re-rendered, a long one kept
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tr := newTestTranscript("/p")
			tr.Spill(filepath.Join(t.TempDir(), "s.md"), 400)
			var buf []string
			apply := func(ops []Op) { buf = replay(t, buf, ops) }
			apply(tr.Prompt("go"))
			ev := func(e string) { apply(tr.Apply(msg(t, `{"type":"stream_event","api_message_id":"m1","event":`+e+`}`))) }
			ev(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			var text strings.Builder
			peak := 0
			for i := 0; i < n; i++ {
				chunk := fmt.Sprintf("line %05d of the reply\n", i)
				text.WriteString(chunk)
				b, _ := json.Marshal(chunk)
				ev(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(b) + `}}`)
				peak = max(peak, len(tr.Lines()))
			}
			if peak > 600 {
				t.Fatalf("%d lines in memory while streaming", peak)
			}
			full, _ := json.Marshal(text.String())
			final := tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":`+string(full)+`}]}}`))
			if n > 1000 && len(final) != 0 {
				t.Fatalf("the long final message wrote %d ops", len(final))
			}
			apply(final)
			apply(tr.Apply(msg(t, `{"type":"result","subtype":"success","duration_ms":1,"total_cost_usd":0.001}`)))
			sn := tr.Snapshot()
			var head []string
			if sn.First > 0 {
				b, err := os.ReadFile(sn.File)
				if err != nil {
					t.Fatal(err)
				}
				head = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			}
			whole := strings.Join(append(head, sn.Lines...), "\n")
			for i := 0; i < n; i++ {
				if !strings.Contains(whole, fmt.Sprintf("line %05d of the reply\n", i)) {
					t.Fatalf("line %d is missing from the transcript", i)
				}
			}
			if got := strings.Join(buf, "\n"); got != whole {
				t.Fatalf("the front end's copy differs from the host's (%d vs %d lines)", len(buf), len(strings.Split(whole, "\n")))
			}
		})
	}
}

// The editor's own tools read as what they did: "▸ nvim diagnostics a.lua ·
// 2 errors ✓", the position in the target, no input JSON beneath; other MCP
// tools are named by server and tool, their input shown.
func TestEditorToolLines(t *testing.T) {
	tr := newTestTranscript("/p")
	var ops []Op
	ops = append(ops, tr.Apply(msg(t, `{"type":"assistant","message":{"content":[
		{"type":"tool_use","id":"t1","name":"mcp__nvim__diagnostics","input":{"path":"/p/a.lua"}},
		{"type":"tool_use","id":"t2","name":"mcp__nvim__lsp_definition","input":{"path":"b.go","line":4,"column":9}},
		{"type":"tool_use","id":"t3","name":"mcp__github__create_issue","input":{"title":"x"}}]}}`))...)
	tr.ToolHeadline("t1", "2 errors\x1b[31m")
	tr.ToolHeadline("nope", "ignored")
	ops = append(ops, tr.Apply(msg(t, `{"type":"user","message":{"content":[
		{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.lua: 2 errors"}]},
		{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a.go:4:6"}]},
		{"type":"tool_result","tool_use_id":"t3","content":"ok"}]}}`))...)
	got := strings.Join(replay(t, nil, ops), "\n")
	for _, want := range []string{
		"▸ nvim diagnostics a.lua · 2 errors ✓ 0.0 s\n  │ a.lua: 2 errors\n",
		"▸ nvim lsp_definition b.go:4:9 ✓ 0.0 s\n  │ a.go:4:6\n",
		"▸ github create_issue ✓ 0.0 s\n  │ {\n  │   \"title\": \"x\"\n  │ }\n  │ ok",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, got)
		}
	}
}

// newTestTranscript is a transcript whose clock stands still: every tool
// and draft takes 0.0 s, however loaded the machine running the test is.
func newTestTranscript(cwd string) *Transcript {
	tr := NewTranscript(cwd)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr.now = func() time.Time { return at }
	return tr
}

// What Claude said before a call is kept by its end only: a long reply
// before a tool call costs the host a few kilobytes, not the reply.
func TestSaidKeepsTheEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want func(string) bool
	}{
		{"short, whole", "I will list the files.", func(s string) bool { return s == "I will list the files." }},
		{"long, its end", strings.Repeat("a line of the long reply\n", 4000) + "Now I list the files.",
			func(s string) bool {
				return strings.HasPrefix(s, "…\na line") && strings.HasSuffix(s, "\nNow I list the files.") && len(s) <= maxSaidBytes+8
			}},
		{"long, one line", strings.Repeat("word ", 5000) + "end.",
			func(s string) bool {
				return strings.HasPrefix(s, "…\n") && strings.HasSuffix(s, " end.") && len(s) <= maxSaidBytes+8
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestTranscript("/p")
			text, _ := json.Marshal(tc.text)
			tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":`+string(text)+`},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`))
			if got := tr.Said("t1"); !tc.want(got) {
				t.Fatalf("Said = %d bytes: %.80q … %q", len(got), got, got[max(0, len(got)-40):])
			}
		})
	}
}
