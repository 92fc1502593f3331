package ui

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// hlgroups.go is generated from the front end's list (make docs): the same
// groups, each defined there with a default link and a description. (The
// generated file's exact text is checked by scripts/gendocs.lua --check.)
func TestHighlightGroupsAreTheFrontEndsList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "lua", "claudenova", "setup", "highlights.lua"))
	if err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`(?s)\nM\.groups = \{\n(.*?)\n\}\n`).FindSubmatch(b)
	if list == nil {
		t.Fatal("no M.groups in highlights.lua")
	}
	starts := regexp.MustCompile(`(?m)^  (ClaudeNova[A-Za-z]+) = \{`).FindAllSubmatchIndex(list[1], -1)
	var lua []string
	for i, m := range starts {
		name := string(list[1][m[2]:m[3]])
		end := len(list[1])
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		entry := string(list[1][m[1]:end])
		if !regexp.MustCompile(`link = "[^"]+"`).MatchString(entry) || !regexp.MustCompile(`desc = "[^"]+"`).MatchString(entry) {
			t.Errorf("%s needs a default link and a desc: %s", name, strings.TrimSpace(entry))
		}
		lua = append(lua, name)
	}
	slices.Sort(lua)
	if !slices.Equal(lua, HlGroups) {
		t.Fatalf("highlights.lua defines %v,\nrplugin/ui/hlgroups.go %v: run make docs", lua, HlGroups)
	}
}

// The host names a highlight group only by its constant: a group written as
// a string anywhere else could drift from the list.
func TestHostNamesGroupsByConstant(t *testing.T) {
	root := repoRoot(t)
	notGroups := map[string]bool{"ClaudeNovaRequest": true, "ClaudeNovaNotify": true} // the RPC functions
	lit := regexp.MustCompile(`"(ClaudeNova[A-Z][A-Za-z]*)"`)
	for _, dir := range []string{"rplugin", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Base(path) == "hlgroups.go" {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range lit.FindAllSubmatch(b, -1) {
				if !notGroups[string(m[1])] {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s names %s as a string: use ui.Hl%s", rel, m[1], strings.TrimPrefix(string(m[1]), "ClaudeNova"))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
