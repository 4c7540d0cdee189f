package bankpay

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/faultinject"
)

// middleware is a retrying layer a merchant could hand to WithTransport.
type middleware struct {
	name string
	wrap func(http.RoundTripper) http.RoundTripper
}

// retryingMiddlewares are the two kinds of retrying middleware the guard
// must stop: go-retryablehttp's own RoundTripper, and a hand-written retry
// that buffers the body (and sets GetBody, inviting net/http to replay too).
var retryingMiddlewares = []middleware{
	{"retryablehttp.RoundTripper", retryableMiddleware},
	{"buffering retry", func(next http.RoundTripper) http.RoundTripper { return &bufferingRetry{next: next, tries: 4} }},
}

func retryableMiddleware(next http.RoundTripper) http.RoundTripper {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: next}
	rc.RetryMax = 3
	rc.RetryWaitMin, rc.RetryWaitMax = time.Millisecond, 2*time.Millisecond
	// Its default backoff waits a Retry-After, however long: the tests
	// do not wait a day.
	rc.Backoff = func(time.Duration, time.Duration, int, *http.Response) time.Duration { return time.Millisecond }
	rc.Logger = nil
	return &retryablehttp.RoundTripper{Client: rc}
}

// bufferingRetry reads the body once and sends it up to tries times while
// the answer is an error or a 5xx.
type bufferingRetry struct {
	next  http.RoundTripper
	tries int
	trips atomic.Int64
}

func (b *bufferingRetry) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
	}
	var (
		resp *http.Response
		err  error
	)
	for i := 0; i < b.tries; i++ {
		b.trips.Add(1)
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		resp, err = b.next.RoundTrip(r)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if i < b.tries-1 && resp != nil {
			_ = resp.Body.Close()
		}
	}
	return resp, err
}

// newGuardedClient starts a faultinject server that answers every request
// with fallback, and a client of it over HTTP/1.1 with opts added (a
// middleware, usually): the set-up of every guard test below. The server
// and its idle connections are closed when the test ends.
func newGuardedClient(t *testing.T, fallback faultinject.Action, opts ...Option) (*Client, *faultinject.Server) {
	t.Helper()
	s := faultinject.NewServer(nil)
	t.Cleanup(s.Close)
	s.SetFallback(fallback)
	tr := s.Transport()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := NewClient(testCreds, append([]Option{WithBaseURL(s.URL + "/api/v1"),
		WithHTTPClient(&http.Client{Transport: tr, Timeout: 5 * time.Second})}, opts...)...)
	require.NoError(t, err)
	c.cfg.waitScale = func(time.Duration) time.Duration { return 0 } // retries without the backoff's sleep
	return c, s
}

// requireOneSendReported: the caller is told the deposit may have been made
// (never a false "safe to retry"), and why it was not sent again.
func requireOneSendReported(t *testing.T, err error) {
	t.Helper()
	var ne *NetworkError
	require.ErrorAs(t, err, &ne, "err = %v", err)
	assert.True(t, ne.Sent, "the deposit reached the server once: Sent must be true (%v)", err)
	assert.ErrorIs(t, err, errResendRefused, "err = %v", err)
	assert.Equal(t, 1, ne.Attempts, "the SDK's own attempts")
}

// TestSendGuard_RetryingMiddlewareHTTP1: one Deposit on the wire under a 503 and
// under a reset after the request was read, whatever middleware retries.
func TestSendGuard_RetryingMiddlewareHTTP1(t *testing.T) {
	for _, mw := range retryingMiddlewares {
		for name, fault := range map[string]faultinject.Action{
			"503":                 faultinject.Respond(503, errorJSON),
			"reset after reading": faultinject.ResetAfterRequest(),
		} {
			t.Run(mw.name+"/"+name, func(t *testing.T) {
				c, s := newGuardedClient(t, fault, WithTransport(mw.wrap))
				_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-mw", Amount: "10.00"})
				require.Equal(t, 1, s.Requests(), "the deposit reached the server %d times (err %v)", s.Requests(), err)
				requireOneSendReported(t, err)
			})
		}
	}
}

// TestSendGuard_RetryingMiddlewareHTTP2: the same over HTTP/2 (the SDK's default
// transport, TLS and ALPN h2), where net/http itself would replay a stream
// the server resets if the middleware's request can rewind its body.
func TestSendGuard_RetryingMiddlewareHTTP2(t *testing.T) {
	for _, mw := range retryingMiddlewares {
		for name, fault := range map[string]faultinject.H2Action{
			"503":                 faultinject.H2Respond(http.StatusServiceUnavailable, errorJSON),
			"reset after reading": faultinject.H2Reset(),
		} {
			t.Run(mw.name+"/"+name, func(t *testing.T) {
				s := faultinject.NewH2Server(fault)
				defer s.Close()
				c := newH2Client(t, s, WithTransport(mw.wrap))
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "dep-h2", Amount: "10.00"})
				streams := s.Streams()
				require.Len(t, streams, 1, "the deposit reached the server %d times (err %v)", len(streams), err)
				assert.Equal(t, h2DepositBody, string(streams[0].Body))
				requireOneSendReported(t, err)
			})
		}
	}
}

