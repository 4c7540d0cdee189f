package bankpaytest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NotEmpty(t, u.Name, "user before verification %+v", u)
	require.Len(t, u.Address, 1, "user before verification %+v", u)
	require.Len(t, u.Email, 1, "user before verification %+v", u)
	require.NotEmpty(t, u.DateOfBirth, "user before verification %+v", u)
	require.False(t, u.Eligible, "user before verification %+v", u)
	det := identityDetail(t, c, id)
	require.Len(t, det.Verification, 1, "detail after one provider %+v", det)
	require.Len(t, det.Attribute, 4, "detail after one provider %+v", det)

	srv.Advance(time.Minute)
	flush(t, srv)
	evs := srv.EventsFor(id)
	types := joined(eventTypes(evs))
	require.Equal(t, "Authorize,IdentityVerificationDataRetrieved,IdentityVerificationDataRetrieved,IdentityVerificationDataRetrieved,CustomerIdentityVerified", types, "events %s", types)
	providers := map[string]bool{}
	for _, e := range evs[1:4] {
		f := e.Raw
		require.Equal(t, "performKycVerification", f.Get("message"), "data-retrieved fields %v", f)
		require.Equal(t, "SUCCESS", f.Get("Provider Report Status"), "data-retrieved fields %v", f)
		require.NotEmpty(t, f.Get("Provider Service Name"), "data-retrieved fields %v", f)
		require.Equal(t, "2", f.Get("paymentType"), "data-retrieved fields %v", f)
		require.Equal(t, "1", f.Get("transactionType"), "data-retrieved fields %v", f)
		require.Equal(t, id, f.Get("objectId"), "data-retrieved fields %v", f)
		require.Equal(t, "Transaction", f.Get("objectType"), "data-retrieved fields %v", f)
		require.Equal(t, "kyc-1", f.Get("merchantReference"), "data-retrieved fields %v", f)
		providers[f.Get("Provider used for validation")] = true
	}
	require.Len(t, providers, 3, "providers %v", providers)
	f := evs[4].Raw
	require.Equal(t, "FINISHED", f.Get("Identity Verified"), "verified fields %v", f)
	require.Equal(t, "FINISHED", f.Get("KYC Result"), "verified fields %v", f)
	// Keys with spaces are delivered form-encoded and signed.
	got := rcv.received()
	require.Len(t, got, 5, "%d notifications", len(got))
	v := checkNotification(t, got[4], c.creds)
	require.Equal(t, "FINISHED", v.Get("KYC Result"), "delivered %v", v)

	u = identityUser(t, c, id)
	require.True(t, u.Eligible, "user after verification %+v", u)
	require.NotNil(t, u.DriverLicense, "user after verification %+v", u)
	require.NotEmpty(t, u.TaxID, "user after verification %+v", u)
	det = identityDetail(t, c, id)
	require.Len(t, det.Verification, 3, "verification %+v", det.Verification)
	for _, a := range det.Attribute {
		require.True(t, a.Verified, "attribute %+v", a)
		require.Len(t, a.Verification, 3, "attribute %+v", a)
		require.Equal(t, "bank", a.Source, "attribute %+v", a)
	}
	// The same user every time.
	again := identityUser(t, c, id)
	require.Equal(t, u.Name, again.Name, "identity user changed")
	require.Equal(t, u.DateOfBirth, again.DateOfBirth, "identity user changed")
}

