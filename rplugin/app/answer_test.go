package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One function writes a can_use_tool answer (Respond, rooms/asked), and a
// request is routed once (permission, requests.go): a second writer or a
// second routing would let a request be answered twice or routed two ways.
func TestOneAnswerPath(t *testing.T) {
	count := func(needle string) map[string]int {
		found := map[string]int{}
		var files []string
		err := filepath.WalkDir("..", func(f string, e fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
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
		".Proc.Respond(":    "../rooms/asked/asked.go",
		"approval.RouteOf(": "../app/requests.go",
	} {
		got := count(needle)
		if len(got) != 1 || got[want] != 1 {
			t.Errorf("%s: %v, want once in %s", needle, got, want)
		}
	}
}
