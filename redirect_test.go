package bankpay

import (
	"crypto/sha1"
	"crypto/sha512"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const redirectKey = "redirect-access-key"

// keyCreds is Credentials holding only the access key, all VerifyRedirect
// reads.
func keyCreds(key string) Credentials { return Credentials{AccessKey: NewSecret(key)} }

// signURL appends a requestSignature computed by the test itself: Base64
// HMAC-SHA1 of the whole URL (or of its query string), URL-escaped.
func signURL(key, unsigned string, queryOnly bool) string {
	msg := unsigned
	if queryOnly {
		_, msg, _ = strings.Cut(unsigned, "?")
	}
	return unsigned + "&requestSignature=" + url.QueryEscape(hmacB64(sha1.New, key, msg))
}

const (
	returnUnsigned = "https://shop.example/pay/return?transactionId=100258123456789&transactionType=1" +
		"&merchantReference=order-42&status=2&payment.paymentType=2&payment.paymentProvider.type=1" +
		"&payment.paymentProvider.instantPayoutAvailable=true&payment.account.verified=true&panel=1" +
		"&payment.paymentProviderTransaction.status=10"
	cancelUnsigned = "https://shop.example/pay/cancel?session=abc&transactionId=100258123456790&transactionType=1" +
		"&merchantReference=order-43&status=7&payment.paymentType=2&payment.paymentProvider.type=1" +
		"&instantPayoutAvailable=true&payment.account.verified=false&panel=3" +
		"&payment.paymentProviderTransaction.status=14"
)

func TestVerifyRedirectReturnURL(t *testing.T) {
	r, err := VerifyRedirect(signURL(redirectKey, returnUnsigned, false), keyCreds(redirectKey))
	require.NoError(t, err)
	want := Redirect{
		TransactionID: "100258123456789", TransactionType: models.TypeAuthorize, MerchantReference: "order-42",
		Status: models.StatusAuthorized, PaymentType: models.PaymentTypeDeferred, ProviderType: 1,
		InstantPayoutAvailable: true, AccountVerified: true, Panel: 1, ProviderTransactionStatus: "10",
		Algorithm: "HMAC-SHA1",
	}
	got := *r
	got.Params = nil
	assert.Equal(t, want, got, "got  %+v\nwant %+v", got, want)
	assert.Equal(t, models.StatusAuthorized, r.Status, "Authorized/Canceled")
	_, ok := r.Params["requestSignature"]
	assert.False(t, ok, "params %v", r.Params)
	assert.Equal(t, "order-42", r.Params.Get("merchantReference"), "params %v", r.Params)
	assert.Len(t, r.Params, 10, "params %v", r.Params)
}

func TestVerifyRedirectCancelURL(t *testing.T) {
	r, err := VerifyRedirect(signURL(redirectKey, cancelUnsigned, false), keyCreds(redirectKey))
	require.NoError(t, err)
	assert.Equal(t, models.StatusCanceled, r.Status, "%+v", r)
	assert.Equal(t, "100258123456790", r.TransactionID, "%+v", r)
	assert.Equal(t, 3, r.Panel, "%+v", r)
	assert.True(t, r.InstantPayoutAvailable, "%+v", r)
	assert.False(t, r.AccountVerified, "%+v", r)
	assert.Equal(t, models.ProviderStatus("14"), r.ProviderTransactionStatus, "%+v", r)
	assert.Equal(t, "abc", r.Params.Get("session"), "the merchant's own signed query parameter is lost")
}

func TestVerifyRedirectTampering(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, false)
	_, err := VerifyRedirect(signed, keyCreds(redirectKey))
	require.NoError(t, err)
	mutations := map[string]string{
		"host":         strings.Replace(signed, "shop.example", "evil.example", 1),
		"host case":    strings.Replace(signed, "shop.example", "Shop.example", 1),
		"port":         strings.Replace(signed, "shop.example", "shop.example:443", 1),
		"scheme":       strings.Replace(signed, "https://", "http://", 1),
		"path":         strings.Replace(signed, "/pay/return", "/pay/return2", 1),
		"status":       strings.Replace(signed, "status=2", "status=7", 1),
		"order":        strings.Replace(signed, "transactionType=1&merchantReference=order-42", "merchantReference=order-42&transactionType=1", 1),
		"appended":     signed + "&status=7",
		"appended sig": signed + "&requestSignature=x",
		"fragment":     signed + "#x",
		"dropped":      strings.Replace(signed, "&panel=1", "", 1),
		"escaped":      strings.Replace(signed, "order-42", "order%2D42", 1),
		"wrong key":    signURL("other-key", returnUnsigned, false),
	}
	// Every parameter value changed in turn.
	q := returnUnsigned[strings.IndexByte(returnUnsigned, '?')+1:]
	for _, kv := range strings.Split(q, "&") {
		mutations["param "+kv] = strings.Replace(signed, kv, kv+"9", 1)
	}
	for name, raw := range mutations {
		r, err := VerifyRedirect(raw, keyCreds(redirectKey))
		if assert.ErrorIs(t, err, ErrInvalidSignature, "%s: r=%v err=%v, want ErrInvalidSignature", name, r, err) {
			assert.Nil(t, r, "%s: r=%v err=%v, want ErrInvalidSignature", name, r, err)
		}
	}
}