// The identity detail's results carry the OpenAPI's meanings (the spec
// leaves them unshown): verification and attribute result 3 approved or
// matched, 1 rejected or not matched; with expand=verification each
// verification has a reason whose code is a string of the OpenAPI's
// UserVerificationErrorCode enum ("-1" no error).
func TestIdentityDetailCodesAsOpenAPI(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, yes := c.authorize(kycData("codes-yes"), bankpaytest.OutcomeEligible)
	_, no := c.authorize(kycData("codes-no"), bankpaytest.OutcomeNotEligible)
	srv.Advance(time.Minute)

	type reason struct {
		Code   any    `json:"code"`
		Reason string `json:"reason"`
	}
	var raw struct {
		Detail struct {
			Verification []struct {
				Result  any      `json:"result"`
				Reasons []reason `json:"reasons"`
			} `json:"verification"`
			Attribute []struct {
				Name         string `json:"name"`
				Verification []struct {
					Result any `json:"result"`
				} `json:"verification"`
			} `json:"attribute"`
		} `json:"detail"`
	}
	for _, tc := range []struct {
		id           string
		result, code string
		failingAttrs []string
	}{
		{yes.TransactionID, "3", "-1", nil},
		{no.TransactionID, "1", "3", []string{"name", "address"}},
	} {
		c.get("/transactions/"+tc.id+"/user/detail?expand=verification").wantOK(t, &raw)
		require.NotEmpty(t, raw.Detail.Verification, "detail of %s", tc.id)
		for _, v := range raw.Detail.Verification {
			assert.Equal(t, tc.result, fmtNumber(v.Result), "verification result of %s", tc.id)
			require.Len(t, v.Reasons, 1, "reasons of %s", tc.id)
			assert.Equal(t, tc.code, v.Reasons[0].Code, "reason code of %s (a string of the enum)", tc.id)
			assert.NotEmpty(t, v.Reasons[0].Reason, "reason text of %s", tc.id)
		}
		require.NotEmpty(t, raw.Detail.Attribute, "detail of %s", tc.id)
		for _, a := range raw.Detail.Attribute {
			want := "3"
			if slices.Contains(tc.failingAttrs, a.Name) {
				want = "1"
			}
			require.NotEmpty(t, a.Verification, "attribute %s of %s", a.Name, tc.id)
			for _, av := range a.Verification {
				assert.Equal(t, want, fmtNumber(av.Result), "attribute %s result of %s", a.Name, tc.id)
			}
		}
	}
	assert.Equal(t, 3, bankpaytest.ResultVerified)
	assert.Equal(t, 1, bankpaytest.ResultNotVerified)
}

// fmtNumber writes a JSON number decoded into any (a float64) as an
// integer, and anything else with %v prefixed by its type, so that a
// string "3" never equals a number 3.
func fmtNumber(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func TestIdentityOutcomes(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, excess := c.authorize(kycData("kyc-excess"), bankpaytest.OutcomeExcessData)
	_, notEligible := c.authorize(kycData("kyc-no"), bankpaytest.OutcomeNotEligible)
	_, eligible := c.authorize(kycData("kyc-yes"), bankpaytest.OutcomeEligible)
	srv.Advance(time.Minute)

	require.True(t, identityUser(t, c, eligible.TransactionID).Eligible, "eligible outcome not eligible")
	require.True(t, identityUser(t, c, excess.TransactionID).Eligible, "excess-data outcome not eligible")
	userSourced := 0
	for _, a := range identityDetail(t, c, excess.TransactionID).Attribute {
		if a.Source == "user" {
			userSourced++
		}
	}
	require.NotEqual(t, 0, userSourced, "excess-data: no attribute entered by the user")
	require.False(t, identityUser(t, c, notEligible.TransactionID).Eligible, "not-eligible outcome eligible")
	failed := 0
	for _, a := range identityDetail(t, c, notEligible.TransactionID).Attribute {
		if !a.Verified {
			failed++
		}
	}
	require.NotEqual(t, 0, failed, "not-eligible: every attribute verified")
	// Verification finishes whatever the outcome.
	evs := srv.EventsFor(notEligible.TransactionID)
	require.Equal(t, models.EventCustomerIdentityVerified, evs[len(evs)-1].EventType, "events %v", eventTypes(evs))
}

func TestIdentityNotRequested(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, txn := c.authorize(uiData("plain", models.PaymentTypeDeferred, "1.00"), bankpaytest.OutcomeAuthorize)
	srv.Advance(time.Hour)
	c.get("/transactions/"+txn.TransactionID+"/user").wantError(t, 400, 200)
	c.get("/transactions/"+txn.TransactionID+"/user/detail").wantError(t, 400, 200)
	c.postJSON("/transactions/"+txn.TransactionID+"/feedback", wire.FeedbackEnvelope{Feedback: &wire.Feedback{Status: 4, SubStatus: 559}}).wantError(t, 400, 200)
	n := len(srv.EventsFor(txn.TransactionID))
	require.Equal(t, 1, n, "%d events for an authorization without kycType", n)
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
		"4 with 558":    {Status: 4, SubStatus: 558},
		"13 with 559":   {Status: 13, SubStatus: 559},
		"unknown codes": {Status: 1, SubStatus: 1},
	} {
		t.Run(name, func(t *testing.T) { send(reg.TransactionID, f).wantError(t, 400, 200) })
	}

	// The answer is the authorization, a bare Transaction as the OpenAPI
	// types it (the spec does not show one).
	var answer struct {
		TransactionID   string `json:"transactionId"`
		TransactionType string `json:"transactionType"`
		Status          string `json:"status"`
		Balance         string `json:"balance"`
	}
	send(reg.TransactionID, &wire.Feedback{Status: 4, SubStatus: 559, Description: "registered"}).wantOK(t, &answer)
	require.Equal(t, reg.TransactionID, answer.TransactionID, "answer %+v", answer)
	require.Equal(t, "1", answer.TransactionType, "answer %+v", answer)
	require.Equal(t, "2", answer.Status, "answer %+v", answer)
	require.Equal(t, "0.00", answer.Balance, "answer %+v", answer)
	fb := srv.Feedback(reg.TransactionID)
	require.Len(t, fb, 1, "recorded %+v", fb)
	require.Equal(t, 559, fb[0].SubStatus, "recorded %+v", fb)
	// Registered keeps the authorization valid for other APIs.
	c.mustDeposit(reg.TransactionID, "after-reg", "1.00")

	send(void.TransactionID, &wire.Feedback{Status: 13, SubStatus: 558, Description: "registration failed"}).wantOK(t, nil)
	fb = srv.Feedback(void.TransactionID)
	require.Len(t, fb, 1, "recorded %+v", fb)
	require.Equal(t, 13, fb[0].Status, "recorded %+v", fb)
	got := c.txn(void.TransactionID)
	require.Equal(t, models.StatusVoided, got.Status, "after Void: %v", got.Status)
	c.deposit(void.TransactionID, map[string][]string{"merchantReference": {"after-void"}, "amount": {"1.00"}}).wantError(t, 400, 200)
	send(void.TransactionID, &wire.Feedback{Status: 4, SubStatus: 559}).wantError(t, 400, 200)
	fb = srv.Feedback("100000000999999")
	require.Nil(t, fb, "feedback of unknown transaction %+v", fb)
}

