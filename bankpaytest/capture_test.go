package bankpaytest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func transferData(ref string) models.EstablishData {
	d := uiData(ref, models.PaymentTypeDeferred, "500.00")
	d.Customer = &models.Customer{
		Name:    "Jane Doe",
		Address: &models.Address{Address1: "1 Main St", City: "Austin", State: "TX", Zip: "73301", Country: "US"},
	}
	return d
}

func captureForm(ref, amount string) url.Values {
	return url.Values{
		"merchantReference":                          {ref},
		"amount":                                     {amount},
		"beneficiary.name":                           {"Juan Perez"},
		"beneficiary.address.city":                   {"Guadalajara"},
		"beneficiary.address.country":                {"MX"},
		"beneficiary.dateOfBirth":                    {"1980-01-02"},
		"beneficiaryAccount.accountNumber":           {"12345678"},
		"beneficiaryAccount.paymentProvider.name":    {"Banco"},
		"beneficiaryAccount.paymentProvider.country": {"MX"},
		"beneficiaryAccount.paymentProvider.swift":   {"BANCMXMM"},
		"metadata.remittance.withdrawalMethod":       {"BankDeposit"},
		"metadata.remittance.countryCorridor":        {"MX"},
		"metadata.remittance.accountLastFour":        {"5678"},
	}
}

func TestCapture(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NoMoneyTransfer: true}), bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	plain, mt := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	_, auth := mt.authorize(transferData("mt-1"), bankpaytest.OutcomeAuthorize)
	id := auth.TransactionID

	var env wire.TransactionEnvelope
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-1", "200.00")).wantOK(t, &env)
	c := env.Transaction
	require.Equal(t, models.TypeCapture, c.TransactionType, "capture %+v", c)
	require.Equal(t, models.StatusAuthorized, c.Status, "capture %+v", c)
	require.Equal(t, id, c.OriginalTransactionID, "capture %+v", c)
	require.Equal(t, models.Amount("200.00"), c.Amount, "capture %+v", c)
	require.Equal(t, "cap-1", c.MerchantReference, "capture %+v", c)
	require.Len(t, c.TransactionID, 15, "capture %+v", c)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-1", "1.00")).wantError(t, 400, 210)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-2", "300.01")).wantError(t, 400, 200)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-3", "300.00")).wantOK(t, nil)

	t.Run("merchant not configured for money transfer", func(t *testing.T) {
		_, a := plain.authorize(transferData("plain-1"), bankpaytest.OutcomeAuthorize)
		plain.postForm("/transactions/"+a.TransactionID+"/capture", captureForm("p", "1.00")).wantError(t, 400, 200)
	})
	t.Run("missing fields", func(t *testing.T) {
		_, a := mt.authorize(transferData("mt-2"), bankpaytest.OutcomeAuthorize)
		// No amount captures the rest (TestCaptureAmount).
		for _, field := range []string{"merchantReference", "beneficiary.name", "beneficiary.address.country"} {
			f := captureForm("m-"+field, "1.00")
			f.Del(field)
			t.Run(field, func(t *testing.T) {
				mt.postForm("/transactions/"+a.TransactionID+"/capture", f).wantError(t, 400, 200)
			})
		}
		for field, bad := range map[string]string{
			"amount":                               "1",
			"beneficiary.address.country":          "Mexico",
			"metadata.remittance.withdrawalMethod": "Pigeon",
			"metadata.remittance.countryCorridor":  "mx",
			"metadata.remittance.accountLastFour":  "12345",
		} {
			f := captureForm("bad-"+field, "1.00")
			f.Set(field, bad)
			t.Run("invalid "+field, func(t *testing.T) {
				mt.postForm("/transactions/"+a.TransactionID+"/capture", f).wantError(t, 400, 200)
			})
		}
	})
	t.Run("customer fields required", func(t *testing.T) {
		noAddress := transferData("mt-3")
		noAddress.Customer.Address.City = ""
		_, a := mt.authorize(noAddress, bankpaytest.OutcomeAuthorize)
		mt.postForm("/transactions/"+a.TransactionID+"/capture", captureForm("c1", "1.00")).wantError(t, 400, 200)
		noCustomer := uiData("mt-4", models.PaymentTypeDeferred, "5.00")
		_, b := mt.authorize(noCustomer, bankpaytest.OutcomeAuthorize)
		mt.postForm("/transactions/"+b.TransactionID+"/capture", captureForm("c2", "1.00")).wantError(t, 400, 200)
	})
	t.Run("authorization kinds", func(t *testing.T) {
		_, canceled := mt.authorize(transferData("mt-5"), bankpaytest.OutcomeCancel)
		mt.postForm("/transactions/"+canceled.TransactionID+"/capture", captureForm("k1", "1.00")).wantError(t, 400, 200)
		mt.postForm("/transactions/100000000999999/capture", captureForm("k2", "1.00")).wantError(t, 404, 200)
		mt.postJSON("/transactions/"+id+"/capture", map[string]string{"merchantReference": "k3"}).wantError(t, 400, 200)
	})
}

