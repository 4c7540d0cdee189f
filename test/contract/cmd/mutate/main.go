// Command mutate measures what the contract suite catches: it applies each
// mutation of a list (a realistic bug: a json tag misspelled, two tags
// swapped, a form field or query name changed, a webhook mapping swapped, a
// constant changed, a sandbox field dropped or retyped), one at a time, to
// a temporary copy of the repository, regenerates what go generate makes
// from the models (the answer decoder, when the copy has one), runs the
// contract suite alone, and reports per mutation whether the suite failed
// (caught) or passed (missed). It is slow (a build and a run per
// mutation): not part of CI. Run it from this module's directory:
//
//	go run ./cmd/mutate                 (the list in testdata/mutations.tsv)
//	go run ./cmd/mutate -only ID[,ID]   (some of them)
//
// The list is tab-separated: id, op, file (from the repository root), a,
// b, what the bug is (\n and \t in a and b stand for a newline and a tab). op "replace" replaces the one occurrence of a by b;
// "swap" exchanges the one occurrence of a and the one of b.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Mutation is one bug to make.
type Mutation struct {
	ID, Op, File, A, B, What string
}

func main() {
	list := flag.String("list", "testdata/mutations.tsv", "the mutation list")
	only := flag.String("only", "", "comma-separated ids to run (default all)")
	flag.Parse()
	if err := run(*list, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(listFile, only string) error {
	muts, err := readList(listFile)
	if err != nil {
		return err
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	openapi, err := filepath.Abs(filepath.Join(root, "..", "shared", "reference", "operator-openapi.yml"))
	if err != nil {
		return err
	}
	if p := os.Getenv("BANKPAY_OPENAPI"); p != "" {
		openapi = p
	}
	want := map[string]bool{}
	for _, id := range strings.Split(only, ",") {
		if id != "" {
			want[id] = true
		}
	}
	// One copy for every trial (each mutation is undone after its run), so
	// that the build cache serves the packages a mutation leaves alone.
	dir, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copyTree(root, dir); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	// The unmutated copy must pass, or no result means anything.
	if res := trial(root, dir, openapi, nil); res.verdict != "missed" {
		return fmt.Errorf("the unmutated suite does not pass (%s): %s", res.verdict, res.detail)
	}
	caught, total := 0, 0
	for _, m := range muts {
		if len(want) > 0 && !want[m.ID] {
			continue
		}
		res := trial(root, dir, openapi, &m)
		if res.verdict == "not applicable" {
			fmt.Printf("%-40s NOT APPLICABLE  %s\n", m.ID, res.detail)
			continue
		}
		total++
		if res.verdict == "caught" {
			caught++
		}
		fmt.Printf("%-40s %-7s %5.1fs  %s\n      %s\n", m.ID, strings.ToUpper(res.verdict), res.took.Seconds(), m.What, res.detail)
	}
	if total > 0 {
		fmt.Printf("\ncaught %d of %d (%.0f%%)\n", caught, total, 100*float64(caught)/float64(total))
	}
	return nil
}

func readList(file string) ([]Mutation, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []Mutation
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 || (f[1] != "replace" && f[1] != "swap") || seen[f[0]] {
			return nil, fmt.Errorf("%s line %d: want id, replace|swap, file, a, b, what (tab-separated, ids unique)", file, n)
		}
		seen[f[0]] = true
		unesc := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace
		out = append(out, Mutation{f[0], f[1], f[2], unesc(f[3]), unesc(f[4]), f[5]})
	}
	return out, sc.Err()
}

type result struct {
	verdict string // caught, missed, not applicable
	detail  string
	took    time.Duration
}

// trial applies m (none when nil) to the copy dir of root, runs the
// contract suite in it, and undoes the mutation (and what go generate
// rewrote) from root.
func trial(root, dir, openapi string, m *Mutation) result {
	start := time.Now()
	defer func() {
		for _, f := range []string{"internal/decode/zz_generated.go", mutatedFile(m)} {
			if b, err := os.ReadFile(filepath.Join(root, f)); err == nil && f != "" {
				_ = os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
		}
	}()
	if m != nil {
		if err := apply(dir, m); err != nil {
			return result{"not applicable", err.Error(), 0}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "internal", "decode", "gen")); err == nil {
		if out, err := command(ctx, dir, openapi, "go", "generate", "./internal/decode/..."); err != nil {
			return result{"caught", "go generate fails: " + firstLines(out, 3), time.Since(start)}
		}
	}
	out, err := command(ctx, filepath.Join(dir, "test", "contract"), openapi, "go", "test", "-count=1", "-timeout=3m", "./...")
	if err == nil {
		return result{"missed", "the contract suite passes", time.Since(start)}
	}
	return result{"caught", failures(out), time.Since(start)}
}

func mutatedFile(m *Mutation) string {
	if m == nil {
		return ""
	}
	return filepath.FromSlash(m.File)
}

func command(ctx context.Context, dir, openapi string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BANKPAY_OPENAPI="+openapi)
	return cmd.CombinedOutput()
}

// apply makes mutation m in the copy dir.
func apply(dir string, m *Mutation) error {
	path := filepath.Join(dir, filepath.FromSlash(m.File))
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	for _, x := range []string{m.A, m.B} {
		if m.Op == "replace" && x == m.B {
			break
		}
		if n := strings.Count(s, x); n != 1 {
			return fmt.Errorf("%s: %q occurs %d times (want once)", m.File, x, n)
		}
	}
	switch m.Op {
	case "replace":
		s = strings.Replace(s, m.A, m.B, 1)
	case "swap":
		const hold = "\x00mutate\x00"
		s = strings.Replace(s, m.A, hold, 1)
		s = strings.Replace(s, m.B, m.A, 1)
		s = strings.Replace(s, hold, m.B, 1)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// copyTree copies the repository's files (not .git) from src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// failures picks the names of the failing tests and the first lines saying why.
func failures(out []byte) string {
	var tests, why []string
	for _, l := range strings.Split(string(out), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "--- FAIL: "):
			tests = append(tests, strings.Fields(t)[2])
		case len(why) < 2 && (strings.Contains(t, "Error:") || strings.HasPrefix(t, "FAIL:") || strings.Contains(t, "not allow-listed") ||
			strings.Contains(t, "answers failed") || strings.Contains(t, "failed; e.g.") || strings.Contains(t, "build failed")):
			why = append(why, clip(t, 220))
		}
	}
	if len(tests) == 0 && len(why) == 0 {
		return firstLines(out, 3)
	}
	return strings.Join(tests, " ") + " | " + strings.Join(why, " | ")
}

func firstLines(out []byte, n int) string {
	lines := strings.SplitN(strings.TrimSpace(string(out)), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return clip(strings.Join(lines, " / "), 300)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
