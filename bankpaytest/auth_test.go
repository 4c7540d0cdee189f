package bankpaytest_test

import (
	"net/http"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

func TestURLAndCredentials(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{NoVIP: true}))
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), "URL %q", srv.URL)
	require.True(t, strings.HasSuffix(srv.URL, "/api/v1"), "URL %q", srv.URL)
	c := srv.Credentials()
	require.GreaterOrEqual(t, len(c.AccessID), 10, "credentials not generated: %+v", c)
	require.GreaterOrEqual(t, len(c.AccessKey.Reveal()), 16, "credentials not generated: %+v", c)
	require.NotEmpty(t, c.MerchantID, "credentials not generated: %+v", c)
	ms := srv.Merchants()
	require.Len(t, ms, 2, "merchants %+v", ms)
	require.True(t, sameCreds(ms[0].Credentials, c), "merchants %+v", ms)
	require.True(t, ms[1].NoVIP, "merchants %+v", ms)
	require.NotEqual(t, c.AccessID, ms[1].AccessID, "merchants %+v", ms)
	require.NotEqual(t, c.MerchantID, ms[1].MerchantID, "merchants %+v", ms)
	require.True(t, srv.Now().Equal(friday), "clock starts at %v", srv.Now())
}

func TestFixedCredentials(t *testing.T) {
	want := bankpay.Credentials{AccessID: "ACCESS", AccessKey: bankpay.NewSecret("KEY"), MerchantID: "1234"}
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{Credentials: want}))
	got := srv.Credentials()
	require.True(t, sameCreds(got, want), "credentials %+v", got)
	newAPI(t, srv, want).establish("r1", "1.00")
}

func TestBadCredentials(t *testing.T) {
	srv := newServer(t)
	good := srv.Credentials()
	routes := []struct{ method, path string }{
		{http.MethodPost, "/establish?createTransaction=true"},
		{http.MethodGet, "/transactions/100000000001001"},
		{http.MethodPost, "/transactions/100000000001001/deposit"},
		{http.MethodPost, "/transactions/100000000001001/capture"},
		{http.MethodGet, "/transactions/100000000001001/payment/paymentProvider/account/balance"},
		{http.MethodGet, "/transactions/100000000001001/payment/paymentProvider/user"},
		{http.MethodGet, "/transactions/100000000001001/accountSummary"},
		{http.MethodGet, "/transactions/100000000001001/user"},
		{http.MethodGet, "/transactions/100000000001001/user/detail"},
		{http.MethodPost, "/transactions/100000000001001/feedback"},
		{http.MethodPost, "/customers/3000000001"},
		{http.MethodPost, "/customers?externalId=x"},
		{http.MethodPost, "/accounts/tokenize"},
	}
	creds := map[string]*bankpay.Credentials{
		"none":          nil,
		"wrong key":     {AccessID: good.AccessID, AccessKey: bankpay.NewSecret(good.AccessKey.Reveal() + "x")},
		"unknown id":    {AccessID: "NOPE", AccessKey: good.AccessKey},
		"empty key":     {AccessID: good.AccessID},
		"swapped roles": {AccessID: good.AccessKey.Reveal(), AccessKey: bankpay.NewSecret(good.AccessID)},
	}
	for name, c := range creds {
		for _, rt := range routes {
			t.Run(name+" "+rt.method+" "+rt.path, func(t *testing.T) {
				send(t, c, rt.method, srv.URL+rt.path, "application/json", []byte("{}")).wantError(t, 401, 375)
			})
		}
	}
}

func TestEstablishSignatureChecks(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	good := c.sign(disbursementData("sig-1", "10.00"))

	tampered := good
	tampered.Amount = "99.00" // signed field changed after signing
	missing := good
	missing.RequestSignature = ""
	otherKey := good
	otherKey.RequestSignature = sign.Sign(sign.SHA1, "not-the-key", sign.EstablishMessage(&good))
	otherAccess := good
	otherAccess.AccessID = "SOMEONE-ELSE"
	otherMerchant := good
	otherMerchant.MerchantID = "999"

	for name, tc := range map[string]struct {
		d            models.EstablishData
		status, code int
	}{
		"tampered":       {tampered, 401, 375},
		"missing":        {missing, 401, 375},
		"other key":      {otherKey, 401, 375},
		"other accessId": {otherAccess, 401, 375},
		"other merchant": {otherMerchant, 401, 300},
	} {
		t.Run(name, func(t *testing.T) {
			c.postJSON("/establish?createTransaction=true", tc.d).wantError(t, tc.status, tc.code)
		})
	}
	// The unsigned fields may change; a SHA512 signature is accepted.
	unsigned := good
	unsigned.NotificationURL = "https://merchant.example/notify"
	c.postJSON("/establish?createTransaction=true", unsigned).wantOK(t, nil)
	sha512 := disbursementData("sig-2", "10.00")
	sha512.AccessID, sha512.MerchantID = c.creds.AccessID, c.creds.MerchantID
	sha512.RequestSignature = sign.Sign(sign.SHA512, c.creds.AccessKey.Reveal(), sign.EstablishMessage(&sha512))
	c.postJSON("/establish?createTransaction=true", sha512).wantOK(t, nil)
}

func TestRoutingErrors(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("route-1", "10.00")

	t.Run("unknown route", func(t *testing.T) {
		c.get("/nope").wantError(t, 404, 200)
		c.get("/transactions/"+auth.TransactionID+"/nope").wantError(t, 404, 200)
		c.get("/transactions/").wantError(t, 404, 200)
		send(t, &c.creds, http.MethodGet, strings.TrimSuffix(srv.URL, "/api/v1")+"/other", "", nil).wantError(t, 404, 200)
	})
	t.Run("wrong method", func(t *testing.T) {
		a := c.postJSON("/transactions/"+auth.TransactionID, struct{}{})
		a.wantError(t, 405, 200)
		require.Equal(t, http.MethodGet, a.header.Get("Allow"), "Allow %q", a.header.Get("Allow"))
		c.get("/establish").wantError(t, 405, 200)
		c.get("/accounts/tokenize").wantError(t, 405, 200)
		send(t, &c.creds, http.MethodDelete, srv.URL+"/transactions/"+auth.TransactionID+"/deposit", "", nil).wantError(t, 405, 200)
	})
	t.Run("unknown transaction", func(t *testing.T) {
		for _, p := range []string{"", "/payment/paymentProvider/account/balance", "/accountSummary", "/user", "/user/detail"} {
			c.get("/transactions/100000000999999"+p).wantError(t, 404, 200)
		}
	})
	t.Run("another merchant's transaction", func(t *testing.T) {
		srv2 := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
		m := srv2.Merchants()
		a1 := newAPI(t, srv2, m[0].Credentials).establish("x", "1.00")
		newAPI(t, srv2, m[1].Credentials).get("/transactions/"+a1.TransactionID).wantError(t, 404, 200)
	})
	t.Run("body too large", func(t *testing.T) {
		big := make([]byte, bankpaytest.DefaultMaxBodyBytes+1)
		send(t, &c.creds, http.MethodPost, srv.URL+"/accounts/tokenize", "application/json", big).wantError(t, 413, 200)
	})
	t.Run("malformed JSON", func(t *testing.T) {
		// The bare {"message":…} 400 (see encoding_test.go).
		send(t, &c.creds, http.MethodPost, srv.URL+"/accounts/tokenize", "application/json", []byte("{")).wantBare(t)
		send(t, &c.creds, http.MethodPost, srv.URL+"/accounts/tokenize", "application/json", nil).wantBare(t)
	})
}
