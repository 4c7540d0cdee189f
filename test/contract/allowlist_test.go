package contract

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	usedMu sync.Mutex
	used   = map[string]int{}
	// ran records the places (InRequest…) whose tests ran to their end.
	ran = map[string]bool{}
)

// markRan records that a test covering the places where ran whole.
func markRan(where ...string) {
	usedMu.Lock()
	for _, w := range where {
		ran[w] = true
	}
	usedMu.Unlock()
}

// markUsed records that a row of AllowList excused a difference.
func markUsed(id string) {
	usedMu.Lock()
	used[id]++
	usedMu.Unlock()
}

// TestMain checks, after the run, that every row of the allow-list whose
// tests ran (under -run and -short too) excused something: a row nothing
// uses is stale and must go.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 {
		var stale []string
		for _, d := range AllowList {
			if ran[d.Where] && used[d.ID] == 0 {
				stale = append(stale, d.ID)
			}
		}
		if len(stale) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: allow-list rows no difference used (stale): %v\n", stale)
			code = 1
		}
		ids := make([]string, 0, len(used))
		for id := range used {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Printf("allow-list: %d rows; uses:", len(AllowList))
		for _, id := range ids {
			fmt.Printf(" %s=%d", id, used[id])
		}
		fmt.Println()
	}
	os.Exit(code)
}

// TestAllowList_rowsPointAtWire checks that every row of the allow-list has
// a unique ID and names a row of docs/wire.md: a table row whose first cell
// is the row's Wire (letter case aside), found exactly once.
func TestAllowList_rowsPointAtWire(t *testing.T) {
	wire, err := os.ReadFile("../../docs/wire.md")
	require.NoError(t, err)
	ids := map[string]bool{}
	lines := map[string]bool{}
	for _, d := range AllowList {
		assert.False(t, ids[d.ID], "duplicate allow-list id %s", d.ID)
		ids[d.ID] = true
		n := len(regexp.MustCompile(`(?mi)^\| `+regexp.QuoteMeta(d.Wire)+` \|`).FindAllIndex(wire, -1))
		assert.Equal(t, 1, n, "allow-list row %s: docs/wire.md has %d table rows named %q", d.ID, n, d.Wire)
		assert.Contains(t, []string{InRequest, InAnswer, InSandbox, InSandboxSpec, InWebhook}, d.Where, "row %s", d.ID)
		assert.True(t, (d.Line != "") != (d.Reshape != nil), "row %s: a Line or a Reshape", d.ID)
		assert.NotContains(t, d.Ops, "*", "row %s: names its operations, no wildcard", d.ID)
		if strings.HasPrefix(d.ID, "number-whole/") {
			// One property of one schema, wherever the schema is used.
			assert.Empty(t, d.Ops, "row %s", d.ID)
			assert.Equal(t, InAnswer, d.Where, "row %s", d.ID)
			assert.Equal(t, "whole: "+strings.TrimPrefix(d.ID, "number-whole/"), d.Line, "row %s", d.ID)
			assert.Regexp(t, `^whole: [A-Za-z]+(\[\])?(\.[A-Za-z]+(\[\])?)*$`, d.Line, "row %s: one property, a JSON path", d.ID)
			continue
		}
		assert.NotEmpty(t, d.Ops, "row %s names no operation", d.ID)
		for _, op := range d.Ops {
			key := d.Where + " " + op + " " + d.Line
			assert.False(t, lines[key] && d.Line != "", "row %s: another row excuses the same line in %s", d.ID, op)
			lines[key] = true
		}
	}
}
