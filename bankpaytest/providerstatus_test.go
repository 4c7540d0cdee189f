package bankpaytest_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// wantProvider checks the provider status of transaction id in the GET
// response and in the last event the sandbox emitted for it.
func wantProvider(t *testing.T, srv *bankpaytest.Server, c *api, id string, typ models.EventType, code models.ProviderStatus) {
	t.Helper()
	got := c.txn(id)
	require.NotNil(t, got.PaymentProviderTransaction, "GET %s", id)
	assert.Equal(t, code, got.PaymentProviderTransaction.Status, "GET %s status", id)
	assert.Equal(t, code.Meaning(), got.PaymentProviderTransaction.StatusMessage, "GET %s statusMessage", id)
	evs := srv.EventsFor(id)
	require.NotEmpty(t, evs, "events of %s", id)
	ev := evs[len(evs)-1]
	assert.Equal(t, typ, ev.EventType)
	assert.Equal(t, string(code), ev.Raw.Get("paymentProviderTransaction.status"), "%s event", typ)
	assert.Equal(t, code.Meaning(), ev.Raw.Get("paymentProviderTransaction.statusMessage"), "%s event", typ)
}

func TestProviderStatusAuthorization(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())

	redirect, txn := c.authorize(uiData("ps-auth", models.PaymentTypeDeferred, "50.00"), bankpaytest.OutcomeAuthorize)
	assert.Equal(t, models.ProviderStatus("SW020"), txn.PaymentProviderTransaction.Status)
	wantProvider(t, srv, c, txn.TransactionID, models.EventAuthorize, "SW020")
	signed, _, _ := splitRedirect(t, redirect)
	u, err := url.Parse(signed)
	require.NoError(t, err)
	assert.Equal(t, "SW020", u.Query().Get("payment.paymentProviderTransaction.status"))

	redirect, txn = c.authorize(uiData("ps-cancel", models.PaymentTypeDeferred, "50.00"), bankpaytest.OutcomeCancel)
	assert.Equal(t, models.ProviderStatus("UC01"), txn.PaymentProviderTransaction.Status)
	wantProvider(t, srv, c, txn.TransactionID, models.EventCancel, "UC01")
	signed, _, _ = splitRedirect(t, redirect)
	u, err = url.Parse(signed)
	require.NoError(t, err)
	assert.Equal(t, "UC01", u.Query().Get("payment.paymentProviderTransaction.status"))

	// Identity verification leaves the authorization's code as it was.
	d := uiData("ps-kyc", models.PaymentTypeDeferred, "50.00")
	d.KYCType = models.KYCTypeIdentity
	_, txn = c.authorize(d, bankpaytest.OutcomeEligible)
	srv.Advance(bankpaytest.IdentityStep * 5)
	assert.Equal(t, models.ProviderStatus("SW020"), c.txn(txn.TransactionID).PaymentProviderTransaction.Status)
	for _, ev := range srv.EventsFor(txn.TransactionID)[1:] {
		assert.False(t, ev.Raw.Has("paymentProviderTransaction.status"), "identity event %s", ev.EventType)
	}
	// Feedback Void: the authorization is Voided, SW013.
	c.postJSON("/transactions/"+txn.TransactionID+"/feedback", wire.FeedbackEnvelope{Feedback: &wire.Feedback{Status: 13, SubStatus: 558}}).wantOK(t, nil)
	voided := c.txn(txn.TransactionID)
	assert.Equal(t, models.StatusVoided, voided.Status)
	assert.Equal(t, models.ProviderStatus("SW013"), voided.PaymentProviderTransaction.Status)

	// A Disbursement made by POST /establish is established, not authorized by a user.
	auth := c.establish("ps-disb", "10.00")
	wantProvider(t, srv, c, auth.TransactionID, models.EventAuthorize, "SW010")
}

