// Package faultinject breaks HTTP exchanges on purpose, for tests of how a
// client behaves when the network and the server go wrong.
//
// A Server is a real loopback HTTP/1.1 server (an httptest.Server) that
// responds to each request according to a script of Actions: pass it to a
// backend handler, respond with a chosen status, reset the connection before the
// request is read, after it is read, or in the middle of the response, hang
// past the client's timeout, response a truncated, non-HTTP or huge (streamed,
// never held in memory) body. Its Transport refuses a chosen number of
// dials with a real "connection refused" from the kernel. It records every
// request that reached it, so that a test can assert exactly how many
// requests the server saw and what they carried.
//
// RoundTripper is the same idea one layer up: it wraps an http.RoundTripper
// and fails chosen round trips before the request is sent or after the
// response came back.
package faultinject

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

type kind int

const (
	kindPass kind = iota
	kindRespond
	kindResetOnAccept
	kindResetAfterRequest
	kindPassAndReset
	kindResetMidResponse
	kindTruncate
	kindGarbage
	kindHang
	kindDelay
	kindHuge
)

var kindNames = [...]string{
	kindPass:              "pass",
	kindRespond:           "respond",
	kindResetOnAccept:     "reset on accept",
	kindResetAfterRequest: "reset after request",
	kindPassAndReset:      "pass and reset",
	kindResetMidResponse:  "reset mid-response",
	kindTruncate:          "truncated response",
	kindGarbage:           "garbage response",
	kindHang:              "hang",
	kindDelay:             "delay",
	kindHuge:              "huge response",
}

// Action is what the server does with one exchange. Build it with the
// functions of this package; the zero Action is Pass.
type Action struct {
	kind   kind
	status int
	header http.Header
	body   string
	sent   int           // bytes of body written before a reset or a close
	size   int64         // size of a huge body; negative: chunked, endless
	delay  time.Duration // Delay
	then   *Action       // Delay
}

// String names the action, for test names and reports.
func (a Action) String() string {
	switch a.kind {
	case kindRespond:
		return strconv.Itoa(a.status)
	case kindResetMidResponse, kindTruncate:
		return fmt.Sprintf("%s (%d of %d bytes)", kindNames[a.kind], a.sent, len(a.body))
	case kindDelay:
		return fmt.Sprintf("delay %v then %v", a.delay, *a.then)
	case kindHuge:
		if a.size < 0 {
			return fmt.Sprintf("huge %d response (chunked, endless)", a.status)
		}
		return fmt.Sprintf("huge %d response (%d bytes)", a.status, a.size)
	}
	return kindNames[a.kind]
}

// connLevel reports whether the action happens when a connection is
// accepted, before any request is read.
func (a Action) connLevel() bool { return a.kind == kindResetOnAccept }

// Pass hands the request to the server's backend handler.
func Pass() Action { return Action{kind: kindPass} }

// Respond responds with status with body and headers given as name, value pairs.
// The body gets Content-Type application/json unless a header sets another.
func Respond(status int, body string, headerKV ...string) Action {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(headerKV); i += 2 {
		h.Set(headerKV[i], headerKV[i+1])
	}
	return Action{kind: kindRespond, status: status, body: body, header: h}
}

// ResetOnAccept resets (TCP RST) the next new connection once the client
// has started to write its request, before the server reads any of it: the
// client's dial succeeded and its request (or part of it) left, but the
// server never sees it. This action is taken by the next new connection,
// not by the next request.
func ResetOnAccept() Action { return Action{kind: kindResetOnAccept} }

// ResetAfterRequest reads the whole request, records it, and resets the
// connection without responding.
func ResetAfterRequest() Action { return Action{kind: kindResetAfterRequest} }

// PassAndReset hands the request to the backend, which acts on it, then
// throws the backend's response away and resets the connection: the request
// took effect but the client never learns how.
func PassAndReset() Action { return Action{kind: kindPassAndReset} }

// ResetMidResponse writes the status line, headers (with the Content-Length of
// the whole body) and the first sent bytes of body, then resets.
func ResetMidResponse(status int, body string, sent int) Action {
	return Action{kind: kindResetMidResponse, status: status, body: body, sent: clamp(sent, len(body))}
}

// Truncate is ResetMidResponse with an orderly close (FIN) instead of a reset:
// the response promises more bytes than it sends.
func Truncate(status int, body string, sent int) Action {
	return Action{kind: kindTruncate, status: status, body: body, sent: clamp(sent, len(body))}
}

// Garbage writes raw bytes that are not an HTTP response, then closes.
func Garbage(raw string) Action { return Action{kind: kindGarbage, body: raw} }

// Hang reads the request and never responds: it waits until the client goes
// away (its timeout or context) or the server is closed.
func Hang() Action { return Action{kind: kindHang} }

// Delay waits d (or until the client goes away) and then does then.
func Delay(d time.Duration, then Action) Action {
	return Action{kind: kindDelay, delay: d, then: &then}
}

