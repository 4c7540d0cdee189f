package bankpaytest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

func kycData(ref string) models.EstablishData {
	d := uiData(ref, models.PaymentTypeDeferred, "10.00")
	d.KYCType = models.KYCTypeIdentity
	return d
}

func identityUser(t *testing.T, c *api, id string) *models.IdentityUser {
	t.Helper()
	var env wire.IdentityUserEnvelope
	c.get("/transactions/"+id+"/user").wantOK(t, &env)
	return env.User
}

func identityDetail(t *testing.T, c *api, id string) *models.VerificationDetail {
	t.Helper()
	var env wire.VerificationDetailEnvelope
	c.get("/transactions/"+id+"/user/detail").wantOK(t, &env)
	return env.Detail
}

func TestIdentityFlow(t *testing.T) {
	rcv := newReceiver(t, always(http.StatusOK))
	srv := newServer(t, bankpaytest.WithIdentityProviders(3))
	c := newAPI(t, srv, srv.Credentials())
	d := kycData("kyc-1")
	d.NotificationURL = rcv.srv.URL
	_, txn := c.authorize(d, bankpaytest.OutcomeAuthorize)
	id := txn.TransactionID

	// 400 before the data-retrieved event.
	c.get("/transactions/"+id+"/user").wantError(t, 400, 200)
	c.get("/transactions/"+id+"/user/detail").wantError(t, 400, 200)
	c.postJSON("/transactions/"+id+"/feedback", wire.FeedbackEnvelope{Feedback: &wire.Feedback{Status: 4, SubStatus: 559}}).wantError(t, 400, 200)

	// The first provider's data.
	srv.Advance(bankpaytest.IdentityStep)
	u := identityUser(t, c, id)
	if u.Name == "" || len(u.Address) != 1 || len(u.Email) != 1 || u.DateOfBirth == "" || u.Eligible {
		t.Fatalf("user before verification %+v", u)
	}
	if det := identityDetail(t, c, id); len(det.Verification) != 1 || len(det.Attribute) != 4 {
		t.Fatalf("detail after one provider %+v", det)
	}

	srv.Advance(time.Minute)
	flush(t, srv)
	evs := srv.EventsFor(id)
	if got := joined(eventTypes(evs)); got != "Authorize,IdentityVerificationDataRetrieved,IdentityVerificationDataRetrieved,IdentityVerificationDataRetrieved,CustomerIdentityVerified" {
		t.Fatalf("events %s", got)
	}
	providers := map[string]bool{}
	for _, e := range evs[1:4] {
		f := e.Fields
		if f.Get("message") != "performKycVerification" || f.Get("Provider Report Status") != "SUCCESS" ||
			f.Get("Provider Service Name") == "" || f.Get("paymentType") != "2" || f.Get("transactionType") != "1" ||
			f.Get("objectId") != id || f.Get("objectType") != "Transaction" || f.Get("merchantReference") != "kyc-1" {
			t.Fatalf("data-retrieved fields %v", f)
		}
		providers[f.Get("Provider used for validation")] = true
	}
	if len(providers) != 3 {
		t.Fatalf("providers %v", providers)
	}
	if f := evs[4].Fields; f.Get("Identity Verified") != "FINISHED" || f.Get("KYC Result") != "FINISHED" {
		t.Fatalf("verified fields %v", f)
	}
	// Keys with spaces are delivered form-encoded and signed.
	got := rcv.received()
	if len(got) != 5 {
		t.Fatalf("%d notifications", len(got))
	}
	if v := checkNotification(t, got[4], c.creds); v.Get("KYC Result") != "FINISHED" {
		t.Fatalf("delivered %v", v)
	}

	u = identityUser(t, c, id)
	if !u.Eligible || u.DriverLicense == nil || u.TaxID == "" {
		t.Fatalf("user after verification %+v", u)
	}
	det := identityDetail(t, c, id)
	if len(det.Verification) != 3 {
		t.Fatalf("verification %+v", det.Verification)
	}
	for _, a := range det.Attribute {
		if !a.Verified || len(a.Verification) != 3 || a.Source != "bank" {
			t.Fatalf("attribute %+v", a)
		}
	}
	// The same user every time.
	if again := identityUser(t, c, id); again.Name != u.Name || again.DateOfBirth != u.DateOfBirth {
		t.Fatal("identity user changed")
	}
}

