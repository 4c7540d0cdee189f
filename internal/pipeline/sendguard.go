package pipeline

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrResendRefused: a layer between the SDK and the network (middleware
// given to WithTransport, or one in WithHTTPClient's transport chain above
// the SDK's guard) tried to send an attempt of a state-changing call a
// second time, or sent a state-changing request without the SDK's context.
// The guard refuses it: only the SDK's retry rule decides whether a call
// that may have moved money is sent again. The middleware gets this error
// from the transport below it; the caller gets a *NetworkError (Sent true
// when an earlier send may have gone out) that wraps it and says so in its
// message. The SDK does not export it: what a caller acts on is
// NetworkError.Sent.
var ErrResendRefused = errors.New("bankpay: second send of one attempt refused")

// sendGuard is the record one state-changing call keeps of its sends,
// shared through the request's context with guardTransport, the innermost
// transport of every Client. Whatever the layers above it do, a
// non-idempotent call gets one send per attempt of the SDK's own retry
// loop (arm); a send that provably never left (no connection was made)
// gives the permit back. It also knows, better than an error's text,
// whether anything may have left: Sent.
type sendGuard struct {
	once bool // non-idempotent: one send per armed attempt

	mu       sync.Mutex
	permit   bool // the current attempt may still be sent
	taken    bool // the current attempt was handed to the network
	unsent   bool // …and that send provably never left
	closed   bool // the current attempt is over (disarm): no send of it may start
	inFlight int  // sends handed to the base transport, not yet returned
	sent     bool // some send of the call may have left
	// answer is the status and headers of the last response of the
	// current attempt, as it came from the network: a layer above may
	// have turned it into an error (a refused retry), but its Retry-After
	// still bounds the retry rule (a Retry-After of a day is not retried).
	answerStatus int // 0: none
	answerHeader http.Header
	// trace is the sendTrace of a send that starts when none is in
	// flight (take): a non-idempotent call's sends are one at a time, so
	// they share it rather than allocate one each.
	trace sendTrace
}

// arm opens a new attempt of the SDK's retry loop: one more send is allowed.
func (g *sendGuard) arm() {
	g.mu.Lock()
	g.permit, g.taken, g.unsent, g.closed = true, false, false, false
	g.answerStatus, g.answerHeader = 0, nil
	g.mu.Unlock()
}

// lastAnswer is the status and headers of the last response of the current
// attempt, or nil.
func (g *sendGuard) lastAnswer() *http.Response {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.answerStatus == 0 {
		return nil
	}
	return &http.Response{StatusCode: g.answerStatus, Header: g.answerHeader}
}

// disarm closes the current attempt (no send of it may start any more) and
// reports whether it provably never left: it was never handed to the base
// transport, or every send of it failed before a connection was made.
func (g *sendGuard) disarm() (unsent bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.permit, g.closed = false, true
	return g.inFlight == 0 && (!g.taken || g.unsent)
}

// mayHaveSent reports whether any send of the call may have left, counting a
// send still under way.
func (g *sendGuard) mayHaveSent() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sent || g.inFlight > 0
}

// take starts a send and returns its sendTrace; nil refuses it. A send
// that starts with none in flight gets the guard's own trace, reset; one
// beside another send (a layer above sends in parallel) a new one, so
// that no send reads another's connection.
func (g *sendGuard) take() *sendTrace {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.once {
		if !g.permit {
			return nil
		}
		g.permit = false
	}
	g.taken, g.unsent = true, false
	g.inFlight++
	if g.inFlight > 1 {
		return newSendTrace()
	}
	st := &g.trace
	if st.trace.GotConn == nil {
		st.trace.GotConn = st.gotConn
	}
	st.connected.Store(false)
	return st
}

// done ends a send; left reports whether it may have reached the network,
// resp is its response (nil if none).
func (g *sendGuard) done(left bool, resp *http.Response) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight--
	if resp != nil && !g.closed {
		g.answerStatus, g.answerHeader = resp.StatusCode, resp.Header
	}
	if left {
		g.sent = true
		return
	}
	g.unsent = true
	if g.once && !g.closed {
		// Nothing left: the layer above may try this attempt again.
		g.permit = true
	}
}

// guardTransport is the innermost transport of every Client, directly
// above net/http (or WithHTTPClient's transport): see sendGuard. It sets
// the Authorization header, so that no layer above it (the caller's
// middleware, the redirect policy, a response's Request handed back) sees
// the credentials. traced marks a base that is net/http's own
// *http.Transport, which reports through httptrace when it has a
// connection, before it writes a byte; a send it fails before that
// provably never left. With any other base only a dial or DNS error proves
// it.
//
// It has no CloseIdleConnections, as keepAliveTransport has none: a
// middleware's http.Client that closes idle connections on a failure
// (go-retryablehttp's does) must not close those of every other call of a
// shared Client (Client.Close closes them).
type guardTransport struct {
	base   http.RoundTripper
	traced bool
	auth   Authorizer
}

// Authorizer holds the credentials guardTransport sends.
type Authorizer interface {
	// AuthValue is the Authorization header's value, as a header's
	// slice shared by every request.
	AuthValue() []string
}

// NewGuardTransport is the guard above base (see guardTransport), which
// sets the Authorization header of auth.
func NewGuardTransport(base http.RoundTripper, auth Authorizer) http.RoundTripper {
	_, traced := base.(*http.Transport)
	return guardTransport{base: base, traced: traced, auth: auth}
}

