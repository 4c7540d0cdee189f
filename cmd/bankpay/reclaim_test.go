package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// completedDeposit pays amount out against a new Disbursement authorization
// and lets the sandbox's clock complete it.
func (c *cli) completedDeposit(ref string, amount models.Amount) *models.Transaction {
	auth := c.disbursement(ref)
	dep, err := c.srv.Client().Transactions.Deposit(context.Background(), auth.TransactionID,
		&bankpay.DepositParams{MerchantReference: ref + "-dep", Amount: amount})
	require.NoError(c.t, err)
	c.srv.Advance(time.Minute)
	c.srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	return dep
}

func TestReclaim(t *testing.T) {
	c := newCLI(t)
	dep := c.completedDeposit("cli-rc", "20.00")

	// A deposit is reclaimed, not refunded.
	code, _, errOut := c.run("", "refund", "-amount", "5.00", dep.TransactionID)
	assert.Equal(t, exitFailed, code, errOut)

	code, out, errOut := c.run("", "reclaim", "-ref", "cli-rc-1", "-amount", "5.00", dep.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `type\s+Reclaim \(7\)`, out)
	assert.Regexp(t, `amount\s+5.00 USD`, out)
	assert.Regexp(t, `originalTransactionId\s+`+dep.TransactionID, out)

	// The same reference again: code 210, the first reclaim printed, exit 6.
	first := regexpField(t, out, "transactionId")
	code, out, errOut = c.run("", "reclaim", "-ref", "cli-rc-1", "-amount", "5.00", dep.TransactionID)
	assert.Equal(t, exitDone, code, errOut)
	assert.Equal(t, first, regexpField(t, out, "transactionId"))

	code, _, errOut = c.run("", "reclaim", "-amount", "15.01", dep.TransactionID)
	assert.Equal(t, exitFailed, code, "over the balance is refused")
	assert.Contains(t, errOut, "331")

	sent := c.countRequests()
	code, _, _ = c.run("", "reclaim", dep.TransactionID)
	assert.Equal(t, exitUsage, code, "the amount is required")
	code, _, _ = c.run("", "reclaim", "-amount", "1.00")
	assert.Equal(t, exitUsage, code, "no deposit id")
	assert.Zero(t, sent.Load(), "nothing was sent")
}
