// Command exports counts the exported names of Go packages: top-level
// constants, variables, types and functions, and the exported methods of
// exported types (struct fields are not counted).
//
//	go run ./internal/tools/exports . ./models ./bankpaytest
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dirs := os.Args[1:]
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	verbose := false
	if dirs[0] == "-v" {
		verbose, dirs = true, dirs[1:]
	}
	for _, dir := range dirs {
		top, methods, err := count(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%-16s %4d exported names (%d top-level, %d methods)\n", dir, len(top)+len(methods), len(top), len(methods))
		if verbose {
			sort.Strings(top)
			sort.Strings(methods)
			fmt.Println("  " + strings.Join(append(top, methods...), "\n  "))
		}
	}
}

func count(dir string) (top, methods []string, err error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					top = append(top, d.Name.Name)
				} else if recv := recvType(d.Recv.List[0].Type); ast.IsExported(recv) {
					methods = append(methods, recv+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							top = append(top, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								top = append(top, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return top, methods, nil
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
