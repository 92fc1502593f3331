package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house's sizes: no package of the host over 2,500 lines of Go (tests
// not counted), no type over 40 methods. A room that outgrows them is
// split along its concerns, not squeezed.
func TestRoomsStayTheSizeOfTheirJob(t *testing.T) {
	const maxLines, maxMethods = 2500, 40
	lines := map[string]int{}
	methods := map[string]int{}
	fset := token.NewFileSet()
	for _, root := range []string{"../../rplugin", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pkg := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../../"))
			lines[pkg] += bytes.Count(b, []byte("\n"))
			f, err := parser.ParseFile(fset, path, b, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
					continue
				}
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if idx, ok := typ.(*ast.IndexExpr); ok {
					typ = idx.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					methods[pkg+"."+id.Name]++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(lines) < 20 {
		t.Fatalf("found %d packages", len(lines))
	}
	for pkg, n := range lines {
		if n > maxLines {
			t.Errorf("%s has %d lines of Go (at most %d)", pkg, n, maxLines)
		}
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("%s has %d methods (at most %d)", typ, n, maxMethods)
		}
	}
}
