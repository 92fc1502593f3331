package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/tests/bench/benchstat"
)

func TestRender(t *testing.T) {
	figs := []benchstat.Figure{
		{Row: "approval latency, Bash panel", Variant: "0.12", Figure: "p99 2.1 ms", Target: "p99 ≤ 2.5 ms", Met: true},
		{Row: "startup cost", Figure: "0.10 ms", Target: "≤ 1 ms", Met: true},
		{Row: "approval latency, Bash panel", Variant: "0.10", Figure: "p99 3.0 ms", Target: "p99 ≤ 2.5 ms", Met: false},
		{Row: "a | b", Figure: "x", Met: true},
	}
	got := Render(figs, "note")
	want := Header +
		"| approval latency, Bash panel (0.12 / 0.10) | p99 2.1 ms / p99 3.0 ms | p99 ≤ 2.5 ms: **MISSED** on 0.10 |\n" +
		"| startup cost | 0.10 ms | ≤ 1 ms: met |\n" +
		"| a \\| b | x | reported |\n" +
		"\nnote\n"
	if got != want {
		t.Fatalf("Render:\n%s\nwant:\n%s", got, want)
	}
	doc := "intro\n" + Begin + "\nold table\n" + End + "\nrest\n"
	out, err := Replace(doc, got)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Replace(out, got); again != out {
		t.Fatalf("Replace is not idempotent:\n%s", again)
	}
	if !strings.HasPrefix(out, "intro\n"+Begin+"\n"+Header) || !strings.HasSuffix(out, "note\n"+End+"\nrest\n") {
		t.Fatalf("Replace:\n%s", out)
	}
	if _, err := Replace("no markers", got); err == nil {
		t.Fatal("Replace without markers: no error")
	}
}

// The README's table is the generator's: between the markers, the header,
// rows of three cells, and the line saying which run wrote it.
func TestReadmeTable(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Table(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tab, "\n"+Header) {
		t.Fatalf("the table does not start with the header:\n%s", tab)
	}
	body := strings.TrimPrefix(tab, "\n"+Header)
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	rowRE := regexp.MustCompile(`^\| ([^|\\]|\\\|)+ \| ([^|\\]|\\\|)+ \| ([^|\\]|\\\|)+ \|$`)
	n := 0
	for n < len(lines) && lines[n] != "" {
		if !rowRE.MatchString(lines[n]) {
			t.Errorf("row %d is not three cells: %q", n+1, lines[n])
		}
		n++
	}
	if n == 0 {
		t.Fatal("the table has no rows")
	}
	rest := lines[n:]
	if len(rest) != 2 || !regexp.MustCompile("^_Written by `make bench` on [0-9]{4}-[0-9]{2}-[0-9]{2} ").MatchString(rest[1]) {
		t.Errorf("after the rows: %q, want a blank line and the line naming the run", rest)
	}
}
