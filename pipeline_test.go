package bankpay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/internal/jsonbody"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithResponseInto hands back a response whose request (and the requests
// of the redirects before it) carries no credentials, and whose headers
// are scrubbed of an echo of them; the SDK's own requests still carried the
// Authorization header.
func TestResponseIntoCarriesNoCredentials(t *testing.T) {
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		if strings.HasSuffix(r.URL.Path, "/T1") {
			http.Redirect(w, r, "/api/v1/transactions/T2", http.StatusFound)
			return
		}
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, aboutID(faultTxn, "T1")) // the answer about T1, wherever it moved
	}))
	defer ts.Close()
	c, err := NewClient(testCreds, WithBaseURL(ts.URL+"/api/v1"), WithHTTPClient(ts.Client()))
	require.NoError(t, err)
	var resp *http.Response
	_, err = c.Transactions.Get(context.Background(), "T1", WithResponseInto(&resp))
	require.NoError(t, err)
	require.Len(t, seen, 2)
	auth := c.secrets.authHeader()
	assert.Equal(t, []string{auth, auth}, seen, "the requests themselves were authorized")

	require.NotNil(t, resp)
	require.NotNil(t, resp.Request)
	assert.Equal(t, "/api/v1/transactions/T2", resp.Request.URL.Path)
	assert.Empty(t, resp.Request.Header.Values("Authorization"))
	require.NotNil(t, resp.Request.Response, "the redirect's response")
	require.NotNil(t, resp.Request.Response.Request)
	assert.Equal(t, "/api/v1/transactions/T1", resp.Request.Response.Request.URL.Path)
	assert.Empty(t, resp.Request.Response.Request.Header.Values("Authorization"))
	assert.Equal(t, "Basic [redacted]", resp.Header.Get("X-Echo"), "an echo of the key is scrubbed")
	assertNoSecretForm(t, testCreds, "the response handed back", fmt.Sprintf("%+v %+v %+v", resp.Header, resp.Request.Header, resp.Request.Response.Request.Header))
}

// WithRetryNonIdempotent is ignored for a call that carries no
// merchantReference (nothing the service could recognize a repeat by): a
// client-wide opt-in does not send a Refund or a Reclaim without one twice,
// and does not fail it either; with one, it is retried.
func TestOptInIgnoredWithoutMerchantReference(t *testing.T) {
	ok := `{"transaction":{"transactionId":"9","transactionType":4,"status":2,"amount":"1.00"}}`
	for name, call := range map[string]func(*Client, string) error{
		"Refund": func(c *Client, ref string) error {
			_, err := c.Transactions.Refund(context.Background(), "1", &RefundParams{MerchantReference: ref, Amount: "5.00"})
			return err
		},
		"Reclaim": func(c *Client, ref string) error {
			_, err := c.Transactions.Reclaim(context.Background(), "1", &ReclaimParams{MerchantReference: ref, Amount: "5.00"})
			return err
		},
		"Cancel": func(c *Client, ref string) error {
			_, err := c.Transactions.Cancel(context.Background(), "1", &CancelParams{MerchantReference: ref})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			ok := ok
			if name == "Cancel" { // answered with the transaction canceled
				ok = aboutID(ok, "1")
			}
			c, mock, _ := newTestClient(t, WithRetryNonIdempotent())
			n := sequence(t, mock, jsonResponse(503, errorJSON), jsonResponse(200, ok))
			err := call(c, "")
			require.ErrorIs(t, err, ErrServer, "keyless: the 503, not a second send")
			assert.EqualValues(t, 1, n.Load())

			c, mock, _ = newTestClient(t, WithRetryNonIdempotent())
			n = sequence(t, mock, jsonResponse(503, errorJSON), jsonResponse(200, ok))
			require.NoError(t, call(c, "ref-1"))
			assert.EqualValues(t, 2, n.Load(), "with a merchantReference the opt-in applies")
		})
	}
	for body, want := range map[string]bool{
		`{"merchantReference":"r","amount":"1.00"}`: true,
		`{"merchantReference":"","amount":"1.00"}`:  false,
		`{"amount":"1.00"}`:                         false,
		`{"customer":{"merchantReference":"r"}}`:    false,
	} {
		assert.Equal(t, want, (&pipeline.Request{Body: []byte(body), ContentType: "application/json"}).Keyed(), body)
	}
	assert.True(t, (&pipeline.Request{Body: []byte("amount=1.00&merchantReference=r"), ContentType: "application/x-www-form-urlencoded"}).Keyed())
	assert.False(t, (&pipeline.Request{Body: []byte("amount=1.00&merchantReference="), ContentType: "application/x-www-form-urlencoded"}).Keyed())
	assert.True(t, (&pipeline.Request{Idempotent: true}).Keyed(), "an Idempotency-Key")
}

