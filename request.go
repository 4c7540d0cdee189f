package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/hashicorp/go-retryablehttp"
)

// noContent is the result of a call whose 2xx body is not read.
type noContent struct{}

// bodyDecoder decodes the 2xx body of a call inside do, before its pooled
// buffer is released: it must not keep body.
type bodyDecoder interface {
	decodeBody(ctx context.Context, cfg *config, req *pipeline.Request, body []byte) error
}

// decodeInto decodes a body as a T wrapped as key or bare.
type decodeInto[T any] struct {
	key string
	out *T
}

func (d *decodeInto[T]) decodeBody(ctx context.Context, cfg *config, req *pipeline.Request, body []byte) (err error) {
	d.out, err = decodeLogged[T](ctx, cfg, req, body, d.key)
	return err
}

// decodeLogged decodes body as a T, wrapped as key or bare (decodeUnset),
// for a call of req made with cfg: each field left unset is logged
// (logUnset).
func decodeLogged[T any](ctx context.Context, cfg *config, req *pipeline.Request, body []byte, key string) (*T, error) {
	v, unset, err := decodeUnset[T](body, key, req.Method, req.Path)
	if err == nil && len(unset) > 0 {
		logUnset(ctx, cfg, req.Method, req.Path, unset)
	}
	return v, err
}

// do sends req and decodes its JSON response into v (nil: not read; a
// bodyDecoder; a *json.RawMessage: a copy; anything else: json.Unmarshal):
// build, send (with retries), check, decode. A non-2xx response is an
// *APIError; a 2xx one that cannot be decoded a *ResponseError; a call with
// no response a *NetworkError.
func (c *caller) do(ctx context.Context, req *pipeline.Request, v any, opts []Option) error {
	return c.doAttempt(ctx, new(attempt), req, v, opts)
}

// doAttempt is do with a, a new attempt, for the call's state.
func (c *caller) doAttempt(ctx context.Context, a *attempt, req *pipeline.Request, v any, opts []Option) error {
	if ctx == nil {
		return invalid("ctx", "must not be nil")
	}
	cfg, err := c.callConfig(opts)
	if err != nil {
		return err
	}
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	query, err := expandQuery(req, cfg.expand)
	if err != nil {
		return err
	}
	a.init(cfg, req)
	start := time.Now()
	if err := ctx.Err(); err != nil {
		nerr := &NetworkError{Method: req.Method, Path: req.Path, Err: err}
		c.log(ctx, cfg, slog.LevelWarn, "bankpay: no response", req, 0, 0, start, nerr)
		return nerr
	}

	hr, err := a.build(ctx, query)
	if err != nil {
		return err
	}
	if v != nil {
		// The 2xx body is read inside the retry loop, so that a read whose
		// response breaks off is retried like one that got none.
		hr.SetResponseHandler(a.readResponse)
		defer a.release()
	}
	resp, err := c.send(a, hr)
	if resp != nil {
		// The retry layer returns the response with an error when the
		// context ended after it arrived: close it all the same.
		defer closeBody(resp.Body)
	}
	if err := c.check(ctx, a, resp, err, start); err != nil {
		return err
	}
	return c.decodeResult(ctx, a, resp.StatusCode, v)
}

// init makes a, a new attempt, the state of a call of req with cfg, before
// its first attempt.
func (a *attempt) init(cfg *config, req *pipeline.Request) {
	// An idempotent call is retried like a read: sent again with the same
	// key, it gets the first attempt's result, never a second effect.
	a.cfg, a.req, a.read = cfg, req, !req.StateChanging || req.Idempotent
	// The opt-in applies only to a call the service can recognize when it
	// comes again: one with a merchantReference. A call without one is
	// sent as without the opt-in (see WithRetryNonIdempotent).
	a.retryAll = a.read || (cfg.retryNonIdempotent && req.Keyed())
}

