package bankpaytest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// splitToken returns the splitToken of authorization id's Authorize event.
func splitToken(t testing.TB, srv *bankpaytest.Server, id string) string {
	t.Helper()
	for _, e := range srv.EventsFor(id) {
		if e.EventType == models.EventAuthorize {
			tok := e.Raw.Get("splitToken")
			require.NotEmpty(t, tok, "Authorize event of %s has no splitToken", id)
			return tok
		}
	}
	require.Failf(t, "no Authorize event", "no Authorize event for %s", id)
	return ""
}

// payAuthorization authorizes a Deferred payment of amount in the bank
// interface and returns it with its split token.
func (c *api) payAuthorization(ref string, amount models.Amount) (*models.Transaction, string) {
	c.t.Helper()
	_, auth := c.authorize(uiData(ref, models.PaymentTypeDeferred, amount), bankpaytest.OutcomeAuthorize)
	return auth, splitToken(c.t, c.srv, auth.TransactionID)
}

// payCapture captures amount from auth with its split token.
func (c *api) payCapture(authID, token, ref string, amount models.Amount) response {
	c.t.Helper()
	return c.postForm("/transactions/"+authID+"/capture", url.Values{
		"merchantReference": {ref}, "amount": {string(amount)}, "splitToken": {token}})
}

func (c *api) mustTxn(r response) *models.Transaction {
	c.t.Helper()
	var env wire.TransactionEnvelope
	r.wantOK(c.t, &env)
	require.NotNil(c.t, env.Transaction)
	return env.Transaction
}

// completed moves the clock until what was created so far is Completed.
func completed(srv *bankpaytest.Server) {
	srv.Advance(time.Millisecond)
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
}

func (c *api) refund(id string, body any) response {
	c.t.Helper()
	return c.postJSON("/transactions/"+id+"/refund", body)
}

func TestRefundPartialThenRest(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth, tok := c.payAuthorization("rf-auth", "100.00")
	capture := c.mustTxn(c.payCapture(auth.TransactionID, tok, "rf-cap", "60.00"))
	capID := capture.TransactionID

	// Not yet paid: refused, nothing recorded.
	c.refund(capID, map[string]string{"amount": "10.00"}).wantError(t, http.StatusBadRequest, 200)
	completed(srv)
	got := c.txn(capID)
	require.Equal(t, models.StatusCompleted, got.Status)
	assert.Equal(t, models.Amount("60.00"), got.Paid)
	assert.Equal(t, models.Amount("0.00"), got.Refunded)
	assert.Equal(t, models.Amount("60.00"), got.Balance)
	before := len(srv.EventsFor(capID))

	// A part.
	r1 := c.mustTxn(c.refund(capID, map[string]string{"merchantReference": "rf-1", "amount": "25.00"}))
	assert.Equal(t, models.TypeRefund, r1.TransactionType)
	assert.Equal(t, models.StatusAuthorized, r1.Status)
	assert.Equal(t, capID, r1.OriginalTransactionID)
	assert.Equal(t, models.Amount("25.00"), r1.Amount)
	assert.Equal(t, "rf-1", r1.MerchantReference)
	got = c.txn(capID)
	assert.Equal(t, models.StatusPartiallyRefunded, got.Status)
	assert.Equal(t, models.Amount("25.00"), got.Refunded)
	assert.Equal(t, models.Amount("35.00"), got.Balance)
	evs := srv.EventsFor(capID)[before:]
	require.Len(t, evs, 1)
	assert.Equal(t, models.EventRefund, evs[0].EventType)
	assert.Equal(t, "11", evs[0].Raw.Get("status"))
	assert.Equal(t, auth.TransactionID, evs[0].Raw.Get("parentObjectId"))

	// The same reference again: a duplicate; more than the balance: 331.
	c.refund(capID, map[string]string{"merchantReference": "rf-1", "amount": "1.00"}).wantError(t, http.StatusBadRequest, 210)
	c.refund(capID, map[string]string{"amount": "35.01"}).wantError(t, http.StatusBadRequest, 331)
	c.refund(capID, map[string]string{"amount": "0.98"}).wantError(t, http.StatusBadRequest, 200)
	c.refund(capID, map[string]string{"amount": "12345678.00"}).wantError(t, http.StatusBadRequest, 200)
	c.refund(capID, map[string]string{"amount": "5"}).wantError(t, http.StatusBadRequest, 200)
	assert.Equal(t, models.Amount("35.00"), c.txn(capID).Balance, "a refused refund changes nothing")

	// The rest, with no amount.
	r2 := c.mustTxn(c.refund(capID, map[string]string{}))
	assert.Equal(t, models.Amount("35.00"), r2.Amount)
	got = c.txn(capID)
	assert.Equal(t, models.StatusRefunded, got.Status)
	assert.Equal(t, models.Amount("60.00"), got.Refunded)
	assert.Equal(t, models.Amount("0.00"), got.Balance)
	evs = srv.EventsFor(capID)[before:]
	require.Len(t, evs, 2)
	assert.Equal(t, "12", evs[1].Raw.Get("status"))
	c.refund(capID, map[string]string{}).wantError(t, http.StatusBadRequest, 200)

	// Each refund goes through the network like a deposit.
	completed(srv)
	for _, r := range []*models.Transaction{r1, r2} {
		assert.Equal(t, models.StatusCompleted, c.txn(r.TransactionID).Status)
		evs := srv.EventsFor(r.TransactionID)
		assert.Equal(t, "Process,Complete", joined(eventTypes(evs)))
		assert.Equal(t, capID, evs[1].Raw.Get("parentObjectId"))
		assert.Equal(t, "4", evs[1].Raw.Get("transactionType"))
	}
	// A refund is not a deposit or capture: the hooks refuse it.
	assert.ErrorIs(t, srv.Deny(r1.TransactionID), bankpaytest.ErrInvalidTransition)
	assert.ErrorIs(t, srv.Reverse(r1.TransactionID), bankpaytest.ErrInvalidTransition)
}