func TestProviderStatusDeposit(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("ps-dep", "0.00")

	// Authorized: no event, AC100 in the response.
	ach := c.mustDeposit(auth.TransactionID, "ach", "10.00")
	assert.Equal(t, models.ProviderStatus("AC100"), ach.PaymentProviderTransaction.Status)
	deny := c.mustDeposit(auth.TransactionID, "deny", "10.00")
	require.NoError(t, srv.Deny(deny.TransactionID))
	wantProvider(t, srv, c, deny.TransactionID, models.EventDeny, "AC101")

	var rtp wire.TransactionEnvelope
	c.deposit(auth.TransactionID, url.Values{"merchantReference": {"rtp"}, "amount": {"1.00"}, "instantPayoutRequest": {"true"}}).wantOK(t, &rtp)
	assert.Equal(t, models.ProviderStatus("AC100"), rtp.Transaction.PaymentProviderTransaction.Status)

	srv.Advance(1)
	wantProvider(t, srv, c, ach.TransactionID, models.EventProcess, "AC105")
	wantProvider(t, srv, c, rtp.Transaction.TransactionID, models.EventComplete, "AC118")

	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	wantProvider(t, srv, c, ach.TransactionID, models.EventComplete, "AC106")
	require.NoError(t, srv.Reverse(ach.TransactionID))
	wantProvider(t, srv, c, ach.TransactionID, models.EventReverse, "AC115")
}

func TestProviderStatusCapture(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	mt := newAPI(t, srv, srv.Merchants()[1].Credentials)
	_, auth := mt.authorize(transferData("ps-mt"), bankpaytest.OutcomeAuthorize)
	var env wire.TransactionEnvelope
	mt.postForm("/transactions/"+auth.TransactionID+"/capture", captureForm("ps-cap", "20.00")).wantOK(t, &env)
	id := env.Transaction.TransactionID
	assert.Equal(t, models.ProviderStatus("AC100"), env.Transaction.PaymentProviderTransaction.Status)
	srv.Advance(1)
	wantProvider(t, srv, mt, id, models.EventProcess, "AC105")
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	wantProvider(t, srv, mt, id, models.EventComplete, "AC106")
}

// TestRedirectInstantPayoutTrailer: the unsigned instantPayoutAvailable=true
// follows the signature exactly when instant payout is available.
func TestRedirectInstantPayoutTrailer(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{NoInstantPayout: true}))
	ms := srv.Merchants()
	for _, tc := range []struct {
		name    string
		creds   bankpay.Credentials
		outcome bankpaytest.Outcome
		want    string
	}{
		{"available, authorized", ms[0].Credentials, bankpaytest.OutcomeAuthorize, "instantPayoutAvailable=true"},
		{"available, canceled", ms[0].Credentials, bankpaytest.OutcomeCancel, "instantPayoutAvailable=true"},
		{"not available, authorized", ms[1].Credentials, bankpaytest.OutcomeAuthorize, ""},
		{"not available, canceled", ms[1].Credentials, bankpaytest.OutcomeCancel, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newAPI(t, srv, tc.creds)
			redirect, txn := c.authorize(uiData("tr-"+tc.name, models.PaymentTypeDeferred, "5.00"), tc.outcome)
			signed, sig, unsigned := splitRedirect(t, redirect)
			assert.Equal(t, hmacSHA1(c.creds.AccessKey.Reveal(), signed), sig)
			assert.Equal(t, tc.want, unsigned)
			u, err := url.Parse(signed)
			require.NoError(t, err)
			assert.Equal(t, tc.want != "", txn.Payment.PaymentProvider.InstantPayoutAvailable)
			assert.Equal(t, boolText(tc.want != ""), u.Query().Get("payment.paymentProvider.instantPayoutAvailable"))
		})
	}
	c := newAPI(t, srv, ms[1].Credentials)
	_, auth := c.authorize(uiData("tr-dep", models.PaymentTypeDeferred, "5.00"), bankpaytest.OutcomeAuthorize)
	c.deposit(auth.TransactionID, url.Values{"merchantReference": {"rtp"}, "amount": {"1.00"}, "instantPayoutRequest": {"true"}}).wantError(t, 400, 200)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