// Every request gets headers of its own: a middleware that writes the
// values of Accept, Content-Type, User-Agent or a WithHeader header in
// place changes that request only, never the next one, another call's or
// the client's settings.
func TestSetHeaders_PerRequest(t *testing.T) {
	mock := httpmock.NewMockTransport()
	var seen []http.Header
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		seen = append(seen, req.Header.Clone())
		if req.Method == http.MethodGet { // Get("T1") is answered about T1
			return httpmock.NewStringResponse(http.StatusOK, aboutID(faultTxn, "T1")), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, faultTxn), nil
	})
	var found []http.Header // what the middleware found, before it wrote
	mutate := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			found = append(found, req.Header.Clone())
			for _, k := range []string{"Accept", "Content-Type", "User-Agent", "X-Request-Id"} {
				if vs := req.Header[k]; len(vs) > 0 {
					vs[0] = "mutated"
				}
			}
			return next.RoundTrip(req)
		})
	}
	c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}),
		WithTransport(mutate), WithHeader("X-Request-Id", "r1"))
	require.NoError(t, err)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		_, err = c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "ref", Amount: "1.00"})
		require.NoError(t, err)
		_, err = c.Transactions.Refund(ctx, "T1", &RefundParams{Amount: "1.00"})
		require.NoError(t, err)
		_, err = c.Transactions.Get(ctx, "T1")
		require.NoError(t, err)
	}
	require.Len(t, seen, 6)
	require.Len(t, found, 6)
	// Each request reached the network with the middleware's change, and
	// the values the middleware found were the SDK's, whatever it wrote
	// into the requests before.
	wantCT := []string{pipeline.ContentTypeForm, pipeline.ContentTypeJSON, ""}
	for i, h := range found {
		assert.Equal(t, []string{"application/json"}, h["Accept"], "request %d", i)
		assert.Equal(t, []string{"bankpay-go/" + version}, h["User-Agent"], "request %d", i)
		assert.Equal(t, []string{"r1"}, h["X-Request-Id"], "request %d", i)
		assert.Equal(t, []string{"mutated"}, seen[i]["Accept"], "request %d", i)
		if wantCT[i%3] != "" {
			assert.Equal(t, []string{wantCT[i%3]}, h["Content-Type"], "request %d", i)
			assert.Equal(t, []string{"mutated"}, seen[i]["Content-Type"], "request %d", i)
		} else {
			assert.NotContains(t, h, "Content-Type", "request %d", i)
		}
	}
	// The client's settings are untouched, and a request built now carries
	// the SDK's values.
	assert.Equal(t, []string{"r1"}, c.cfg.header["X-Request-Id"])
	h := http.Header{}
	pipeline.SetHeaders(h, c.cfg.userAgent, pipeline.ContentTypeForm, c.cfg.header)
	assert.Equal(t, http.Header{"Accept": {"application/json"}, "User-Agent": {"bankpay-go/" + version},
		"Content-Type": {"application/x-www-form-urlencoded"}, "X-Request-Id": {"r1"}}, h)

	// What the next request sends, seen below a middleware that only
	// records: a client whose middleware mutated earlier requests sends
	// the SDK's values.
	seen = nil
	var inner []http.Header
	record := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			inner = append(inner, req.Header.Clone())
			if len(inner) == 1 { // the first request only
				req.Header["Accept"][0], req.Header["Content-Type"][0] = "mutated", "mutated"
			}
			return next.RoundTrip(req)
		})
	}
	c2, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}), WithTransport(record))
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		_, err = c2.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "ref", Amount: "1.00"})
		require.NoError(t, err)
	}
	require.Len(t, inner, 2)
	require.Len(t, seen, 2)
	assert.Equal(t, []string{"mutated"}, seen[0]["Accept"])
	for _, h := range []http.Header{inner[0], inner[1], seen[1]} {
		assert.Equal(t, []string{"application/json"}, h["Accept"])
		assert.Equal(t, []string{"application/x-www-form-urlencoded"}, h["Content-Type"])
	}

	// A retry is a request of its own too: the second attempt of a
	// dispute (retried like a read, with its Idempotency-Key) finds the
	// SDK's values, not what the middleware wrote into the first.
	found = nil
	var n int
	retrying := httpmock.NewMockTransport()
	retrying.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		if n++; n == 1 {
			return httpmock.NewStringResponse(http.StatusServiceUnavailable, `{}`), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, faultTxn), nil
	})
	c3, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: retrying}),
		WithTransport(mutate), WithHeader("X-Request-Id", "r1"))
	require.NoError(t, err)
	c3.cfg.waitScale = (&waits{}).record
	_, err = c3.Disputes.Create(ctx, &DisputeParams{IdempotencyKey: "idem-1", TransactionID: "T1", Amount: "1.00"})
	require.NoError(t, err)
	require.Len(t, found, 2)
	for i, h := range found {
		assert.Equal(t, []string{"application/json"}, h["Accept"], "attempt %d", i+1)
		assert.Equal(t, []string{"application/json"}, h["Content-Type"], "attempt %d", i+1)
		assert.Equal(t, []string{"bankpay-go/" + version}, h["User-Agent"], "attempt %d", i+1)
		assert.Equal(t, []string{"r1"}, h["X-Request-Id"], "attempt %d", i+1)
		assert.Equal(t, []string{"idem-1"}, h["Idempotency-Key"], "attempt %d", i+1)
	}
}

// HTTP/1.1 keep-alive race: the server reads a state-changing request on a
// reused connection and closes it without a response (as an idle timeout
// racing the request does). net/http retries on such a connection by itself
// when it thinks nothing was sent or the request is replayable; the server
// must see the request once, and Sent must be true.
func TestSendGuard_H1KeepAliveCloseStateChangingSentOnce(t *testing.T) {
	for name, body := range map[string]any{"form": pipeline.FormBody{V: struct {
		Amount string `url:"amount"`
	}{"10.00"}}, "none": nil} {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			var mu sync.Mutex
			posts := 0
			go func() {
				for {
					conn, err := ln.Accept()
					if err != nil {
						return
					}
					go func(conn net.Conn) {
						defer conn.Close()
						br := bufio.NewReader(conn)
						for {
							req, err := http.ReadRequest(br)
							if err != nil {
								return
							}
							_, _ = io.Copy(io.Discard, req.Body)
							if req.Method == http.MethodPost {
								mu.Lock()
								posts++
								mu.Unlock()
								return // closed, no response
							}
							ok := aboutID(faultTxn, "T1") // the answer to Get("T1")
							fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(ok), ok)
						}
					}(conn)
				}
			}()
			c, err := NewClient(testCreds, WithBaseURL("http://"+ln.Addr().String()+"/api/v1"), WithMaxRetries(3))
			require.NoError(t, err)
			defer func() { _ = c.Close() }()
			_, err = c.Transactions.Get(context.Background(), "T1") // a kept-alive connection
			require.NoError(t, err)
			req, err := pipeline.NewRequest(http.MethodPost, "/transactions/T1/deposit", nil, body)
			require.NoError(t, err)
			err = c.do(context.Background(), req, nil, nil)
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "err = %v", err)
			assert.True(t, ne.Sent)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, 1, posts, "the server saw the state-changing request more than once")
		})
	}
}