// Captures have the lifecycle of deposits: Authorized when created (no
// event), Processed when the clock first moves, Completed
// CompletionBankingDays banking days later unless Denied, Reversed only from
// Completed, each change with its event; a Denied or Reversed capture no
// longer counts against the authorization's amount.
func TestCaptureLifecycle(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{})) // Friday 10:00
	c := newAPI(t, srv, srv.Credentials())
	_, auth := c.authorize(transferData("cl-auth"), bankpaytest.OutcomeAuthorize) // 500.00
	capture := func(ref, amount string) string {
		t.Helper()
		var env wire.TransactionEnvelope
		c.postForm("/transactions/"+auth.TransactionID+"/capture", captureForm(ref, amount)).wantOK(t, &env)
		return env.Transaction.TransactionID
	}
	a := capture("cl-a", "200.00") // Processed -> Completed -> Reversed
	b := capture("cl-b", "100.00") // Denied while Authorized
	d := capture("cl-d", "150.00") // Denied while Processed
	evs := srv.EventsFor(a)
	require.Empty(t, evs, "a new capture emitted %v", eventTypes(evs))
	err := srv.Deny(b)
	require.NoError(t, err, "deny an Authorized capture: %v", err)

	srv.Advance(time.Millisecond)
	for _, id := range []string{a, d} {
		got := c.txn(id)
		require.Equal(t, models.StatusProcessed, got.Status, "capture %s after the clock moved: %v processedAt %v", id, got.Status, got.ProcessedAt)
		require.True(t, got.ProcessedAt.Time() == friday, "capture %s after the clock moved: %v processedAt %v", id, got.Status, got.ProcessedAt)
		require.Equal(t, models.TypeCapture, got.TransactionType, "capture %s after the clock moved: %v processedAt %v", id, got.Status, got.ProcessedAt)
	}
	var denied wire.TransactionEnvelope
	c.control(http.MethodPost, "/transactions/"+d+"/deny", nil).wantOK(t, &denied) // the control endpoint too
	require.Equal(t, models.StatusDenied, denied.Transaction.Status, "control deny: %v", denied.Transaction.Status)

	wednesday := friday.AddDate(0, 0, 5) // Friday + 3 banking days
	srv.AdvanceTo(wednesday.Add(-time.Millisecond))
	status := statusOf(t, srv, a)
	require.Equal(t, models.StatusProcessed, status, "before 3 banking days: %v", status)
	srv.Advance(time.Millisecond)
	got := c.txn(a)
	require.Equal(t, models.StatusCompleted, got.Status, "after 3 banking days: %v completedAt %v", got.Status, got.CompletedAt)
	require.True(t, got.CompletedAt.Time() == wednesday, "after 3 banking days: %v completedAt %v", got.Status, got.CompletedAt)
	srv.AdvanceBankingDays(10)
	for _, id := range []string{b, d} {
		status := statusOf(t, srv, id)
		require.Equal(t, models.StatusDenied, status, "Denied capture %s became %v", id, status)
	}
	err = srv.Deny(a)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "deny a Completed capture: %v", err)
	err = srv.Reverse(d)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "reverse a Denied capture: %v", err)
	err = srv.Reverse(a)
	require.NoError(t, err, "reverse a Completed capture: %v", err)
	status = statusOf(t, srv, a)
	require.Equal(t, models.StatusReversed, status, "reversed capture is %v", status)

	for id, want := range map[string]string{a: "Process,Complete,Reverse", b: "Deny", d: "Process,Deny"} {
		evs := srv.EventsFor(id)
		got := joined(eventTypes(evs))
		require.Equal(t, want, got, "events of %s: %s, want %s", id, got, want)
		for _, e := range evs {
			require.Equal(t, "3", e.Raw.Get("transactionType"), "event fields %v", e.Raw)
			require.Equal(t, auth.TransactionID, e.Raw.Get("parentObjectId"), "event fields %v", e.Raw)
			require.Equal(t, "2", e.Raw.Get("paymentType"), "event fields %v", e.Raw)
		}
	}
	evs = srv.EventsFor(a)
	require.Equal(t, "4", evs[1].Raw.Get("status"), "Complete event %v at %v", evs[1].Raw, evs[1].CreatedAt)
	require.True(t, evs[1].CreatedAt.Equal(wednesday), "Complete event %v at %v", evs[1].Raw, evs[1].CreatedAt)
	// Nothing counts any more: the whole 500.00 can be captured again.
	capture("cl-e", "500.00")
}

