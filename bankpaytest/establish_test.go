package bankpaytest_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEstablishDisbursement(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	got := c.establish("order-1", "25.00")

	require.Len(t, got.TransactionID, 15, "transactionId %q is not 15 digits", got.TransactionID)
	require.Empty(t, strings.Trim(got.TransactionID, "0123456789"), "transactionId %q is not 15 digits", got.TransactionID)
	// The spec: "The abbreviated Disbursement establish response shows
	// status 0 with message Authorized"; the record is Authorized (2).
	require.Equal(t, models.TypeAuthorize, got.TransactionType, "establish response type/status %v %v %q, want Authorize, 0, Authorized", got.TransactionType, got.Status, got.StatusMessage)
	require.Equal(t, models.StatusNew, got.Status, "establish response type/status %v %v %q, want Authorize, 0, Authorized", got.TransactionType, got.Status, got.StatusMessage)
	require.Equal(t, "Authorized", got.StatusMessage, "establish response type/status %v %v %q, want Authorize, 0, Authorized", got.TransactionType, got.Status, got.StatusMessage)
	raw := c.postJSON("/establish?createTransaction=true", c.sign(disbursementData("order-raw", "1.00")))
	require.Contains(t, string(raw.body), `"status":0,`, "the response does not show status 0: %s", raw.body)
	p := got.Payment
	require.NotNil(t, p, "payment %+v", p)
	require.Equal(t, models.PaymentTypeDisbursement, p.PaymentType, "payment %+v", p)
	require.Equal(t, c.creds.MerchantID, p.MerchantID, "payment %+v", p)
	require.NotNil(t, p.Account, "payment %+v", p)
	require.Equal(t, "0010", p.Account.AccountNumber, "payment %+v", p)
	require.True(t, p.Account.Verified, "payment %+v", p)
	require.NotNil(t, p.PaymentProvider, "payment %+v", p)
	require.Equal(t, 1, p.PaymentProvider.Type, "payment %+v", p)
	require.NotEmpty(t, p.PaymentProvider.PaymentProviderID, "payment %+v", p)
	ppt := got.PaymentProviderTransaction
	require.NotNil(t, ppt, "provider transaction %+v", got.PaymentProviderTransaction)
	require.Equal(t, models.ProviderStatus("SW010"), ppt.Status, "provider transaction %+v", got.PaymentProviderTransaction)
	require.Equal(t, "established", ppt.StatusMessage, "provider transaction %+v", got.PaymentProviderTransaction)
	require.Equal(t, models.Amount("25.00"), got.Amount, "transaction %+v", got)
	require.Equal(t, models.USD, got.Currency, "transaction %+v", got)
	require.Equal(t, "order-1", got.MerchantReference, "transaction %+v", got)
	require.Equal(t, friday, got.CreatedAt.Time(), "transaction %+v", got)
	// The raw response never carries the full account number.
	a := c.get("/transactions/" + got.TransactionID)
	require.NotContains(t, string(a.body), bankpaytest.AccountVerified, "full account number in %s", a.body)
	again := c.txn(got.TransactionID)
	require.Equal(t, got.TransactionID, again.TransactionID, "get %+v", again)
	require.Equal(t, "0010", again.Payment.Account.AccountNumber, "get %+v", again)
	require.Equal(t, models.StatusAuthorized, again.Status, "get %+v", again)
	require.Equal(t, "Authorized", again.StatusMessage, "get %+v", again)
	st, ok := srv.Transaction(got.TransactionID)
	require.True(t, ok, "srv.Transaction %+v %v", st, ok)
	require.Equal(t, models.StatusAuthorized, st.Status, "srv.Transaction %+v %v", st, ok)
	// An unverified sandbox account authorizes too, unverified.
	d := disbursementData("order-2", "0.00")
	d.Account.AccountNumber = bankpaytest.AccountUnverified
	var env wire.TransactionEnvelope
	c.postJSON("/establish?createTransaction=true", c.sign(d)).wantOK(t, &env)
	require.False(t, env.Transaction.Payment.Account.Verified, "unverified account: %+v", env.Transaction.Payment.Account)
	require.Equal(t, models.Amount("0.00"), env.Transaction.Amount, "unverified account: %+v", env.Transaction.Payment.Account)
}