// authorized is a copy of req (with ctx) that carries the Authorization
// header, unless req is a redirect to another scheme or host (see
// sameOrigin); req is not modified.
func (t guardTransport) authorized(ctx context.Context, req *http.Request) *http.Request {
	out := req.WithContext(ctx)
	h := maps.Clone(req.Header) // the values are shared: none is written
	if h == nil {
		h = make(http.Header, 1)
	}
	if sameOrigin(req) {
		h["Authorization"] = t.auth.AuthValue()
	} else {
		delete(h, "Authorization")
	}
	out.Header = h
	return out
}

// sameOrigin reports whether req goes to the scheme and host of the request
// it was made from. A layer above the guard with an http.Client of its own
// (go-retryablehttp's RoundTripper has one, following redirects with
// net/http's default policy) follows a redirect anywhere, past the SDK's
// redirect rule: net/http drops the Authorization header of a redirect to
// another host, and the guard must not put the credentials back on it.
// net/http links a redirect to the request before it through Response.
func sameOrigin(req *http.Request) bool {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	return first == req || first.URL.Scheme == req.URL.Scheme && strings.EqualFold(first.URL.Host, req.URL.Host)
}

// RoundTrip implements http.RoundTripper.
func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var g *sendGuard
	if a := attemptOf(req.Context()); a != nil {
		g = a.guard
	}
	if g == nil {
		if req.Method == http.MethodGet || req.Method == http.MethodHead {
			resp, err := t.base.RoundTrip(t.authorized(hideAuthorization(req.Context()), req))
			answering(req, resp)
			return resp, err
		}
		// Every state-changing request of the SDK carries its guard: a
		// layer above replaced the request's context, so it is not one
		// the SDK's retry rule can account for.
		closeRequestBody(req)
		return nil, refused(req, "the request lost the SDK's context")
	}
	st := g.take()
	if st == nil {
		closeRequestBody(req)
		return nil, refused(req, "sent again by a layer above the SDK's transport")
	}
	out := t.authorized(httptrace.WithClientTrace(hideAuthorization(req.Context()), &st.trace), req)
	if g.once {
		// Only the SDK's retry rule sends a non-idempotent request again:
		// with GetBody, net/http would replay it by itself (HTTP/2 does on
		// a reset stream or GOAWAY); without a body, HTTP/2 replays it
		// whatever GetBody says. A middleware may have set either.
		out.GetBody = nil
		if out.Body == nil || out.Body == http.NoBody {
			out.Body = io.NopCloser(strings.NewReader(""))
		}
	}
	resp, err := t.base.RoundTrip(out)
	answering(req, resp)
	left := err == nil || st.connected.Load()
	if err != nil && !left && !t.traced {
		left = !NeverSent(err)
	}
	g.done(left, resp)
	return resp, err
}

// answering hands resp back to the layer above as the answer to req, the
// request that layer sent: net/http sets resp.Request to the request it was
// given, the guard's copy that carries the Authorization header, which a
// middleware logging resp.Request's headers would log.
func answering(req *http.Request, resp *http.Response) {
	if resp != nil {
		resp.Request = req
	}
}

// hideAuthorization is ctx, in which the httptrace.ClientTrace of a layer
// above (a tracing middleware's) is not told of the Authorization header
// field the guard sets below it: its WroteHeaderField hook gets every other
// field as net/http writes them.
func hideAuthorization(ctx context.Context) context.Context {
	parent := httptrace.ContextClientTrace(ctx)
	if parent == nil || parent.WroteHeaderField == nil {
		return ctx
	}
	filtered := *parent
	wrote := parent.WroteHeaderField
	filtered.WroteHeaderField = func(key string, value []string) {
		if !strings.EqualFold(key, "Authorization") {
			wrote(key, value)
		}
	}
	return &traceCtx{Context: ctx, parent: parent, filtered: &filtered}
}

// traceCtx is a context whose ClientTrace parent reads as filtered.
type traceCtx struct {
	context.Context
	parent, filtered *httptrace.ClientTrace
}

// Value is the context's value of key, the filtered trace for the parent.
func (c *traceCtx) Value(key any) any {
	v := c.Context.Value(key)
	if t, ok := v.(*httptrace.ClientTrace); ok && t == c.parent {
		return c.filtered
	}
	return v
}

// sendTrace learns from net/http whether one send got a connection.
type sendTrace struct {
	trace     httptrace.ClientTrace
	connected atomic.Bool
}

func newSendTrace() *sendTrace {
	st := &sendTrace{}
	st.trace.GotConn = st.gotConn
	return st
}

func (st *sendTrace) gotConn(httptrace.GotConnInfo) { st.connected.Store(true) }

// refused is the error of a refused send, naming the request (method and
// path; never its query) and matching ErrResendRefused.
func refused(req *http.Request, why string) error {
	return &resendError{method: req.Method, path: req.URL.Path, why: why}
}

type resendError struct{ method, path, why string }

// Error names the refused request and why.
func (e *resendError) Error() string {
	return ErrResendRefused.Error() + ": " + e.method + " " + e.path + ": " + e.why
}

// Is matches ErrResendRefused.
func (e *resendError) Is(target error) bool { return target == ErrResendRefused }

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