// A state-changing request without a body (a POST or DELETE through
// NewRequest/Do, or a form body that encodes to nothing) is replayed by Go's
// HTTP/2 transport on a stream reset with PROTOCOL_ERROR whatever GetBody
// says: a nil body is always "rewindable". The server must see it once.
func TestSendGuard_H2ResetBodylessPostSentOnce(t *testing.T) {
	for name, body := range map[string]any{"nil": nil, "emptyForm": pipeline.FormBody{V: struct{}{}}} {
		t.Run(name, func(t *testing.T) {
			s := faultinject.NewH2Server(faultinject.H2Reset())
			defer s.Close()
			c := newH2Client(t, s)
			req, err := pipeline.NewRequest(http.MethodPost, "/transactions/T1/cancel", nil, body)
			require.NoError(t, err)
			require.True(t, req.StateChanging)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			err = c.do(ctx, req, nil, nil)
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "err = %v", err)
			assert.True(t, ne.Sent, "the request reached the server: Sent must be true")
			assert.Equal(t, 1, ne.Attempts)
			assert.Equal(t, 1, len(s.Streams()), "the server saw the state-changing request more than once")
		})
	}
}

// newH2Client is a client with the SDK's default HTTP client (HTTP/2 over
// TLS, as against the real service), trusting s's certificate.
func newH2Client(t *testing.T, s *faultinject.H2Server, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithBaseURL(s.URL + "/api/v1"), WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)
	c, err := NewClient(testCreds, all...)
	require.NoError(t, err)
	kt, ok := c.hc.Transport.(keepAliveTransport) // base: the innermost transport
	require.True(t, ok)
	tr, ok := kt.base.(*http.Transport)
	require.True(t, ok)
	tr.TLSClientConfig = s.TLSConfig()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

const h2DepositBody = "amount=10.00&merchantReference=dep-h2"

// A server (or load balancer) that reads a deposit and resets its stream
// with PROTOCOL_ERROR must see it once: Go's HTTP/2 transport replays such
// a stream by itself whenever the request can rewind its body (GetBody),
// below the SDK's retry rule and without its backoff.
func TestSendGuard_H2ResetDepositSentOnce(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(map[bool]string{false: "defaultClient", true: "callerClient"}[own], func(t *testing.T) {
			s := faultinject.NewH2Server(faultinject.H2Reset())
			defer s.Close()
			var c *Client
			if own {
				tr := s.Transport()
				defer tr.CloseIdleConnections()
				var err error
				c, err = NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr, Timeout: 3 * time.Second}))
				require.NoError(t, err)
			} else {
				c = newH2Client(t, s)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "dep-h2", Amount: "10.00"})
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "err = %v", err)
			assert.True(t, ne.Sent, "the deposit reached the server: Sent must be true")
			assert.Equal(t, 1, ne.Attempts)
			streams := s.Streams()
			require.Equal(t, 1, len(streams), "the server saw the deposit %d times in %v", len(streams), time.Since(start))
			assert.Equal(t, h2DepositBody, string(streams[0].Body))
		})
	}
}

// With the caller's opt-in, the deposit is retried by the SDK's rule only:
// 1 + MaxRetries sends, not the transport's endless replays.
func TestSendGuard_H2ResetDepositRetriedOnlyByTheRetryRule(t *testing.T) {
	s := faultinject.NewH2Server(faultinject.H2Reset())
	defer s.Close()
	c := newH2Client(t, s, WithMaxRetries(2))
	_, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "dep-h2", Amount: "10.00"}, WithRetryNonIdempotent())
	var ne *NetworkError
	require.True(t, errors.As(err, &ne), "err = %v", err)
	assert.True(t, ne.Sent)
	assert.Equal(t, 3, ne.Attempts)
	streams := s.Streams()
	require.Len(t, streams, 3)
	for _, st := range streams {
		assert.Equal(t, h2DepositBody, string(st.Body), "the retry layer rewinds the body itself")
	}
}

// Reads over HTTP/2 still retry: a reset stream, and a 503 response.
func TestSendGuard_H2ReadsStillRetry(t *testing.T) {
	for name, first := range map[string]faultinject.H2Action{
		"reset": faultinject.H2Reset(),
		"503":   faultinject.H2Respond(http.StatusServiceUnavailable, errorJSON),
	} {
		t.Run(name, func(t *testing.T) {
			s := faultinject.NewH2Server(first, faultinject.H2Respond(http.StatusOK, aboutID(faultTxn, "T1")))
			defer s.Close()
			c := newH2Client(t, s)
			tx, err := c.Transactions.Get(context.Background(), "T1")
			require.NoError(t, err)
			assert.NotEmpty(t, tx.TransactionID)
			assert.Len(t, s.Streams(), 2)
		})
	}
}

// connServer is a loopback server that counts the connections it accepts
// (httptest.Server's ConnState hook) and responses by path:
//
//	/transactions/ok                  200 with the transaction
//	/transactions/big                 200 with a 100 KiB transaction description
//	/transactions/missing             404 with an error body
//	/transactions/flaky-N             503 the first time (a 10 KiB error body), then 200
//	/transactions/down                503 every time
//	/transactions/pair                200 once two of them are in flight together
//	POST /transactions/ok/deposit     200
//	POST /transactions/dup/deposit    400 code 210
//	POST /transactions/boom/deposit   500 with a 20 KiB HTML body
//	POST /transactions/ok/feedback    200 with a 10 KiB body the SDK does not read
//	POST /accounts/tokenize           401 code 375
type connServer struct {
	*httptest.Server
	conns    atomic.Int64
	requests atomic.Int64

	mu    sync.Mutex
	seen  map[string]bool
	pairs chan struct{}
}