// TestSendGuard_KeepsTheOptIn: with WithRetryNonIdempotent the SDK's retry rule
// still decides: 1 + MaxRetries sends, one per attempt of the SDK, however
// often the middleware tries.
func TestSendGuard_KeepsTheOptIn(t *testing.T) {
	for _, mw := range retryingMiddlewares {
		t.Run(mw.name, func(t *testing.T) {
			c, s := newGuardedClient(t, faultinject.Respond(503, errorJSON), WithTransport(mw.wrap), WithMaxRetries(2))
			c.cfg.waitScale = (&waits{}).record
			_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-opt", Amount: "10.00"}, WithRetryNonIdempotent())
			assert.Equal(t, 3, s.Requests(), "err %v", err)
			var ne *NetworkError
			require.ErrorAs(t, err, &ne)
			assert.True(t, ne.Sent)
			assert.Equal(t, 3, ne.Attempts)
		})
	}
}

// TestSendGuard_LetsAnUnsentSendBeTriedAgain: a dial the kernel refused sent
// nothing, so the middleware's second try of the same attempt goes out.
func TestSendGuard_LetsAnUnsentSendBeTriedAgain(t *testing.T) {
	mw := &bufferingRetry{tries: 2}
	c, s := newGuardedClient(t, faultinject.Respond(200, faultTxn), WithMaxRetries(0), WithTransport(func(next http.RoundTripper) http.RoundTripper { mw.next = next; return mw }))
	s.RefuseNext(1)
	_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-dial", Amount: "10.00"})
	require.NoError(t, err)
	assert.Equal(t, 1, s.Refused())
	assert.Equal(t, 1, s.Requests())
	assert.Equal(t, int64(2), mw.trips.Load())
}

// contextDropper sends each request with a context of its own.
type contextDropper struct{ next http.RoundTripper }

func (d contextDropper) RoundTrip(req *http.Request) (*http.Response, error) {
	return d.next.RoundTrip(req.WithContext(context.Background()))
}

// TestSendGuard_RefusesARequestThatLostItsContext: a state-changing request the
// guard cannot account for is refused (and nothing is sent); a read passes.
func TestSendGuard_RefusesARequestThatLostItsContext(t *testing.T) {
	c, s := newGuardedClient(t, faultinject.Respond(200, faultTxn), WithTransport(func(next http.RoundTripper) http.RoundTripper { return contextDropper{next} }))
	_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-ctx", Amount: "10.00"})
	require.ErrorIs(t, err, errResendRefused)
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.Sent, "nothing left")
	assert.Equal(t, 0, s.Requests())
	_, err = c.Transactions.Get(context.Background(), "1002600000000001") // faultTxn's
	require.NoError(t, err)
	assert.Equal(t, 1, s.Requests())
}

// badHeader adds a header net/http refuses to write.
type badHeader struct{ next http.RoundTripper }

func (b badHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header["X-Bad"] = []string{"a\x00b"}
	return b.next.RoundTrip(r)
}

// TestRefusedWriteIsNotSent: a request net/http refuses to write (here a
// header a middleware added) never left: Sent false, whatever the error's
// text, and it is not retried (it would be refused again).
func TestRefusedWriteIsNotSent(t *testing.T) {
	c, s := newGuardedClient(t, faultinject.Respond(200, faultTxn), WithTransport(func(next http.RoundTripper) http.RoundTripper { return badHeader{next} }))
	_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-hdr", Amount: "10.00"})
	var ne *NetworkError
	require.ErrorAs(t, err, &ne, "err = %v", err)
	assert.False(t, ne.Sent, "net/http refused to write it: nothing left (%v)", err)
	assert.Equal(t, 1, ne.Attempts, "not retried: it would be refused again")
	assert.Equal(t, 0, s.Requests())
	assert.Equal(t, 0, s.Conns(), "not even a connection")
}

// TestRetryingHTTPClientRefused: go-retryablehttp's StandardClient would
// retry below the guard; WithHTTPClient refuses it, and the same
// middleware given to WithTransport is stopped by the guard.
func TestRetryingHTTPClientRefused(t *testing.T) {
	_, err := NewClient(testCreds, WithHTTPClient(retryablehttp.NewClient().StandardClient()))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "httpClient", ve.Field)
	assert.Contains(t, ve.Reason, "WithTransport")
	_, err = NewClient(testCreds, WithTransport(retryableMiddleware))
	require.NoError(t, err)
}

// headerSpy records the headers a middleware sees.
type headerSpy struct {
	next http.RoundTripper
	seen []http.Header
}

func (s *headerSpy) RoundTrip(req *http.Request) (*http.Response, error) {
	s.seen = append(s.seen, req.Header.Clone())
	return s.next.RoundTrip(req)
}