// TestCaptureWithoutSplitToken plays the OpenAPI's capture: the splitToken
// is optional at the API level, and an account using guaranteed payments
// gets a Failed event for a capture without it.
func TestCaptureWithoutSplitToken(t *testing.T) {
	plainM := bankpaytest.Merchant{NoMoneyTransfer: true}
	guaranteedM := bankpaytest.Merchant{NoMoneyTransfer: true, GuaranteedPayments: true}
	srv := newServer(t, bankpaytest.WithDefaultMerchant(plainM), bankpaytest.WithMerchant(guaranteedM))
	ms := srv.Merchants()
	plain, guaranteed := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)

	t.Run("a plain charge", func(t *testing.T) {
		auth, _ := plain.payAuthorization("ns-plain", "30.00")
		path := "/transactions/" + auth.TransactionID + "/capture"
		c := plain.mustTxn(plain.postForm(path, url.Values{"merchantReference": {"ns-plain-1"}, "amount": {"30.00"}}))
		assert.Equal(t, models.TypeCapture, c.TransactionType)
		assert.Equal(t, models.StatusAuthorized, c.Status)
		// Money transfer fields from a merchant not configured for it.
		plain.postForm(path, captureForm("ns-plain-2", "1.00")).wantError(t, http.StatusBadRequest, 200)
		completed(srv)
		assert.Equal(t, models.StatusCompleted, plain.txn(c.TransactionID).Status)
		assert.Equal(t, []string{"Process", "Complete"}, eventTypes(srv.EventsFor(c.TransactionID)))
	})
	t.Run("guaranteed payments", func(t *testing.T) {
		auth, tok := guaranteed.payAuthorization("ns-g", "30.00")
		path := "/transactions/" + auth.TransactionID + "/capture"
		c := guaranteed.mustTxn(guaranteed.postForm(path, url.Values{"merchantReference": {"ns-g-1"}, "amount": {"30.00"}}))
		assert.Equal(t, models.StatusAuthorized, c.Status, "accepted at the API level")
		srv.Advance(time.Millisecond) // submitted: it fails instead
		got := guaranteed.txn(c.TransactionID)
		assert.Equal(t, models.StatusFailed, got.Status)
		evs := srv.EventsFor(c.TransactionID)
		require.Equal(t, []string{"Failed"}, eventTypes(evs))
		assert.Equal(t, "SW051", evs[0].Raw.Get("paymentProviderTransaction.status"))
		// The failed capture no longer counts: the whole amount can be
		// captured again, with the token, and is processed.
		ok := guaranteed.mustTxn(guaranteed.payCapture(auth.TransactionID, tok, "ns-g-2", "30.00"))
		completed(srv)
		assert.Equal(t, models.StatusCompleted, guaranteed.txn(ok.TransactionID).Status)
	})
}

// TestCaptureAmount: at least 0.99, as the OpenAPI says; without an amount
// the rest of the authorization is captured.
func TestCaptureAmount(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NoMoneyTransfer: true}))
	c := newAPI(t, srv, srv.Credentials())
	auth, tok := c.payAuthorization("amt", "30.00")
	c.payCapture(auth.TransactionID, tok, "amt-1", "0.98").wantError(t, http.StatusBadRequest, 200)
	first := c.mustTxn(c.payCapture(auth.TransactionID, tok, "amt-2", "0.99"))
	assert.Equal(t, models.Amount("0.99"), first.Amount)
	path := "/transactions/" + auth.TransactionID + "/capture"
	rest := c.mustTxn(c.postForm(path, url.Values{"merchantReference": {"amt-3"}, "splitToken": {tok}}))
	assert.Equal(t, models.Amount("29.01"), rest.Amount, "the rest of the authorization")
	c.postForm(path, url.Values{"merchantReference": {"amt-4"}, "splitToken": {tok}}).wantError(t, http.StatusBadRequest, 200)
}