func TestVerifyRedirectQueryOnlyMode(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, true)
	_, err := VerifyRedirect(signed, keyCreds(redirectKey))
	assert.ErrorIs(t, err, ErrInvalidSignature, "query-only signature in full-URL mode: %v", err)
	r, err := VerifyRedirect(signed, keyCreds(redirectKey), RedirectQueryOnly())
	require.NoError(t, err, "query-only mode: %v %v", r, err)
	require.Equal(t, "100258123456789", r.TransactionID, "query-only mode: %v %v", r, err)
	// Scheme, host and path are not covered in this mode, the query is.
	_, err = VerifyRedirect(strings.Replace(signed, "shop.example", "other.example", 1), keyCreds(redirectKey), RedirectQueryOnly())
	assert.NoError(t, err, "query-only mode, other host: %v", err)
	_, err = VerifyRedirect(strings.Replace(signed, "status=2", "status=7", 1), keyCreds(redirectKey), RedirectQueryOnly())
	assert.ErrorIs(t, err, ErrInvalidSignature, "query-only mode, tampered status: %v", err)
	_, err = VerifyRedirect(signURL(redirectKey, returnUnsigned, false), keyCreds(redirectKey), RedirectQueryOnly())
	assert.ErrorIs(t, err, ErrInvalidSignature, "full-URL signature in query-only mode: %v", err)
}

// unsignedWithSig finds a return URL whose SHA-1 signature has every Base64
// character that must be escaped ("+", "/" and "=").
func unsignedWithSig(t *testing.T) (unsigned, sig string) {
	t.Helper()
	for i := 0; i < 10000; i++ {
		u := fmt.Sprintf("https://shop.example/r?transactionId=%d&status=2", i)
		s := hmacB64(sha1.New, redirectKey, u)
		if strings.Contains(s, "+") && strings.Contains(s, "/") && strings.HasSuffix(s, "=") {
			return u, s
		}
	}
	require.Fail(t, "no such signature")
	return "", ""
}

func TestVerifyRedirectSignatureEncodings(t *testing.T) {
	u, sig := unsignedWithSig(t)
	for name, enc := range map[string]string{
		"QueryEscape":        url.QueryEscape(sig),
		"lower-case escapes": strings.NewReplacer("+", "%2b", "/", "%2f", "=", "%3d").Replace(sig),
		"raw plus and slash": sig,
		"escaped slash only": strings.ReplaceAll(sig, "/", "%2F"),
	} {
		_, err := VerifyRedirect(u+"&requestSignature="+enc, keyCreds(redirectKey))
		assert.NoError(t, err, "%s (%s): %v", name, enc, err)
	}
	_, err := VerifyRedirect(u+"&requestSignature="+url.QueryEscape(sig)+"%", keyCreds(redirectKey))
	assert.ErrorIs(t, err, ErrInvalidSignature, "bad escape: %v", err)
}

