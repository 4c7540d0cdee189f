package main

import (
	"context"
	"encoding/json"
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
