package faultinject

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

func TestMain(m *testing.M) {
	testmain.NoExitPause()
	os.Exit(VerifyTestMain(m, 5*time.Second))
}

// fixture starts a server with a counting backend and a client through the
// server's transport; both are closed at cleanup.
func fixture(t *testing.T, timeout time.Duration, script ...Action) (*Server, *http.Client, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"echo":"`+string(b)+`"}`)
	})
	s := NewServer(backend, script...)
	tr := s.Transport()
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		s.Close()
	})
	return s, &http.Client{Transport: tr, Timeout: timeout}, &hits
}

// get sends a POST with body x and reads the whole response.
func post(c *http.Client, s *Server) (int, string, error) {
	resp, err := c.Post(s.URL+"/p", "text/plain", strings.NewReader("x"))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestPassAndRespond(t *testing.T) {
	s, c, hits := fixture(t, 5*time.Second, Respond(503, `{}`, "Retry-After", "86400"), Pass())
	resp, err := c.Get(s.URL + "/a?b=1")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, 503, resp.StatusCode, "response %d %v", resp.StatusCode, resp.Header)
	assert.Equal(t, "86400", resp.Header.Get("Retry-After"), "response %d %v", resp.StatusCode, resp.Header)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "response %d %v", resp.StatusCode, resp.Header)
	st, body, err := post(c, s)
	assert.NoError(t, err, "pass: %d %q %v", st, body, err)
	assert.Equal(t, 200, st, "pass: %d %q %v", st, body, err)
	assert.Equal(t, `{"echo":"x"}`, body, "pass: %d %q %v", st, body, err)
	got := s.Received()
	if assert.Len(t, got, 2, "received %+v, backend hits %d", got, hits.Load()) {
		assert.Equal(t, "/a", got[0].Path, "received %+v, backend hits %d", got, hits.Load())
		assert.Equal(t, "b=1", got[0].RawQuery, "received %+v, backend hits %d", got, hits.Load())
		assert.Equal(t, "x", string(got[1].Body), "received %+v, backend hits %d", got, hits.Load())
		assert.Equal(t, int32(1), hits.Load(), "received %+v, backend hits %d", got, hits.Load())
	}
	assert.Equal(t, 1, s.Conns(), "conns = %d, want 1 (keep-alive)", s.Conns())
}

func TestResetOnAcceptNeverReachesTheServer(t *testing.T) {
	s, c, hits := fixture(t, 5*time.Second, ResetOnAccept())
	_, _, err := post(c, s)
	require.Error(t, err, "want an error")
	assert.Equal(t, 0, s.Requests(), "requests %d, hits %d, conns %d", s.Requests(), hits.Load(), s.Conns())
	assert.Equal(t, int32(0), hits.Load(), "requests %d, hits %d, conns %d", s.Requests(), hits.Load(), s.Conns())
	assert.Equal(t, 1, s.Conns(), "requests %d, hits %d, conns %d", s.Requests(), hits.Load(), s.Conns())
	_, _, err = post(c, s)
	assert.NoError(t, err, "after the script: %v, requests %d", err, s.Requests())
	assert.Equal(t, 1, s.Requests(), "after the script: %v, requests %d", err, s.Requests())
}

func TestResetAfterRequestAndPassAndReset(t *testing.T) {
	s, c, hits := fixture(t, 5*time.Second, ResetAfterRequest(), PassAndReset())
	for i := 0; i < 2; i++ {
		_, _, err := post(c, s)
		var op *net.OpError
		require.Error(t, err, "%d: err = %v, want a reset after the dial", i, err)
		if errors.As(err, &op) {
			require.NotEqual(t, "dial", op.Op, "%d: err = %v, want a reset after the dial", i, err)
		}
	}
	assert.Equal(t, 2, s.Requests(), "requests %d, backend hits %d; want 2 and 1", s.Requests(), hits.Load())
	assert.Equal(t, int32(1), hits.Load(), "requests %d, backend hits %d; want 2 and 1", s.Requests(), hits.Load())
}

func TestBrokenResponses(t *testing.T) {
	const body = `{"transaction":{"transactionId":"1"}}`
	for _, tc := range []struct {
		a       Action
		wantErr error // on the body read; nil: on the round trip
	}{
		{ResetMidResponse(200, body, 10), nil},
		{Truncate(200, body, 10), io.ErrUnexpectedEOF},
		{Garbage("SSH-2.0-OpenSSH\r\n\r\n"), nil},
	} {
		t.Run(tc.a.String(), func(t *testing.T) {
			s, c, _ := fixture(t, 5*time.Second, tc.a)
			resp, err := c.Post(s.URL, "text/plain", strings.NewReader("x"))
			if tc.a.kind == kindGarbage {
				if err == nil {
					resp.Body.Close()
					require.Fail(t, "garbage accepted as a response")
				}
				return
			}
			require.NoError(t, err, "headers should arrive: %v", err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if assert.Error(t, err, "read %q, %v", b, err) {
				assert.Equal(t, body[:10], string(b), "read %q, %v", b, err)
			}
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr, "err = %v, want %v", err, tc.wantErr)
			}
			assert.Equal(t, 1, s.Requests(), "requests = %d", s.Requests())
		})
	}
}

func TestHangUntilClientTimeout(t *testing.T) {
	s, c, _ := fixture(t, 50*time.Millisecond, Hang())
	start := time.Now()
	_, _, err := post(c, s)
	var ne net.Error
	require.ErrorAs(t, err, &ne, "err = %v, want a timeout", err)
	require.True(t, ne.Timeout(), "err = %v, want a timeout", err)
	d := time.Since(start)
	assert.LessOrEqual(t, d, 3*time.Second, "took %v", d)
	assert.Equal(t, 1, s.Requests(), "requests = %d", s.Requests())
}

func TestDelay(t *testing.T) {
	s, c, _ := fixture(t, 5*time.Second, Delay(time.Millisecond, Respond(204, "")))
	st, _, err := post(c, s)
	require.NoError(t, err, "%d %v", st, err)
	require.Equal(t, 204, st, "%d %v", st, err)
}

func TestHugeIsStreamedNotHeld(t *testing.T) {
	for _, size := range []int64{4 << 30, -1} {
		s, c, _ := fixture(t, 30*time.Second, Huge(200, size))
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		resp, err := c.Get(s.URL)
		require.NoError(t, err)
		n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		require.NoError(t, err, "size %d: read %d, %v", size, n, err)
		require.Equal(t, int64(16<<20), n, "size %d: read %d, %v", size, n, err)
		if size > 0 {
			assert.Equal(t, size, resp.ContentLength, "Content-Length = %d", resp.ContentLength)
		}
		s.Close() // stops the stream
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		grew := after.TotalAlloc - before.TotalAlloc
		assert.LessOrEqual(t, grew, uint64(64<<20), "size %d: allocated %d MiB for a 16 MiB read", size, grew>>20)
		st := s.Streamed()
		assert.GreaterOrEqual(t, st, int64(16<<20), "size %d: streamed %d", size, st)
		if size > 0 {
			assert.Less(t, st, size, "size %d: streamed %d", size, st)
		}
	}
}

func TestRefuseNext(t *testing.T) {
	s, c, _ := fixture(t, 5*time.Second)
	s.RefuseNext(2)
	for i := 0; i < 2; i++ {
		_, _, err := post(c, s)
		var op *net.OpError
		require.ErrorAs(t, err, &op, "%d: err = %v, want a refused dial", i, err)
		require.Equal(t, "dial", op.Op, "%d: err = %v, want a refused dial", i, err)
		require.ErrorIs(t, err, syscall.ECONNREFUSED, "%d: err = %v, want a refused dial", i, err)
	}
	_, _, err := post(c, s)
	require.NoError(t, err)
	assert.Equal(t, 2, s.Refused(), "refused %d, requests %d, conns %d", s.Refused(), s.Requests(), s.Conns())
	assert.Equal(t, 1, s.Requests(), "refused %d, requests %d, conns %d", s.Refused(), s.Requests(), s.Conns())
	assert.Equal(t, 1, s.Conns(), "refused %d, requests %d, conns %d", s.Refused(), s.Requests(), s.Conns())
	_, err = (&http.Client{}).Get(RefusedURL)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "RefusedURL: %v", err)
}

func TestConnLevelActionWaitsForANewConnection(t *testing.T) {
	// The second request reuses the connection: it skips ResetOnAccept and
	// takes the 202; the reset waits for the next new connection.
	s, c, _ := fixture(t, 5*time.Second, Respond(201, ""), ResetOnAccept(), Respond(202, ""))
	for _, want := range []int{201, 202} {
		st, _, err := post(c, s)
		require.NoError(t, err, "%d %v, want %d", st, err, want)
		require.Equal(t, want, st, "%d %v, want %d", st, err, want)
	}
	c.Transport.(*http.Transport).CloseIdleConnections()
	_, _, err := post(c, s)
	require.Error(t, err, "the new connection should have been reset")
	got := len(s.Taken())
	assert.Equal(t, 3, got, "taken %v", s.Taken())
}

func TestCloseStopsHangingHandlers(t *testing.T) {
	s := NewServer(nil, Hang())
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	done := make(chan error, 1)
	go func() {
		_, err := (&http.Client{Transport: tr}).Get(s.URL)
		done <- err
	}()
	for s.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	s.Close()
	select {
	case err := <-done:
		assert.Error(t, err, "a hung request got a response")
	case <-time.After(5 * time.Second):
		require.Fail(t, "Close did not end the hanging request")
	}
}

func TestRoundTripper(t *testing.T) {
	s, _, hits := fixture(t, 5*time.Second)
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	boom := errors.New("boom")
	rt := &RoundTripper{
		Base:   tr,
		Before: func(n int, _ *http.Request) error { return map[bool]error{true: boom}[n == 0] },
		After:  func(n int, _ *http.Request, _ *http.Response) error { return map[bool]error{true: boom}[n == 1] },
	}
	c := &http.Client{Transport: rt}
	for i := 0; i < 3; i++ {
		_, _, err := post(c, s)
		assert.Equal(t, errors.Is(err, boom), (i < 2), "trip %d: err = %v", i, err)
	}
	assert.Equal(t, 3, rt.Trips(), "trips %d, sent %d, backend hits %d", rt.Trips(), rt.Sent(), hits.Load())
	assert.Equal(t, 2, rt.Sent(), "trips %d, sent %d, backend hits %d", rt.Trips(), rt.Sent(), hits.Load())
	assert.Equal(t, int32(2), hits.Load(), "trips %d, sent %d, backend hits %d", rt.Trips(), rt.Sent(), hits.Load())
	rt.CloseIdleConnections()
}

func TestPassWithoutBackend(t *testing.T) {
	s := NewServer(nil)
	defer s.Close()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	st, _, err := post(&http.Client{Transport: tr}, s)
	assert.NoError(t, err, "%d %v", st, err)
	assert.Equal(t, http.StatusNotImplemented, st, "%d %v", st, err)
}

func TestLeakedSeesAGoroutine(t *testing.T) {
	stop := make(chan struct{})
	go func() { <-stop }()
	mine := func(g []string) int {
		n := 0
		for _, s := range g {
			if strings.Contains(s, "TestLeakedSeesAGoroutine.func") {
				n++
			}
		}
		return n
	}
	n := mine(Leaked(0))
	assert.Equal(t, 1, n, "found %d of the test's goroutines, want 1", n)
	close(stop)
	deadline := time.Now().Add(5 * time.Second)
	for mine(Leaked(0)) != 0 {
		require.False(t, time.Now().After(deadline), "the ended goroutine is still reported")
		time.Sleep(time.Millisecond)
	}
}

// H2Server speaks HTTP/2 to net/http's client: it responses, and it resets
// streams (which the transport replays by itself for a bodyless GET).
func TestH2Server(t *testing.T) {
	s := NewH2Server(H2Reset(), H2Respond(http.StatusCreated, `{"ok":true}`))
	defer s.Close()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(s.URL + "/x")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, 2, resp.ProtoMajor, "response %s %d %q %v", resp.Proto, resp.StatusCode, body, resp.Header)
	assert.Equal(t, http.StatusCreated, resp.StatusCode, "response %s %d %q %v", resp.Proto, resp.StatusCode, body, resp.Header)
	assert.Equal(t, `{"ok":true}`, string(body), "response %s %d %q %v", resp.Proto, resp.StatusCode, body, resp.Header)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "response %s %d %q %v", resp.Proto, resp.StatusCode, body, resp.Header)
	streams := s.Streams()
	if assert.Len(t, streams, 2, "streams %+v", streams) {
		assert.NotEqual(t, uint32(0), streams[0].ID, "streams %+v", streams)
		assert.Len(t, streams[1].Body, 0, "streams %+v", streams)
	}

	resp, err = (&http.Client{Transport: tr}).Post(s.URL+"/y", "text/plain", strings.NewReader("hello"))
	require.NoError(t, err)
	_ = resp.Body.Close()
	got := s.Streams()
	if assert.Len(t, got, 3, "streams %+v", got) {
		assert.Equal(t, "hello", string(got[2].Body), "streams %+v", got)
	}
}
