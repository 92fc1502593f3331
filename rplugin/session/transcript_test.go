package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestTranscriptFlow(t *testing.T) {
	tr := NewTranscript("/p")
	var ops []Op
	ops = append(ops, tr.Prompt("hello\x1b[31m")...)
	ops = append(ops, tr.Apply(msg(t, `{"type":"assistant","message":{"content":[{"type":"text","text":"hi there"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la"}}]}}`))...)
	ops = append(ops, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"denied: no"}]}}`))...)
	ops = append(ops, tr.Apply(msg(t, `{"type":"result","subtype":"success","duration_ms":1500,"total_cost_usd":0.0012}`))...)
	got := strings.Join(tr.Lines(), "\n")
	want := "## You\n\nhello\n\n## Claude\n\nhi there\n- **Bash** `ls -la` ✗ denied: no\n\n*done · 1.5 s · $0.0012*"
	if got != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", got, want)
	}
	// Replaying the ops on an empty buffer gives the same lines.
	var buf []string
	for _, op := range ops {
		switch op.Op {
		case "append":
			if op.Index != len(buf) {
				t.Fatalf("append at %d with %d lines", op.Index, len(buf))
			}
			buf = append(buf, op.Lines...)
		case "set":
			buf[op.Index] = op.Lines[0]
		}
	}
	if strings.Join(buf, "\n") != want {
		t.Fatalf("replayed ops:\n%s", strings.Join(buf, "\n"))
	}
}

func TestPlanSources(t *testing.T) {
	tr := NewTranscript("/p")
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

func TestUpdateSplitAndCoalesce(t *testing.T) {
	lines := make([]string, 700)
	u := &Update{Session: 1, Ops: []Op{{Op: "append", Index: 10, Lines: lines}, {Op: "set", Index: 3, Lines: []string{"x"}}}}
	parts := u.Split(300)
	var sizes []int
	next := 10
	for _, p := range parts {
		pu := p.(*Update)
		sizes = append(sizes, pu.Size())
		for _, op := range pu.Ops {
			if op.Op == "append" {
				if op.Index != next {
					t.Fatalf("append index %d, want %d", op.Index, next)
				}
				next += len(op.Lines)
			}
		}
	}
	if len(sizes) != 3 || sizes[0] != 300 || sizes[1] != 300 || sizes[2] != 101 || next != 710 {
		t.Fatalf("sizes %v next %d", sizes, next)
	}
	a := &Update{Session: 1, Ops: []Op{{Op: "append", Index: 0, Lines: []string{"a"}}}}
	if !a.Coalesce(&Update{Session: 1, Ops: []Op{{Op: "append", Index: 1, Lines: []string{"b"}}}}) || len(a.Ops) != 1 || len(a.Ops[0].Lines) != 2 {
		t.Fatalf("coalesce: %+v", a)
	}
	if a.Coalesce(&Update{Session: 2, Ops: []Op{{Op: "append", Index: 0, Lines: []string{"c"}}}}) {
		t.Fatal("coalesced another session")
	}
}

// A long transcript keeps a bounded tail in memory; the rest is on disk,
// and a snapshot rebuilds the whole text.
func TestTranscriptSpills(t *testing.T) {
	tr := NewTranscript("/p")
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
