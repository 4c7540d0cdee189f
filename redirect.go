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
// signed part is not a redirect: a parameter that is repeated, not a number
// where the service sends one (status, transactionType, payment.paymentType,
// payment.paymentProvider.type, panel) or not a boolean, a missing
// transactionId or status, a key of establish data or of an event
// notification (see Redirect), a redirect parameter before transactionId
// (put into the returnUrl by someone else than the service), a URL that is
// not absolute http(s) (full-URL mode), or unsigned parameters that cannot
// be decoded. Also a
// VerifyRedirectRequest call with an unusable public base URL.
var ErrMalformedRedirect = errors.New("bankpay: malformed redirect")

// ErrReferenceMismatch: a redirect whose signature is valid but whose signed
// merchantReference is not the one given to RedirectExpectReference: a
// genuine redirect of another order or session (a replayed or swapped return
// URL). Reject it.
var ErrReferenceMismatch = errors.New("bankpay: redirect merchantReference mismatch")

// Redirect is what the service tells the merchant when it sends the user back
// to the returnUrl (authorized) or the cancelUrl (cancelled or failed). Every
// typed field and Params come from the signed part of the URL; Unsigned
// holds what follows the signature.
//
// The signed part must read as a redirect: it has transactionId and status,
// no parameter twice, and none of the keys of establish data (accessId,
// merchantId, description, currency, amount, paymentType, customer.*,
// account.*, …, all but merchantReference and transactionId) or of event
// notifications (eventId, eventType, objectId, objectType, createdAt, …):
// the merchant's access key also signs those, and such a signature must
// never pass for a redirect. The merchant's own query parameters in
// returnUrl and cancelUrl are kept in Params, so they must not use these
// names nor a redirect parameter's (SignEstablishData refuses such a URL).
// Nor may a redirect parameter come before transactionId, the first of the
// service's: the returnUrl travels unsigned through the user's browser, so
// such a one was added by the user, then signed by the service.
type Redirect struct {
	TransactionID     string
	TransactionType   models.TransactionType // 1 (Authorize); models.TypeUnknown when not given
	MerchantReference string
	// Status is StatusAuthorized (2) on the returnUrl and StatusCanceled
	// (7) on the cancelUrl.
	Status       models.TransactionStatus
	PaymentType  models.PaymentType // 2 (Deferred)
	ProviderType int                // payment.paymentProvider.type, 1 (Online Banking)
	// InstantPayoutAvailable is the signed
	// payment.paymentProvider.instantPayoutAvailable, instantPayoutAvailable
	// or instantPayoutAvail (refused when two of them disagree). It is false
	// when none is signed: the service may send instantPayoutAvail after the
	// signature, where it is in Unsigned only.
	InstantPayoutAvailable bool
	AccountVerified        bool // payment.account.verified
	// Panel is the screen where the user left the flow.
	Panel int
	// ProviderTransactionStatus is payment.paymentProviderTransaction.status,
	// a code such as "AC100" or "UC01" (user cancelled at bank selection),
	// kept as received.
	ProviderTransactionStatus models.ProviderStatus
	// Algorithm is the algorithm the signature was made with: "HMAC-SHA1" or
	// "HMAC-SHA512".
	Algorithm string
	// Params holds every parameter of the signed part of the URL (the
	// merchant's own query parameters too), decoded; the requestSignature
	// parameter is not part of it. The service signs the returnUrl it was
	// given, which the merchant does not sign and the user can rewrite:
	// the merchant's own parameters are the user's to change (keep the
	// order or session in the user's session, not in the returnUrl).
	Params url.Values
	// Unsigned holds the parameters after the signature, decoded (the
	// service appends some, such as instantPayoutAvail=true); nil when there
	// are none. No signature covers them: anyone can add or change them, no
	// other field is read from them, and one that repeats a signed
	// parameter fails the check. Treat them as untrusted hints and confirm
	// what they say (instant payout availability) with Transactions.Get.
	Unsigned url.Values
}

// RedirectExpectReference fails the check with ErrReferenceMismatch (and a
// nil Redirect) unless the signed merchantReference is exactly ref: the
// reference the merchant issued for the order or session the browser comes
// back to. An empty ref matches no redirect, so that a session with no
// pending order cannot accept one. The signature is checked first.
// Redirect checks only.
func RedirectExpectReference(ref string) Option {
	return option("RedirectExpectReference", forRedirect, func(cfg *config) { cfg.redirect.expectRef = &ref })
}

// RedirectQueryOnly checks the signature the older API versions made over
// the query string alone (without scheme, host and path) instead of over the
// whole URL. Scheme, host and path are then not protected. Redirect checks
// only.
func RedirectQueryOnly() Option {
	return option("RedirectQueryOnly", forRedirect, func(cfg *config) { cfg.redirect.queryOnly = true })
}