func newConnServer(t *testing.T) *connServer {
	t.Helper()
	s := &connServer{seen: map[string]bool{}, pairs: make(chan struct{})}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *connServer) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	_, _ = io.Copy(io.Discard, r.Body)
	path := strings.TrimPrefix(r.URL.Path, "/api/v1")
	response := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	switch {
	case path == "/transactions/ok":
		response(200, aboutID(faultTxn, "ok"))
	case path == "/transactions/ok/deposit":
		response(200, faultTxn)
	case path == "/transactions/big":
		response(200, `{"transaction":{"transactionId":"big","transactionType":6,"status":2,"amount":"1.00","description":"`+strings.Repeat("d", 100<<10)+`"}}`)
	case path == "/transactions/missing":
		response(404, `{"errors":[{"code":200,"message":"not found"}]}`)
	case strings.HasPrefix(path, "/transactions/flaky-"):
		s.mu.Lock()
		again := s.seen[path]
		s.seen[path] = true
		s.mu.Unlock()
		if again {
			response(200, aboutID(faultTxn, strings.TrimPrefix(path, "/transactions/")))
		} else {
			response(503, `{"errors":[{"code":100,"message":"`+strings.Repeat("busy ", 2<<10)+`"}]}`)
		}
	case path == "/transactions/down":
		response(503, errorJSON)
	case path == "/transactions/pair":
		select { // wait for the other request of the pair
		case s.pairs <- struct{}{}:
		case <-s.pairs:
		case <-time.After(5 * time.Second):
		}
		response(200, aboutID(faultTxn, "pair"))
	case path == "/transactions/dup/deposit":
		response(400, duplicateJSON)
	case path == "/transactions/boom/deposit":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(500)
		_, _ = io.WriteString(w, "<html>"+strings.Repeat("<p>Internal Server Error</p>", 20<<10/28)+"</html>")
	case path == "/transactions/ok/feedback":
		response(200, `{"feedback":{"status":4,"subStatus":559,"description":"`+strings.Repeat("f", 10<<10)+`"}}`)
	case path == "/accounts/tokenize":
		response(401, `{"errors":[{"code":375,"message":"access control"}]}`)
	default:
		response(500, errorJSON)
	}
}

// newConnClient is a client with the SDK's default HTTP client (pooled,
// keep-alive) and millisecond backoffs, pointed at s.
func newConnClient(t *testing.T, s *connServer, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithBaseURL(s.URL + "/api/v1"), WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)
	c, err := NewClient(testCreds, all...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestCallsShareOneConnection: sequential calls, successes and error
// responses of every kind (retried or not, bodies read, skipped or larger
// than the retry layer's drain), share one keep-alive connection. 200
// calls, 20 of each kind: a kind whose answer leaves its connection
// unusable opens about 20, far over the 2 allowed; 1,000 with the full
// fault matrix (fullFaultMatrix), for a leak that is not every call's.
func TestCallsShareOneConnection(t *testing.T) {
	t.Parallel() // hundreds of calls on a server of its own: beside the other long tests
	s := newConnServer(t)
	c := newConnClient(t, s)
	ctx := context.Background()
	calls := []struct {
		name string
		do   func(i int) error
		want error // nil: success
	}{
		{"get", func(int) error { _, err := c.Transactions.Get(ctx, "ok"); return err }, nil},
		{"get 100 KiB", func(int) error { _, err := c.Transactions.Get(ctx, "big"); return err }, nil},
		{"get 404", func(int) error { _, err := c.Transactions.Get(ctx, "missing"); return err }, ErrNotFound},
		{"get 503 (10 KiB body) then 200", func(i int) error {
			_, err := c.Transactions.Get(ctx, fmt.Sprintf("flaky-%d", i))
			return err
		}, nil},
		{"get 503 every time", func(int) error { _, err := c.Transactions.Get(ctx, "down"); return err }, ErrServer},
		{"deposit", func(int) error {
			_, err := c.Transactions.Deposit(ctx, "ok", &DepositParams{MerchantReference: "r"})
			return err
		}, nil},
		{"deposit 400 duplicate", func(int) error {
			_, err := c.Transactions.Deposit(ctx, "dup", &DepositParams{MerchantReference: "r"})
			return err
		}, ErrDuplicate},
		{"deposit 500 (20 KiB HTML)", func(int) error {
			_, err := c.Transactions.Deposit(ctx, "boom", &DepositParams{MerchantReference: "r"})
			return err
		}, ErrServer},
		{"feedback (10 KiB body unread)", func(int) error { return c.Identity.Register(ctx, "ok", "registered") }, nil},
		{"tokenize 401", func(int) error {
			_, err := c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "1003750000", RoutingNumber: "124003116"})
			return err
		}, ErrUnauthorized},
	}
	n := 20 * len(calls)
	if fullFaultMatrix() {
		n = 1000
	}
	for i := 0; i < n; i++ {
		call := calls[i%len(calls)]
		err := call.do(i)
		if call.want == nil {
			require.NoError(t, err, "call %d (%s): err = %v, want %v", i, call.name, err, call.want)
		} else {
			require.ErrorIs(t, err, call.want, "call %d (%s): err = %v, want %v", i, call.name, err, call.want)
		}
	}
	// One connection serves them all. net/http returns a connection to its
	// pool from another goroutine once the body is read, so on a loaded
	// machine the next request can race it and dial once more (the extra
	// connection then idles): two is still reuse, a connection per failed
	// or unread response would be hundreds.
	got := s.conns.Load()
	assert.LessOrEqual(t, got, int64(2), "%d calls (%d requests) opened %d connections, want 1 (2 at most under load)", n, s.requests.Load(), got)
}