func TestEstablishInvalid(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	mod := func(f func(*models.EstablishData)) models.EstablishData {
		d := disbursementData("bad", "10.00")
		f(&d)
		return d
	}
	cases := map[string]struct {
		d            models.EstablishData
		status, code int
	}{
		"no reference":        {mod(func(d *models.EstablishData) { d.MerchantReference = "" }), 400, 200},
		"EUR":                 {mod(func(d *models.EstablishData) { d.Currency = "EUR" }), 400, 200},
		"no currency":         {mod(func(d *models.EstablishData) { d.Currency = "" }), 400, 200},
		"amount one place":    {mod(func(d *models.EstablishData) { d.Amount = "10.5" }), 400, 200},
		"amount negative":     {mod(func(d *models.EstablishData) { d.Amount = "-1.00" }), 400, 200},
		"no amount":           {mod(func(d *models.EstablishData) { d.Amount = "" }), 400, 200},
		"Deferred":            {mod(func(d *models.EstablishData) { d.PaymentType = models.PaymentTypeDeferred }), 400, 200},
		"no payment type":     {mod(func(d *models.EstablishData) { d.PaymentType = 0 }), 400, 200},
		"no account":          {mod(func(d *models.EstablishData) { d.Account = nil }), 400, 200},
		"no routing":          {mod(func(d *models.EstablishData) { d.Account.RoutingNumber = "" }), 400, 200},
		"other routing":       {mod(func(d *models.EstablishData) { d.Account.RoutingNumber = "021000021" }), 400, 200},
		"letters":             {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "12ab" }), 400, 200},
		"unknown account":     {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "123456789" }), 400, 330},
		"trigger 200":         {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "1002000000" }), 400, 200},
		"trigger 300":         {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "1003000000" }), 401, 300},
		"trigger 325":         {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "1003250000" }), 401, 325},
		"trigger 375":         {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "1003750000" }), 401, 375},
		"trigger 100":         {mod(func(d *models.EstablishData) { d.Account.AccountNumber = "1001000000" }), 500, 100},
		"bad notificationUrl": {mod(func(d *models.EstablishData) { d.NotificationURL = "ftp://x" }), 400, 200},
		"kycType 2":           {mod(func(d *models.EstablishData) { d.KYCType = 2 }), 400, 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c.postJSON("/establish?createTransaction=true", c.sign(tc.d)).wantError(t, tc.status, tc.code)
		})
	}
	t.Run("no createTransaction", func(t *testing.T) {
		c.postJSON("/establish", c.sign(disbursementData("q", "1.00"))).wantError(t, 400, 200)
		c.postJSON("/establish?createTransaction=false", c.sign(disbursementData("q", "1.00"))).wantError(t, 400, 200)
	})
	t.Run("unknown payment type name", func(t *testing.T) {
		body := `{"paymentType":"Teleport","merchantId":"` + c.creds.MerchantID + `"}`
		send(t, &c.creds, "POST", srv.URL+"/establish?createTransaction=true", "application/json", []byte(body)).wantBare(t)
	})
	n := len(srv.Events())
	require.Equal(t, 0, n, "%d events after refused establishes", n)
}

func TestDuplicateMerchantReference(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	c1, c2 := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	first := c1.establish("same", "10.00")
	c1.postJSON("/establish?createTransaction=true", c1.sign(disbursementData("same", "10.00"))).wantError(t, 400, 210)
	// Unique per merchant: another merchant may use it.
	c2.establish("same", "10.00")
	// The interface refuses it too.
	_, _, err := srv.Authorize(c1.sign(uiData("same", models.PaymentTypeDeferred, "1.00")), bankpaytest.OutcomeAuthorize)
	var e *bankpaytest.Error
	require.ErrorAs(t, err, &e, "Authorize duplicate: %v", err)
	require.Equal(t, 400, e.Status, "Authorize duplicate: %v", err)
	require.Equal(t, 210, e.Code, "Authorize duplicate: %v", err)
	// Deposits have their own references.
	c1.mustDeposit(first.TransactionID, "same", "1.00")
	c1.deposit(first.TransactionID, url.Values{"merchantReference": {"same"}, "amount": {"1.00"}}).wantError(t, 400, 210)
}

