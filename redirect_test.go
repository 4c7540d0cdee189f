package bankpay

import (
	"crypto/sha1"
	"crypto/sha512"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
)

const redirectKey = "redirect-access-key"

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
	r, err := VerifyRedirect(signURL(redirectKey, returnUnsigned, false), redirectKey)
	if err != nil {
		t.Fatal(err)
	}
	want := Redirect{
		TransactionID: "100258123456789", TransactionType: models.TypeAuthorize, MerchantReference: "order-42",
		Status: models.StatusAuthorized, PaymentType: models.PaymentTypeDeferred, ProviderType: 1,
		InstantPayoutAvailable: true, AccountVerified: true, Panel: 1, ProviderTransactionStatus: "10",
		Algorithm: "HMAC-SHA1",
	}
	got := *r
	got.Params = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if r.Status != models.StatusAuthorized {
		t.Error("Authorized/Canceled")
	}
	if _, ok := r.Params["requestSignature"]; ok || r.Params.Get("merchantReference") != "order-42" || len(r.Params) != 10 {
		t.Errorf("params %v", r.Params)
	}
}

func TestVerifyRedirectCancelURL(t *testing.T) {
	r, err := VerifyRedirect(signURL(redirectKey, cancelUnsigned, false), redirectKey)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != models.StatusCanceled || r.TransactionID != "100258123456790" || r.Panel != 3 ||
		!r.InstantPayoutAvailable || r.AccountVerified || r.ProviderTransactionStatus != "14" {
		t.Errorf("%+v", r)
	}
	if r.Params.Get("session") != "abc" {
		t.Error("the merchant's own signed query parameter is lost")
	}
}

func TestVerifyRedirectTampering(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, false)
	if _, err := VerifyRedirect(signed, redirectKey); err != nil {
		t.Fatal(err)
	}
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
		r, err := VerifyRedirect(raw, redirectKey)
		if !errors.Is(err, ErrInvalidSignature) || r != nil {
			t.Errorf("%s: r=%v err=%v, want ErrInvalidSignature", name, r, err)
		}
	}
}

func TestVerifyRedirectQueryOnlyMode(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, true)
	if _, err := VerifyRedirect(signed, redirectKey); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("query-only signature in full-URL mode: %v", err)
	}
	r, err := VerifyRedirect(signed, redirectKey, RedirectQueryOnly())
	if err != nil || r.TransactionID != "100258123456789" {
		t.Fatalf("query-only mode: %v %v", r, err)
	}
	// Scheme, host and path are not covered in this mode, the query is.
	if _, err := VerifyRedirect(strings.Replace(signed, "shop.example", "other.example", 1), redirectKey, RedirectQueryOnly()); err != nil {
		t.Errorf("query-only mode, other host: %v", err)
	}
	if _, err := VerifyRedirect(strings.Replace(signed, "status=2", "status=7", 1), redirectKey, RedirectQueryOnly()); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("query-only mode, tampered status: %v", err)
	}
	if _, err := VerifyRedirect(signURL(redirectKey, returnUnsigned, false), redirectKey, RedirectQueryOnly()); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("full-URL signature in query-only mode: %v", err)
	}
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
	t.Fatal("no such signature")
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
		if _, err := VerifyRedirect(u+"&requestSignature="+enc, redirectKey); err != nil {
			t.Errorf("%s (%s): %v", name, enc, err)
		}
	}
	if _, err := VerifyRedirect(u+"&requestSignature="+url.QueryEscape(sig)+"%", redirectKey); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("bad escape: %v", err)
	}
}