func TestVerifyRedirectAlgorithms(t *testing.T) {
	sha512sig := "HmacSHA512:" + hmacB64(sha512.New, redirectKey, returnUnsigned)
	signed512 := returnUnsigned + "&requestSignature=" + url.QueryEscape(sha512sig)
	r, err := VerifyRedirect(signed512, keyCreds(redirectKey))
	require.NoError(t, err, "SHA-512: %v %v", r, err)
	require.Equal(t, "HMAC-SHA512", r.Algorithm, "SHA-512: %v %v", r, err)
	_, err = VerifyRedirect(signed512, keyCreds(redirectKey), redirectRequireAlgorithm(hmacSHA512))
	assert.NoError(t, err, "required SHA-512: %v", err)
	signed1 := signURL(redirectKey, returnUnsigned, false)
	_, err = VerifyRedirect(signed1, keyCreds(redirectKey), redirectRequireAlgorithm(hmacSHA512))
	assert.ErrorIs(t, err, errUnsupportedAlgorithm, "SHA-1 when SHA-512 is required: %v", err)
	_, err = VerifyRedirect(signed1, keyCreds(redirectKey), redirectRequireAlgorithm(signatureAlgorithm(5)))
	assert.ErrorIs(t, err, errUnsupportedAlgorithm, "unknown required algorithm: %v", err)
	// The SHA-1 value under the SHA-512 prefix, or the SHA-512 value without it.
	_, err = VerifyRedirect(returnUnsigned+"&requestSignature="+url.QueryEscape("HmacSHA512:"+hmacB64(sha1.New, redirectKey, returnUnsigned)), keyCreds(redirectKey))
	assert.ErrorIs(t, err, ErrInvalidSignature, "SHA-1 under the SHA-512 prefix: %v", err)
	_, err = VerifyRedirect(returnUnsigned+"&requestSignature="+url.QueryEscape(hmacB64(sha512.New, redirectKey, returnUnsigned)), keyCreds(redirectKey))
	assert.ErrorIs(t, err, ErrInvalidSignature, "SHA-512 without prefix: %v", err)
}

func TestVerifyRedirectErrors(t *testing.T) {
	good := hmacB64(sha1.New, redirectKey, returnUnsigned)
	for name, tc := range map[string]struct {
		raw, key string
		want     error
	}{
		"no signature":    {returnUnsigned, redirectKey, errMissingSignature},
		"empty signature": {returnUnsigned + "&requestSignature=", redirectKey, errMissingSignature},
		"first param":     {"https://shop.example/r?requestSignature=" + url.QueryEscape(good), redirectKey, errMissingSignature},
		"wrong prefix":    {returnUnsigned + "&requestSignature=" + url.QueryEscape("HmacSHA256:"+good), redirectKey, errUnsupportedAlgorithm},
		"empty key":       {signURL(redirectKey, returnUnsigned, false), "", errEmptyCredentials},
		"wrong key":       {signURL(redirectKey, returnUnsigned, false), "another-key", ErrInvalidSignature},
		"empty URL":       {"", redirectKey, errMissingSignature},
	} {
		r, err := VerifyRedirect(tc.raw, keyCreds(tc.key))
		if !assert.ErrorIs(t, err, tc.want, "%s: r=%v err=%v, want %v", name, r, err, tc.want) ||
			!assert.Nil(t, r, "%s: r=%v err=%v, want %v", name, r, err, tc.want) {
			continue
		}
		msg := err.Error()
		assert.NotContains(t, msg, redirectKey, "%s: error shows key material: %s", name, msg)
		assert.NotContains(t, msg, good, "%s: error shows key material: %s", name, msg)
		assert.NotContains(t, msg, "another-key", "%s: error shows key material: %s", name, msg)
		assert.True(t, strings.HasPrefix(msg, "bankpay: verify redirect: "), "%s: message %q", name, msg)
		assert.Equal(t, 1, strings.Count(msg, "bankpay:"), "%s: message %q", name, msg)
	}
}