func TestAuthorizeRedirect(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	redirect, txn := c.authorize(uiData("ui-1", models.PaymentTypeDeferred, "50.00"), bankpaytest.OutcomeAuthorize)

	require.Equal(t, models.TypeAuthorize, txn.TransactionType, "transaction %+v", txn)
	require.Equal(t, models.StatusAuthorized, txn.Status, "transaction %+v", txn)
	require.Len(t, txn.TransactionID, 15, "transaction %+v", txn)
	require.Equal(t, models.PaymentTypeDeferred, txn.Payment.PaymentType, "transaction %+v", txn)
	require.Equal(t, models.ProviderStatus("SW020"), txn.PaymentProviderTransaction.Status, "transaction %+v", txn)
	require.Equal(t, "authorization received", txn.PaymentProviderTransaction.StatusMessage, "transaction %+v", txn)
	require.Len(t, txn.Payment.Account.AccountNumber, 4, "transaction %+v", txn)
	const marker = "&requestSignature="
	i := strings.Index(redirect, marker)
	require.GreaterOrEqual(t, i, 0, "redirect %q", redirect)
	require.True(t, strings.HasPrefix(redirect, "https://merchant.example/return?transactionId="), "redirect %q", redirect)
	rawSig, trailer, _ := strings.Cut(redirect[i+len(marker):], "&")
	require.Equal(t, "instantPayoutAvailable=true", trailer, "unsigned trailer %q, want instantPayoutAvailable=true", trailer)
	sig, err := url.QueryUnescape(rawSig)
	require.NoError(t, err, "redirect signature %q does not verify", sig)
	require.Equal(t, hmacSHA1(c.creds.AccessKey.Reveal(), redirect[:i]), sig, "redirect signature %q does not verify", sig)
	u, _ := url.Parse(redirect)
	q := u.Query()
	want := map[string]string{
		"transactionId": txn.TransactionID, "transactionType": "1", "merchantReference": "ui-1", "status": "2",
		"payment.paymentType": "2", "payment.paymentProvider.type": "1",
		"payment.paymentProvider.instantPayoutAvailable": "true", "payment.account.verified": "true",
		"payment.paymentProviderTransaction.status": "SW020",
	}
	for k, v := range want {
		assert.Equal(t, v, q.Get(k), "%s = %q, want %q", k, q.Get(k), v)
	}
	assert.NotEmpty(t, q.Get("panel"), "no panel")
	got := c.txn(txn.TransactionID)
	require.Equal(t, models.StatusAuthorized, got.Status, "get %+v", got)
	evs := srv.EventsFor(txn.TransactionID)
	require.Equal(t, "Authorize", joined(eventTypes(evs)), "events %v", eventTypes(evs))
}

func TestAuthorizeCancel(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := uiData("ui-cancel", models.PaymentTypeDeferred, "50.00")
	d.CancelURL = "https://merchant.example/cancel?order=7"
	redirect, txn := c.authorize(d, bankpaytest.OutcomeCancel)
	require.Equal(t, models.StatusCanceled, txn.Status, "status %v", txn.Status)
	require.True(t, strings.HasPrefix(redirect, "https://merchant.example/cancel?order=7&transactionId="), "redirect %q", redirect)
	signed, sig, unsigned := splitRedirect(t, redirect)
	require.Equal(t, hmacSHA1(c.creds.AccessKey.Reveal(), signed), sig, "cancel redirect signature does not verify")
	require.Equal(t, "instantPayoutAvailable=true", unsigned, "unsigned part %q", unsigned)
	u, _ := url.Parse(signed)
	require.Equal(t, "7", u.Query().Get("status"), "query %v", u.Query())
	require.Equal(t, "false", u.Query().Get("payment.account.verified"), "query %v", u.Query())
	require.Equal(t, "UC01", u.Query().Get("payment.paymentProviderTransaction.status"), "query %v", u.Query())
	evs := srv.EventsFor(txn.TransactionID)
	require.Equal(t, "Cancel", joined(eventTypes(evs)), "events %+v", evs)
	require.Equal(t, "7", evs[0].Raw.Get("status"), "events %+v", evs)
	c.deposit(txn.TransactionID, url.Values{"merchantReference": {"d"}}).wantError(t, 400, 200)
}

