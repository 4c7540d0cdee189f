package bankpaytest_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// friday is a Friday, 10:00 UTC: the start of the fake clock in most tests.
var friday = time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)

func newServer(t *testing.T, opts ...bankpaytest.Option) *bankpaytest.Server {
	t.Helper()
	srv := bankpaytest.NewServer(append([]bankpaytest.Option{bankpaytest.WithStartTime(friday)}, opts...)...)
	t.Cleanup(srv.Close)
	return srv
}

// shape is opts, plus WithBareResponses when bare (the OpenAPI's shape
// instead of the spec's).
func shape(bare bool, opts ...bankpaytest.Option) []bankpaytest.Option {
	if bare {
		return append(opts, bankpaytest.WithBareResponses())
	}
	return opts
}

// response is one HTTP response of the sandbox.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (a response) decode(t testing.TB, v any) {
	t.Helper()
	err := json.Unmarshal(a.body, v)
	require.NoError(t, err, "decoding %s: %v", a.body, err)
}

// wantOK fails unless the response is a 200 and decodes it into v (if not nil).
func (a response) wantOK(t testing.TB, v any) {
	t.Helper()
	require.Equal(t, http.StatusOK, a.status, "status %d, want 200; body %s", a.status, a.body)
	ct := a.header.Get("Content-Type")
	require.Equal(t, "application/json", ct, "Content-Type %q", ct)
	if v != nil {
		a.decode(t, v)
	}
}

// wantError fails unless the response is an error body with status and code.
func (a response) wantError(t testing.TB, status, code int) {
	t.Helper()
	require.Equal(t, status, a.status, "status %d, want %d; body %s", a.status, status, a.body)
	var eb struct {
		Errors []struct {
			Domain  string `json:"domain"`
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	a.decode(t, &eb)
	require.Len(t, eb.Errors, 1, "error body %s, want one item with code %d", a.body, code)
	require.Equal(t, code, eb.Errors[0].Code, "error body %s, want one item with code %d", a.body, code)
	require.NotEmpty(t, eb.Errors[0].Message, "error body %s, want one item with code %d", a.body, code)
	require.NotEmpty(t, eb.Errors[0].Domain, "error body %s, want one item with code %d", a.body, code)
}

// send makes one request with creds (no auth when creds is nil).
func send(t testing.TB, creds *bankpay.Credentials, method, rawURL, contentType string, body []byte) response {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, bytes.NewReader(body))
	require.NoError(t, err)
	if creds != nil {
		req.SetBasicAuth(creds.AccessID, creds.AccessKey.Reveal())
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// api is a raw client of one merchant.
type api struct {
	t     testing.TB
	srv   *bankpaytest.Server
	creds bankpay.Credentials
}

func newAPI(t testing.TB, srv *bankpaytest.Server, creds bankpay.Credentials) *api {
	return &api{t: t, srv: srv, creds: creds}
}

func (c *api) get(path string) response {
	c.t.Helper()
	return send(c.t, &c.creds, http.MethodGet, c.srv.URL+path, "", nil)
}

func (c *api) postJSON(path string, v any) response {
	c.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(c.t, err)
	return send(c.t, &c.creds, http.MethodPost, c.srv.URL+path, "application/json", b)
}

func (c *api) postForm(path string, v url.Values) response {
	c.t.Helper()
	return send(c.t, &c.creds, http.MethodPost, c.srv.URL+path, "application/x-www-form-urlencoded", []byte(v.Encode()))
}

// sign fills accessId, merchantId and requestSignature of d.
func (c *api) sign(d models.EstablishData) models.EstablishData {
	d.AccessID, d.MerchantID = c.creds.AccessID, c.creds.MerchantID
	d.RequestSignature = sign.Sign(sign.SHA1, c.creds.AccessKey.Reveal(), sign.EstablishMessage(&d))
	return d
}

// disbursementData is Disbursement establish data for a sandbox account.
func disbursementData(ref string, amount models.Amount) models.EstablishData {
	return models.EstablishData{
		MerchantReference: ref,
		PaymentType:       models.PaymentTypeDisbursement,
		Currency:          models.USD,
		Amount:            amount,
		DeviceType:        "web",
		Account:           &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, Type: 1},
	}
}

// establish creates a Disbursement authorization with POST /establish.
func (c *api) establish(ref string, amount models.Amount) *models.Transaction {
	c.t.Helper()
	var env wire.TransactionEnvelope
	c.postJSON("/establish?createTransaction=true", c.sign(disbursementData(ref, amount))).wantOK(c.t, &env)
	return env.Transaction
}

// uiData is establish data for the user interface.
func uiData(ref string, pt models.PaymentType, amount models.Amount) models.EstablishData {
	return models.EstablishData{
		MerchantReference: ref,
		PaymentType:       pt,
		Currency:          models.USD,
		Amount:            amount,
		ReturnURL:         "https://merchant.example/return",
		CancelURL:         "https://merchant.example/cancel",
	}
}

// authorize signs d and plays the user with outcome.
func (c *api) authorize(d models.EstablishData, outcome bankpaytest.Outcome) (string, *models.Transaction) {
	c.t.Helper()
	redirect, txn, err := c.srv.Authorize(c.sign(d), outcome)
	require.NoError(c.t, err, "Authorize: %v", err)
	return redirect, txn
}

func (c *api) deposit(id string, v url.Values) response {
	c.t.Helper()
	return c.postForm("/transactions/"+id+"/deposit", v)
}

// mustDeposit creates a deposit of amount ("" for the default) from id.
func (c *api) mustDeposit(id, ref string, amount models.Amount) *models.Transaction {
	c.t.Helper()
	v := url.Values{"merchantReference": {ref}}
	if amount != "" {
		v.Set("amount", string(amount))
	}
	var env wire.TransactionEnvelope
	c.deposit(id, v).wantOK(c.t, &env)
	return env.Transaction
}

func (c *api) txn(id string) *models.Transaction {
	c.t.Helper()
	var env wire.TransactionEnvelope
	c.get("/transactions/"+id).wantOK(c.t, &env)
	return env.Transaction
}

// hmacSHA1 is the Base64 HMAC-SHA1 of msg keyed with key, written here
// independently of internal/sign.
func hmacSHA1(key, msg string) string {
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// eventTypes lists the types of evs.
func eventTypes(evs []bankpaytest.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = string(e.EventType)
	}
	return out
}

func joined(ss []string) string { return strings.Join(ss, ",") }

// splitRedirect cuts a redirect as the service shapes it: the signed part
// (up to "&requestSignature="), the signature (to the next "&", unescaped)
// and the unsigned rest.
func splitRedirect(t testing.TB, redirect string) (signed, sig, unsigned string) {
	t.Helper()
	signed, rest, ok := strings.Cut(redirect, "&requestSignature=")
	require.True(t, ok, "redirect %q has no requestSignature", redirect)
	raw, unsigned, _ := strings.Cut(rest, "&")
	sig, err := url.QueryUnescape(raw)
	require.NoError(t, err, "signature %q: %v", raw, err)
	return signed, sig, unsigned
}

// sameCreds compares credentials, keys included.
func sameCreds(a, b bankpay.Credentials) bool {
	return a.AccessID == b.AccessID && a.AccessKey.Reveal() == b.AccessKey.Reveal() && a.MerchantID == b.MerchantID
}