// TestFailedCallKeepsTheIdleConnections: a call that fails after its
// retries must not close the idle connections other calls would reuse.
func TestFailedCallKeepsTheIdleConnections(t *testing.T) {
	s := newConnServer(t)
	c := newConnClient(t, s, WithMaxRetries(1))
	ctx := context.Background()
	pair := func() {
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := c.Transactions.Get(ctx, "pair")
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
	}
	pair() // two connections, both idle afterwards
	got := s.conns.Load()
	require.Equal(t, int64(2), got, "a pair of concurrent calls opened %d connections", got)
	_, err := c.Transactions.Get(ctx, "down")
	require.ErrorIs(t, err, ErrServer, "err = %v", err)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Transactions.Get(cctx, "ok")
	require.ErrorIs(t, err, context.Canceled, "err = %v", err)
	pair()
	got = s.conns.Load()
	assert.Equal(t, int64(2), got, "after a failed call, %d connections in all, want the same 2", got)
}

// TestResponseBodiesAreClosed: every response body the transport hands out
// is closed, whatever the outcome, so that no connection is left half read.
func TestResponseBodiesAreClosed(t *testing.T) {
	s := newConnServer(t)
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	ct := &closeTracker{base: base}
	c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithRetryBackoff(time.Millisecond, 2*time.Millisecond),
		WithHTTPClient(&http.Client{Transport: ct}))
	require.NoError(t, err)
	ctx := context.Background()
	for i, id := range []string{"ok", "big", "missing", "flaky-x", "down", "pair-none"} {
		_, _ = c.Transactions.Get(ctx, id)
		_, _ = c.Transactions.Deposit(ctx, map[bool]string{true: "boom", false: "dup"}[i%2 == 0], &DepositParams{MerchantReference: "r"})
		_ = c.Identity.Register(ctx, "ok", "x")
		_, _ = c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "1003750000", RoutingNumber: "124003116"})
		_ = c.Identity.sendFeedback(ctx, "ok", wire.Feedback{Status: 13, SubStatus: 558, Description: "void"})
	}
	// The context ends just after a response arrived: the retry layer hands
	// back both the response and the context's error.
	for _, id := range []string{"down", "ok"} {
		cctx, cancel := context.WithCancel(ctx)
		ct.after = cancel
		_, err := c.Transactions.Get(cctx, id)
		ct.after = nil
		assert.ErrorIs(t, err, context.Canceled, "%s: err = %v, want context.Canceled", id, err)
	}
	open, total := ct.open.Load(), ct.total.Load()
	assert.Equal(t, int64(0), open, "%d of %d response bodies left open", open, total)
	assert.GreaterOrEqual(t, total, int64(32), "%d of %d response bodies left open", open, total)
}

type closeTracker struct {
	base        http.RoundTripper
	open, total atomic.Int64
	after       func() // called when a response arrived
}

func (ct *closeTracker) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := ct.base.RoundTrip(req)
	if ct.after != nil {
		ct.after()
	}
	if err == nil {
		ct.open.Add(1)
		ct.total.Add(1)
		resp.Body = &trackedBody{ReadCloser: resp.Body, ct: ct}
	}
	return resp, err
}

type trackedBody struct {
	io.ReadCloser
	ct   *closeTracker
	once sync.Once
}

func (b *trackedBody) Close() error {
	b.once.Do(func() { b.ct.open.Add(-1) })
	return b.ReadCloser.Close()
}

// TestCloseClosesIdleConnections: Close closes the idle keep-alive
// connections (the server sees them closed), with the SDK's HTTP client
// and with the caller's; the Client stays usable and opens a new one.
func TestCloseClosesIdleConnections(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprintf("ownHTTPClient=%v", own), func(t *testing.T) {
			var closed atomic.Int64
			s := &connServer{seen: map[string]bool{}, pairs: make(chan struct{})}
			s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
			s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				switch st {
				case http.StateNew:
					s.conns.Add(1)
				case http.StateClosed:
					closed.Add(1)
				}
			}
			s.Start()
			defer s.Close()
			var opts []Option
			if own {
				tr := &http.Transport{}
				defer tr.CloseIdleConnections()
				opts = append(opts, WithHTTPClient(&http.Client{Transport: tr}))
			}
			c := newConnClient(t, s, opts...)
			ctx := context.Background()
			_, err := c.Transactions.Get(ctx, "ok")
			require.NoError(t, err)
			require.EqualValues(t, 0, closed.Load())

			require.NoError(t, c.Close())
			deadline := time.Now().Add(5 * time.Second)
			for closed.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond) // waiting for the server to notice
			}
			assert.EqualValues(t, 1, closed.Load(), "the idle connection was not closed")

			_, err = c.Transactions.Get(ctx, "ok")
			require.NoError(t, err, "the Client must stay usable after Close")
			assert.EqualValues(t, 2, s.conns.Load())
		})
	}
}

// postDeposit sends a state-changing POST through the pipeline.
func postDeposit(c *Client, opts ...Option) error {
	req, err := pipeline.NewRequest(http.MethodPost, "/transactions/1/deposit", nil, pipeline.FormBody{V: &struct {
		Ref string `url:"merchantReference"`
	}{"dep-1"}})
	if err != nil {
		return err
	}
	return c.do(context.Background(), req, nil, opts)
}

