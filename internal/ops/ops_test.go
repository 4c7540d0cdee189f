package ops

import (
	"net/http"
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