// The sandbox reads feedback as the operator documents it: wrapped (the
// spec), or flat (the OpenAPI) where each missing field takes the
// OpenAPI's default (4, 559, "Registered"), so that a flat body saying
// nothing registers; flat fields beside a wrapper must agree with it. The
// SDK's body (both shapes) voids in either reading.
func TestIdentityFeedbackShapes(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := func(ref string) string {
		_, txn := c.authorize(kycData(ref), bankpaytest.OutcomeAuthorize)
		return txn.TransactionID
	}
	ids := map[string]string{}
	for _, ref := range []string{"flat-void", "flat-empty", "null-wrapper", "sdk-void", "wrapped-void", "disagree", "flat-half"} {
		ids[ref] = auth("fbs-" + ref)
	}
	srv.Advance(time.Minute)
	post := func(id, body string) response {
		return c.postJSON("/transactions/"+id+"/feedback", json.RawMessage(body))
	}
	post(ids["flat-void"], `{"status":13,"subStatus":558,"description":"bad user"}`).wantOK(t, nil)
	post(ids["wrapped-void"], `{"feedback":{"status":13,"subStatus":558,"description":"bad user"}}`).wantOK(t, nil)
	post(ids["sdk-void"], `{"feedback":{"status":13,"subStatus":558,"description":"bad user"},"status":13,"subStatus":558,"description":"bad user"}`).wantOK(t, nil)
	for _, ref := range []string{"flat-void", "wrapped-void", "sdk-void"} {
		assert.Equal(t, models.StatusVoided, c.txn(ids[ref]).Status, ref)
		assert.Equal(t, []bankpaytest.Feedback{{Status: 13, SubStatus: 558, Description: "bad user"}}, srv.Feedback(ids[ref]), ref)
	}
	// The OpenAPI's defaults: a flat body that says nothing registers.
	post(ids["flat-empty"], `{}`).wantOK(t, nil)
	post(ids["null-wrapper"], `{"feedback":null}`).wantOK(t, nil)
	for _, ref := range []string{"flat-empty", "null-wrapper"} {
		assert.Equal(t, models.StatusAuthorized, c.txn(ids[ref]).Status, ref)
		assert.Equal(t, []bankpaytest.Feedback{{Status: 4, SubStatus: 559, Description: "Registered"}}, srv.Feedback(ids[ref]), ref)
	}
	// status 13 alone takes subStatus 559: not a documented pair.
	post(ids["flat-half"], `{"status":13}`).wantError(t, 400, 200)
	post(ids["disagree"], `{"feedback":{"status":13,"subStatus":558},"status":4,"subStatus":559}`).wantError(t, 400, 200)
	assert.Empty(t, srv.Feedback(ids["disagree"]))
	assert.Equal(t, models.StatusAuthorized, c.txn(ids["disagree"]).Status)
}
