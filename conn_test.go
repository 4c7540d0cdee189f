package bankpay

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/wire"
)

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
	case path == "/transactions/ok", path == "/transactions/ok/deposit":
		response(200, faultTxn)
	case path == "/transactions/big":
		response(200, `{"transaction":{"transactionId":"1","description":"`+strings.Repeat("d", 100<<10)+`"}}`)
	case path == "/transactions/missing":
		response(404, `{"errors":[{"code":200,"message":"not found"}]}`)
	case strings.HasPrefix(path, "/transactions/flaky-"):
		s.mu.Lock()
		again := s.seen[path]
		s.seen[path] = true
		s.mu.Unlock()
		if again {
			response(200, faultTxn)
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
		response(200, faultTxn)
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

// TestThousandCallsOneConnection: 1,000 sequential calls, successes and
// error responses of every kind (retried or not, bodies read, skipped or
// larger than the retry layer's drain), share one keep-alive connection.
func TestThousandCallsOneConnection(t *testing.T) {
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
	const n = 1000
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