func TestVerifyRedirectSignedButMalformed(t *testing.T) {
	for _, unsigned := range []string{
		"https://shop.example/r?transactionId=1&status=abc",
		"https://shop.example/r?transactionId=1&transactionId=2&status=2",
		"https://shop.example/r?transactionId=1&payment.account.verified=maybe",
		"https://shop.example/r?transactionId=1&payment.paymentType=Lottery",
		"https://shop.example/r?transactionId=1;status=2",
	} {
		r, err := VerifyRedirect(signURL(redirectKey, unsigned, false), keyCreds(redirectKey))
		if assert.ErrorIs(t, err, ErrMalformedRedirect, "%s: r=%v err=%v", unsigned, r, err) {
			assert.Nil(t, r, "%s: r=%v err=%v", unsigned, r, err)
		}
	}
}

func TestVerifyRedirectRequest(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, false)
	uri := strings.TrimPrefix(signed, "https://shop.example")

	// Behind a proxy: the app sees http on an internal host.
	req := httptest.NewRequest(http.MethodGet, uri, nil)
	req.Host = "10.0.0.7:8080"
	req.Header.Set("X-Forwarded-Host", "evil.example")
	for _, base := range []string{"https://shop.example", "https://shop.example/"} {
		r, err := VerifyRedirectRequest(req, base, keyCreds(redirectKey))
		assert.NoError(t, err, "%s: %v %v", base, r, err)
		assert.Equal(t, "100258123456789", r.TransactionID, "%s: %v %v", base, r, err)
	}
	_, err := VerifyRedirectRequest(req, "https://evil.example", keyCreds(redirectKey))
	assert.ErrorIs(t, err, ErrInvalidSignature, "other base: %v", err)
	// A proxy that strips a path prefix.
	req = httptest.NewRequest(http.MethodGet, strings.TrimPrefix(uri, "/pay"), nil)
	_, err = VerifyRedirectRequest(req, "https://shop.example/pay", keyCreds(redirectKey))
	assert.NoError(t, err, "path prefix: %v", err)
	for _, bad := range []string{"", "shop.example", "ftp://shop.example", "https://shop.example/?x=1", "https://u:p@shop.example", "https://shop.example?"} {
		_, err := VerifyRedirectRequest(req, bad, keyCreds(redirectKey))
		assert.ErrorIs(t, err, ErrMalformedRedirect, "base %q: %v", bad, err)
	}
	_, err = VerifyRedirectRequest(nil, "https://shop.example", keyCreds(redirectKey))
	assert.ErrorIs(t, err, ErrMalformedRedirect, "nil request: %v", err)
	// A client-side request (no RequestURI) works from its URL.
	creq, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:9"+uri, nil)
	_, err = VerifyRedirectRequest(creq, "https://shop.example", keyCreds(redirectKey), RedirectQueryOnly())
	assert.ErrorIs(t, err, ErrInvalidSignature, "full-URL signature checked query-only: %v", err)
	_, err = VerifyRedirectRequest(creq, "https://shop.example", keyCreds(redirectKey))
	assert.NoError(t, err, "client request: %v", err)
}

// TestVerifyRedirectRequestLoopback sends a signed redirect through a real
// server: the request URI, with its escapes, arrives untouched.
func TestVerifyRedirectRequestLoopback(t *testing.T) {
	const public = "https://shop.example"
	signed := signURL(redirectKey, public+"/return?transactionId=1&merchantReference=order%2042%2Fa&status=2", false)
	got := make(chan *Redirect, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		red, err := VerifyRedirectRequest(r, public, keyCreds(redirectKey))
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		got <- red
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + strings.TrimPrefix(signed, public))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "status %d", resp.StatusCode)
	r := <-got
	assert.Equal(t, "order 42/a", r.MerchantReference, "merchantReference %q", r.MerchantReference)
}

