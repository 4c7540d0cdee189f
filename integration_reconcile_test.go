package bankpay_test

// Reconciliation: a money-moving call whose response is lost (the sandbox
// acts on it, then resets the connection) returns a *NetworkError with
// Sent true; the merchant finds the transaction by its merchantReference
// instead of paying again.

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func TestIntegrationReconcileLostDeposit(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()
	c := s.client
	auth, err := c.Transactions.Establish(ctx, disbursementParams("rec-auth", "", "0.00", bankpaytest.AccountVerified))
	require.NoError(t, err)

	s.LoseResponse(http.MethodPost, "/transactions/"+auth.TransactionID+"/deposit")
	p := &bankpay.DepositParams{MerchantReference: "rec-dep-1", Amount: "40.00"}
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, p)
	var ne *bankpay.NetworkError
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Sent, "the request may have reached the service")
	assert.Equal(t, 1, ne.Attempts, "a deposit is not retried")

	// Not paying again: find it.
	dep, err := c.Transactions.FindByMerchantReference(ctx, p.MerchantReference)
	require.NoError(t, err)
	assert.Equal(t, models.TypeDeposit, dep.TransactionType)
	assert.Equal(t, auth.TransactionID, dep.OriginalTransactionID)
	assert.Equal(t, models.Amount("40.00"), dep.Amount)
	assert.Equal(t, models.StatusAuthorized, dep.Status)

	// A deposit whose request never took effect is not found: paying with
	// the same reference is safe, and made once.
	_, err = c.Transactions.FindByMerchantReference(ctx, "rec-dep-2")
	require.ErrorIs(t, err, bankpay.ErrNotFound)
	dep2, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rec-dep-2", Amount: "5.00"})
	require.NoError(t, err)

	deposits := collect(t, c.Transactions.List(ctx, &bankpay.TransactionListParams{OriginalTransactionID: auth.TransactionID}))
	assert.Equal(t, []string{dep.TransactionID, dep2.TransactionID}, txnIDs(deposits), "each deposit made once")
}

func TestIntegrationReconcileLostEstablish(t *testing.T) {
	s := startSandbox(t, bankpaytest.WithBareResponses())
	ctx := context.Background()
	c := s.client
	s.LoseResponse(http.MethodPost, "/establish")
	_, err := c.Transactions.Establish(ctx, disbursementParams("rec-est", "", "0.00", bankpaytest.AccountVerified))
	var ne *bankpay.NetworkError
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Sent)

	auth, err := c.Transactions.FindByMerchantReference(ctx, "rec-est")
	require.NoError(t, err)
	assert.Equal(t, models.TypeAuthorize, auth.TransactionType)
	assert.Equal(t, models.StatusAuthorized, auth.Status)
	// Repeating it would be refused: the reference was used.
	_, err = c.Transactions.Establish(ctx, disbursementParams("rec-est", "", "0.00", bankpaytest.AccountVerified))
	assert.ErrorIs(t, err, bankpay.ErrDuplicate)
}
