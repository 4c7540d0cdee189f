package bankpay

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// ErrMalformedRedirect: a redirect URL whose signature is valid but whose
// signed parameters cannot be read (a repeated or non-numeric parameter),
// or a VerifyRedirectRequest call with an unusable public base URL.
var ErrMalformedRedirect = errors.New("bankpay: malformed redirect")

// ErrReferenceMismatch: a redirect whose signature is valid but whose signed
// merchantReference is not the one given to RedirectExpectReference: a
// genuine redirect of another order or session (a replayed or swapped return
// URL). Reject it.
var ErrReferenceMismatch = errors.New("bankpay: redirect merchantReference mismatch")

// Redirect is what the service tells the merchant when it sends the user back
// to the returnUrl (authorized) or the cancelUrl (cancelled or failed). Every
// field comes from the signed part of the URL.
type Redirect struct {
	TransactionID     string
	TransactionType   models.TransactionType // 1 (Authorize)
	MerchantReference string
	// Status is StatusAuthorized (2) on the returnUrl and StatusCanceled
	// (7) on the cancelUrl.
	Status                 models.TransactionStatus
	PaymentType            models.PaymentType // 2 (Deferred)
	ProviderType           int                // payment.paymentProvider.type, 1 (Online Banking)
	InstantPayoutAvailable bool               // payment.paymentProvider.instantPayoutAvailable or instantPayoutAvailable
	AccountVerified        bool               // payment.account.verified
	// Panel is the screen where the user left the flow.
	Panel int
	// ProviderTransactionStatus is payment.paymentProviderTransaction.status.
	ProviderTransactionStatus int
	// Algorithm is the algorithm the signature was made with.
	Algorithm SignatureAlgorithm
	// Params holds every parameter of the signed part of the URL (the
	// merchant's own query parameters too), decoded; the requestSignature
	// parameter is not part of it.
	Params url.Values
}

// Authorized reports whether the user authorized (status 2).
func (r *Redirect) Authorized() bool { return r.Status == models.StatusAuthorized }

// Canceled reports whether the user cancelled or the flow failed (status 7).
func (r *Redirect) Canceled() bool { return r.Status == models.StatusCanceled }

// RedirectOption changes how a redirect is verified.
type RedirectOption func(*redirectConfig)

type redirectConfig struct {
	queryOnly bool
	require   *sign.Algorithm
	expectRef *string
}

// RedirectExpectReference fails the check with ErrReferenceMismatch (and a
// nil Redirect) unless the signed merchantReference is exactly ref: the
// reference the merchant issued for the order or session the browser comes
// back to. An empty ref matches no redirect, so that a session with no
// pending order cannot accept one. The signature is checked first.
func RedirectExpectReference(ref string) RedirectOption {
	return func(c *redirectConfig) { c.expectRef = &ref }
}

// RedirectQueryOnly checks the signature the older API versions made over
// the query string alone (without scheme, host and path) instead of over the
// whole URL. Scheme, host and path are then not protected.
func RedirectQueryOnly() RedirectOption {
	return func(c *redirectConfig) { c.queryOnly = true }
}

// RedirectRequireAlgorithm accepts only signatures made with a (for a
// merchant configured for HMACSHA512, say); by default both are accepted.
func RedirectRequireAlgorithm(a SignatureAlgorithm) RedirectOption {
	return func(c *redirectConfig) {
		alg, ok := a.internal()
		if !ok {
			alg = -1 // matches no signature
		}
		c.require = &alg
	}
}

// VerifyRedirect checks the requestSignature of a return or cancel URL, as
// the user's browser requested it (scheme, host, path and query exactly as
// registered and received), and returns its parameters.
//
// The message is rawURL minus everything from "&requestSignature=" (with
// RedirectQueryOnly, the query string of that part), the signature is the
// URL-decoded rest, and the two are compared in constant time. Anything
// after the signature, including a parameter appended to the URL, makes the
// check fail, and the parameters are read from the signed part only.
//
// A valid signature proves that the service made the URL, not that it is
// meant for this browser, nor that it is the first time it is presented:
// it never expires, and it can be loaded again (browser history, a shared
// link, a Referer or a log line) or carried into another user's session.
// The merchant must bind the redirect to what it issued itself:
//   - check MerchantReference against the reference of the order stored in
//     the user's own session (RedirectExpectReference does it), and
//     TransactionID against the transactionId the establish call or the
//     front-end SDK returned for it, when known;
//   - act at most once per TransactionID (record it, and treat a second
//     redirect of it as a page reload, not a new payment);
//   - confirm the state with Transactions.Get before moving money or
//     shipping: the redirect only says the user finished the flow.
//
// Errors: ErrEmptyCredentials for an empty key, ErrMissingSignature,
// ErrUnsupportedAlgorithm (a prefix other than "HmacSHA512:"),
// ErrInvalidSignature, ErrMalformedRedirect for signed parameters that
// cannot be read, and ErrReferenceMismatch (RedirectExpectReference). On
// error the Redirect is nil: nothing is trusted.
func VerifyRedirect(rawURL, accessKey string, opts ...RedirectOption) (*Redirect, error) {
	var cfg redirectConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if accessKey == "" {
		return nil, opErr("verify redirect", ErrEmptyCredentials)
	}
	message, encodedSig, ok := sign.RedirectMessage(rawURL, cfg.queryOnly)
	if !ok {
		return nil, opErr("verify redirect", ErrMissingSignature)
	}
	sig, err := url.QueryUnescape(encodedSig)
	if err != nil {
		return nil, opErr("verify redirect", fmt.Errorf("%w: signature is not URL-encoded", ErrInvalidSignature))
	}
	// Base64 has no spaces: a "+" sent unescaped was decoded to " ".
	sig = strings.ReplaceAll(sig, " ", "+")
	if err := checkSignature(nil, accessKey, message, sig, cfg.require); err != nil {
		return nil, opErr("verify redirect", err)
	}
	query := message
	if !cfg.queryOnly {
		_, query, _ = strings.Cut(message, "?")
	}
	r, err := parseRedirect(query)
	if err != nil {
		return nil, opErr("verify redirect", fmt.Errorf("%w: %w", ErrMalformedRedirect, err))
	}
	if cfg.expectRef != nil && (*cfg.expectRef == "" || r.MerchantReference != *cfg.expectRef) {
		return nil, opErr("verify redirect", ErrReferenceMismatch)
	}
	if alg, _ := sign.AlgorithmOf(sig); alg == sign.SHA512 {
		r.Algorithm = HMACSHA512
	}
	return r, nil
}