// Huge responds with status with a body of size bytes streamed from a small
// buffer, never held in memory. A negative size streams a chunked body
// with no end: it stops only when the client goes away or the server closes.
func Huge(status int, size int64) Action {
	return Action{kind: kindHuge, status: status, size: size}
}

func clamp(n, hi int) int {
	if n < 0 {
		return 0
	}
	if n > hi {
		return hi
	}
	return n
}

// Received is a request that reached the server.
type Received struct {
	Method   string
	Path     string // escaped
	RawQuery string
	Header   http.Header
	Body     []byte
}

// Server is a loopback HTTP server that follows a script of Actions. Its
// methods are safe for concurrent use.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:port.
	URL string

	ts       *httptest.Server
	backend  http.Handler
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup // connection-level actions under way

	mu       sync.Mutex
	script   []Action
	fallback Action
	received []Received
	taken    []Action // the actions applied, in order

	conns    atomic.Int64
	refuse   atomic.Int64
	refused  atomic.Int64
	streamed atomic.Int64
}

// NewServer starts a server whose Pass action hands requests to backend
// (which may be nil: Pass then responds with 501). Requests beyond the script get
// the fallback action, Pass unless SetFallback says otherwise.
func NewServer(backend http.Handler, script ...Action) *Server {
	s := &Server{backend: backend, stop: make(chan struct{}), script: script}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Listener = listener{Listener: s.ts.Listener, s: s}
	s.ts.Config.ErrorLog = discardLog
	s.ts.Start()
	s.URL = s.ts.URL
	return s
}

// Script replaces the queue of actions still to come.
func (s *Server) Script(actions ...Action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append([]Action(nil), actions...)
}

// SetFallback sets the action for requests beyond the script.
func (s *Server) SetFallback(a Action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = a
}

// Requests returns how many requests reached the server (were read whole).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.received)
}

// Received returns a copy of the requests that reached the server, in order.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Taken returns the actions applied so far, in order, connection-level ones
// included.
func (s *Server) Taken() []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Action(nil), s.taken...)
}

// Conns returns how many connections the server accepted.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// Streamed returns how many body bytes Huge actions have written.
func (s *Server) Streamed() int64 { return s.streamed.Load() }

// RefuseNext makes the next n dials through DialContext (and Transport)
// fail with a real "connection refused".
func (s *Server) RefuseNext(n int) { s.refuse.Store(int64(n)) }

// Refused returns how many dials were refused.
func (s *Server) Refused() int { return int(s.refused.Load()) }

// refusedAddr is a loopback address no one can listen on: connecting to
// port 0 is refused by the kernel.
const refusedAddr = "127.0.0.1:0"

// RefusedURL is a base URL whose every connection is refused.
const RefusedURL = "http://" + refusedAddr

// DialContext dials the server, or refuses while RefuseNext says so. Put it
// in an http.Transport, whatever address the transport asks for.
func (s *Server) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	for {
		n := s.refuse.Load()
		if n <= 0 {
			break
		}
		if s.refuse.CompareAndSwap(n, n-1) {
			s.refused.Add(1)
			return d.DialContext(ctx, network, refusedAddr)
		}
	}
	return d.DialContext(ctx, network, s.ts.Listener.Addr().String())
}

// Transport returns a new keep-alive transport that dials the server through
// DialContext. Close its idle connections when done.
func (s *Server) Transport() *http.Transport {
	return &http.Transport{
		DialContext:         s.DialContext,
		MaxIdleConnsPerHost: 128,
		IdleConnTimeout:     time.Minute,
	}
}

// Close stops hanging and streaming actions, closes every connection and
// shuts the server down.
func (s *Server) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.ts.CloseClientConnections()
	s.ts.Close()
	s.wg.Wait()
}

// next pops the action for a new connection (connLevel) or a request. A
// connection-level action is taken only from the head of the script; a
// request on an existing connection skips it (it waits for a new
// connection) and takes the first request-level action.
func (s *Server) next(connLevel bool) (Action, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if connLevel {
		if len(s.script) == 0 || !s.script[0].connLevel() {
			return Action{}, false
		}
		a := s.script[0]
		s.script = s.script[1:]
		s.taken = append(s.taken, a)
		return a, true
	}
	for i, a := range s.script {
		if !a.connLevel() {
			s.script = append(s.script[:i:i], s.script[i+1:]...)
			s.taken = append(s.taken, a)
			return a, true
		}
	}
	s.taken = append(s.taken, s.fallback)
	return s.fallback, true
}

// listener hands the server its connections, except those a
// connection-level action takes.
type listener struct {
	net.Listener
	s *Server
}

func (l listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.s.conns.Add(1)
		if _, ok := l.s.next(true); !ok {
			return c, nil
		}
		l.s.wg.Add(1)
		go l.s.resetOnFirstByte(c)
	}
}

// resetOnFirstByte waits until the client has started to write its request
// (so that its dial has surely succeeded) and resets the connection without
// reading the request.
func (s *Server) resetOnFirstByte(c net.Conn) {
	defer s.wg.Done()
	done := make(chan struct{})
	go func() {
		select {
		case <-s.stop:
			_ = c.SetReadDeadline(time.Now())
		case <-done:
		}
	}()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [1]byte
	_, _ = c.Read(b[:])
	close(done)
	reset(c)
}

