package testmain

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { Run(m) }

// TestRunsWithoutExitPause: under -race this binary was started again with
// atexit_sleep_ms=0 in GORACE, keeping what GORACE held before.
func TestRunsWithoutExitPause(t *testing.T) {
	if !restarts {
		t.Skip("no race detector: nothing to leave out")
	}
	assert.True(t, strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms"), "GORACE=%q", os.Getenv("GORACE"))
}

// TestKeepsGORACE: a GORACE of the caller's is kept, with atexit_sleep_ms=0
// added; one that sets atexit_sleep_ms itself is left as it is.
func TestKeepsGORACE(t *testing.T) {
	if !restarts {
		t.Skip("no race detector: nothing to leave out")
	}
	if os.Getenv("TESTMAIN_CHILD") == "1" {
		t.Logf("GORACE=[%s]", os.Getenv("GORACE"))
		return
	}
	for given, want := range map[string]string{
		"halt_on_error=1":   "GORACE=[halt_on_error=1 atexit_sleep_ms=0]",
		"atexit_sleep_ms=1": "GORACE=[atexit_sleep_ms=1]",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKeepsGORACE$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTMAIN_CHILD=1", "GORACE="+given)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), want)
	}
}

// TestEveryTestPackageHasTestMain: every directory of the core module with
// test files has a TestMain through this package (Run, or NoExitPause
// first), so that no test binary of `go test -race ./...` waits out the
// race detector's exit pause.
func TestEveryTestPackageHasTestMain(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	withTests, through := map[string]bool{}, map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			_, modErr := os.Stat(filepath.Join(path, "go.mod"))
			if path != root && (modErr == nil || d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir // another module, or not a package
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		withTests[dir] = true
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		if strings.Contains(s, "func TestMain(") && (strings.Contains(s, "testmain.Run(m)") || strings.Contains(s, "testmain.NoExitPause()") || dir == "internal/testmain") {
			through[dir] = true
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, len(withTests), 10, "the walk found the module's test packages")
	for dir := range withTests {
		assert.True(t, through[dir], "%s: no TestMain through package testmain (a TestMain in its main test file, as in models/models_test.go)", dir)
	}
}
