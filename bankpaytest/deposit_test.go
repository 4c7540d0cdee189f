package bankpaytest_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeposit(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("auth", "100.00")
	d := c.mustDeposit(auth.TransactionID, "dep-1", "40.00")
	require.Equal(t, models.TypeDeposit, d.TransactionType, "deposit %+v", d)
	require.Equal(t, models.StatusAuthorized, d.Status, "deposit %+v", d)
	require.Equal(t, auth.TransactionID, d.OriginalTransactionID, "deposit %+v", d)
	require.Equal(t, models.Amount("40.00"), d.Amount, "deposit %+v", d)
	require.Equal(t, models.USD, d.Currency, "deposit %+v", d)
	require.Equal(t, "dep-1", d.MerchantReference, "deposit %+v", d)
	require.Len(t, d.TransactionID, 15, "deposit %+v", d)
	require.NotEqual(t, auth.TransactionID, d.TransactionID, "deposit %+v", d)
	require.Equal(t, "", d.PaymentProcessorType, "deposit %+v", d)
	got := c.txn(d.TransactionID)
	require.Equal(t, models.TypeDeposit, got.TransactionType, "get deposit %+v", got)
	require.Equal(t, models.StatusAuthorized, got.Status, "get deposit %+v", got)
	require.Equal(t, "0010", got.Payment.Account.AccountNumber, "get deposit %+v", got)
	// Creating a deposit emits nothing; its later changes do.
	evs := srv.EventsFor(d.TransactionID)
	require.Empty(t, evs, "events %v", eventTypes(evs))
	instant := url.Values{"merchantReference": {"dep-2"}, "amount": {"1.00"}, "instantPayoutRequest": {"true"}}
	var env wire.TransactionEnvelope
	c.deposit(auth.TransactionID, instant).wantOK(t, &env)
	require.NotEmpty(t, env.Transaction.PaymentProcessorType, "instant payout deposit without paymentProcessorType")
	// Deferred authorizations take deposits too.
	_, deferred := c.authorize(uiData("deferred", models.PaymentTypeDeferred, "10.00"), bankpaytest.OutcomeAuthorize)
	c.mustDeposit(deferred.TransactionID, "dep-3", "")
}

