package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// payAuthorization has the sandbox's user authorize a Deferred payment of
// amount and returns it with the split token of its Authorize event.
func (c *cli) payAuthorization(ref string, amount models.Amount) (*models.Transaction, string) {
	d := models.EstablishData{Description: "Order", Currency: models.USD, Amount: amount, MerchantReference: ref,
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel"}
	require.NoError(c.t, c.srv.Client().SignEstablishData(&d))
	_, auth, err := c.srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(c.t, err)
	require.NoError(c.t, c.srv.Flush(context.Background()))
	for _, ev := range c.srv.EventsFor(auth.TransactionID) {
		if ev.EventType == models.EventAuthorize && ev.Raw.Get("splitToken") != "" {
			return auth, ev.Raw.Get("splitToken")
		}
	}
	require.FailNow(c.t, "no split token in the Authorize event")
	return nil, ""
}

// countRequests counts the requests the CLI's client sends from now on.
func (c *cli) countRequests() *atomic.Int32 {
	var n atomic.Int32
	c.opts = append(c.opts, bankpay.WithTransport(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			n.Add(1)
			return next.RoundTrip(r)
		})
	}))
	return &n
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCapture(t *testing.T) {
	c := newCLI(t)
	auth, token := c.payAuthorization("cli-cap-auth", "40.00")

	code, out, errOut := c.run("", "capture", "-ref", "cli-cap-1", "-amount", "25.00", "-split-token", token, auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `type\s+Capture \(3\)`, out)
	assert.Regexp(t, `amount\s+25.00 USD`, out)
	assert.Regexp(t, `originalTransactionId\s+`+auth.TransactionID, out)

	// The same reference again is refused by the service (code 210), not
	// charged twice: the first capture is found and printed, exit 6.
	first := regexpField(t, out, "transactionId")
	code, out, errOut = c.run("", "capture", "-ref", "cli-cap-1", "-amount", "5.00", "-split-token", token, auth.TransactionID)
	assert.Equal(t, exitDone, code, errOut)
	assert.Contains(t, errOut, "210")
	assert.Equal(t, first, regexpField(t, out, "transactionId"))

	// Another token is refused by the service (code 380).
	code, _, errOut = c.run("", "capture", "-ref", "cli-cap-2", "-amount", "5.00", "-split-token", token+"x", auth.TransactionID)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "380")

	// More than is left of the authorization, as JSON for a script.
	code, _, errOut = c.run("", "-json", "capture", "-ref", "cli-cap-3", "-amount", "15.01", "-split-token", token, auth.TransactionID)
	assert.Equal(t, exitFailed, code, errOut)
	code, out, errOut = c.run("", "-json", "capture", "-ref", "cli-cap-4", "-amount", "15.00", "-split-token", token, auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	var got models.Transaction
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, models.TypeCapture, got.TransactionType)

	// Bad input is a usage error and nothing is sent.
	sent := c.countRequests()
	for _, args := range [][]string{
		{"capture", "-ref", "cli-cap-5", "-amount", "1.5", "-split-token", token, auth.TransactionID},
		{"capture", "-ref", "cli-cap-5", "-amount", "1.50", auth.TransactionID}, // no token: a money transfer, no beneficiary
		{"capture", "-ref", "cli-cap-5", "-amount", "1.50", "-split-token", token},
	} {
		code, _, errOut = c.run("", args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errOut)
	}
	assert.Zero(t, sent.Load(), "nothing was sent")
	// Without -split-token the message names it, not a beneficiary the
	// command has no flag for.
	code, _, errOut = c.run("", "capture", "-ref", "cli-cap-6", "-amount", "1.50", auth.TransactionID)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-split-token is required")
	assert.NotContains(t, errOut, "beneficiary.name")
}