func TestIdentityOutcomes(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, excess := c.authorize(kycData("kyc-excess"), bankpaytest.OutcomeExcessData)
	_, notEligible := c.authorize(kycData("kyc-no"), bankpaytest.OutcomeNotEligible)
	_, eligible := c.authorize(kycData("kyc-yes"), bankpaytest.OutcomeEligible)
	srv.Advance(time.Minute)

	if !identityUser(t, c, eligible.TransactionID).Eligible {
		t.Fatal("eligible outcome not eligible")
	}
	if !identityUser(t, c, excess.TransactionID).Eligible {
		t.Fatal("excess-data outcome not eligible")
	}
	userSourced := 0
	for _, a := range identityDetail(t, c, excess.TransactionID).Attribute {
		if a.Source == "user" {
			userSourced++
		}
	}
	if userSourced == 0 {
		t.Fatal("excess-data: no attribute entered by the user")
	}
	if identityUser(t, c, notEligible.TransactionID).Eligible {
		t.Fatal("not-eligible outcome eligible")
	}
	failed := 0
	for _, a := range identityDetail(t, c, notEligible.TransactionID).Attribute {
		if !a.Verified {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("not-eligible: every attribute verified")
	}
	// Verification finishes whatever the outcome.
	if evs := srv.EventsFor(notEligible.TransactionID); evs[len(evs)-1].Type != models.EventCustomerIdentityVerified {
		t.Fatalf("events %v", eventTypes(evs))
	}
}

func TestIdentityNotRequested(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, txn := c.authorize(uiData("plain", models.PaymentTypeDeferred, "1.00"), bankpaytest.OutcomeAuthorize)
	srv.Advance(time.Hour)
	c.get("/transactions/"+txn.TransactionID+"/user").wantError(t, 400, 200)
	c.get("/transactions/"+txn.TransactionID+"/user/detail").wantError(t, 400, 200)
	c.postJSON("/transactions/"+txn.TransactionID+"/feedback", wire.FeedbackEnvelope{Feedback: &wire.Feedback{Status: 4, SubStatus: 559}}).wantError(t, 400, 200)
	if n := len(srv.EventsFor(txn.TransactionID)); n != 1 {
		t.Fatalf("%d events for an authorization without kycType", n)
	}
}

func TestIdentityFeedback(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, reg := c.authorize(kycData("fb-reg"), bankpaytest.OutcomeAuthorize)
	_, void := c.authorize(kycData("fb-void"), bankpaytest.OutcomeNotEligible)
	srv.Advance(time.Minute)

	send := func(id string, f *wire.Feedback) response {
		return c.postJSON("/transactions/"+id+"/feedback", wire.FeedbackEnvelope{Feedback: f})
	}
	for name, f := range map[string]*wire.Feedback{
		"none":          nil,
		"4 with 558":    {Status: 4, SubStatus: 558},
		"13 with 559":   {Status: 13, SubStatus: 559},
		"unknown codes": {Status: 1, SubStatus: 1},
	} {
		t.Run(name, func(t *testing.T) { send(reg.TransactionID, f).wantError(t, 400, 200) })
	}

	var echo wire.FeedbackEnvelope
	send(reg.TransactionID, &wire.Feedback{Status: 4, SubStatus: 559, Description: "registered"}).wantOK(t, &echo)
	if echo.Feedback == nil || echo.Feedback.Status != 4 || echo.Feedback.SubStatus != 559 || echo.Feedback.Description != "registered" {
		t.Fatalf("echo %+v", echo.Feedback)
	}
	if fb := srv.Feedback(reg.TransactionID); len(fb) != 1 || fb[0].SubStatus != 559 {
		t.Fatalf("recorded %+v", fb)
	}
	// Registered keeps the authorization valid for other APIs.
	c.mustDeposit(reg.TransactionID, "after-reg", "1.00")

	send(void.TransactionID, &wire.Feedback{Status: 13, SubStatus: 558, Description: "registration failed"}).wantOK(t, nil)
	if fb := srv.Feedback(void.TransactionID); len(fb) != 1 || fb[0].Status != 13 {
		t.Fatalf("recorded %+v", fb)
	}
	if got := c.txn(void.TransactionID); got.Status != models.StatusVoided {
		t.Fatalf("after Void: %v", got.Status)
	}
	c.deposit(void.TransactionID, map[string][]string{"merchantReference": {"after-void"}, "amount": {"1.00"}}).wantError(t, 400, 200)
	send(void.TransactionID, &wire.Feedback{Status: 4, SubStatus: 559}).wantError(t, 400, 200)
	if fb := srv.Feedback("100000000999999"); fb != nil {
		t.Fatalf("feedback of unknown transaction %+v", fb)
	}
}
