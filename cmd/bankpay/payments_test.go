package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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

// A payment the service sends without authorizationStatus (the field is
// optional) prints without it instead of crashing the CLI.
func TestPaymentsGetNoAuthorizationStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"payment":{"paymentId":"1000000000000077","paymentType":2,"merchantReference":"p-77",`+
			`"amount":"5.00","currency":"USD","account":{"accountNumber":"123456789","routingNumber":"021000021"}}}`)
	}))
	t.Cleanup(srv.Close)
	c := newCLI(t)
	c.vars["BANKPAY_BASE_URL"] = srv.URL

	code, out, errOut := c.run("", "payments", "get", "1000000000000077")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `paymentId\s+1000000000000077`, out)
	assert.NotContains(t, out, "authorizationStatus")
	assert.Regexp(t, `account\s+\*{5}6789`, out)
	assert.NotContains(t, out, "123456789")
}