// build is the HTTP request of a's call with query, its context carrying
// the send guard of a non-idempotent call (a.guard).
func (a *attempt) build(ctx context.Context, query url.Values) (*retryablehttp.Request, error) {
	req := a.req
	target := a.cfg.baseURL + req.Path
	if len(query) > 0 {
		target = joinQuery(a.cfg.baseURL, req.Path, query)
	}
	var body any
	if req.Body != nil || req.StateChanging {
		// Never a nil body for a state-changing call: net/http's HTTP/2
		// transport replays a request without a body by itself, whatever
		// GetBody says, on every stream the server resets with
		// PROTOCOL_ERROR (below the retry rule, thousands of times a
		// second). An empty body that is not http.NoBody makes it give up
		// instead. Over HTTP/1.1 such a POST goes out chunked, with an
		// empty body, instead of with Content-Length: 0.
		body = retryablehttp.ReaderFunc(a.bodyReader)
	}
	// The guard below every transport layer sends each attempt of a
	// non-idempotent call once, and knows whether anything left. The
	// context carries the attempt itself: the guard, and the retry rule
	// and attempt hook (checkRetryOf, logAttemptOf), find it there.
	if req.StateChanging {
		a.g.once = !req.Idempotent
		a.guard = &a.g
	}
	sendCtx := context.WithValue(ctx, attemptKey{}, a)
	hr, err := retryablehttp.NewRequestWithContext(sendCtx, req.Method, target, body)
	if err != nil {
		return nil, fmt.Errorf("bankpay: building %s %s: %w", req.Method, req.Path, err)
	}
	// Only the retry rule may send a request again: with GetBody, net/http
	// would replay it by itself, below that rule (HTTP/2 does on a reset
	// stream or GOAWAY). The retry layer rewinds the body itself.
	hr.GetBody = nil
	// The Authorization header is set by the guard, below any middleware
	// (sendguard.go): no layer of the caller's sees the credentials.
	a.setHeaders(hr.Header)
	return hr, nil
}

// bodyReader is the retry layer's reader of a's body (req.Body, or
// empty), read from the start. Its first two readers, the retry layer's
// length probe (which reads nothing) and the first attempt's, are a's own
// (attempt.body0); each later attempt gets a new one, since the transport
// may still be reading the one before when the retry rule sends again.
// It is a *bytes.Reader, which net/http knows to be in memory: it writes
// the headers and the body together, not the headers first (a separate
// small write, which costs a round of delayed acknowledgement).
func (a *attempt) bodyReader() (io.Reader, error) {
	a.bodyReads++
	r := &a.body0
	if a.bodyReads > 2 {
		r = new(bytes.Reader)
	}
	r.Reset(a.req.Body)
	return r, nil
}

// send runs hr through the retry layer, records whether anything may have
// reached the server, and hands the response back (WithResponseInto).
func (c *caller) send(a *attempt, hr *retryablehttp.Request) (*http.Response, error) {
	resp, err := c.retryClient(a).Do(hr)
	if a.guard != nil {
		a.guard.disarm() // a send a layer above still tries is refused
		a.sent = a.guard.mayHaveSent()
	}
	if a.cfg.responseInto != nil {
		*a.cfg.responseInto = c.handBack(resp)
	}
	return resp, err
}

// check is the error of what send returned, logged: a *ResponseError for
// a 2xx body cut short, a *NetworkError for no response, an *APIError for
// a non-2xx response, nil for a 2xx one.
func (c *caller) check(ctx context.Context, a *attempt, resp *http.Response, err error, start time.Time) error {
	req, cfg := a.req, a.cfg
	if err != nil && resp != nil && a.bodyErr != nil && errors.Is(err, a.bodyErr) {
		return c.responseError(resp.StatusCode, req, a.bodyErr)
	}
	if err != nil {
		nerr := &NetworkError{Method: req.Method, Path: req.Path, Sent: a.sent, Attempts: a.count, Err: c.secrets.textOf(req).redactErr(unwrapURLError(err))}
		c.log(ctx, cfg, slog.LevelWarn, "bankpay: no response", req, 0, a.count, start, nerr)
		return nerr
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := c.apiError(req, resp, a.count)
		c.log(ctx, cfg, slog.LevelWarn, "bankpay: error response", req, resp.StatusCode, a.count, start, apiErr)
		return apiErr
	}
	c.log(ctx, cfg, slog.LevelDebug, "bankpay: response", req, resp.StatusCode, a.count, start, nil)
	return nil
}

