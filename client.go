package bankpay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/bankpay/bankpay-go/internal/sign"
)

// Base URLs of the service. The sandbox is the default.
const (
	SandboxBaseURL    = "https://sandbox.trustly.one/api/v1"
	ProductionBaseURL = "https://trustly.one/api/v1"
)

// version is the SDK version sent in the User-Agent.
const version = "0.2.0"

// Defaults of a new Client.
const (
	defaultMaxRetries       = 3
	defaultTimeout          = 30 * time.Second
	defaultRetryWaitMin     = 250 * time.Millisecond
	defaultRetryWaitMax     = 5 * time.Second
	defaultMaxRetryAfter    = 30 * time.Second
	defaultMaxResponseBytes = 8 << 20
)

// Client talks to the service. Create it with NewClient; it is safe for
// concurrent use by many goroutines. Printed or logged, it shows only its
// base URL and redacted credentials.
type Client struct {
	// Services, one per resource.
	Transactions *TransactionsService
	Accounts     *AccountsService
	Customers    *CustomersService
	Identity     *IdentityService

	secrets            *secrets // a pointer, so that %v of a Client shows no key
	baseURL            string   // no trailing slash
	http               *retryablehttp.Client
	logger             *slog.Logger
	userAgent          string
	retryNonIdempotent bool
	maxRetryAfter      time.Duration
	maxResponseBytes   int64
	waitScale          func(time.Duration) time.Duration // test hook: the fake clock of retries
	signAlg            sign.Algorithm                    // algorithm of SignEstablishData and Establish
	macs               *sign.MACCache                    // keyed HMAC states of this client's key
}

type service struct{ client *Client }

// Option configures a Client.
type Option func(*Client) error

// WithBaseURL sets the API base URL, ending in /api/v1 (SandboxBaseURL by
// default; ProductionBaseURL for live money). It must be https, or http on
// a loopback address (a local sandbox).
func WithBaseURL(raw string) Option {
	return func(c *Client) error {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return invalid("baseURL", "must be an absolute http(s) URL")
		}
		if u.Scheme == "http" && !isLoopback(u.Hostname()) {
			return invalid("baseURL", "plain http is allowed only on a loopback address; use https")
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return invalid("baseURL", "must not carry user info, a query or a fragment")
		}
		c.baseURL = strings.TrimRight(u.String(), "/")
		return nil
	}
}

// WithHTTPClient sets the HTTP client the retry layer sends through (its
// Transport, Timeout, Jar and redirect policy, as they are when NewClient
// runs; hc itself is not modified). Its Timeout bounds each attempt: with
// no Timeout, only the call's context bounds a server that never answers.
// Its redirect policy applies to reads only, and to redirects on the same
// scheme and host: a state-changing call, or a redirect elsewhere, is not
// followed (its 3xx answer is an *APIError). Tests put a mock
// transport here.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return invalid("httpClient", "must not be nil")
		}
		c.http.HTTPClient = hc
		return nil
	}
}

// WithLogger logs each attempt, retry and outcome at debug level and
// failures at warn level: method, path, status, attempt and duration, never
// credentials or bodies. The default logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		c.logger = l
		return nil
	}
}

// WithMaxRetries sets how many times a retryable call is retried (3 by
// default; 0 disables retries).
func WithMaxRetries(n int) Option {
	return func(c *Client) error {
		if n < 0 {
			return invalid("maxRetries", "must not be negative")
		}
		c.http.RetryMax = n
		return nil
	}
}

// WithRetryBackoff sets the bounds of the jittered exponential backoff
// between retries (250ms and 5s by default).
func WithRetryBackoff(minWait, maxWait time.Duration) Option {
	return func(c *Client) error {
		if minWait < 0 || maxWait < minWait {
			return invalid("retryBackoff", "needs 0 <= min <= max")
		}
		c.http.RetryWaitMin, c.http.RetryWaitMax = minWait, maxWait
		return nil
	}
}

// WithMaxRetryAfter caps the server's Retry-After: an answer asking for a
// longer wait is not retried, and its *APIError carries RetryAfter (30s by
// default).
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return invalid("maxRetryAfter", "must not be negative")
		}
		c.maxRetryAfter = d
		return nil
	}
}

// WithMaxResponseBytes caps the size of an answer the client reads (8 MiB by
// default); a larger one fails with errResponseTooLarge.
func WithMaxResponseBytes(n int64) Option {
	return func(c *Client) error {
		if n <= 0 {
			return invalid("maxResponseBytes", "must be positive")
		}
		c.maxResponseBytes = n
		return nil
	}
}

// WithUserAgent puts ua before the SDK's own User-Agent.
func WithUserAgent(ua string) Option {
	return func(c *Client) error {
		if strings.ContainsAny(ua, "\r\n") {
			return invalid("userAgent", "must not contain line breaks")
		}
		c.userAgent = strings.TrimSpace(ua + " " + c.userAgent)
		return nil
	}
}

