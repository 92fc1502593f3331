package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

const diffUsage = `usage: claudenova diff [-cap N] [-U N] A B

Prints the unified diff (GNU diff -u format, headers "--- A" / "+++ B")
that turns file A into file B.

  -U N    lines of context (default 3)
  -cap N  stop after N output lines and print "... M more lines not shown"
          (default 0: uncapped)

Exit status: 0 if the files are identical, 1 if they differ, 2 on trouble.
`

// runDiff implements the "claudenova diff" subcommand. args are the
// arguments after "diff". It returns the process exit status, following
// diff(1): 0 identical, 1 different, 2 trouble (message on stderr).
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("claudenova diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	capLines := fs.Int("cap", 0, "")
	context := fs.Int("U", diff.DefaultContext, "")
	if err := fs.Parse(splitAttachedU(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, diffUsage)
			return 0
		}
		fmt.Fprintf(stderr, "claudenova diff: %v\n%s", err, diffUsage)
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "claudenova diff: need exactly two files, got %d\n%s", fs.NArg(), diffUsage)
		return 2
	}
	if *context < 0 || *capLines < 0 {
		fmt.Fprintf(stderr, "claudenova diff: -U and -cap must not be negative\n")
		return 2
	}
	nameA, nameB := fs.Arg(0), fs.Arg(1)
	a, err := os.ReadFile(nameA)
	if err != nil {
		fmt.Fprintf(stderr, "claudenova diff: %v\n", err)
		return 2
	}
	b, err := os.ReadFile(nameB)
	if err != nil {
		fmt.Fprintf(stderr, "claudenova diff: %v\n", err)
		return 2
	}
	// Most of what the diff allocates stays live until it is written, so
	// collecting garbage would mostly cost time: collect only if the heap
	// grows far beyond what the inputs need.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(int64(8*(len(a)+len(b))) + 256<<20)

	opts := diff.Options{Context: *context, MaxLines: *capLines}
	if *context == 0 {
		opts.Context = -1 // diff.Options: negative means no context
	}
	res := diff.Unified(nameA, nameB, diffBytesString(a), diffBytesString(b), opts)
	if res.Text == "" {
		return 0
	}
	if _, err := io.WriteString(stdout, res.Text); err != nil {
		fmt.Fprintf(stderr, "claudenova diff: %v\n", err)
		return 2
	}
	return 1
}

// splitAttachedU rewrites diff-style "-U5" into "-U" "5" (the flag package
// only accepts "-U 5" and "-U=5"). Arguments after "--" or after the first
// operand are left alone.
func splitAttachedU(args []string) []string {
	out := make([]string, 0, len(args)+1)
	for i, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && strings.HasPrefix(a, "-U") && a[2] != '=' {
			out = append(out, "-U", a[2:])
			continue
		}
		out = append(out, a)
		if (a == "-U" || a == "-cap" || a == "--U" || a == "--cap") && i+1 < len(args) {
			// The next argument is this flag's value.
			out = append(out, args[i+1])
			return append(out, splitAttachedU(args[i+2:])...)
		}
	}
	return out
}

// diffBytesString returns the contents of b as a string without copying;
// b must not be modified afterwards.
func diffBytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