// decodeResult decodes the 2xx body a read (a.body) into v, as do says;
// status is the response's.
func (c *caller) decodeResult(ctx context.Context, a *attempt, status int, v any) error {
	if v == nil {
		return nil
	}
	req := a.req
	if status == http.StatusNoContent {
		if d, ok := v.(bodyDecoder); ok {
			// A call that expects a result gets none: its decoder's
			// error (the same as for an empty JSON document).
			return d.decodeBody(ctx, a.cfg, req, nil)
		}
		return nil
	}
	data, err := a.body, a.bodyErr
	if err != nil {
		return c.responseError(status, req, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return c.responseError(status, req, errors.New("empty body"))
	}
	// The buffer goes back to the pool after this: json.Unmarshal copies
	// what it keeps, and so does a bodyDecoder (call's). A
	// *json.RawMessage gets a copy of the body.
	if d, ok := v.(bodyDecoder); ok {
		return d.decodeBody(ctx, a.cfg, req, data)
	}
	if raw, ok := v.(*json.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return c.responseError(status, req, err)
	}
	return nil
}

// expandQuery is the query of req with one expand parameter per field
// (WithExpand), which only a call that takes expand accepts. req.Query is
// not modified.
func expandQuery(req *pipeline.Request, fields []string) (url.Values, error) {
	if len(fields) == 0 {
		return req.Query, nil
	}
	if !req.Expand {
		return nil, invalid("expand", "is taken only by Accounts.User, Identity.User, Identity.Detail and Accounts.Verify")
	}
	q := make(url.Values, len(req.Query)+1)
	for k, v := range req.Query {
		q[k] = v
	}
	q["expand"] = append(q["expand"][:len(q["expand"]):len(q["expand"])], fields...)
	return q, nil
}

// retryClient is the one place go-retryablehttp is configured: the call's
// limits, the retry rule (retry.go) and its backoff. Its ErrorHandler hands
// back the last response or transport error as they are, so that the caller
// gets the typed error of the last attempt, not a generic "giving up".
//
// The client is a's own (a field of the attempt: no allocation of its own);
// the retry rule and the attempt hook find a in the request's context
// (checkRetryOf, logAttemptOf); Backoff, a method value, is set by the
// retry rule when it first retries.
func (c *caller) retryClient(a *attempt) *retryablehttp.Client {
	a.rc = retryablehttp.Client{
		HTTPClient:     c.hc,
		RetryWaitMin:   a.cfg.retryWaitMin,
		RetryWaitMax:   a.cfg.retryWaitMax,
		RetryMax:       a.cfg.maxRetries,
		CheckRetry:     checkRetryOf,
		RequestLogHook: logAttemptOf,
		ErrorHandler:   passLastAttempt,
	}
	return &a.rc
}

// passLastAttempt is the retry client's ErrorHandler: the last response or
// transport error, as they are.
func passLastAttempt(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}

// joinQuery is base+path with query, in one allocation when query is one
// name with one value that need no escaping (?verifyAccount=true).
func joinQuery(base, path string, query url.Values) string {
	if len(query) == 1 {
		for k, vs := range query {
			if len(vs) == 1 && url.QueryEscape(k) == k && url.QueryEscape(vs[0]) == vs[0] {
				return base + path + "?" + k + "=" + vs[0]
			}
		}
	}
	return base + path + "?" + query.Encode()
}

// readResponse reads the body of a 2xx response into a, capped. A read cut
// short is returned, for the retry layer to retry a read; a response over
// the cap is not (it would be as large next time), nor is any failure of a
// state-changing call (it took effect: the caller reads it back).
func (a *attempt) readResponse(resp *http.Response) error {
	a.body, a.bodyErr = nil, nil
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if a.buf == nil {
		a.buf = pipeline.GetBuffer()
	}
	a.body, a.bodyErr = pipeline.ReadCapped((*a.buf)[:0], resp.Body, a.cfg.maxResponseBytes)
	*a.buf = a.body[:0]
	if a.bodyErr != nil && a.read && !errors.Is(a.bodyErr, errResponseTooLarge) {
		return a.bodyErr
	}
	return nil
}

// release gives the response's buffer back to the pool. json.Unmarshal copies
// what it keeps, and json.Unmarshaler implementations must too.
func (a *attempt) release() {
	if a.buf != nil {
		pipeline.PutBuffer(a.buf)
		a.buf, a.body = nil, nil
	}
}

// responseError is a *ResponseError whose text quotes nothing secret.
func (c *caller) responseError(status int, req *pipeline.Request, err error) *ResponseError {
	return &ResponseError{StatusCode: status, Method: req.Method, Path: req.Path, Err: err, cause: c.secrets.textOf(req).clean(err.Error())}
}

// maxErrorBody caps what is read of an error response.
const maxErrorBody = 64 << 10

func (c *caller) apiError(req *pipeline.Request, resp *http.Response, attempts int) *APIError {
	e := &APIError{StatusCode: resp.StatusCode, Method: req.Method, Path: req.Path, Attempts: attempts}
	id := resp.Header.Get("X-Request-Id")
	if id == "" {
		id = resp.Header.Get("Request-Id")
	}
	if len(id) > 128 {
		id = id[:128]
	}
	text := c.secrets.textOf(req)
	e.RequestID = text.scrub(id) // never the key, even if echoed there
	if d, ok := pipeline.RetryAfter(resp); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode == http.StatusBadRequest {
		e.extraSentinel = req.NotReady
	}
	body, err := pipeline.ReadCapped(nil, resp.Body, maxErrorBody)
	if err != nil && !errors.Is(err, errResponseTooLarge) {
		e.Body = "(body unreadable: " + excerpt(text.clean(err.Error())) + ")"
		return e
	}
	e.parseErrorBody(body, text.clean)
	return e
}

// handBack is the response WithResponseInto gives the caller: a copy whose
// request (and those of the redirects before it) carries no credentials
// (no Authorization or Proxy-Authorization header, no body) and whose
// headers are scrubbed of any echo of the key.
func (c *caller) handBack(resp *http.Response) *http.Response {
	if resp == nil {
		return nil
	}
	cp := *resp
	cp.Header = c.secrets.scrubHeader(resp.Header)
	cp.Trailer = c.secrets.scrubHeader(resp.Trailer)
	if r := resp.Request; r != nil {
		// A context of its own: the call's context holds its state (the
		// request body, with a tokenize's account number), which the
		// merchant's copy must not keep reachable.
		clean := r.Clone(context.Background())
		clean.Header.Del("Authorization")
		clean.Header.Del("Proxy-Authorization")
		clean.Header = c.secrets.scrubHeader(clean.Header)
		clean.Body, clean.GetBody = nil, nil
		clean.Response = c.handBack(r.Response)
		cp.Request = clean
	}
	return &cp
}

// unwrapURLError drops net/http's *url.Error wrapper, whose text repeats the
// full URL, and keeps its cause.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (c *caller) log(ctx context.Context, cfg *config, level slog.Level, msg string, req *pipeline.Request, status, attempts int, start time.Time, err error) {
	if cfg.logger == nil || !cfg.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.Path),
		slog.Int("attempts", attempts),
		slog.Duration("duration", time.Since(start)),
	}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", c.secrets.textOf(req).clean(err.Error())))
	}
	cfg.logger.LogAttrs(ctx, level, msg, attrs...)
}

// checkID rejects an id that is empty, "." or "..", or has control characters.
func checkID(field, id string) error {
	switch {
	case id == "":
		return invalid(field, "must not be empty")
	case id == "." || id == "..":
		return invalid(field, `must not be "." or ".."`)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid(field, "must not contain control characters")
	}
	return nil
}

// closeBody drains up to maxDrain bytes of what is left, so that the
// connection can be reused, and closes b: the one way a response body is
// drained.
func closeBody(b io.ReadCloser) error {
	if d, ok := b.(drainOnClose); ok {
		return d.Close() // it drains itself: once is enough
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(b, maxDrain))
	return b.Close()
}

const maxDrain = 64 << 10