func TestRefundRefusals(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("rr", "0.00")
	dep := c.mustDeposit(auth.TransactionID, "rr-1", "10.00")
	completed(srv)
	c.refund(dep.TransactionID, map[string]string{}).wantError(t, http.StatusBadRequest, 200)     // a deposit is reclaimed
	c.refund(auth.TransactionID, map[string]string{}).wantError(t, http.StatusBadRequest, 200)    // nothing was paid
	c.refund("100000000009999", map[string]string{}).wantError(t, http.StatusNotFound, 200)       // unknown
	c.postForm("/transactions/"+dep.TransactionID+"/refund", url.Values{}).wantError(t, 415, 200) // JSON only

	// A Reversed capture can no longer be refunded.
	pay, tok := c.payAuthorization("rr-pay", "20.00")
	capture := c.mustTxn(c.payCapture(pay.TransactionID, tok, "rr-cap", "20.00"))
	completed(srv)
	require.NoError(t, srv.Reverse(capture.TransactionID))
	c.refund(capture.TransactionID, map[string]string{}).wantError(t, http.StatusBadRequest, 200)
	// Another merchant's capture is not found.
	srv2 := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	owner, stranger := newAPI(t, srv2, srv2.Credentials()), newAPI(t, srv2, srv2.Merchants()[1].Credentials)
	p2, tok2 := owner.payAuthorization("x", "5.00")
	cap2 := owner.mustTxn(owner.payCapture(p2.TransactionID, tok2, "x-1", "5.00"))
	completed(srv2)
	stranger.refund(cap2.TransactionID, map[string]string{}).wantError(t, http.StatusNotFound, 200)
	owner.mustTxn(owner.refund(cap2.TransactionID, map[string]string{"amount": "1.00"}))
	assert.Equal(t, models.StatusPartiallyRefunded, owner.txn(cap2.TransactionID).Status)
}

func (c *api) reclaim(id string, body any) response {
	c.t.Helper()
	return c.postJSON("/transactions/"+id+"/reclaim", body)
}

func TestReclaim(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("rc", "0.00")
	dep := c.mustDeposit(auth.TransactionID, "rc-1", "50.00")
	c.reclaim(dep.TransactionID, map[string]string{"amount": "5.00"}).wantError(t, http.StatusBadRequest, 200) // not Completed
	completed(srv)
	before := len(srv.EventsFor(dep.TransactionID))

	r1 := c.mustTxn(c.reclaim(dep.TransactionID, map[string]string{"merchantReference": "rc-r1", "amount": "20.00"}))
	assert.Equal(t, models.TypeReclaim, r1.TransactionType)
	assert.Equal(t, dep.TransactionID, r1.OriginalTransactionID)
	assert.Equal(t, models.StatusAuthorized, r1.Status)
	got := c.txn(dep.TransactionID)
	assert.Equal(t, models.StatusCompleted, got.Status, "a reclaimed deposit stays Completed")
	assert.Equal(t, models.Amount("50.00"), got.Paid)
	assert.Equal(t, models.Amount("30.00"), got.Balance)
	assert.Equal(t, models.Amount("0.00"), got.Refunded, "a reclaim is not a refund")
	assert.Len(t, srv.EventsFor(dep.TransactionID), before, "no event on the deposit")

	c.reclaim(dep.TransactionID, map[string]string{"merchantReference": "rc-r1", "amount": "1.00"}).wantError(t, http.StatusBadRequest, 210)
	c.reclaim(dep.TransactionID, map[string]string{"amount": "30.01"}).wantError(t, http.StatusBadRequest, 331)
	r2 := c.mustTxn(c.reclaim(dep.TransactionID, map[string]string{}))
	assert.Equal(t, models.Amount("30.00"), r2.Amount)
	assert.Equal(t, models.Amount("0.00"), c.txn(dep.TransactionID).Balance)
	c.reclaim(dep.TransactionID, map[string]string{"amount": "1.00"}).wantError(t, http.StatusBadRequest, 331)

	completed(srv)
	assert.Equal(t, models.StatusCompleted, c.txn(r2.TransactionID).Status)
	assert.Equal(t, "Process,Complete", joined(eventTypes(srv.EventsFor(r2.TransactionID))))

	// A capture is refunded, not reclaimed.
	pay, tok := c.payAuthorization("rc-pay", "5.00")
	capture := c.mustTxn(c.payCapture(pay.TransactionID, tok, "rc-cap", "5.00"))
	completed(srv)
	c.reclaim(capture.TransactionID, map[string]string{"amount": "1.00"}).wantError(t, http.StatusBadRequest, 200)
}