func dialRefused(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func resetAfterSend(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}

func TestGetRetriedOn503(t *testing.T) {
	c, mock, w := newTestClient(t)
	calls := sequence(t, mock, jsonResponse(503, `{"errors":[{"code":100}]}`), jsonResponse(200, aboutID(authorizationJSON, "1")))
	_, err := c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load(), "calls = %d, waits = %v", calls.Load(), w.list)
	require.Len(t, w.list, 1, "calls = %d, waits = %v", calls.Load(), w.list)
	assert.GreaterOrEqual(t, w.list[0], defaultRetryWaitMin/2, "first backoff %v outside [%v, %v]", w.list[0], defaultRetryWaitMin/2, defaultRetryWaitMin)
	assert.LessOrEqual(t, w.list[0], defaultRetryWaitMin, "first backoff %v outside [%v, %v]", w.list[0], defaultRetryWaitMin/2, defaultRetryWaitMin)
}

func TestGetRetriedOnEveryTransientStatus(t *testing.T) {
	for _, status := range []int{429, 500, 502, 503, 504} {
		c, mock, _ := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(status, `{}`), jsonResponse(200, aboutID(authorizationJSON, "1")))
		_, err := c.Transactions.Get(context.Background(), "1")
		assert.NoError(t, err, "status %d: err %v, calls %d", status, err, calls.Load())
		assert.Equal(t, int32(2), calls.Load(), "status %d: err %v, calls %d", status, err, calls.Load())
	}
	for _, status := range []int{400, 401, 404, 501} {
		c, mock, _ := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(status, `{}`))
		_, err := c.Transactions.Get(context.Background(), "1")
		assert.Error(t, err, "status %d retried: calls %d", status, calls.Load())
		assert.Equal(t, int32(1), calls.Load(), "status %d retried: calls %d", status, calls.Load())
	}
}

func TestGetGivesUpWithTypedErrorOfLastResponse(t *testing.T) {
	c, mock, w := newTestClient(t, WithMaxRetries(3))
	rs := make([]httpmock.Responder, 4)
	for i := range rs {
		rs[i] = jsonResponse(500, `{"errors":[{"code":100,"message":"Internal error"}]}`)
	}
	calls := sequence(t, mock, rs...)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	require.ErrorAs(t, err, &e, "err = %v (%+v)", err, e)
	require.ErrorIs(t, err, ErrServer, "err = %v (%+v)", err, e)
	require.Equal(t, 100, e.Code, "err = %v (%+v)", err, e)
	require.Equal(t, 4, e.Attempts, "err = %v (%+v)", err, e)
	assert.Equal(t, int32(4), calls.Load(), "calls = %d, want 4", calls.Load())
	// Exponential, jittered, capped.
	for i, d := range w.list {
		hi := defaultRetryWaitMin << i
		assert.GreaterOrEqual(t, d, hi/2, "wait %d = %v, want in [%v, %v]", i, d, hi/2, hi)
		assert.LessOrEqual(t, d, hi, "wait %d = %v, want in [%v, %v]", i, d, hi/2, hi)
	}
}

func TestDepositNotRetriedByDefault(t *testing.T) {
	for name, r := range map[string]httpmock.Responder{
		"500":          jsonResponse(500, `{"errors":[{"code":100,"message":"Internal error"}]}`),
		"503":          jsonResponse(503, `{}`),
		"429":          jsonResponse(429, `{}`, "Retry-After", "1"),
		"reset":        resetAfterSend,
		"unexpectedEO": func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF },
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := sequence(t, mock, r, jsonResponse(200, `{}`))
			err := postDeposit(c)
			require.Error(t, err, "err %v, calls %d: a state-changing call must be sent once", err, calls.Load())
			require.Equal(t, int32(1), calls.Load(), "err %v, calls %d: a state-changing call must be sent once", err, calls.Load())
			if name == "500" {
				var e *APIError
				if assert.ErrorAs(t, err, &e, "err = %v", err) {
					assert.Equal(t, 100, e.Code, "err = %v", err)
				}
				assert.ErrorIs(t, err, ErrServer, "err = %v", err)
			}
			var ne *NetworkError
			if errors.As(err, &ne) {
				assert.True(t, ne.Sent, "an error after the request was written must report Sent: %v", err)
			}
		})
	}
}

func TestDepositRetriedWhenNeverSent(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := sequence(t, mock, dialRefused, jsonResponse(200, `{}`))
	err := postDeposit(c)
	require.NoError(t, err, "err %v, calls %d", err, calls.Load())
	require.Equal(t, int32(2), calls.Load(), "err %v, calls %d", err, calls.Load())
	// Every attempt refused: the caller learns it was never sent.
	c, mock, _ = newTestClient(t, WithMaxRetries(2))
	calls = sequence(t, mock, dialRefused, dialRefused, dialRefused)
	err = postDeposit(c)
	var ne *NetworkError
	require.ErrorAs(t, err, &ne, "err = %#v", err)
	require.False(t, ne.Sent, "err = %#v", err)
	require.Equal(t, 3, ne.Attempts, "err = %#v", err)
	require.ErrorIs(t, err, syscall.ECONNREFUSED, "err = %#v", err)
	assert.Equal(t, int32(3), calls.Load(), "calls = %d", calls.Load())
}

func TestDepositRetriedWithOptIn(t *testing.T) {
	c, mock, _ := newTestClient(t, WithRetryNonIdempotent())
	calls := sequence(t, mock, jsonResponse(500, `{}`), resetAfterSend, jsonResponse(400, `{"errors":[{"code":210,"message":"Duplicate"}]}`))
	err := postDeposit(c)
	require.ErrorIs(t, err, ErrDuplicate, "err %v, calls %d", err, calls.Load())
	require.Equal(t, int32(3), calls.Load(), "err %v, calls %d", err, calls.Load())

	c, mock, _ = newTestClient(t)
	calls = sequence(t, mock, jsonResponse(502, `{}`), jsonResponse(200, `{}`))
	err = postDeposit(c, WithRetryNonIdempotent())
	require.NoError(t, err, "per-call opt-in: err %v, calls %d", err, calls.Load())
	require.Equal(t, int32(2), calls.Load(), "per-call opt-in: err %v, calls %d", err, calls.Load())
}

