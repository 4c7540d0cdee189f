package bankpaytest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// uiUser is a browser without JavaScript walking the sandbox's pages.
type uiUser struct {
	t   *testing.T
	srv *bankpaytest.Server
	hc  *http.Client
}

func newUIUser(t *testing.T, srv *bankpaytest.Server) *uiUser {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &uiUser{t: t, srv: srv, hc: hc}
}

func (u *uiUser) do(method, path string, body io.Reader, ct string) (int, http.Header, string) {
	u.t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(u.srv.ScriptURL(), "/ui/sdk.js")+path, body)
	require.NoError(u.t, err)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := u.hc.Do(req)
	require.NoError(u.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(u.t, err)
	return resp.StatusCode, resp.Header, string(b)
}

// session posts d as the client script does and returns the bank list's
// path.
func (u *uiUser) session(d models.EstablishData) string {
	u.t.Helper()
	b, _ := json.Marshal(d)
	status, _, body := u.do(http.MethodPost, "/ui/session", bytes.NewReader(b), "application/json")
	require.Equal(u.t, http.StatusOK, status, body)
	var r struct{ URL string }
	require.NoError(u.t, json.Unmarshal([]byte(body), &r))
	require.True(u.t, strings.HasPrefix(r.URL, "/ui/banks?s="), r.URL)
	return r.URL
}

func (u *uiUser) post(path string, v url.Values) (int, http.Header, string) {
	return u.do(http.MethodPost, path, strings.NewReader(v.Encode()), "application/x-www-form-urlencoded")
}

// verifyRedirect checks the redirect's signature with the merchant's key:
// it covers what stands before &requestSignature=, and the signature runs to
// the next '&'.
func verifyRedirect(t *testing.T, key, loc string) url.Values {
	i := strings.Index(loc, "&requestSignature=")
	require.Positive(t, i, loc)
	raw := loc[i+len("&requestSignature="):]
	if j := strings.IndexByte(raw, '&'); j >= 0 {
		raw = raw[:j] // what follows the signature is unsigned
	}
	sig, err := url.QueryUnescape(raw)
	require.NoError(t, err)
	require.True(t, sign.Verify(key, loc[:i], sig), "redirect signature")
	u, err := url.Parse(loc)
	require.NoError(t, err)
	return u.Query()
}

func TestUIScriptAndStyle(t *testing.T) {
	srv := newServer(t)
	u := newUIUser(t, srv)
	status, h, body := u.do(http.MethodGet, "/ui/sdk.js", nil, "")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, h.Get("Content-Type"), "javascript")
	for _, s := range []string{"establish", "selectBankWidget", "closeButton", "widgetContainerId"} {
		assert.Contains(t, body, s)
	}
	status, _, _ = u.do(http.MethodGet, "/ui/style.css", nil, "")
	assert.Equal(t, http.StatusOK, status)
	status, _, _ = u.do(http.MethodGet, "/ui/nothing", nil, "")
	assert.Equal(t, http.StatusNotFound, status)
}

