package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

func TestPaymentsGet(t *testing.T) {
	c := newCLI(t)
	dep := c.completedDeposit("cli-pm", "12.00")
	id := dep.Payment.PaymentID
	require.NotEmpty(t, id)

	code, out, errOut := c.run("", "payments", "get", id)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `paymentId\s+`+id, out)
	assert.Regexp(t, `paymentType\s+Disbursement`, out)

	code, out, errOut = c.run("", "-json", "payments", "get", id)
	require.Equal(t, exitOK, code, errOut)
	var p models.Payment
	require.NoError(t, json.Unmarshal([]byte(out), &p), out)
	assert.Equal(t, id, p.PaymentID)
	if p.Account != nil && len(p.Account.AccountNumber) > 4 {
		assert.Regexp(t, `^\*+\d{4}$`, p.Account.AccountNumber, "masked to its last 4 digits")
	}

	code, _, errOut = c.run("", "payments", "get", "100000000000404")
	assert.Equal(t, exitNotFound, code, errOut)
	code, _, _ = c.run("", "payments", "list")
	assert.Equal(t, exitUsage, code)
}