func TestVerifyRedirectAlgorithms(t *testing.T) {
	sha512sig := "HmacSHA512:" + hmacB64(sha512.New, redirectKey, returnUnsigned)
	signed512 := returnUnsigned + "&requestSignature=" + url.QueryEscape(sha512sig)
	r, err := VerifyRedirect(signed512, redirectKey)
	if err != nil || r.Algorithm != "HMAC-SHA512" {
		t.Fatalf("SHA-512: %v %v", r, err)
	}
	if _, err := VerifyRedirect(signed512, redirectKey, redirectRequireAlgorithm(hmacSHA512)); err != nil {
		t.Errorf("required SHA-512: %v", err)
	}
	signed1 := signURL(redirectKey, returnUnsigned, false)
	if _, err := VerifyRedirect(signed1, redirectKey, redirectRequireAlgorithm(hmacSHA512)); !errors.Is(err, errUnsupportedAlgorithm) {
		t.Errorf("SHA-1 when SHA-512 is required: %v", err)
	}
	if _, err := VerifyRedirect(signed1, redirectKey, redirectRequireAlgorithm(signatureAlgorithm(5))); !errors.Is(err, errUnsupportedAlgorithm) {
		t.Errorf("unknown required algorithm: %v", err)
	}
	// The SHA-1 value under the SHA-512 prefix, or the SHA-512 value without it.
	if _, err := VerifyRedirect(returnUnsigned+"&requestSignature="+url.QueryEscape("HmacSHA512:"+hmacB64(sha1.New, redirectKey, returnUnsigned)), redirectKey); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("SHA-1 under the SHA-512 prefix: %v", err)
	}
	if _, err := VerifyRedirect(returnUnsigned+"&requestSignature="+url.QueryEscape(hmacB64(sha512.New, redirectKey, returnUnsigned)), redirectKey); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("SHA-512 without prefix: %v", err)
	}
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
		r, err := VerifyRedirect(tc.raw, tc.key)
		if !errors.Is(err, tc.want) || r != nil {
			t.Errorf("%s: r=%v err=%v, want %v", name, r, err, tc.want)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, redirectKey) || strings.Contains(msg, good) || strings.Contains(msg, "another-key") {
			t.Errorf("%s: error shows key material: %s", name, msg)
		}
		if !strings.HasPrefix(msg, "bankpay: verify redirect: ") || strings.Count(msg, "bankpay:") != 1 {
			t.Errorf("%s: message %q", name, msg)
		}
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
		r, err := VerifyRedirect(signURL(redirectKey, unsigned, false), redirectKey)
		if !errors.Is(err, ErrMalformedRedirect) || r != nil {
			t.Errorf("%s: r=%v err=%v", unsigned, r, err)
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
		r, err := VerifyRedirectRequest(req, base, redirectKey)
		if err != nil || r.TransactionID != "100258123456789" {
			t.Errorf("%s: %v %v", base, r, err)
		}
	}
	if _, err := VerifyRedirectRequest(req, "https://evil.example", redirectKey); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("other base: %v", err)
	}
	// A proxy that strips a path prefix.
	req = httptest.NewRequest(http.MethodGet, strings.TrimPrefix(uri, "/pay"), nil)
	if _, err := VerifyRedirectRequest(req, "https://shop.example/pay", redirectKey); err != nil {
		t.Errorf("path prefix: %v", err)
	}
	for _, bad := range []string{"", "shop.example", "ftp://shop.example", "https://shop.example/?x=1", "https://u:p@shop.example", "https://shop.example?"} {
		if _, err := VerifyRedirectRequest(req, bad, redirectKey); !errors.Is(err, ErrMalformedRedirect) {
			t.Errorf("base %q: %v", bad, err)
		}
	}
	if _, err := VerifyRedirectRequest(nil, "https://shop.example", redirectKey); !errors.Is(err, ErrMalformedRedirect) {
		t.Errorf("nil request: %v", err)
	}
	// A client-side request (no RequestURI) works from its URL.
	creq, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:9"+uri, nil)
	if _, err := VerifyRedirectRequest(creq, "https://shop.example", redirectKey, RedirectQueryOnly()); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("full-URL signature checked query-only: %v", err)
	}
	if _, err := VerifyRedirectRequest(creq, "https://shop.example", redirectKey); err != nil {
		t.Errorf("client request: %v", err)
	}
}