func TestAuthorizeSHA512(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := uiData("ui-512", models.PaymentTypeDeferred, "5.00")
	d.AccessID, d.MerchantID = c.creds.AccessID, c.creds.MerchantID
	d.RequestSignature = sign.Sign(sign.SHA512, c.creds.AccessKey.Reveal(), sign.EstablishMessage(&d))
	redirect, _, err := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(t, err)
	signed, sig, _ := splitRedirect(t, redirect)
	require.True(t, strings.HasPrefix(sig, sign.SHA512Prefix), "SHA512 redirect signature %q", sig)
	require.True(t, sign.Verify(c.creds.AccessKey.Reveal(), signed, sig), "SHA512 redirect signature %q", sig)
}

func TestAuthorizeRefusals(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	signed := c.sign(uiData("ref", models.PaymentTypeDeferred, "5.00"))
	mod := func(f func(*models.EstablishData)) models.EstablishData {
		d := uiData("ref", models.PaymentTypeDeferred, "5.00")
		f(&d)
		return c.sign(d)
	}
	tampered := signed
	tampered.Amount = "500.00"
	unknown := signed
	unknown.AccessID = "NOPE"
	unsigned := signed
	unsigned.RequestSignature = ""
	cases := map[string]struct {
		d            models.EstablishData
		outcome      bankpaytest.Outcome
		status, code int
	}{
		"tampered":         {tampered, bankpaytest.OutcomeAuthorize, 401, 375},
		"unknown accessId": {unknown, bankpaytest.OutcomeAuthorize, 401, 375},
		"unsigned":         {unsigned, bankpaytest.OutcomeAuthorize, 401, 375},
		"no returnUrl":     {mod(func(d *models.EstablishData) { d.ReturnURL = "" }), bankpaytest.OutcomeAuthorize, 400, 200},
		"relative cancel":  {mod(func(d *models.EstablishData) { d.CancelURL = "/cancel" }), bankpaytest.OutcomeAuthorize, 400, 200},
		"Disbursement":     {mod(func(d *models.EstablishData) { d.PaymentType = models.PaymentTypeDisbursement }), bankpaytest.OutcomeAuthorize, 400, 200},
		"CAD ok but XXX":   {mod(func(d *models.EstablishData) { d.Currency = "XXX" }), bankpaytest.OutcomeAuthorize, 400, 200},
		"identity no kyc":  {signed, bankpaytest.OutcomeEligible, 400, 200},
		"unknown outcome":  {signed, bankpaytest.Outcome(99), 400, 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := srv.Authorize(tc.d, tc.outcome)
			var e *bankpaytest.Error
			require.ErrorAs(t, err, &e, "err %v, want %d/%d", err, tc.status, tc.code)
			require.Equal(t, tc.status, e.Status, "err %v, want %d/%d", err, tc.status, tc.code)
			require.Equal(t, tc.code, e.Code, "err %v, want %d/%d", err, tc.status, tc.code)
		})
	}
	n := len(srv.Events())
	require.Equal(t, 0, n, "%d events after refusals", n)
}

func TestParseOutcome(t *testing.T) {
	for _, o := range []bankpaytest.Outcome{bankpaytest.OutcomeAuthorize, bankpaytest.OutcomeCancel, bankpaytest.OutcomeEligible, bankpaytest.OutcomeExcessData, bankpaytest.OutcomeNotEligible} {
		got, err := bankpaytest.ParseOutcome(o.String())
		require.NoError(t, err, "%v: %v %v", o, got, err)
		require.Equal(t, o, got, "%v: %v %v", o, got, err)
	}
	_, err := bankpaytest.ParseOutcome("maybe")
	require.Error(t, err, "unknown outcome parsed")
}

