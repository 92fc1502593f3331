package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
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
	rooms, err := filepath.Glob("../../rplugin/rooms/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(dirs, rooms...) {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		name := strings.TrimPrefix(filepath.ToSlash(d), "../../") + "/"
		if !strings.Contains(layout, name) {
			t.Errorf("the README's Layout does not name %s", name)
		}
	}
}

// imports lists the project packages each package under rplugin/ imports
// (test files included), by its path under rplugin/.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	const mod = "github.com/claude-nova/claude-nova.nvim/rplugin/"
	out := map[string][]string{}
	err := filepath.WalkDir("../../rplugin", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := strings.TrimPrefix(filepath.ToSlash(filepath.Dir(path)), "../../rplugin/")
		out[pkg] = append(out[pkg], []string{}...)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, mod); ok {
				out[pkg] = append(out[pkg], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The rooms are wired by app, and talk to the rest only through what it
// gives them: a room imports no other room, and nothing below app imports
// app or host.
func TestRoomsStayInTheirRooms(t *testing.T) {
	all := imports(t)
	if len(all) < 20 {
		t.Fatalf("found %d packages", len(all))
	}
	for pkg, ims := range all {
		for _, im := range ims {
			switch {
			case (im == "app" || im == "host") && pkg != "host" && pkg != "app":
				t.Errorf("rplugin/%s imports rplugin/%s: only host (and cmd) may", pkg, im)
			case strings.HasPrefix(im, "rooms/") && pkg != "app" && pkg != "host" && im != pkg:
				t.Errorf("rplugin/%s imports rplugin/%s: rooms are wired by app, not by each other", pkg, im)
			case pkg == "desk" && (strings.HasPrefix(im, "rooms/") || im == "app"):
				t.Errorf("rplugin/desk imports rplugin/%s: the desk is what rooms are given", im)
			}
		}
	}
}
