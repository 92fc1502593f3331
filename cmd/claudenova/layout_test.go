package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's Layout section names every package of the host, so that a
// newcomer finds each room from it.
func TestReadmeNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("the README has no Layout section")
	}
	dirs, err := filepath.Glob("../../rplugin/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("found %d packages under rplugin/", len(dirs))
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		name := "rplugin/" + filepath.Base(d) + "/"
		if !strings.Contains(layout, name) {
			t.Errorf("the README's Layout does not name %s", name)
		}
	}
}
