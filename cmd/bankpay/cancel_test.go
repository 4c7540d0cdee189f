package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

func TestCancel(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-cn")
	ctx := context.Background()
	dep, err := c.srv.Client().Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "cli-cn-1", Amount: "3.00"})
	require.NoError(t, err)

	// Not yet picked up by the network: canceled.
	code, out, errOut := c.run("", "-json", "cancel", "-message", "order canceled", dep.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	var got models.Transaction
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, models.StatusCanceled, got.Status)
	require.NoError(t, c.srv.Flush(ctx))
	assert.Contains(t, eventTypesOf(c, dep.TransactionID), models.EventCancel)

	// Processed: the service refuses; the money comes back with reclaim.
	dep2, err := c.srv.Client().Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "cli-cn-2", Amount: "3.00"})
	require.NoError(t, err)
	c.srv.Advance(time.Minute)
	code, _, errOut = c.run("", "cancel", dep2.TransactionID)
	assert.Equal(t, exitFailed, code, errOut)

	sent := c.countRequests()
	code, _, _ = c.run("", "cancel", "-message", "a message of more than forty characters, refused", dep2.TransactionID)
	assert.Equal(t, exitUsage, code)
	code, _, _ = c.run("", "cancel")
	assert.Equal(t, exitUsage, code)
	assert.Zero(t, sent.Load(), "nothing was sent")
}

func eventTypesOf(c *cli, id string) []models.EventType {
	var out []models.EventType
	for _, e := range c.srv.EventsFor(id) {
		out = append(out, e.EventType)
	}
	return out
}

// A cancel whose answer is lost: exit 5 says to read the transaction and
// what its status means (transactions get exits 0 either way): Canceled,
// the cancel was made; any other, cancel again.
func TestCancelOutcomeUnknown(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-cl")
	ctx := context.Background()
	dep, err := c.srv.Client().Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "cli-cl-1", Amount: "3.00"})
	require.NoError(t, err)
	c.srv.LoseResponse(http.MethodPost, "/transactions/"+dep.TransactionID+"/cancel")
	code, _, errOut := c.run("", "cancel", "-ref", "cli-cl-c", dep.TransactionID)
	require.Equal(t, exitUncertain, code, errOut)
	assert.Contains(t, errOut, "look it up with bankpay transactions get "+dep.TransactionID)
	assert.Contains(t, errOut, "if its status is Canceled (7), the cancel was made: do not cancel again")
	assert.Contains(t, errOut, "any other status: it was not made: cancel again")
	assert.NotContains(t, errOut, "exits 4", "get exits 0 whether or not the cancel was made")

	// Following the advice: get, status Canceled.
	code, out, errOut := c.run("", "-json", "transactions", "get", dep.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	var got models.Transaction
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, models.StatusCanceled, got.Status)
}
