package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One function writes a can_use_tool answer (respond, answer.go), and a
// request is routed once (permission, requests.go): a second writer or a
// second routing would let a request be answered twice or routed two ways.
func TestOneAnswerPath(t *testing.T) {
	count := func(needle string) map[string]int {
		found := map[string]int{}
		files, err := filepath.Glob("../*/*.go")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), needle); n > 0 {
				found[filepath.ToSlash(f)] = n
			}
		}
		return found
	}
	for needle, want := range map[string]string{
		".Proc.Respond(":    "../app/answer.go",
		"approval.RouteOf(": "../app/requests.go",
	} {
		got := count(needle)
		if len(got) != 1 || got[want] != 1 {
			t.Errorf("%s: %v, want once in %s", needle, got, want)
		}
	}
}
