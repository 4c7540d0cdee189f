package contract

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	usedMu sync.Mutex
	used   = map[string]int{}
)

// markUsed records that a row of AllowList excused a difference.
func markUsed(id string) {
	usedMu.Lock()
	used[id]++
	usedMu.Unlock()
}

// TestMain checks, after a whole run (no -run filter), that every row of the
// allow-list excused something: a row nothing uses is stale and must go.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if f := flag.Lookup("test.run"); code == 0 && (f == nil || f.Value.String() == "") && !testing.Short() {
		var stale []string
		for _, d := range AllowList {
			if used[d.ID] == 0 {
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
	for _, d := range AllowList {
		assert.False(t, ids[d.ID], "duplicate allow-list id %s", d.ID)
		ids[d.ID] = true
		n := len(regexp.MustCompile(`(?mi)^\| `+regexp.QuoteMeta(d.Wire)+` \|`).FindAllIndex(wire, -1))
		assert.Equal(t, 1, n, "allow-list row %s: docs/wire.md has %d table rows named %q", d.ID, n, d.Wire)
		assert.NotEmpty(t, d.Ops, "row %s names no operation", d.ID)
		assert.Contains(t, []string{InRequest, InAnswer, InSandbox, InWebhook}, d.Where, "row %s", d.ID)
		assert.True(t, (d.Match != nil) != (d.Reshape != nil) || d.ID == "number-whole", "row %s: a Match or a Reshape", d.ID)
	}
}
