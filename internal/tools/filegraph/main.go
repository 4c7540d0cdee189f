//go:build ignore

// Command filegraph draws the dependency graph of the files of the root
// package in layers and counts the dependencies that point up and the
// cycles. A file depends on another when it uses a name declared there
// (go/types: identifiers and selections), and on a package of the module
// when it imports it. layers.txt orders the files and packages from the top
// (the services) to the bottom (models); a dependency from a lower layer to
// a higher one points up.
//
//	go run internal/tools/filegraph/main.go [-v] [layers.txt]
//
// (The ignore build tag keeps it, and the go/types it builds, out of
// go build, vet and go test ./...)
//
// -v lists every dependency; without it, only those that point up.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const module = "github.com/bankpay/bankpay-go"

func main() {
	args := os.Args[1:]
	verbose := len(args) > 0 && args[0] == "-v"
	if verbose {
		args = args[1:]
	}
	layersFile := filepath.Join("internal", "tools", "filegraph", "layers.txt")
	if len(args) > 0 {
		layersFile = args[0]
	}
	layer, err := readLayers(layersFile)
	if err == nil {
		var edges [][2]string
		if edges, err = fileEdges("."); err == nil {
			report(edges, layer, verbose)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "filegraph:", err)
	os.Exit(1)
}

// readLayers maps each file or package of path to its layer, 0 the top.
func readLayers(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	layer := map[string]int{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		for _, name := range strings.Fields(l) {
			layer[name] = n
		}
		n++
	}
	return layer, sc.Err()
}

// fileEdges is the sorted dependencies between the non-test files of the
// package in dir, and from them to the module's packages.
func fileEdges(dir string) ([][2]string, error) {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, m, nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("root", fset, files, info)
	if err != nil {
		return nil, err
	}
	set := map[[2]string]bool{}
	for _, f := range files {
		from := filepath.Base(fset.Position(f.Pos()).Filename)
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, module+"/") {
				set[[2]string{from, strings.TrimPrefix(p, module+"/")}] = true
			}
		}
		ast.Inspect(f, func(nd ast.Node) bool {
			var obj types.Object
			switch x := nd.(type) {
			case *ast.Ident:
				obj = info.Uses[x]
			case *ast.SelectorExpr:
				if s, ok := info.Selections[x]; ok {
					obj = s.Obj()
				}
			}
			if obj != nil && obj.Pkg() == pkg && obj.Pos().IsValid() {
				if to := filepath.Base(fset.Position(obj.Pos()).Filename); to != from {
					set[[2]string{from, to}] = true
				}
			}
			return true
		})
	}
	edges := make([][2]string, 0, len(set))
	for e := range set {
		edges = append(edges, e)
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i][0]+" "+edges[i][1] < edges[j][0]+" "+edges[j][1] })
	return edges, nil
}

// report prints the dependencies that point up (all with verbose), the
// counts and each cycle.
func report(edges [][2]string, layer map[string]int, verbose bool) {
	up := 0
	for _, e := range edges {
		lf, okf := layer[e[0]]
		lt, okt := layer[e[1]]
		switch {
		case !okf || !okt:
			fmt.Println("not in a layer:", e[0], "->", e[1])
		case lt < lf:
			up++
			fmt.Println("up:", e[0], "->", e[1])
		case verbose:
			fmt.Println("   ", e[0], "->", e[1])
		}
	}
	cycles := cycles(edges)
	fmt.Printf("%d files and packages, %d dependencies, %d pointing up, %d cycles\n", len(layer), len(edges), up, len(cycles))
	for _, c := range cycles {
		fmt.Printf("cycle of %d: %s\n", len(c), strings.Join(c, " "))
	}
}

// cycles is the strongly connected components of more than one node
// (Tarjan's algorithm).
func cycles(edges [][2]string) [][]string {
	adj := map[string][]string{}
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
	}
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for _, w := range adj[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var c []string
		for {
			w := stack[len(stack)-1]
			stack, on[w] = stack[:len(stack)-1], false
			if c = append(c, w); w == v {
				break
			}
		}
		if len(c) > 1 {
			sort.Strings(c)
			out = append(out, c)
		}
	}
	for _, e := range edges {
		if _, seen := index[e[0]]; !seen {
			visit(e[0])
		}
	}
	return out
}