func TestRetryAfterObeyedUnderCap(t *testing.T) {
	c, mock, w := newTestClient(t, withMaxRetryAfter(10*time.Second))
	calls := sequence(t, mock, jsonResponse(429, `{}`, "Retry-After", "7"), jsonResponse(200, aboutID(authorizationJSON, "1")))
	_, err := c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err, "err %v calls %d", err, calls.Load())
	require.Equal(t, int32(2), calls.Load(), "err %v calls %d", err, calls.Load())
	if assert.Len(t, w.list, 1, "waits = %v, want [7s]", w.list) {
		assert.Equal(t, 7*time.Second, w.list[0], "waits = %v, want [7s]", w.list)
	}
}

func TestRetryAfterBeyondCapNotObeyed(t *testing.T) {
	for _, ra := range []string{"86400", "99999999999999999999", time.Now().Add(48 * time.Hour).UTC().Format(http.TimeFormat)} {
		c, mock, w := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(503, `{}`, "Retry-After", ra))
		_, err := c.Transactions.Get(context.Background(), "1")
		var e *APIError
		if assert.ErrorAs(t, err, &e, "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list) {
			assert.Greater(t, e.RetryAfter, defaultMaxRetryAfter, "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list)
		}
		assert.Equal(t, int32(1), calls.Load(), "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list)
		assert.Empty(t, w.list, "Retry-After %s: err %v, calls %d, waits %v", ra, err, calls.Load(), w.list)
	}
}

func TestCancelledContextReturnsPromptly(t *testing.T) {
	c, mock, _ := newTestClient(t)
	c.cfg.waitScale = nil // real backoff: the context must cut it short
	c.cfg.retryWaitMin, c.cfg.retryWaitMax = time.Hour, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		cancel() // cancelled while the first response is in flight
		return jsonResponse(503, `{}`)(req)
	})
	start := time.Now()
	_, err := c.Transactions.Get(ctx, "1")
	require.ErrorIs(t, err, context.Canceled, "err = %v", err)
	d := time.Since(start)
	require.LessOrEqual(t, d, 2*time.Second, "took %v", d)

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.Transactions.Get(ctx, "1")
	require.ErrorIs(t, err, context.Canceled, "pre-cancelled: err = %v", err)

	// Cancelled while the client waits its hour of backoff after the 503
	// (above, the context ended before the retry layer decided to wait).
	c2, mock2, _ := newTestClient(t, WithRetryBackoff(time.Hour, time.Hour))
	c2.cfg.waitScale = nil
	responded := make(chan struct{}, 1)
	mock2.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		responded <- struct{}{}
		return jsonResponse(503, `{}`)(req)
	})
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		<-responded
		time.Sleep(50 * time.Millisecond) // the backoff has begun
		cancel2()
	}()
	start2 := time.Now()
	_, err = c2.Transactions.Get(ctx2, "1")
	require.ErrorIs(t, err, context.Canceled, "cancelled during the backoff: err = %v", err)
	d = time.Since(start2)
	require.LessOrEqual(t, d, 2*time.Second, "cancelled during the backoff: took %v", d)
}

// Sent remembers every attempt: a deposit whose first attempt reached the
// server stays Sent even when the retries were refused, so that the caller
// is not invited to pay again under a new reference.
func TestNetworkErrorSentRemembersEarlierAttempts(t *testing.T) {
	for name, first := range map[string]httpmock.Responder{
		"reset after send": resetAfterSend,
		"500 response":     jsonResponse(500, `{}`),
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t, WithRetryNonIdempotent(), WithMaxRetries(2))
			calls := sequence(t, mock, first, dialRefused, dialRefused)
			err := postDeposit(c)
			var ne *NetworkError
			require.ErrorAs(t, err, &ne)
			assert.True(t, ne.Sent, "the first attempt reached the server: %v", err)
			assert.Equal(t, 3, ne.Attempts)
			assert.ErrorIs(t, err, syscall.ECONNREFUSED)
			assert.NotContains(t, err.Error(), "not sent")
			assert.EqualValues(t, 3, calls.Load())
		})
	}
}

// A context that ended before the call sends nothing and says so.
func TestNetworkErrorNotSentWhenContextEndedBefore(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Transactions.Deposit(ctx, "T1", &DepositParams{MerchantReference: "r", Amount: "1.00"})
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.Sent)
	assert.Equal(t, 0, ne.Attempts)
	assert.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 0, calls.Load())

	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	_, err = c.Transactions.Get(dctx, "T1")
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.Sent)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

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

// One Client shared by many goroutines, the request's context being its
// Call: each call gets its own answer, a call canceled during the retry
// layer's backoff ends with context.Canceled at once (the backoff is a
// minute), one whose WithTimeout ends while the server holds the answer
// ends with a deadline error, and a handed-back response keeps nothing of
// the call's context.
func TestSharedClientCallsAsContexts(t *testing.T) {
	busy := make(chan struct{}, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		switch {
		case strings.HasPrefix(id, "busy"):
			w.WriteHeader(http.StatusServiceUnavailable)
			busy <- struct{}{}
		case strings.HasPrefix(id, "slow"):
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, aboutID(faultTxn, id))
		}
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(Credentials{AccessID: "id", AccessKey: NewSecret("key0123456789abcdef"), MerchantID: "m"},
		WithBaseURL(srv.URL), WithRetryBackoff(time.Minute, time.Minute), WithMaxRetries(2))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				id := fmt.Sprintf("T%d-%d", g, i)
				var resp *http.Response
				tx, err := c.Transactions.Get(context.Background(), id, WithResponseInto(&resp))
				if assert.NoError(t, err) {
					assert.Equal(t, id, tx.TransactionID)
					assert.Equal(t, context.Background(), resp.Request.Context())
				}
			}
			_, err := c.Transactions.Get(context.Background(), fmt.Sprintf("slow%d", g), WithTimeout(20*time.Millisecond))
			assert.ErrorIs(t, err, context.DeadlineExceeded)
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.Transactions.Get(ctx, "busy1"); done <- err }()
	<-busy
	cancel() // during the minute's backoff
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the canceled call still waits its backoff")
	}
	wg.Wait()
}