func TestDepositAmountRules(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())

	t.Run("zero authorization needs an amount", func(t *testing.T) {
		open := c.establish("open", "0.00")
		c.deposit(open.TransactionID, url.Values{"merchantReference": {"z1"}}).wantError(t, 400, 200)
		// No upper bound then.
		c.mustDeposit(open.TransactionID, "z2", "1000000.00")
		c.mustDeposit(open.TransactionID, "z3", "5000000.00")
	})
	t.Run("omitted amount is the full authorization amount", func(t *testing.T) {
		full := c.establish("full", "75.50")
		d := c.mustDeposit(full.TransactionID, "f1", "")
		require.Equal(t, models.Amount("75.50"), d.Amount, "amount %q", d.Amount)
		// Nothing remains.
		c.deposit(full.TransactionID, url.Values{"merchantReference": {"f2"}, "amount": {"1.00"}}).wantError(t, 400, 200)
		c.deposit(full.TransactionID, url.Values{"merchantReference": {"f3"}}).wantError(t, 400, 200)
	})
	t.Run("total cannot exceed the authorization amount", func(t *testing.T) {
		max := c.establish("max", "100.00")
		c.mustDeposit(max.TransactionID, "m1", "60.00")
		c.deposit(max.TransactionID, url.Values{"merchantReference": {"m2"}, "amount": {"40.01"}}).wantError(t, 400, 200)
		c.mustDeposit(max.TransactionID, "m3", "40.00")
		c.deposit(max.TransactionID, url.Values{"merchantReference": {"m4"}, "amount": {"1.00"}}).wantError(t, 400, 200)
	})
	t.Run("at least 0.99, as the OpenAPI says", func(t *testing.T) {
		a := c.establish("min", "0.00")
		for _, amount := range []string{"0.01", "0.98"} {
			r := c.deposit(a.TransactionID, url.Values{"merchantReference": {"min-" + amount}, "amount": {amount}})
			r.wantError(t, 400, 200)
			assert.Contains(t, string(r.body), "at least 0.99", "deposit of %s", amount)
		}
		d := c.mustDeposit(a.TransactionID, "min-ok", "0.99")
		assert.Equal(t, models.Amount("0.99"), d.Amount)
	})
	t.Run("a Denied deposit no longer counts", func(t *testing.T) {
		a := c.establish("denied", "10.00")
		d := c.mustDeposit(a.TransactionID, "d1", "10.00")
		require.NoError(t, srv.Deny(d.TransactionID))
		c.mustDeposit(a.TransactionID, "d2", "10.00")
	})
	t.Run("invalid", func(t *testing.T) {
		a := c.establish("inv", "10.00")
		for name, v := range map[string]url.Values{
			"no reference":     {"amount": {"1.00"}},
			"one place":        {"merchantReference": {"i1"}, "amount": {"1.0"}},
			"comma":            {"merchantReference": {"i1"}, "amount": {"1,00"}},
			"negative":         {"merchantReference": {"i1"}, "amount": {"-1.00"}},
			"zero":             {"merchantReference": {"i1"}, "amount": {"0.00"}},
			"bad instant flag": {"merchantReference": {"i1"}, "amount": {"1.00"}, "instantPayoutRequest": {"yes"}},
		} {
			t.Run(name, func(t *testing.T) { c.deposit(a.TransactionID, v).wantError(t, 400, 200) })
		}
		t.Run("JSON body", func(t *testing.T) {
			c.postJSON("/transactions/"+a.TransactionID+"/deposit", map[string]string{"merchantReference": "j", "amount": "1.00"}).wantError(t, 400, 200)
		})
		t.Run("unknown authorization", func(t *testing.T) {
			c.deposit("100000000999999", url.Values{"merchantReference": {"u"}}).wantError(t, 404, 200)
		})
	})
	t.Run("authorization must be Deferred or Disbursement and Authorized", func(t *testing.T) {
		_, retrieval := c.authorize(uiData("ret", models.PaymentTypeRetrieval, ""), bankpaytest.OutcomeAuthorize)
		c.deposit(retrieval.TransactionID, url.Values{"merchantReference": {"r"}, "amount": {"1.00"}}).wantError(t, 400, 200)
		_, instant := c.authorize(uiData("inst", models.PaymentTypeInstant, "5.00"), bankpaytest.OutcomeAuthorize)
		c.deposit(instant.TransactionID, url.Values{"merchantReference": {"r"}, "amount": {"1.00"}}).wantError(t, 400, 200)
		// A deposit is not an authorization.
		a := c.establish("parent", "10.00")
		d := c.mustDeposit(a.TransactionID, "p1", "1.00")
		c.deposit(d.TransactionID, url.Values{"merchantReference": {"r"}, "amount": {"1.00"}}).wantError(t, 400, 200)
	})
}

// A merchant account not configured for merchantReference idempotency
// processes a repeated reference again, as the service does: a deposit
// retried after a lost response pays twice there.
func TestNoReferenceIdempotency(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NoReferenceIdempotency: true}))
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("auth", "100.00")
	c.establish("auth", "100.00") // the same reference authorizes again
	first := c.mustDeposit(auth.TransactionID, "dep-1", "40.00")
	again := c.mustDeposit(auth.TransactionID, "dep-1", "40.00")
	require.NotEqual(t, first.TransactionID, again.TransactionID, "one deposit for two requests: %s", first.TransactionID)
	// The authorization's maximum still holds.
	c.deposit(auth.TransactionID, url.Values{"merchantReference": {"dep-1"}, "amount": {"40.00"}}).wantError(t, 400, 200)

	// The default merchant is configured for it: a repeat responds with 210.
	srv = newServer(t)
	c = newAPI(t, srv, srv.Credentials())
	auth = c.establish("auth", "100.00")
	c.mustDeposit(auth.TransactionID, "dep-1", "40.00")
	c.deposit(auth.TransactionID, url.Values{"merchantReference": {"dep-1"}, "amount": {"40.00"}}).wantError(t, 400, 210)
}

