package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// checkRetry is the retry rule: reads are retried on connection errors, 429,
// 500, 502, 503 and 504; a state-changing call only when the request
// provably never reached the server, unless the caller opted in. A
// Retry-After beyond the cap stops the retries.
//
// Nor is a retry made whose wait (the Retry-After, or the longest backoff
// of this retry) would outlast the context's deadline: the caller gets the
// last response now instead of a deadline error later.
func (a *Call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	unsent := resp == nil && NeverSent(err)
	if a.guard != nil {
		// The guard saw what reached the network, whatever a layer above
		// made of the error.
		unsent = a.guard.disarm() && resp == nil
	}
	if !unsent {
		a.sent = true
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	// A layer above may have turned a response into an error (its own
	// retry of a 503, refused by the guard): the server's Retry-After
	// still bounds the retry rule.
	var seen *http.Response
	if err != nil && a.guard != nil {
		seen = a.guard.lastAnswer()
	}
	retry := false
	if err != nil {
		retry = (unsent || a.retryAll) && Transient(err)
		if d, ok := RetryAfter(seen); ok && d > a.cfg.MaxRetryAfter {
			return false, nil
		}
	} else {
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			if d, ok := RetryAfter(resp); ok && d > a.cfg.MaxRetryAfter {
				return false, nil
			}
			retry = a.retryAll
		}
	}
	if retry {
		if resp == nil {
			resp = seen
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= a.nextWaitCeiling(resp, a.count-1) {
			return false, nil
		}
	}
	return retry, nil
}

// nextWaitCeiling is the longest the n-th retry (from 0) waits: the
// Retry-After of resp, or the cap of the jittered backoff.
func (a *Call) nextWaitCeiling(resp *http.Response, n int) time.Duration {
	if d, ok := RetryAfter(resp); ok {
		return d
	}
	return BackoffCeiling(a.cfg.RetryWaitMin, a.cfg.RetryWaitMax, n)
}

// backoff waits the server's Retry-After (already known to be under the cap)
// or a jittered exponential delay between min and max.
func (a *Call) backoff(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
	if resp == nil && a.guard != nil {
		resp = a.guard.lastAnswer() // the server's answer, under a layer's error
	}
	d, ok := RetryAfter(resp)
	if !ok {
		d = JitteredBackoff(minWait, maxWait, n)
	}
	if a.cfg.WaitScale != nil {
		return a.cfg.WaitScale(d)
	}
	return d
}

// attemptKey is the context key of a call's *Call (build).
type attemptKey struct{}

// Value is the Call itself for attemptKey, as context.WithValue(ctx,
// attemptKey{}, a) would have it without an allocation of its own, and
// the call's context's value of any other key.
func (a *Call) Value(key any) any {
	if _, ok := key.(attemptKey); ok {
		return a
	}
	return a.Context.Value(key)
}

// String names a as a context, as context.WithValue(ctx, attemptKey{}, a)
// named its context: never the call's contents (its body may hold an
// account number, its headers the caller's values and the
// Idempotency-Key), which a middleware printing its request's context
// would log otherwise.
func (a *Call) String() string {
	return contextName(a.Context) + ".WithValue(pipeline.attemptKey, *pipeline.Call)"
}

// Format prints a as String does, whatever the verb (%+v and %#v too).
func (a *Call) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, a.String()) }

// MarshalJSON is {}: encoding/json (a JSON log handler) writes none of
// the call's contents either.
func (a *Call) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

// contextName is ctx's String, or its type, as the context package names
// a parent.
func contextName(ctx context.Context) string {
	if s, ok := ctx.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", ctx)
}

// attemptOf is the Call whose request has ctx, or nil.
func attemptOf(ctx context.Context) *Call {
	a, _ := ctx.Value(attemptKey{}).(*Call)
	return a
}

// checkRetryOf is the retry client's CheckRetry: the retry rule of the
// call whose request has ctx (checkRetry). A request without one is not
// retried.
func checkRetryOf(ctx context.Context, resp *http.Response, err error) (bool, error) {
	a := attemptOf(ctx)
	if a == nil {
		return false, err
	}
	retry, cerr := a.checkRetry(ctx, resp, err)
	if retry && a.rc.Backoff == nil {
		// The retry client asks the backoff only after the retry rule
		// said to retry: a call that is never retried allocates none.
		a.rc.Backoff = a.backoff
	}
	return retry, cerr
}

// logAttemptOf is the retry client's RequestLogHook: logAttempt of the
// call whose request req is.
func logAttemptOf(l retryablehttp.Logger, req *http.Request, n int) {
	if a := attemptOf(req.Context()); a != nil {
		a.logAttempt(l, req, n)
	}
}

func (a *Call) logAttempt(_ retryablehttp.Logger, req *http.Request, n int) {
	a.count = n + 1
	if n > 0 {
		// Each attempt gets headers of its own: a layer that wrote into
		// the last attempt's changes nothing of this one.
		req.Header = make(http.Header, len(req.Header))
		a.setHeaders(req.Header)
	}
	if a.guard != nil {
		a.guard.arm() // the retry rule sends this attempt: once
	}
	if l := a.cfg.Logger; l != nil && n > 0 {
		l.LogAttrs(req.Context(), slog.LevelDebug, "bankpay: retrying",
			slog.String("method", req.Method), slog.String("path", req.URL.Path), slog.Int("attempt", n+1))
	}
}

// Call is the state of one call: its request, its config, and what the
// retry layer saw of its attempts. The request and the state are allocated
// together: the caller prepares Request in a new Call, then calls Do.
type Call struct {
	// Request is the call's, prepared by the caller before Do.
	Request Request
	// Context is the call's context, set by Do: the Call is its requests'
	// context (build), which Value makes carry the Call.
	context.Context

	cfg       Config
	req       *Request // &Request, or a test's
	retryAll  bool     // a read, or a state-changing call the caller opted in to retry
	read      bool     // a read or an idempotent call: a 2xx response cut short is retried too
	count     int
	sent      bool                 // some attempt may have reached the server
	guard     *sendGuard           // a state-changing call's sends (sendguard.go): &g, or nil
	g         sendGuard            // the guard's storage, allocated with the attempt
	rc        retryablehttp.Client // the call's retry client (retryClient)
	url       url.URL              // the request's URL, when plain (newRequest)
	body0     bytes.Reader         // the first attempt's body (bodyReader)
	bodyReads int                  // readers of the body made so far

	buf     *[]byte // pooled buffer of the 2xx body (see readResponse)
	body    []byte  // the 2xx body of the last response
	bodyErr error   // why that body could not be read whole
}

// setHeaders sets the headers of one attempt of a's call on h (empty):
// the SDK's, the WithHeader ones, and the call's own (Idempotency-Key),
// which replace a WithHeader header of the same name.
func (a *Call) setHeaders(h http.Header) {
	SetHeaders(h, a.cfg.UserAgent, a.req.ContentType, a.cfg.Header, a.req.Header)
}
