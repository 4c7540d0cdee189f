package bankpaytest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func TestAuthorizeEventCarriesSplitToken(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, a1 := c.authorize(uiData("st-1", models.PaymentTypeDeferred, "5.00"), bankpaytest.OutcomeAuthorize)
	_, a2 := c.authorize(uiData("st-2", models.PaymentTypeInstant, "5.00"), bankpaytest.OutcomeAuthorize)
	t1, t2 := splitToken(t, srv, a1.TransactionID), splitToken(t, srv, a2.TransactionID)
	assert.NotEqual(t, t1, t2, "a token per authorization")
	assert.Len(t, t1, 32)

	// A Disbursement and a canceled authorization have none.
	d := c.establish("st-d", "0.00")
	for _, e := range srv.EventsFor(d.TransactionID) {
		assert.Empty(t, e.Raw.Get("splitToken"))
	}
	_, canceled := c.authorize(uiData("st-c", models.PaymentTypeDeferred, "5.00"), bankpaytest.OutcomeCancel)
	for _, e := range srv.EventsFor(canceled.TransactionID) {
		assert.Empty(t, e.Raw.Get("splitToken"))
	}
}

func TestPayCapture(t *testing.T) {
	// A merchant not configured for money transfer still captures Pay
	// authorizations.
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NoMoneyTransfer: true}))
	c := newAPI(t, srv, srv.Credentials())
	auth, tok := c.payAuthorization("pc", "50.00")
	path := "/transactions/" + auth.TransactionID + "/capture"

	c.payCapture(auth.TransactionID, tok+"x", "pc-1", "10.00").wantError(t, http.StatusBadRequest, 380)
	c.mustTxn(c.payCapture(auth.TransactionID, "", "pc-0", "10.00")) // no token: a plain charge (splitToken is optional)
	c.payCapture(auth.TransactionID, tok, "pc-1", "12345678.00").wantError(t, http.StatusBadRequest, 200)
	c.payCapture(auth.TransactionID, tok, "pc-1", "40.01").wantError(t, http.StatusBadRequest, 200)
	capture := c.mustTxn(c.postForm(path, url.Values{"merchantReference": {"pc-2"}, "amount": {"10.00"},
		"splitToken": {tok}, "interactionId": {"consumerNotPresent"}}))
	assert.Equal(t, models.TypeCapture, capture.TransactionType)
	assert.Equal(t, auth.TransactionID, capture.OriginalTransactionID)
	assert.Equal(t, models.StatusAuthorized, capture.Status)
	completed(srv)
	got := c.txn(capture.TransactionID)
	require.Equal(t, models.StatusCompleted, got.Status)
	assert.Equal(t, models.Amount("10.00"), got.Balance)
}