func TestUIAuthorize(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	u := newUIUser(t, srv)
	banks := u.session(c.sign(uiData("ui-pages", models.PaymentTypeDeferred, "12.00")))
	s := strings.TrimPrefix(banks, "/ui/banks?s=")

	status, _, body := u.do(http.MethodGet, banks, nil, "")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, bankpaytest.SandboxBankName)
	status, _, body = u.do(http.MethodGet, "/ui/signin?s="+s, nil, "")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `<label for="password">`)

	// A wrong password: the sign-in page again, with an error; retry works.
	status, _, body = u.post("/ui/signin", url.Values{"s": {s}, "password": {"nope"}})
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Contains(t, body, "Wrong user name or password")
	assert.Contains(t, body, `value="cancel"`)
	status, _, body = u.post("/ui/signin", url.Values{"s": {s}, "password": {"demo"}})
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "Choose an account")
	shown := regexp.MustCompile(`Demo Checking …([0-9]{4})<`).FindStringSubmatch(body)
	require.NotNil(t, shown, "the account choice names the account: %s", body)

	status, h, _ := u.post("/ui/finish", url.Values{"s": {s}, "action": {"authorize"}})
	require.Equal(t, http.StatusSeeOther, status)
	loc := h.Get("Location")
	require.True(t, strings.HasPrefix(loc, "https://merchant.example/return?transactionId="), loc)
	q := verifyRedirect(t, c.creds.AccessKey.Reveal(), loc)
	assert.Equal(t, "2", q.Get("status"))
	assert.Equal(t, "ui-pages", q.Get("merchantReference"))
	txn, ok := srv.Transaction(q.Get("transactionId"))
	require.True(t, ok)
	assert.Equal(t, models.StatusAuthorized, txn.Status)
	// What the page showed is what the authorization records, as the API
	// reads it back.
	acct := c.txn(txn.TransactionID).Payment.Account
	assert.Equal(t, "Demo Checking", acct.Name)
	assert.True(t, strings.HasSuffix(acct.AccountNumber, shown[1]), "page showed …%s, recorded %s", shown[1], acct.AccountNumber)

	// The session is finished: a second click does not authorize again.
	status, _, _ = u.post("/ui/finish", url.Values{"s": {s}, "action": {"authorize"}})
	assert.Equal(t, http.StatusNotFound, status)
}

func TestUICancel(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	u := newUIUser(t, srv)
	s := strings.TrimPrefix(u.session(c.sign(uiData("ui-cancel", models.PaymentTypeDeferred, "3.00"))), "/ui/banks?s=")
	status, h, _ := u.post("/ui/finish", url.Values{"s": {s}, "action": {"cancel"}})
	require.Equal(t, http.StatusSeeOther, status)
	loc := h.Get("Location")
	require.True(t, strings.HasPrefix(loc, "https://merchant.example/cancel?"), loc)
	assert.Equal(t, "7", verifyRedirect(t, c.creds.AccessKey.Reveal(), loc).Get("status"))
}

func TestUIIdentity(t *testing.T) {
	for pw, want := range map[string]string{"demo": "eligible", "demo:help": "not-eligible", "other": "excess-data"} {
		t.Run(want, func(t *testing.T) {
			srv := newServer(t)
			c := newAPI(t, srv, srv.Credentials())
			u := newUIUser(t, srv)
			d := uiData("ui-id-"+want, models.PaymentTypeDeferred, "1.00")
			d.KYCType = models.KYCTypeIdentity
			s := strings.TrimPrefix(u.session(c.sign(d)), "/ui/banks?s=")
			status, h, body := u.post("/ui/signin", url.Values{"s": {s}, "password": {pw}})
			require.Equal(t, http.StatusSeeOther, status, body)
			q := verifyRedirect(t, c.creds.AccessKey.Reveal(), h.Get("Location"))
			// The same outcome through Server.Authorize gives the same wire shape.
			d2 := uiData("ui-id2-"+want, models.PaymentTypeDeferred, "1.00")
			d2.KYCType = models.KYCTypeIdentity
			o, err := bankpaytest.ParseOutcome(want)
			require.NoError(t, err)
			redirect, _, err := srv.Authorize(c.sign(d2), o)
			require.NoError(t, err)
			q2 := verifyRedirect(t, c.creds.AccessKey.Reveal(), redirect)
			for _, k := range []string{"status", "payment.account.verified", "panel", "payment.paymentProviderTransaction.status"} {
				assert.Equal(t, q2.Get(k), q.Get(k), k)
			}
		})
	}
}

func TestUIBadSignature(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	u := newUIUser(t, srv)
	d := c.sign(uiData("ui-bad", models.PaymentTypeDeferred, "1.00"))
	d.Amount = "1000.00"
	b, _ := json.Marshal(d)
	status, _, body := u.do(http.MethodPost, "/ui/session", bytes.NewReader(b), "application/json")
	assert.Equal(t, http.StatusUnauthorized, status, body)
	assert.Contains(t, body, "invalid requestSignature")
	assert.Empty(t, srv.Events())
}