// TestEstablishBareAnswerIsEstablishData: with WithBareResponses the
// establish answer is the OpenAPI's EstablishData: the data sent, typed as
// that schema types it (paymentType and account.type numbers, kycType
// "OnlineBanking", verification.status and customer.vip strings, the
// account number's last 4 digits), plus the new authorization's
// transactionId and url; nothing the schema lacks (timeZone, deviceType,
// metadata, recurrence), no tax id, and no transaction state.
func TestEstablishBareAnswerIsEstablishData(t *testing.T) {
	srv := newServer(t, bankpaytest.WithBareResponses())
	c := newAPI(t, srv, srv.Merchants()[0].Credentials)
	d := disbursementData("bare-est", "12.50")
	d.Description, d.TimeZone = "payout", "America/Chicago"
	d.ReturnURL, d.CancelURL, d.NotificationURL = "https://shop.example/ok", "https://shop.example/no", "https://shop.example/hook"
	d.KYCType = models.KYCTypeIdentity
	d.Verification = &models.EstablishVerify{Status: 3, VerifyCustomer: true}
	d.Metadata = &models.Metadata{FlowType: "f"}
	d.Recurrence = &models.Recurrence{Frequency: 1}
	d.Account.Name = "Checking"
	d.Customer = &models.Customer{Name: "Ada Lee", Email: "ada@example.com", Phone: "+12025550143", TaxID: "123456789",
		ExternalID: "ext-bare", EnrollDate: "1600000000000", Address: &models.Address{City: "Springfield", Country: "US"}}
	sd := c.sign(d)
	var got map[string]any
	c.postJSON("/establish?createTransaction=true", sd).wantOK(t, &got)

	id, _ := got["transactionId"].(string)
	require.NotEmpty(t, id)
	assert.Equal(t, map[string]any{
		"merchantId": sd.MerchantID, "accessId": sd.AccessID, "requestSignature": sd.RequestSignature,
		"paymentType": float64(models.PaymentTypeDisbursement), "merchantReference": "bare-est", "description": "payout",
		"currency": "USD", "amount": "12.50", "kycType": "OnlineBanking",
		"returnUrl": "https://shop.example/ok", "cancelUrl": "https://shop.example/no", "notificationUrl": "https://shop.example/hook",
		"verification": map[string]any{"status": "3", "verifyCustomer": true},
		"account":      map[string]any{"name": "Checking", "type": float64(1), "accountNumber": bankpaytest.AccountVerified[len(bankpaytest.AccountVerified)-4:], "routingNumber": bankpaytest.SandboxRoutingNumber},
		"customer": map[string]any{"name": "Ada Lee", "email": "ada@example.com", "phone": "+12025550143", "externalId": "ext-bare",
			"enrollDate": float64(1600000000000), "address": map[string]any{"city": "Springfield", "country": "US"}},
		"transactionId": id,
		"url":           srv.ControlURL + "/authorize?transactionId=" + id,
	}, got)

	// The authorization it created is the one GET /transactions/{id} shows.
	var txn map[string]any
	c.get("/transactions/"+id).wantOK(t, &txn)
	assert.Equal(t, id, txn["transactionId"])
	assert.Equal(t, "bare-est", txn["merchantReference"])

	// A customer without a property the OpenAPI's Customer requires
	// (phone here) is left out rather than completed.
	d2 := disbursementData("bare-est-2", "1.00")
	d2.Customer = &models.Customer{Name: "Bo", Email: "bo@example.com", Address: &models.Address{Country: "US"}}
	var got2 map[string]any
	c.postJSON("/establish?createTransaction=true", c.sign(d2)).wantOK(t, &got2)
	assert.NotContains(t, got2, "customer")
	assert.Contains(t, got2, "url")
}