// An instant payout (instantPayoutRequest=true, paymentProcessorType RTP)
// settles in real time: Completed at its Processed step, in the same clock
// move, with both events; an ordinary deposit waits CompletionBankingDays.
// Completed, it can no longer be Denied but can still be Reversed.
func TestInstantPayoutCompletesWhenProcessed(t *testing.T) {
	srv := newServer(t) // Friday 10:00
	c := newAPI(t, srv, srv.Credentials())
	_, deferred := c.authorize(uiData("ip-auth", models.PaymentTypeDeferred, "100.00"), bankpaytest.OutcomeAuthorize)
	disb := c.establish("ip-disb", "0.00")
	instant := func(authID, ref string) string {
		t.Helper()
		var env wire.TransactionEnvelope
		c.deposit(authID, url.Values{"merchantReference": {ref}, "amount": {"10.00"}, "instantPayoutRequest": {"true"}}).wantOK(t, &env)
		require.Equal(t, models.StatusAuthorized, env.Transaction.Status, "instant payout response %+v", env.Transaction)
		require.Equal(t, bankpaytest.PaymentProcessorInstant, env.Transaction.PaymentProcessorType, "instant payout response %+v", env.Transaction)
		return env.Transaction.TransactionID
	}
	payout := instant(deferred.TransactionID, "ip-1")
	fromDisbursement := instant(disb.TransactionID, "ip-2")
	ordinary := c.mustDeposit(deferred.TransactionID, "ip-3", "10.00").TransactionID
	status := statusOf(t, srv, payout)
	require.Equal(t, models.StatusAuthorized, status, "before the clock moves: %v", status)

	srv.Advance(time.Millisecond)
	for _, id := range []string{payout, fromDisbursement} {
		got := c.txn(id)
		require.Equal(t, models.StatusCompleted, got.Status, "instant payout %s: %v processedAt %v completedAt %v, want Completed at %v", id, got.Status, got.ProcessedAt, got.CompletedAt, friday)
		require.True(t, got.ProcessedAt.Time() == friday, "instant payout %s: %v processedAt %v completedAt %v, want Completed at %v", id, got.Status, got.ProcessedAt, got.CompletedAt, friday)
		require.True(t, got.CompletedAt.Time() == friday, "instant payout %s: %v processedAt %v completedAt %v, want Completed at %v", id, got.Status, got.ProcessedAt, got.CompletedAt, friday)
		evs := srv.EventsFor(id)
		require.Equal(t, "Process,Complete", joined(eventTypes(evs)), "instant payout events %v", evs)
		require.Equal(t, "3", evs[0].Raw.Get("status"), "instant payout events %v", evs)
		require.Equal(t, "4", evs[1].Raw.Get("status"), "instant payout events %v", evs)
		require.True(t, evs[1].CreatedAt.Equal(friday), "instant payout events %v", evs)
	}
	status = statusOf(t, srv, ordinary)
	require.Equal(t, models.StatusProcessed, status, "ordinary deposit: %v, want Processed", status)
	err := srv.Deny(payout)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "deny a Completed instant payout: %v", err)
	err = srv.Reverse(payout)
	require.NoError(t, err, "reverse a Completed instant payout: %v", err)
	// Nothing more happens to it when the clock moves on.
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	events := joined(eventTypes(srv.EventsFor(payout)))
	require.Equal(t, "Process,Complete,Reverse", events, "events %s", events)
	status = statusOf(t, srv, ordinary)
	require.Equal(t, models.StatusCompleted, status, "ordinary deposit after %d banking days: %v", bankpaytest.CompletionBankingDays, status)
}
