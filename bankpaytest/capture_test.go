package bankpaytest_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
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
	if c.TransactionType != models.TypeCapture || c.Status != models.StatusAuthorized || c.OriginalTransactionID != id ||
		c.Amount != "200.00" || c.MerchantReference != "cap-1" || len(c.TransactionID) != 15 {
		t.Fatalf("capture %+v", c)
	}
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-1", "1.00")).wantError(t, 400, 210)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-2", "300.01")).wantError(t, 400, 200)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-3", "300.00")).wantOK(t, nil)

	t.Run("merchant not configured for money transfer", func(t *testing.T) {
		_, a := plain.authorize(transferData("plain-1"), bankpaytest.OutcomeAuthorize)
		plain.postForm("/transactions/"+a.TransactionID+"/capture", captureForm("p", "1.00")).wantError(t, 400, 200)
	})
	t.Run("missing fields", func(t *testing.T) {
		_, a := mt.authorize(transferData("mt-2"), bankpaytest.OutcomeAuthorize)
		for _, field := range []string{"merchantReference", "amount", "beneficiary.name", "beneficiary.address.country"} {
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
	if evs := srv.EventsFor(a); len(evs) != 0 {
		t.Fatalf("a new capture emitted %v", eventTypes(evs))
	}
	if err := srv.Deny(b); err != nil {
		t.Fatalf("deny an Authorized capture: %v", err)
	}

	srv.Advance(time.Millisecond)
	for _, id := range []string{a, d} {
		if got := c.txn(id); got.Status != models.StatusProcessed || got.ProcessedAt.Time() != friday || got.TransactionType != models.TypeCapture {
			t.Fatalf("capture %s after the clock moved: %v processedAt %v", id, got.Status, got.ProcessedAt)
		}
	}
	var denied wire.TransactionEnvelope
	c.control(http.MethodPost, "/transactions/"+d+"/deny", nil).wantOK(t, &denied) // the control endpoint too
	if denied.Transaction.Status != models.StatusDenied {
		t.Fatalf("control deny: %v", denied.Transaction.Status)
	}

	wednesday := friday.AddDate(0, 0, 5) // Friday + 3 banking days
	srv.AdvanceTo(wednesday.Add(-time.Millisecond))
	if got := statusOf(t, srv, a); got != models.StatusProcessed {
		t.Fatalf("before 3 banking days: %v", got)
	}
	srv.Advance(time.Millisecond)
	if got := c.txn(a); got.Status != models.StatusCompleted || got.CompletedAt.Time() != wednesday {
		t.Fatalf("after 3 banking days: %v completedAt %v", got.Status, got.CompletedAt)
	}
	srv.AdvanceBankingDays(10)
	for _, id := range []string{b, d} {
		if got := statusOf(t, srv, id); got != models.StatusDenied {
			t.Fatalf("Denied capture %s became %v", id, got)
		}
	}
	if err := srv.Deny(a); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("deny a Completed capture: %v", err)
	}
	if err := srv.Reverse(d); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("reverse a Denied capture: %v", err)
	}
	if err := srv.Reverse(a); err != nil {
		t.Fatalf("reverse a Completed capture: %v", err)
	}
	if got := statusOf(t, srv, a); got != models.StatusReversed {
		t.Fatalf("reversed capture is %v", got)
	}

	for id, want := range map[string]string{a: "Process,Complete,Reverse", b: "Deny", d: "Process,Deny"} {
		evs := srv.EventsFor(id)
		if got := joined(eventTypes(evs)); got != want {
			t.Fatalf("events of %s: %s, want %s", id, got, want)
		}
		for _, e := range evs {
			if e.Fields.Get("transactionType") != "3" || e.Fields.Get("parentObjectId") != auth.TransactionID || e.Fields.Get("paymentType") != "2" {
				t.Fatalf("event fields %v", e.Fields)
			}
		}
	}
	if got := srv.EventsFor(a); got[1].Fields.Get("status") != "4" || !got[1].CreatedAt.Equal(wednesday) {
		t.Fatalf("Complete event %v at %v", got[1].Fields, got[1].CreatedAt)
	}
	// Nothing counts any more: the whole 500.00 can be captured again.
	capture("cl-e", "500.00")
}
