package readme

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installSection is the README's Install section.
func installSection(t *testing.T) string {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	s := string(raw)
	start := strings.Index(s, "\n## Install\n")
	require.GreaterOrEqual(t, start, 0, "no Install section")
	end := strings.Index(s[start+1:], "\n## ")
	require.Greater(t, end, 0)
	return s[start : start+1+end]
}

// shBlock is the ```sh block of section that contains marker, one command a line.
func shBlock(t *testing.T, section, marker string) []string {
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		if strings.Contains(block[1], marker) {
			return strings.Split(strings.TrimSpace(block[1]), "\n")
		}
	}
	t.Fatalf("no sh block with %q in Install", marker)
	return nil
}

// TestReadmeInstallFromCheckout runs the Install section's two ways of
// depending on a checkout before the tag (replace; a workspace) in a new
// module beside this checkout, and builds a program that imports the SDK
// and bankpaytest. Offline: the module cache serves the SDK's own
// dependencies.
func TestReadmeInstallFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: not in -short")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	section := installSection(t)
	for name, marker := range map[string]string{"replace": "-replace=github.com/bankpay/bankpay-go=../bankpay-go", "workspace": "go work init"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Symlink(root, filepath.Join(dir, "bankpay-go")))
			shop := filepath.Join(dir, "shop")
			require.NoError(t, os.Mkdir(shop, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(shop, "go.mod"), []byte("module example.com/shop\n\ngo 1.23\n"), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(shop, "main.go"), []byte(shopMain), 0o600))
			// Offline: no proxy and no checksum database (a merchant's
			// machine has both; the module cache has what is needed).
			env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=")
			if name == "replace" {
				env = append(env, "GOWORK=off")
			}
			for _, line := range shBlock(t, section, marker) {
				if strings.HasPrefix(line, "git clone") {
					continue // the symlink stands for the clone
				}
				cmd := exec.Command("sh", "-c", line)
				cmd.Dir, cmd.Env = shop, env
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s: %s", line, out)
			}
			cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
			cmd.Dir, cmd.Env = shop, env
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "go build: %s", out)
		})
	}
}

const shopMain = `package main

import (
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

func main() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	_, err := bankpay.NewClient(srv.Credentials(), bankpay.WithBaseURL(srv.URL))
	fmt.Println(err)
}
`

// TestReadmeInstallGoLines: the Install table gives each module's go line,
// and that line is the newest of its requirements' (those in the module
// cache): the lowest the module builds with.
func TestReadmeInstallGoLines(t *testing.T) {
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\| ([0-9.]+) \\|").FindAllStringSubmatch(installSection(t), -1)
	require.NotEmpty(t, rows)
	dirs := map[string]string{"github.com/bankpay/bankpay-go": ".", "…/dedup/pgdedup": "dedup/pgdedup",
		"…/dedup/redisdedup": "dedup/redisdedup", "…/dedup/riverinbox": "dedup/riverinbox", "…/examples/otel": "examples/otel"}
	cache := goEnv(t, "GOMODCACHE")
	for _, row := range rows {
		dir, ok := dirs[row[1]]
		require.True(t, ok, "a row for an unknown module %s", row[1])
		raw, err := os.ReadFile(filepath.Join("../..", dir, "go.mod"))
		require.NoError(t, err)
		goLine := goVersion(raw)
		assert.Equal(t, row[2], majorMinor(goLine), "%s: the README says go %s, its go.mod %s", row[1], row[2], goLine)
		newest := "1.0"
		for _, r := range requirements(raw) {
			dep, err := os.ReadFile(filepath.Join(cache, "cache", "download", escapePath(r[0]), "@v", r[1]+".mod"))
			if err != nil {
				continue // not downloaded (the core itself: untagged)
			}
			if v := goVersion(dep); v != "" && lessVersion(newest, v) {
				newest = v
			}
		}
		assert.Equal(t, majorMinor(newest), majorMinor(goLine), "%s: go %s, while its newest requirement needs %s", row[1], goLine, newest)
	}
}

// goVersion is a go.mod's go line.
func goVersion(gomod []byte) string {
	if m := regexp.MustCompile(`(?m)^go (\S+)`).FindSubmatch(gomod); m != nil {
		return string(m[1])
	}
	return ""
}

// requirements are a go.mod's required module paths and versions.
func requirements(gomod []byte) [][2]string {
	var out [][2]string
	inBlock := false
	for _, l := range strings.Split(string(gomod), "\n") {
		l = strings.TrimSpace(strings.SplitN(l, "//", 2)[0])
		switch {
		case l == "require (":
			inBlock = true
			continue
		case inBlock && l == ")":
			inBlock = false
			continue
		case strings.HasPrefix(l, "require "):
			l = strings.TrimPrefix(l, "require ")
		case !inBlock:
			continue
		}
		if f := strings.Fields(l); len(f) == 2 {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}

// escapePath is a module path as the module cache spells it.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteString("!" + string(r+'a'-'A'))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// majorMinor is "1.25" of "1.25.0".
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// lessVersion compares two Go versions by their numbers.
func lessVersion(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}