// reset closes c with a TCP RST instead of a FIN.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

const maxRecordedBody = 1 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRecordedBody))
	a, _ := s.next(false)
	s.mu.Lock()
	s.received = append(s.received, Received{
		Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body,
	})
	s.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.apply(w, r, a)
}

func (s *Server) apply(w http.ResponseWriter, r *http.Request, a Action) {
	switch a.kind {
	case kindPass:
		if s.backend == nil {
			http.Error(w, "faultinject: no backend", http.StatusNotImplemented)
			return
		}
		s.backend.ServeHTTP(w, r)
	case kindRespond:
		for k, vs := range a.header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	case kindResetAfterRequest:
		s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) { reset(c) })
	case kindPassAndReset:
		if s.backend != nil {
			s.backend.ServeHTTP(httptest.NewRecorder(), r)
		}
		s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) { reset(c) })
	case kindResetMidResponse, kindTruncate:
		s.hijack(w, func(c net.Conn, rw *bufio.ReadWriter) {
			fmt.Fprintf(rw, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
				a.status, http.StatusText(a.status), len(a.body), a.body[:a.sent])
			_ = rw.Flush()
			if a.kind == kindResetMidResponse {
				reset(c)
			} else {
				_ = c.Close()
			}
		})
	case kindGarbage:
		s.hijack(w, func(c net.Conn, rw *bufio.ReadWriter) {
			_, _ = rw.WriteString(a.body)
			_ = rw.Flush()
			_ = c.Close()
		})
	case kindHang:
		select {
		case <-r.Context().Done():
		case <-s.stop:
			s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) { reset(c) })
		}
	case kindDelay:
		t := time.NewTimer(a.delay)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-s.stop:
			s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) { reset(c) })
		case <-t.C:
			s.apply(w, r, *a.then)
		}
	case kindHuge:
		s.huge(w, r, a)
	}
}

func (s *Server) hijack(w http.ResponseWriter, fn func(net.Conn, *bufio.ReadWriter)) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faultinject: the ResponseWriter cannot be hijacked")
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	fn(c, rw)
}

var discardLog = log.New(io.Discard, "", 0)

// hugeChunk is the unit a huge body is streamed in.
var hugeChunk = bytes.Repeat([]byte("a"), 32<<10)

func (s *Server) huge(w http.ResponseWriter, r *http.Request, a Action) {
	w.Header().Set("Content-Type", "application/json")
	if a.size >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(a.size, 10))
	}
	w.WriteHeader(a.status)
	prefix := []byte(`{"errors":[{"code":100,"message":"`)
	left := a.size
	for first := true; a.size < 0 || left > 0; first = false {
		select {
		case <-s.stop:
			return
		case <-r.Context().Done():
			return
		default:
		}
		chunk := hugeChunk
		if first {
			chunk = prefix
		}
		if a.size >= 0 && int64(len(chunk)) > left {
			chunk = chunk[:left]
		}
		n, err := w.Write(chunk)
		s.streamed.Add(int64(n))
		left -= int64(n)
		if err != nil {
			return
		}
	}
}

// RoundTripper wraps an http.RoundTripper and breaks chosen round trips
// without touching the network. Its methods are safe for concurrent use if
// Before and After are.
type RoundTripper struct {
	// Base sends the requests that are let through (http.DefaultTransport
	// when nil).
	Base http.RoundTripper
	// Before, when set, is called before round trip n (from 0) is sent; a
	// non-nil error is returned as the transport's error and nothing is sent.
	Before func(n int, req *http.Request) error
	// After, when set, is called with the response of round trip n; a non-nil
	// error drops the response (its body is closed) and is returned instead.
	After func(n int, req *http.Request, resp *http.Response) error

	n    atomic.Int64
	sent atomic.Int64
}

// RoundTrip implements http.RoundTripper.
func (rt *RoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	n := int(rt.n.Add(1) - 1)
	if rt.Before != nil {
		if err := rt.Before(n, req); err != nil {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, err
		}
	}
	base := rt.Base
	if base == nil {
		base = http.DefaultTransport
	}
	rt.sent.Add(1)
	resp, err := base.RoundTrip(req)
	if err != nil || rt.After == nil {
		return resp, err
	}
	if ferr := rt.After(n, req, resp); ferr != nil {
		_ = resp.Body.Close()
		return nil, ferr
	}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of Base.
func (rt *RoundTripper) CloseIdleConnections() {
	type closeIdler interface{ CloseIdleConnections() }
	if ci, ok := rt.Base.(closeIdler); ok {
		ci.CloseIdleConnections()
	}
}

// Trips returns how many round trips were asked for.
func (rt *RoundTripper) Trips() int { return int(rt.n.Load()) }

// Sent returns how many round trips were handed to Base.
func (rt *RoundTripper) Sent() int { return int(rt.sent.Load()) }