// VerifyRedirect checks the requestSignature of a return or cancel URL, as
// the user's browser requested it (scheme, host, path and query exactly as
// registered and received), with the access key of creds (the Credentials
// given to NewClient and NewWebhookHandler; only AccessKey is used), and
// returns its parameters.
//
// The message is rawURL up to the first "&requestSignature=" (with
// RedirectQueryOnly, the query string of that part); the signature is the
// URL-decoded value of that parameter, up to the next "&"; the two are
// compared in constant time. The parameters after the signature are not
// signed: they go to Redirect.Unsigned and nowhere else, and one that
// repeats a signed parameter (or the signature) fails the check. The signed
// part must then read as a redirect (see Redirect), so that no other
// signature made with the access key (of establish data, of a notification)
// passes for one.
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
// Errors: errEmptyCredentials for an empty AccessKey, errMissingSignature,
// errUnsupportedAlgorithm (a prefix other than "HmacSHA512:"),
// ErrInvalidSignature (also for an unsigned parameter that repeats a signed
// one), ErrMalformedRedirect for a signed part that is not a redirect, and
// ErrReferenceMismatch (RedirectExpectReference). On error the Redirect is
// nil: nothing is trusted.
func VerifyRedirect(rawURL string, creds Credentials, opts ...Option) (*Redirect, error) {
	all := config{target: forRedirect}
	if err := all.apply(opts); err != nil {
		return nil, err
	}
	cfg := all.redirect
	accessKey := creds.AccessKey.Reveal()
	if accessKey == "" {
		return nil, opErr("verify redirect", errEmptyCredentials)
	}
	message, encodedSig, unsigned, ok := sign.RedirectMessage(rawURL, cfg.queryOnly)
	if !ok {
		return nil, opErr("verify redirect", errMissingSignature)
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
		// An establish canonical string starts "accessId=", a notification
		// body with a field name: neither is an absolute URL.
		if !hasHTTPScheme(message) {
			return nil, opErr("verify redirect", fmt.Errorf("%w: not an absolute http(s) URL", ErrMalformedRedirect))
		}
		_, query, _ = strings.Cut(message, "?")
	}
	// A URL's query carries no raw '"' (RFC 3986; browsers escape it): a
	// query that does is other text signed with the same key, such as a
	// JSON notification (every JSON object has one) whose values hold the
	// redirect's parameters.
	if strings.IndexByte(query, '"') >= 0 {
		return nil, opErr("verify redirect", fmt.Errorf("%w: the signed query holds a '\"': not a URL's query", ErrMalformedRedirect))
	}
	r, err := parseRedirect(query)
	if err != nil {
		return nil, opErr("verify redirect", fmt.Errorf("%w: %w", ErrMalformedRedirect, err))
	}
	if unsigned != "" {
		if r.Unsigned, err = parseUnsigned(unsigned, r.Params); err != nil {
			return nil, opErr("verify redirect", err)
		}
	}
	if cfg.expectRef != nil && (*cfg.expectRef == "" || r.MerchantReference != *cfg.expectRef) {
		return nil, opErr("verify redirect", ErrReferenceMismatch)
	}
	r.Algorithm = hmacSHA1.name()
	if alg, _ := sign.AlgorithmOf(sig); alg == sign.SHA512 {
		r.Algorithm = hmacSHA512.name()
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
func VerifyRedirectRequest(r *http.Request, publicBaseURL string, creds Credentials, opts ...Option) (*Redirect, error) {
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
	return VerifyRedirect(strings.TrimRight(publicBaseURL, "/")+uri, creds, opts...)
}

// hasHTTPScheme reports whether u starts with "http://" or "https://", in
// any case.
func hasHTTPScheme(u string) bool {
	for _, p := range [...]string{"https://", "http://"} {
		if len(u) >= len(p) && strings.EqualFold(u[:len(p)], p) {
			return true
		}
	}
	return false
}

// parseUnsigned decodes the parameters after the signature. One that
// repeats a signed parameter or the signature is a tampered URL.
func parseUnsigned(raw string, signed url.Values) (url.Values, error) {
	u, err := parseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: unsigned parameters: %w", ErrMalformedRedirect, err)
	}
	for k := range u {
		if _, ok := signed[k]; ok || k == "requestSignature" {
			return nil, fmt.Errorf("%w: a parameter after the signature repeats a signed one", ErrInvalidSignature)
		}
	}
	return u, nil
}

// parseRedirect reads a redirect from a signed query string, refusing one
// that is not a redirect (see Redirect).
func parseRedirect(query string) (*Redirect, error) {
	q, err := parseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if err := checkServiceOrder(query); err != nil {
		return nil, err
	}
	r := &Redirect{Params: q, TransactionType: models.TypeUnknown} // until it gives one
	// Keys are visited in map order: of several faults, the one of the
	// smallest key is reported, so that the error does not vary.
	var fault keyFault
	var payout, payoutSeen, hasStatus bool
	for k, vs := range q {
		if len(vs) > 1 {
			fault.set(k, "repeated")
			continue
		}
		v := vs[0]
		switch k {
		case "transactionId":
			r.TransactionID = v
		case "merchantReference":
			r.MerchantReference = v
		case "transactionType":
			if v != "" {
				r.TransactionType = models.TransactionType(fault.code(k, v))
			}
		case "status":
			hasStatus = v != ""
			r.Status = models.TransactionStatus(fault.code(k, v))
		case "payment.paymentType":
			r.PaymentType = models.PaymentType(fault.code(k, v))
		case "payment.paymentProvider.type":
			r.ProviderType = fault.code(k, v)
		case "panel":
			r.Panel = fault.code(k, v)
		case "payment.paymentProviderTransaction.status":
			r.ProviderTransactionStatus = models.ProviderStatus(v)
		case "payment.account.verified":
			r.AccountVerified = fault.flag(k, v)
		case "payment.paymentProvider.instantPayoutAvailable", "instantPayoutAvailable", "instantPayoutAvail":
			if v == "" {
				continue
			}
			b := fault.flag(k, v)
			if payoutSeen && b != payout {
				fault.set("instantPayoutAvailable", "two spellings disagree")
			}
			payout, payoutSeen = b, true
		default:
			if notRedirectKey(k) {
				fault.set(k, "not a redirect parameter")
			}
		}
	}
	r.InstantPayoutAvailable = payout
	switch {
	case fault.err != nil:
		return nil, fault.err
	case r.TransactionID == "":
		return nil, errors.New("transactionId: missing")
	case !hasStatus:
		return nil, errors.New("status: missing")
	}
	return r, nil
}

// checkServiceOrder refuses a redirect parameter before the first
// transactionId. The service appends its parameters to the returnUrl or
// cancelUrl starting with transactionId, and the merchant's own query may
// not use their names (SignEstablishData refuses such a URL); but those URLs
// are not signed by the merchant and travel through the user's browser, so
// the user can add instantPayoutAvailable=true, say, to the query, which the
// service then signs along with its own parameters.
func checkServiceOrder(query string) error {
	for query != "" {
		var kv string
		kv, query, _ = strings.Cut(query, "&")
		k, _, _ := strings.Cut(kv, "=")
		if strings.ContainsAny(k, "%+") {
			if uk, err := url.QueryUnescape(k); err == nil {
				k = uk
			}
		}
		if k == "transactionId" {
			return nil
		}
		if reservedRedirectKey(k) {
			return fmt.Errorf("%s: before transactionId, not a parameter of the service", clipKey(k))
		}
	}
	return nil
}

// keyFault keeps the fault of the smallest key among those reported.
type keyFault struct {
	key string
	err error
}

func (f *keyFault) set(key, reason string) {
	if f.err == nil || key < f.key {
		f.key, f.err = key, fmt.Errorf("%s: %s", clipKey(key), reason)
	}
}

// code reads a non-negative decimal code of at most 9 digits, no sign or
// space; an empty value is 0.
func (f *keyFault) code(key, v string) int {
	if len(v) > 9 {
		f.set(key, "not a number")
		return 0
	}
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			f.set(key, "not a number")
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// flag reads a boolean (strconv.ParseBool); an empty value is false.
func (f *keyFault) flag(key, v string) bool {
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		f.set(key, "not a boolean")
	}
	return b
}

// parseQuery is url.ParseQuery (same values, same errors) with two
// allocations for the map and the value slices instead of one per key, plus
// one per escaped key or value. Queries of more than maxFastQueryParams
// parameters go to url.ParseQuery itself, with its limit on their number.
//
// It is kept for its measured cost: with url.ParseQuery in its place,
// BenchmarkVerifyRedirect (interleaved, 3 runs of -benchtime 0.3s, 2 cores)
// went from sdk/base 1.007-1.031 wall and 1.005-1.022 CPU, 23 allocs a call,
// to 1.248-1.292 wall and 1.249-1.270 CPU, 33 allocs (the baseline: 27).
// FuzzParseQuery (redirect_test.go) checks it against url.ParseQuery.
func parseQuery(query string) (url.Values, error) {
	n := strings.Count(query, "&") + 1
	if n > maxFastQueryParams {
		return url.ParseQuery(query)
	}
	m := make(url.Values, n)
	vals := make([]string, 0, n) // one array backs every key's first value
	// With no '%' and no '+' anywhere, nothing needs unescaping.
	plain := strings.IndexByte(query, '%') < 0 && strings.IndexByte(query, '+') < 0
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
		if plain {
			m, vals = addQueryValue(m, vals, key, value)
			continue
		}
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
		m, vals = addQueryValue(m, vals, key, value)
	}
	return m, err
}

// addQueryValue adds value to key in m; vals backs first values.
func addQueryValue(m url.Values, vals []string, key, value string) (url.Values, []string) {
	if vs, ok := m[key]; ok {
		m[key] = append(vs, value) // capacity == length: copies
		return m, vals
	}
	vals = append(vals, value)
	m[key] = vals[len(vals)-1 : len(vals) : len(vals)]
	return m, vals
}

const maxFastQueryParams = 64