// WithRetryNonIdempotent lets the client retry state-changing calls
// (establish, deposit, capture, feedback, customer updates, tokenize) on
// 5xx, 429 and network errors, not only when the request never left. Use it
// only when the merchant account is configured for merchantReference
// idempotency: a repeat then answers code 210 (ErrDuplicate) instead of
// paying twice. RetryNonIdempotent does the same for one call.
func WithRetryNonIdempotent() Option {
	return func(c *Client) error {
		c.retryNonIdempotent = true
		return nil
	}
}

// CallOption changes one call.
type CallOption func(*callConfig)

type callConfig struct {
	retryNonIdempotent bool
}

// RetryNonIdempotent lets this state-changing call be retried like a read
// (see WithRetryNonIdempotent). Pass it only with a merchantReference the
// account treats as an idempotency key.
func RetryNonIdempotent() CallOption {
	return func(cc *callConfig) { cc.retryNonIdempotent = true }
}

// NewClient returns a Client for the merchant's credentials. It fails, with
// a *ValidationError, on empty credentials or a bad option.
func NewClient(creds Credentials, opts ...Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	c := &Client{
		macs:             &sign.MACCache{},
		secrets:          newSecrets(creds),
		baseURL:          SandboxBaseURL,
		userAgent:        "bankpay-go/" + version,
		maxRetryAfter:    defaultMaxRetryAfter,
		maxResponseBytes: defaultMaxResponseBytes,
		http: &retryablehttp.Client{
			RetryWaitMin: defaultRetryWaitMin,
			RetryWaitMax: defaultRetryWaitMax,
			RetryMax:     defaultMaxRetries,
		},
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if c.http.HTTPClient == nil {
		hc := cleanhttp.DefaultPooledClient()
		hc.Timeout = defaultTimeout
		// The API answers every call itself: a 3xx is an *APIError, not
		// another object to read in its place.
		hc.CheckRedirect = refuseRedirect
		// A Client talks to one host, often from many goroutines: keep as
		// many idle connections to it as the pool holds in all, not
		// cleanhttp's GOMAXPROCS+1, which makes a busy shared Client open
		// and close connections all the time.
		if tr, ok := hc.Transport.(*http.Transport); ok {
			tr.MaxIdleConnsPerHost = tr.MaxIdleConns
		}
		c.http.HTTPClient = hc
	}
	c.http.HTTPClient = keepAlive(c.http.HTTPClient)
	c.http.CheckRetry = c.checkRetry
	c.http.Backoff = c.backoff
	c.http.ErrorHandler = passThrough
	c.http.RequestLogHook = c.logAttempt
	s := &service{client: c}
	c.Transactions = (*TransactionsService)(s)
	c.Accounts = (*AccountsService)(s)
	c.Customers = (*CustomersService)(s)
	c.Identity = (*IdentityService)(s)
	return c, nil
}

// String describes the client by its base URL and redacted credentials.
func (c Client) String() string {
	return "bankpay.Client{BaseURL:" + c.baseURL + " Credentials:" + c.creds().String() + "}"
}

// Format makes every fmt verb print String (%p of a *Client prints the
// pointer), so that no verb shows the access key.
func (c Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue shows slog the base URL and the redacted credentials.
func (c Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("baseURL", c.baseURL), slog.Any("credentials", c.creds()))
}

// creds are the client's credentials; none for a zero Client.
func (c *Client) creds() Credentials {
	if c.secrets == nil {
		return Credentials{}
	}
	return c.secrets.creds
}

// Credentials returns the client's credentials (their String hides the key).
func (c *Client) Credentials() Credentials { return c.creds() }

// BaseURL returns the API base URL the client calls.
func (c *Client) BaseURL() string { return c.baseURL }

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// keepAlive returns a copy of hc (same Timeout, Jar and redirect policy)
// whose transport keeps connections alive across failures:
//
//   - closing an answer's body first reads what is left of it, up to
//     maxDrain bytes, so that the connection goes back to the pool (the
//     retry layer drains only 4 KiB of an answer it retries);
//   - the retry layer cannot close the pool's idle connections, which it
//     does whenever a call fails, taking the connections of every other
//     call of a shared Client with it.
//
// The caller's http.Client is not modified.
func keepAlive(hc *http.Client) *http.Client {
	if _, ok := hc.Transport.(keepAliveTransport); ok {
		return hc
	}
	cp := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp.Transport = keepAliveTransport{base}
	cp.CheckRedirect = redirectPolicy(hc.CheckRedirect)
	return &cp
}

// refuseRedirect is a CheckRedirect that follows no redirect: the client
// gets the 3xx answer itself.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// redirectPolicy wraps a CheckRedirect policy (nil: net/http's default) so
// that only reads follow redirects, and only on the scheme and host they
// started on. Following one for a state-changing call would either turn it
// into a GET (301, 302, 303), whose answer would then be decoded as the
// call's result, or send the money-moving body again to another address
// (307, 308); following one elsewhere would send the credentials there,
// or in clear over http. The 3xx answer comes back as an *APIError.
func redirectPolicy(policy func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0]
		if m := first.Method; m != http.MethodGet && m != http.MethodHead {
			return http.ErrUseLastResponse
		}
		if req.URL.Scheme != first.URL.Scheme || !strings.EqualFold(req.URL.Host, first.URL.Host) {
			return http.ErrUseLastResponse
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) >= 10 { // net/http's default policy
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// maxDrain bounds what is read of an unread answer before its connection
// is given up.
const maxDrain = 64 << 10

// keepAliveTransport is the transport of keepAlive. It has no
// CloseIdleConnections method on purpose.
type keepAliveTransport struct{ base http.RoundTripper }

func (t keepAliveTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil && resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = drainOnClose{resp.Body}
	}
	return resp, err
}

// Close closes the idle connections of the client's transport (with
// WithHTTPClient, of that client's transport). Calls in flight finish, and
// the Client stays usable: a later call opens a new connection. It returns
// nil.
func (c *Client) Close() error {
	type closeIdler interface{ CloseIdleConnections() }
	if t, ok := c.http.HTTPClient.Transport.(keepAliveTransport); ok {
		if ci, ok := t.base.(closeIdler); ok {
			ci.CloseIdleConnections()
		}
	}
	return nil
}

type drainOnClose struct{ io.ReadCloser }

func (b drainOnClose) Close() error {
	_, _ = io.Copy(io.Discard, io.LimitReader(b.ReadCloser, maxDrain))
	return b.ReadCloser.Close()
}

// passThrough hands the last answer (or transport error) to the pipeline, so
// that the caller gets the typed error of the last attempt, not a generic
// "giving up" message.
func passThrough(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}

// attempt is the per-call state the retry layer sees through the context.
type attempt struct {
	retryAll bool // a read, or a state-changing call the caller opted in to retry
	read     bool // a read: a 2xx answer cut short is retried too
	count    int
	sent     bool // some attempt may have reached the server

	buf     *[]byte // pooled buffer of the 2xx body (see readAnswer)
	body    []byte  // the 2xx body of the last answer
	bodyErr error   // why that body could not be read whole
}

type attemptKey struct{}

func attemptOf(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	if a == nil {
		return &attempt{}
	}
	return a
}

// checkRetry is the retry rule: reads are retried on connection errors, 429,
// 500, 502, 503 and 504; a state-changing call only when the request
// provably never reached the server, unless the caller opted in. A
// Retry-After beyond the cap stops the retries.
//
// Nor is a retry made whose wait (the Retry-After, or the longest backoff
// of this retry) would outlast the context's deadline: the caller gets the
// last answer now instead of a deadline error later.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	a := attemptOf(ctx)
	if resp != nil || !neverSent(err) {
		a.sent = true
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	retry := false
	if err != nil {
		retry = neverSent(err) || (a.retryAll && transient(err))
	} else {
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			if d, ok := retryAfter(resp); ok && d > c.maxRetryAfter {
				return false, nil
			}
			retry = a.retryAll
		}
	}
	if retry {
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= c.nextWaitCeiling(resp, a.count-1) {
			return false, nil
		}
	}
	return retry, nil
}