// VerifyRedirectRequest is VerifyRedirect for the request a return or cancel
// URL handler receives, behind a proxy or load balancer that changes the
// scheme and host. publicBaseURL is the scheme and host the merchant
// registered in returnUrl and cancelUrl, plus any path prefix the proxy
// strips ("https://shop.example" or "https://shop.example/app"); the URL
// checked is publicBaseURL followed by the request URI exactly as received.
// Host and X-Forwarded-* headers are ignored: they are not trusted.
func VerifyRedirectRequest(r *http.Request, publicBaseURL, accessKey string, opts ...RedirectOption) (*Redirect, error) {
	if r == nil || r.URL == nil {
		return nil, opErr("verify redirect", fmt.Errorf("%w: no request", ErrMalformedRedirect))
	}
	base, err := url.Parse(publicBaseURL)
	if err != nil || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") ||
		base.User != nil || base.RawQuery != "" || base.Fragment != "" || strings.HasSuffix(publicBaseURL, "?") {
		return nil, opErr("verify redirect", fmt.Errorf("%w: public base URL must be an absolute http(s) URL without query", ErrMalformedRedirect))
	}
	uri := r.RequestURI // as received, escaping untouched
	if !strings.HasPrefix(uri, "/") {
		uri = r.URL.RequestURI() // a client-side request, or an absolute-form request target
	}
	return VerifyRedirect(strings.TrimRight(publicBaseURL, "/")+uri, accessKey, opts...)
}

// parseRedirect reads the typed parameters of a signed query string.
func parseRedirect(query string) (*Redirect, error) {
	q, err := parseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	p := params{v: q}
	r := &Redirect{Params: q}
	r.TransactionID = p.str("transactionId")
	r.MerchantReference = p.str("merchantReference")
	r.TransactionType = models.TransactionType(p.num("transactionType"))
	r.Status = models.TransactionStatus(p.num("status"))
	if s := p.str("payment.paymentType"); s != "" && p.err == nil {
		pt, err := models.ParsePaymentType(s)
		if err != nil {
			p.err = fmt.Errorf("payment.paymentType: %w", err)
		}
		r.PaymentType = pt
	}
	r.ProviderType = p.num("payment.paymentProvider.type")
	r.InstantPayoutAvailable = p.flag("payment.paymentProvider.instantPayoutAvailable") || p.flag("instantPayoutAvailable")
	r.AccountVerified = p.flag("payment.account.verified")
	r.Panel = p.num("panel")
	r.ProviderTransactionStatus = p.num("payment.paymentProviderTransaction.status")
	if p.err != nil {
		return nil, p.err
	}
	return r, nil
}

// parseQuery is url.ParseQuery (same values, same errors) with two
// allocations for the map and the value slices instead of one per key, plus
// one per escaped key or value. Queries of more than maxFastQueryParams
// parameters go to url.ParseQuery itself, with its limit on their number.
func parseQuery(query string) (url.Values, error) {
	n := strings.Count(query, "&") + 1
	if n > maxFastQueryParams {
		return url.ParseQuery(query)
	}
	m := make(url.Values, n)
	vals := make([]string, 0, n) // one array backs every key's first value
	var err error
	for query != "" {
		var key string
		key, query, _ = strings.Cut(query, "&")
		if strings.Contains(key, ";") {
			err = errors.New("invalid semicolon separator in query")
			continue
		}
		if key == "" {
			continue
		}
		key, value, _ := strings.Cut(key, "=")
		key, err1 := url.QueryUnescape(key)
		if err1 != nil {
			if err == nil {
				err = err1
			}
			continue
		}
		value, err1 = url.QueryUnescape(value)
		if err1 != nil {
			if err == nil {
				err = err1
			}
			continue
		}
		if vs, ok := m[key]; ok {
			m[key] = append(vs, value) // capacity == length: copies
			continue
		}
		vals = append(vals, value)
		m[key] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	return m, err
}

const maxFastQueryParams = 64

// params reads typed values from url.Values, keeping the first error. A
// repeated key is an error: its meaning would be ambiguous.
type params struct {
	v   url.Values
	err error
}

func (p *params) str(key string) string {
	vs := p.v[key]
	switch {
	case len(vs) == 0:
		return ""
	case len(vs) > 1:
		p.fail(fmt.Errorf("%s: repeated", key))
		return ""
	}
	return vs[0]
}

func (p *params) num(key string) int {
	s := p.str(key)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		p.fail(fmt.Errorf("%s: not a number", key))
		return 0
	}
	return n
}

func (p *params) flag(key string) bool {
	s := p.str(key)
	if s == "" {
		return false
	}
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		p.fail(fmt.Errorf("%s: not a boolean", key))
		return false
	}
	return b
}

func (p *params) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}