// getAndDeposit makes a read and a state-changing call through c, both
// answered 200 with faultTxn (the read asks for its transaction): the two
// kinds of request a spying middleware must see.
func getAndDeposit(t *testing.T, c *Client) {
	t.Helper()
	_, err := c.Transactions.Get(context.Background(), "1002600000000001")
	require.NoError(t, err)
	_, err = c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-spy", Amount: "10.00"})
	require.NoError(t, err)
}

// requireServerGotCredentials: the n requests s received each carried c's
// Authorization header (the guard set it below the middleware).
func requireServerGotCredentials(t *testing.T, c *Client, s *faultinject.Server, n int) {
	t.Helper()
	got := s.Received()
	require.Len(t, got, n)
	for _, r := range got {
		assert.Equal(t, c.secrets.authHeader(), r.Header.Get("Authorization"))
	}
}

// TestMiddlewareSeesNoCredentials: the guard, below the middleware, sets
// the Authorization header: a tracing middleware that records headers
// records no credentials, and the server still gets them, on reads and on
// state-changing calls.
func TestMiddlewareSeesNoCredentials(t *testing.T) {
	spy := &headerSpy{}
	c, s := newGuardedClient(t, faultinject.Respond(200, faultTxn), WithTransport(func(next http.RoundTripper) http.RoundTripper { spy.next = next; return spy }))
	getAndDeposit(t, c)
	require.Len(t, spy.seen, 2)
	for _, h := range spy.seen {
		assert.Empty(t, h.Values("Authorization"))
		assert.NotEmpty(t, h.Get("User-Agent"))
	}
	requireServerGotCredentials(t, c, s, 2)
}

// TestSendGuard_SendsNoCredentialsElsewhere: a middleware whose own http.Client
// follows redirects (go-retryablehttp's RoundTripper does, with net/http's
// default policy) sends a GET that the API answers with a redirect to
// another host through the guard. net/http drops Authorization on a redirect
// to another host; the guard, below it, must not put the credentials back on
// a request to a host that is not the API's.
func TestSendGuard_SendsNoCredentialsElsewhere(t *testing.T) {
	var leaked atomic.Value
	leaked.Store("")
	var reached atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		leaked.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, faultTxn)
	}))
	defer evil.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+"/steal", http.StatusFound)
	}))
	defer api.Close()
	c, err := NewClient(testCreds, WithBaseURL(api.URL+"/api/v1"), WithTransport(retryableMiddleware))
	require.NoError(t, err)
	defer c.Close()
	_, _ = c.Transactions.Get(context.Background(), "T1")
	require.Positive(t, reached.Load(), "the middleware followed the redirect (else nothing here is tested)")
	assert.Empty(t, leaked.Load(), "the access key was sent to the redirect's host")
}

// respSpy records the headers of the request each response says it answers.
type respSpy struct {
	next http.RoundTripper
	seen []http.Header
}

func (s *respSpy) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(req)
	if resp != nil && resp.Request != nil {
		s.seen = append(s.seen, resp.Request.Header.Clone())
	}
	return resp, err
}

// TestMiddlewareSeesNoCredentialsInResponses: the response a middleware
// gets from the guard names the request it answers (net/http sets
// resp.Request): that request must not be the guard's copy that carries
// the Authorization header, or a middleware that logs resp.Request's
// headers logs the access key.
func TestMiddlewareSeesNoCredentialsInResponses(t *testing.T) {
	spy := &respSpy{}
	c, _ := newGuardedClient(t, faultinject.Respond(200, faultTxn), WithTransport(func(next http.RoundTripper) http.RoundTripper { spy.next = next; return spy }))
	getAndDeposit(t, c)
	require.Len(t, spy.seen, 2)
	for _, h := range spy.seen {
		assert.Empty(t, h.Values("Authorization"), "resp.Request carries the credentials")
	}
}

// traceSpy installs an httptrace.ClientTrace that records every header
// field net/http writes, as a tracing middleware may.
type traceSpy struct {
	next   http.RoundTripper
	mu     sync.Mutex
	fields []string
}

func (s *traceSpy) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteHeaderField: func(k string, vs []string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.fields = append(s.fields, k+": "+strings.Join(vs, ","))
		},
	})
	return s.next.RoundTrip(req.WithContext(ctx))
}

// TestMiddlewareTraceSeesNoCredentials: a middleware's httptrace hooks run
// below the guard, as net/http writes the request: WroteHeaderField must not
// hand it the Authorization header the guard set.
func TestMiddlewareTraceSeesNoCredentials(t *testing.T) {
	spy := &traceSpy{}
	c, s := newGuardedClient(t, faultinject.Respond(200, faultTxn), WithTransport(func(next http.RoundTripper) http.RoundTripper { spy.next = next; return spy }))
	getAndDeposit(t, c)
	spy.mu.Lock()
	defer spy.mu.Unlock()
	require.NotEmpty(t, spy.fields, "the hook ran")
	for _, f := range spy.fields {
		assert.NotContains(t, strings.ToLower(f), "authorization", "the trace hook saw the credentials")
		assertNoSecret(t, f)
	}
	requireServerGotCredentials(t, c, s, 2)
}
