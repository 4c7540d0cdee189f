package bankpaytest_test

import (
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

func TestDeposit(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("auth", "100.00")
	d := c.mustDeposit(auth.TransactionID, "dep-1", "40.00")
	if d.TransactionType != models.TypeDeposit || d.Status != models.StatusAuthorized || d.OriginalTransactionID != auth.TransactionID ||
		d.Amount != "40.00" || d.Currency != models.USD || d.MerchantReference != "dep-1" || len(d.TransactionID) != 15 ||
		d.TransactionID == auth.TransactionID || d.PaymentProcessorType != "" {
		t.Fatalf("deposit %+v", d)
	}
	if got := c.txn(d.TransactionID); got.TransactionType != models.TypeDeposit || got.Status != models.StatusAuthorized || got.Payment.Account.AccountNumber != "0010" {
		t.Fatalf("get deposit %+v", got)
	}
	// Creating a deposit emits nothing; its later changes do.
	if evs := srv.EventsFor(d.TransactionID); len(evs) != 0 {
		t.Fatalf("events %v", eventTypes(evs))
	}
	instant := url.Values{"merchantReference": {"dep-2"}, "amount": {"1.00"}, "instantPayoutRequest": {"true"}}
	var env wire.TransactionEnvelope
	c.deposit(auth.TransactionID, instant).wantOK(t, &env)
	if env.Transaction.PaymentProcessorType == "" {
		t.Fatal("instant payout deposit without paymentProcessorType")
	}
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
		if d := c.mustDeposit(full.TransactionID, "f1", ""); d.Amount != "75.50" {
			t.Fatalf("amount %q", d.Amount)
		}
		// Nothing remains.
		c.deposit(full.TransactionID, url.Values{"merchantReference": {"f2"}, "amount": {"0.01"}}).wantError(t, 400, 200)
		c.deposit(full.TransactionID, url.Values{"merchantReference": {"f3"}}).wantError(t, 400, 200)
	})
	t.Run("total cannot exceed the authorization amount", func(t *testing.T) {
		max := c.establish("max", "100.00")
		c.mustDeposit(max.TransactionID, "m1", "60.00")
		c.deposit(max.TransactionID, url.Values{"merchantReference": {"m2"}, "amount": {"40.01"}}).wantError(t, 400, 200)
		c.mustDeposit(max.TransactionID, "m3", "40.00")
		c.deposit(max.TransactionID, url.Values{"merchantReference": {"m4"}, "amount": {"0.01"}}).wantError(t, 400, 200)
	})
	t.Run("a Denied deposit no longer counts", func(t *testing.T) {
		a := c.establish("denied", "10.00")
		d := c.mustDeposit(a.TransactionID, "d1", "10.00")
		if err := srv.Deny(d.TransactionID); err != nil {
			t.Fatal(err)
		}
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
	if first.TransactionID == again.TransactionID {
		t.Fatalf("one deposit for two requests: %s", first.TransactionID)
	}
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
		if env.Transaction.Status != models.StatusAuthorized || env.Transaction.PaymentProcessorType != bankpaytest.PaymentProcessorInstant {
			t.Fatalf("instant payout response %+v", env.Transaction)
		}
		return env.Transaction.TransactionID
	}
	payout := instant(deferred.TransactionID, "ip-1")
	fromDisbursement := instant(disb.TransactionID, "ip-2")
	ordinary := c.mustDeposit(deferred.TransactionID, "ip-3", "10.00").TransactionID
	if got := statusOf(t, srv, payout); got != models.StatusAuthorized {
		t.Fatalf("before the clock moves: %v", got)
	}

	srv.Advance(time.Millisecond)
	for _, id := range []string{payout, fromDisbursement} {
		got := c.txn(id)
		if got.Status != models.StatusCompleted || got.ProcessedAt.Time() != friday || got.CompletedAt.Time() != friday {
			t.Fatalf("instant payout %s: %v processedAt %v completedAt %v, want Completed at %v", id, got.Status, got.ProcessedAt, got.CompletedAt, friday)
		}
		evs := srv.EventsFor(id)
		if joined(eventTypes(evs)) != "Process,Complete" || evs[0].Fields.Get("status") != "3" || evs[1].Fields.Get("status") != "4" ||
			!evs[1].CreatedAt.Equal(friday) {
			t.Fatalf("instant payout events %v", evs)
		}
	}
	if got := statusOf(t, srv, ordinary); got != models.StatusProcessed {
		t.Fatalf("ordinary deposit: %v, want Processed", got)
	}
	if err := srv.Deny(payout); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("deny a Completed instant payout: %v", err)
	}
	if err := srv.Reverse(payout); err != nil {
		t.Fatalf("reverse a Completed instant payout: %v", err)
	}
	// Nothing more happens to it when the clock moves on.
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	if got := joined(eventTypes(srv.EventsFor(payout))); got != "Process,Complete,Reverse" {
		t.Fatalf("events %s", got)
	}
	if got := statusOf(t, srv, ordinary); got != models.StatusCompleted {
		t.Fatalf("ordinary deposit after %d banking days: %v", bankpaytest.CompletionBankingDays, got)
	}
}