// TestVerifyRedirectRequestLoopback sends a signed redirect through a real
// server: the request URI, with its escapes, arrives untouched.
func TestVerifyRedirectRequestLoopback(t *testing.T) {
	const public = "https://shop.example"
	signed := signURL(redirectKey, public+"/return?transactionId=1&merchantReference=order%2042%2Fa&status=2", false)
	got := make(chan *Redirect, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		red, err := VerifyRedirectRequest(r, public, redirectKey)
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		got <- red
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + strings.TrimPrefix(signed, public))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if r := <-got; r.MerchantReference != "order 42/a" {
		t.Errorf("merchantReference %q", r.MerchantReference)
	}
}

// TestVerifyRedirectExpectReference: a genuine redirect of another order
// (a replayed or swapped return URL) fails with ErrReferenceMismatch once
// the merchant says which merchantReference its session issued.
func TestVerifyRedirectExpectReference(t *testing.T) {
	signed := signURL(redirectKey, returnUnsigned, false) // merchantReference=order-42
	r, err := VerifyRedirect(signed, redirectKey, RedirectExpectReference("order-42"))
	if err != nil || r.MerchantReference != "order-42" || r.TransactionID != "100258123456789" {
		t.Fatalf("matching reference: %+v %v", r, err)
	}
	for _, want := range []string{"order-43", "order-4", "order-420", "ORDER-42", " order-42", ""} {
		r, err := VerifyRedirect(signed, redirectKey, RedirectExpectReference(want))
		if !errors.Is(err, ErrReferenceMismatch) || r != nil {
			t.Errorf("expecting %q: %v, %+v", want, err, r)
			continue
		}
		if msg := err.Error(); msg != "bankpay: verify redirect: redirect merchantReference mismatch" {
			t.Errorf("expecting %q: message %q", want, msg)
		}
	}
	// An empty expected reference matches no redirect, not even one
	// without a merchantReference.
	noRef := signURL(redirectKey, strings.Replace(returnUnsigned, "&merchantReference=order-42", "", 1), false)
	if _, err := VerifyRedirect(noRef, redirectKey); err != nil {
		t.Fatalf("no merchantReference, no expectation: %v", err)
	}
	if _, err := VerifyRedirect(noRef, redirectKey, RedirectExpectReference("")); !errors.Is(err, ErrReferenceMismatch) {
		t.Errorf("no merchantReference, empty expectation: %v", err)
	}
	// The signature is checked first: a forgery is a forgery.
	forged := returnUnsigned + "&requestSignature=" + url.QueryEscape(hmacB64(sha1.New, "guess", returnUnsigned))
	if _, err := VerifyRedirect(forged, redirectKey, RedirectExpectReference("order-42")); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("forged: %v", err)
	}
	// The merchantReference is read from the signed part only.
	if _, err := VerifyRedirect(signed+"&merchantReference=order-43", redirectKey, RedirectExpectReference("order-43")); err == nil {
		t.Error("an appended merchantReference was trusted")
	}
	// VerifyRedirectRequest passes the option on.
	u, _ := url.Parse(signed)
	req := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
	if _, err := VerifyRedirectRequest(req, "https://shop.example", redirectKey, RedirectExpectReference("order-42")); err != nil {
		t.Errorf("request, matching: %v", err)
	}
	if _, err := VerifyRedirectRequest(req, "https://shop.example", redirectKey, RedirectExpectReference("order-43")); !errors.Is(err, ErrReferenceMismatch) {
		t.Errorf("request, other order: %v", err)
	}
	for _, other := range []error{ErrInvalidSignature, errMissingSignature, ErrMalformedRedirect, errUnsupportedAlgorithm} {
		if errors.Is(ErrReferenceMismatch, other) || errors.Is(other, ErrReferenceMismatch) {
			t.Errorf("ErrReferenceMismatch matches %v", other)
		}
	}
}