// A middleware that logs its request's context (fmt, slog's text and JSON
// handlers) logs no account number of a tokenize call, nor its Idempotency
// or WithHeader values: the request's context is the SDK's call.
func TestMiddlewareLoggingTheContextLogsNoAccountNumber(t *testing.T) {
	mock := httpmock.NewMockTransport()
	mock.RegisterResponder(http.MethodPost, testBaseURL+"/accounts/tokenize", httpmock.NewStringResponder(401, `{}`))
	var logged bytes.Buffer
	var mu sync.Mutex
	wrap := func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			fmt.Fprintf(&logged, "%s %v %+v %#v\n", r.Context(), r.Context(), r.Context(), r.Context())
			slog.New(slog.NewJSONHandler(&logged, nil)).Info("send", "ctx", r.Context())
			slog.New(slog.NewTextHandler(&logged, nil)).Info("send", "ctx", r.Context())
			mu.Unlock()
			return next.RoundTrip(r)
		})
	}
	c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}),
		WithTransport(wrap), WithHeader("X-Partner-Token", "tok-7e3b"))
	require.NoError(t, err)
	_, err = c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: "1003750000", RoutingNumber: "124003116"})
	require.Error(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, logged.String())
	for _, secret := range []string{"1003750000", "124003116", "tok-7e3b", base64.StdEncoding.EncodeToString([]byte("1003750000"))[:8]} {
		assert.NotContains(t, logged.String(), secret)
	}
	assert.NotContains(t, logged.String(), `"Body"`)
}

// Every operation with a JSON body sends the bytes json.Marshal writes for
// its params: the body of each endpoint's call, and then, for the type of
// those params, many values with every exported field filled at random
// (strings with characters encoding/json escapes, zero and extreme
// numbers, nil and set pointers). No JSON operation is left out, and each
// one whose params are a pointer to a struct without a MarshalJSON of its
// own is written from a plan (not handed whole to encoding/json).
func TestJSONBodiesAreEncodingJSON(t *testing.T) {
	seen := map[*ops.Op]reflect.Type{}
	rng := rand.New(rand.NewPCG(25, 1))
	for _, ep := range endpoints() {
		c, mock, _ := newTestClient(t)
		expect(t, mock, ep.want("1002581234567"), 200, ep.answer("1002581234567"))
		c.cfg.bodyEncoded = func(op *ops.Op, params any, body []byte) {
			want, err := json.Marshal(params)
			require.NoError(t, err, op.Name)
			assert.Equal(t, string(want), string(body), op.Name)
			seen[op] = reflect.TypeOf(params)
		}
		require.NoError(t, ep.call(context.Background(), c, "1002581234567"), ep.name)
	}
	for _, op := range ops.All() {
		if op.Body != ops.BodyJSON {
			continue
		}
		typ, ok := seen[op]
		if !assert.True(t, ok, "%s: no endpoint sent its body", op.Name) {
			continue
		}
		if _, own := reflect.New(typ).Elem().Interface().(json.Marshaler); typ.Kind() == reflect.Pointer && !own {
			assert.True(t, jsonbody.Planned(reflect.New(typ).Elem().Interface()), "%s: %s is written from a plan", op.Name, typ)
		}
		for range 300 {
			v := reflect.New(typ).Elem()
			fillRandom(rng, v, 0)
			want, wantErr := json.Marshal(v.Interface())
			got, err := jsonbody.Marshal(v.Interface())
			require.Equal(t, wantErr, err, op.Name)
			require.Equal(t, string(want), string(got), "%s (%s)", op.Name, typ)
		}
	}
}

// fillRandom sets v, and each exported field, element and pointee under
// it, to a random value (or leaves it zero); depth bounds recursive types.
func fillRandom(rng *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() || rng.IntN(5) == 0 {
		return // some values stay zero: omitempty's case
	}
	strs := []string{"", "a", "Jane Doe", "<b>&\"q\"\\", "\u2028é\x01", "\xff", "1000000001", " "}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[rng.IntN(len(strs))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := rng.Int64()
		if !v.OverflowInt(n) && rng.IntN(2) == 0 {
			v.SetInt(n)
		} else {
			v.SetInt(int64(rng.IntN(256)) - 128)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n := rng.Uint64(); !v.OverflowUint(n) {
			v.SetUint(n)
		} else {
			v.SetUint(uint64(rng.IntN(256)))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(rng.IntN(100000)) / 100)
	case reflect.Pointer:
		if depth < 4 {
			p := reflect.New(v.Type().Elem())
			fillRandom(rng, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(rng, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if depth < 4 {
			s := reflect.MakeSlice(v.Type(), rng.IntN(3), 3)
			for i := range s.Len() {
				fillRandom(rng, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String && depth < 4 {
			m := reflect.MakeMap(v.Type())
			e := reflect.New(v.Type().Elem()).Elem()
			fillRandom(rng, e, depth+1)
			m.SetMapIndex(reflect.ValueOf(strs[rng.IntN(len(strs))]).Convert(v.Type().Key()), e)
			v.Set(m)
		}
	}
}