// TestVerifyRedirectExpectReference: a genuine redirect of another order
// (a replayed or swapped return URL) fails with ErrReferenceMismatch once
// the merchant says which merchantReference its session issued.
func TestVerifyRedirectExpectReference(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, false) // merchantReference=order-42
	r, err := VerifyRedirect(signed, keyCreds(redirectKey), RedirectExpectReference("order-42"))
	require.NoError(t, err, "matching reference: %+v %v", r, err)
	require.Equal(t, "order-42", r.MerchantReference, "matching reference: %+v %v", r, err)
	require.Equal(t, "100258123456789", r.TransactionID, "matching reference: %+v %v", r, err)
	for _, want := range []string{"order-43", "order-4", "order-420", "ORDER-42", " order-42", ""} {
		r, err := VerifyRedirect(signed, keyCreds(redirectKey), RedirectExpectReference(want))
		if !assert.ErrorIs(t, err, ErrReferenceMismatch, "expecting %q: %v, %+v", want, err, r) ||
			!assert.Nil(t, r, "expecting %q: %v, %+v", want, err, r) {
			continue
		}
		msg := err.Error()
		assert.Equal(t, "bankpay: verify redirect: redirect merchantReference mismatch", msg, "expecting %q: message %q", want, msg)
	}
	// An empty expected reference matches no redirect, not even one
	// without a merchantReference.
	noRef := signURL(redirectKey, strings.Replace(returnUnsigned, "&merchantReference=order-42", "", 1), false)
	_, err = VerifyRedirect(noRef, keyCreds(redirectKey))
	require.NoError(t, err, "no merchantReference, no expectation: %v", err)
	_, err = VerifyRedirect(noRef, keyCreds(redirectKey), RedirectExpectReference(""))
	assert.ErrorIs(t, err, ErrReferenceMismatch, "no merchantReference, empty expectation: %v", err)
	// The signature is checked first: a forgery is a forgery.
	forged := returnUnsigned + "&requestSignature=" + url.QueryEscape(hmacB64(sha1.New, "guess", returnUnsigned))
	_, err = VerifyRedirect(forged, keyCreds(redirectKey), RedirectExpectReference("order-42"))
	assert.ErrorIs(t, err, ErrInvalidSignature, "forged: %v", err)
	// The merchantReference is read from the signed part only.
	_, err = VerifyRedirect(signed+"&merchantReference=order-43", keyCreds(redirectKey), RedirectExpectReference("order-43"))
	assert.Error(t, err, "an appended merchantReference was trusted")
	// VerifyRedirectRequest passes the option on.
	u, _ := url.Parse(signed)
	req := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
	_, err = VerifyRedirectRequest(req, "https://shop.example", keyCreds(redirectKey), RedirectExpectReference("order-42"))
	assert.NoError(t, err, "request, matching: %v", err)
	_, err = VerifyRedirectRequest(req, "https://shop.example", keyCreds(redirectKey), RedirectExpectReference("order-43"))
	assert.ErrorIs(t, err, ErrReferenceMismatch, "request, other order: %v", err)
	for _, other := range []error{ErrInvalidSignature, errMissingSignature, ErrMalformedRedirect, errUnsupportedAlgorithm} {
		assert.NotErrorIs(t, ErrReferenceMismatch, other, "ErrReferenceMismatch matches %v", other)
		assert.NotErrorIs(t, other, ErrReferenceMismatch, "ErrReferenceMismatch matches %v", other)
	}
}

// A JSON notification's signature (made with the same key, over the JSON
// text: as sent, or its URL-decoding) never verifies as a query-only
// redirect, although a value in the event (a customer's name) holds the
// redirect's parameters: the JSON text read as a query string would say
// that transaction 100250000000001 of order-42 was authorized.
func TestNotificationSignatureNeverVerifiesAsRedirect(t *testing.T) {
	key := hookCreds.AccessKey.Reveal()
	for _, js := range []string{
		`{"eventId":"e1","eventType":"Authorize","createdAt":"1700000000000","status":"2","customerName":"x&transactionId=100250000000001&transactionType=1&merchantReference=order-42&status=2&y="}`,
		`{"eventId":"e1","createdAt":"1700000000000","z":"&transactionId=100250000000001&transactionType=1&merchantReference=order-42&status=2&y="}`,
	} {
		sig := hmacB64(sha1.New, key, js)
		u := "https://shop.example/return?" + js + "&requestSignature=" + url.QueryEscape(sig)
		r, err := VerifyRedirect(u, hookCreds, RedirectQueryOnly())
		require.Error(t, err, "a notification's signature verified as a redirect: %+v", r)
		assert.ErrorIs(t, err, ErrMalformedRedirect)
	}
}