// nextWaitCeiling is the longest the n-th retry (from 0) waits: the
// Retry-After of resp, or the cap of the jittered backoff.
func (c *Client) nextWaitCeiling(resp *http.Response, n int) time.Duration {
	if d, ok := retryAfter(resp); ok {
		return d
	}
	return backoffCeiling(c.http.RetryWaitMin, c.http.RetryWaitMax, n)
}

// neverSent reports whether err proves the request never reached a server:
// the connection could not be made, or the host could not be resolved.
func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// transient reports whether a transport error is worth retrying at all
// (not a bad certificate, a bad URL or too many redirects).
func transient(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) {
		msg := ue.Err.Error()
		if strings.Contains(msg, "certificate") || strings.Contains(msg, "stopped after") ||
			strings.Contains(msg, "unsupported protocol scheme") {
			return false
		}
	}
	return true
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		const year = uint64(365 * 24 * time.Hour / time.Second)
		if err != nil || secs > year {
			secs = year // an absurd value still says "not soon"
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := time.Until(t)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// backoff waits the server's Retry-After (already known to be under the cap)
// or a jittered exponential delay between min and max.
func (c *Client) backoff(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
	d, ok := retryAfter(resp)
	if !ok {
		d = jitteredBackoff(minWait, maxWait, n)
	}
	if c.waitScale != nil {
		return c.waitScale(d)
	}
	return d
}

func (c *Client) logAttempt(_ retryablehttp.Logger, req *http.Request, n int) {
	a := attemptOf(req.Context())
	a.count = n + 1
	if c.logger != nil && n > 0 {
		c.logger.LogAttrs(req.Context(), slog.LevelDebug, "bankpay: retrying",
			slog.String("method", req.Method), slog.String("path", req.URL.Path), slog.Int("attempt", n+1))
	}
}