func (c *api) cancel(id string, body any) response {
	c.t.Helper()
	return c.postJSON("/transactions/"+id+"/cancel", body)
}

func TestCancelAuthorization(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth, _ := c.payAuthorization("ca", "100.00")
	pending := c.mustDeposit(auth.TransactionID, "ca-1", "10.00")

	got := c.mustTxn(c.cancel(auth.TransactionID, map[string]any{"merchantReference": "ca", "message": "user revoked access", "reason": 1}))
	assert.Equal(t, models.StatusCanceled, got.Status)
	assert.Equal(t, models.ProviderStatus("SW013"), got.PaymentProviderTransaction.Status, "the merchant's cancel, not the user's UC01")
	evs := srv.EventsFor(auth.TransactionID)
	assert.Equal(t, "Authorize,Cancel", joined(eventTypes(evs)))
	assert.Equal(t, "7", evs[1].Raw.Get("status"))
	// Further deposits are refused; the pending one stays as it was.
	c.deposit(auth.TransactionID, url.Values{"merchantReference": {"ca-2"}, "amount": {"1.00"}}).wantError(t, http.StatusBadRequest, 200)
	assert.Equal(t, models.StatusAuthorized, c.txn(pending.TransactionID).Status)
	c.cancel(auth.TransactionID, map[string]any{}).wantError(t, http.StatusBadRequest, 200) // already Canceled

	// A Disbursement authorization too.
	d := c.establish("ca-d", "0.00")
	assert.Equal(t, models.StatusCanceled, c.mustTxn(c.cancel(d.TransactionID, map[string]any{})).Status)

	// One the user canceled in the bank interface cannot be canceled again.
	_, userCanceled := c.authorize(uiData("ca-u", models.PaymentTypeDeferred, "5.00"), bankpaytest.OutcomeCancel)
	assert.Equal(t, models.ProviderStatus("UC01"), userCanceled.PaymentProviderTransaction.Status)
	c.cancel(userCanceled.TransactionID, map[string]any{}).wantError(t, http.StatusBadRequest, 200)

	// A message over 40 characters, a negative reason, a body that is not JSON.
	a2, _ := c.payAuthorization("ca-2", "5.00")
	c.cancel(a2.TransactionID, map[string]any{"message": "12345678901234567890123456789012345678901"}).wantError(t, http.StatusBadRequest, 200)
	c.cancel(a2.TransactionID, map[string]any{"reason": -1}).wantError(t, http.StatusBadRequest, 200)
	assert.Equal(t, http.StatusBadRequest, send(t, &c.creds, http.MethodPost, srv.URL+"/transactions/"+a2.TransactionID+"/cancel", "application/json", []byte("{")).status)
	assert.Equal(t, models.StatusAuthorized, c.txn(a2.TransactionID).Status)
}

func TestCancelBeforeAndAfterPayment(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("cp", "30.00")
	dep := c.mustDeposit(auth.TransactionID, "cp-1", "30.00")
	// The whole amount is taken; canceling the deposit frees it.
	c.deposit(auth.TransactionID, url.Values{"merchantReference": {"cp-x"}, "amount": {"1.00"}}).wantError(t, http.StatusBadRequest, 200)
	got := c.mustTxn(c.cancel(dep.TransactionID, map[string]any{}))
	assert.Equal(t, models.StatusCanceled, got.Status)
	assert.Equal(t, models.ProviderStatus("AC104"), got.PaymentProviderTransaction.Status)
	assert.Equal(t, "Cancel", joined(eventTypes(srv.EventsFor(dep.TransactionID))))
	paid := c.mustDeposit(auth.TransactionID, "cp-2", "30.00")

	// The network picks it up: too late to cancel it, or its authorization.
	srv.Advance(time.Millisecond)
	assert.Equal(t, models.StatusCanceled, c.txn(dep.TransactionID).Status, "a canceled deposit is never submitted")
	c.cancel(paid.TransactionID, map[string]any{}).wantError(t, http.StatusBadRequest, 200)
	c.cancel(auth.TransactionID, map[string]any{}).wantError(t, http.StatusBadRequest, 200)
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	c.cancel(paid.TransactionID, map[string]any{}).wantError(t, http.StatusBadRequest, 200)
	assert.Equal(t, models.StatusCompleted, c.txn(paid.TransactionID).Status)

	// A refund cannot be canceled.
	pay, tok := c.payAuthorization("cp-pay", "5.00")
	capture := c.mustTxn(c.payCapture(pay.TransactionID, tok, "cp-cap", "5.00"))
	completed(srv)
	r := c.mustTxn(c.refund(capture.TransactionID, map[string]string{}))
	c.cancel(r.TransactionID, map[string]any{}).wantError(t, http.StatusBadRequest, 200)
}
