package ops

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

func TestFill(t *testing.T) {
	op := &Op{Name: "T.X", Method: http.MethodPost, Path: "/transactions/{transactionId}/deposit", Body: BodyForm}
	got, err := op.Fill("a/b?c#d")
	require.NoError(t, err)
	assert.Equal(t, "/transactions/a%2Fb%3Fc%23d/deposit", got, "an id cannot change the path")

	_, err = op.Fill()
	assert.ErrorContains(t, err, "no value for {transactionId}")
	_, err = op.Fill("1", "2")
	assert.ErrorContains(t, err, "2 ids for 1 path segments")
}

// TestAll: the table holds every row once, in the order written, and
// All hands out a copy of it.
func TestAll(t *testing.T) {
	rows := All()
	require.Len(t, rows, 32)
	assert.Same(t, AccountsBalance, rows[0])
	assert.Same(t, TransactionsRefresh, rows[len(rows)-1])
	names := map[string]bool{}
	for _, r := range rows {
		assert.False(t, names[r.Name], "%s: two rows", r.Name)
		names[r.Name] = true
	}
	rows[0] = nil
	assert.Same(t, AccountsBalance, All()[0], "All returns a copy")
}

// The pieces row works out once fill every row's path as the segment by
// segment fill does, for ids that need escaping and ids that do not, and
// a path of two ids too; a wrong count of ids is still an error.
func TestFill_PiecesSameAsSegments(t *testing.T) {
	two := &Op{Name: "T.Two", Path: "/a/{x}/b/{y}"}
	two.pieces = cut(two.Path)
	ops := append(All(), two)
	for _, op := range ops {
		n := strings.Count(op.Path, "{")
		require.Equal(t, n+1, len(op.pieces), op.Name)
		plain := *op
		plain.pieces = nil
		for _, id := range []string{"12345", "a/b?c#d", "ü %"} {
			ids := make([]string, n)
			for i := range ids {
				ids[i] = id + strings.Repeat("x", i)
			}
			want, err := plain.Fill(ids...)
			require.NoError(t, err, op.Name)
			got, err := op.Fill(ids...)
			require.NoError(t, err, op.Name)
			assert.Equal(t, want, got, op.Name)
		}
		if n > 0 {
			_, err := op.Fill(make([]string, n+1)...)
			assert.Error(t, err, op.Name)
		}
	}
	got, err := two.Fill("1", "2/3")
	require.NoError(t, err)
	assert.Equal(t, "/a/1/b/2%2F3", got)
}
