package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func diffTestFiles(t *testing.T, a, b string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "A"), filepath.Join(dir, "B")
	if err := os.WriteFile(fa, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fb, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	return fa, fb
}

func diffTestRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runDiff(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunDiff(t *testing.T) {
	fa, fb := diffTestFiles(t, "a\nb\nc\n", "a\nB\nc\n")
	code, out, errOut := diffTestRun(fa, fb)
	want := fmt.Sprintf("--- %s\n+++ %s\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", fa, fb)
	if code != 1 || out != want || errOut != "" {
		t.Errorf("got %d %q %q, want 1 %q", code, out, errOut, want)
	}

	code, out, _ = diffTestRun("-U", "0", fa, fb)
	want = fmt.Sprintf("--- %s\n+++ %s\n@@ -2 +2 @@\n-b\n+B\n", fa, fb)
	if code != 1 || out != want {
		t.Errorf("-U 0: got %d %q, want %q", code, out, want)
	}

	code, out2, _ := diffTestRun("-U0", fa, fb)
	if code != 1 || out2 != out {
		t.Errorf("-U0: got %d %q, want %q", code, out2, out)
	}

	code, out, _ = diffTestRun("-U", "1", "-cap", "4", fa, fb)
	want = fmt.Sprintf("--- %s\n+++ %s\n@@ -1,3 +1,3 @@\n a\n... 3 more lines not shown\n", fa, fb)
	if code != 1 || out != want {
		t.Errorf("-cap 4: got %d %q, want %q", code, out, want)
	}

	code, out, errOut = diffTestRun(fa, fa)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("identical: got %d %q %q", code, out, errOut)
	}
}

func TestRunDiffTrouble(t *testing.T) {
	fa, _ := diffTestFiles(t, "x\n", "y\n")
	missing := filepath.Join(t.TempDir(), "missing")
	for _, args := range [][]string{
		{fa},
		{fa, fa, fa},
		{fa, missing},
		{missing, fa},
		{"-U", "-1", fa, fa},
		{"-cap", "x", fa, fa},
		{"-bogus", fa, fa},
		{fa, filepath.Dir(fa)},
	} {
		code, out, errOut := diffTestRun(args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "claudenova diff: ") {
			t.Errorf("%q: got %d %q %q, want status 2 and a message", args, code, out, errOut)
		}
	}
	if code, out, _ := diffTestRun("-h"); code != 0 || !strings.Contains(out, "usage:") {
		t.Errorf("-h: got %d %q", code, out)
	}
}

// TestRunDiffPatch checks that GNU patch turns A into B with our output.
func TestRunDiffPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch not installed")
	}
	r := rand.New(rand.NewPCG(1, 2))
	randomFile := func() string {
		alphabet := []string{"a\n", "b\n", "c\r\n", "\n", "}\n", "longer line here\n"}
		var sb strings.Builder
		for range r.IntN(60) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := sb.String()
		if s != "" && r.IntN(3) == 0 {
			s = s[:len(s)-1]
		}
		return s
	}
	pairs := [][2]string{
		{"", "new\nfile\n"},
		{"old\nfile\n", ""},
		{"", "x"},
		{"x", ""},
		{"a\nb", "a\nb\n"},
		{"a\nb\n", "a\nb"},
		{"a\nb", "a\nc"},
		{"a\r\nb\r\n", "a\nb\r\n"},
	}
	for range 40 {
		pairs = append(pairs, [2]string{randomFile(), randomFile()})
	}
	for i, p := range pairs {
		fa, fb := diffTestFiles(t, p[0], p[1])
		for _, ctx := range []string{"3", "0", "1"} {
			code, out, errOut := diffTestRun("-U", ctx, fa, fb)
			if code == 2 || (code == 0) != (p[0] == p[1]) {
				t.Fatalf("pair %d: status %d: %s", i, code, errOut)
			}
			if code == 0 {
				continue
			}
			dir := filepath.Dir(fa)
			pf, res := filepath.Join(dir, "p.diff"), filepath.Join(dir, "out")
			if err := os.WriteFile(pf, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(patch, "--batch", "--quiet", "--no-backup-if-mismatch",
				"-r", filepath.Join(dir, "rej"), "-o", res, "-i", pf, fa)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pair %d -U %s: patch failed: %v\n%s\n%s", i, ctx, err, msg, out)
			}
			got, err := os.ReadFile(res)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != p[1] {
				t.Fatalf("pair %d -U %s: patch gave %q, want %q\n%s", i, ctx, got, p[1], out)
			}
			os.Remove(res)
		}
	}
}
