package pipeline

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

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/hashicorp/go-retryablehttp"
)

// Config is what one call needs of its client's settings, with the call's
// options applied: the root package fills it from its config.
type Config struct {
	HTTPClient         *http.Client // the client's, its transport guarded (NewGuardTransport)
	BaseURL            string       // no trailing slash
	Base               *url.URL     // BaseURL parsed, read only (nil: each call's URL is parsed)
	UserAgent          string
	Header             http.Header // extra request headers (WithHeader)
	Logger             *slog.Logger
	MaxRetries         int
	RetryWaitMin       time.Duration
	RetryWaitMax       time.Duration
	MaxRetryAfter      time.Duration
	MaxResponseBytes   int64
	RetryNonIdempotent bool
	Timeout            time.Duration   // bounds the whole call (WithTimeout)
	ResponseInto       **http.Response // WithResponseInto
	// Expand is the fields of the response to expand (WithExpand), sent
	// as expand parameters, the request's query untouched (expandQuery).
	Expand []string
	// WaitScale is a test hook: the fake clock of the retry layer, given
	// each computed wait and returning the one slept (nil: as computed).
	WaitScale func(time.Duration) time.Duration
	// BodyEncoded is a test hook: given each JSON body's params and the
	// bytes sent for them (Invoke), before the call is sent. nil in use.
	BodyEncoded func(op *ops.Op, params any, body []byte)
	// Reporter makes the errors the caller gets and cleans what is logged.
	Reporter Reporter
}

// Reporter is the root package's side of a call's failures: it makes the
// public error of each (Failure) and keeps the call's secrets out of what
// the pipeline logs and hands back.
type Reporter interface {
	// Error is the error the caller gets for f, a failure of the call of
	// req.
	Error(req *Request, f Failure) error
	// Clean is text (an error's message) without the secrets of the call
	// of req, for a log line.
	Clean(req *Request, text string) string
	// ScrubHeader is h without any echo of the credentials (a copy when
	// it had one).
	ScrubHeader(h http.Header) http.Header
}

// FailureKind is what went wrong with a call.
type FailureKind uint8

// The kinds of Failure.
const (
	// Ended: the context ended before anything was sent.
	Ended FailureKind = iota
	// NoResponse: no response came (Err, unwrapped of *url.Error).
	NoResponse
	// ErrorResponse: a response that is not 2xx (Response, whose body is
	// still open).
	ErrorResponse
	// BadResponse: a 2xx response whose body could not be read or
	// decoded (Status, Err).
	BadResponse
)

// Failure is one failure of a call, for Reporter.Error.
type Failure struct {
	Kind     FailureKind
	Status   int            // BadResponse's
	Response *http.Response // ErrorResponse's
	Err      error          // Ended's, NoResponse's and BadResponse's cause
	Sent     bool           // some attempt may have reached the server
	Attempts int
}

// Decoder decodes the 2xx body of a call inside Do, before its pooled
// buffer is released: it must not keep body. logger is the call's.
type Decoder interface {
	DecodeBody(ctx context.Context, logger *slog.Logger, req *Request, body []byte) error
}

// Do sends a.Request, prepared by the caller, with cfg, and decodes its
// JSON response into v (nil: not read; a Decoder; a *json.RawMessage: a
// copy; anything else: json.Unmarshal): build, send (with retries), check,
// decode. Each failure is the error cfg.Reporter makes of it. a is new:
// its zero value but for Request.
func (a *Call) Do(ctx context.Context, cfg Config, v any) error {
	a.cfg = cfg
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	a.init(&a.Request)
	var start time.Time // the call's duration is only logged: no clock read without a logger
	if cfg.Logger != nil {
		start = time.Now()
	}
	if err := ctx.Err(); err != nil {
		return a.fail(ctx, start, Failure{Kind: Ended, Err: err})
	}
	hr, err := a.build(ctx, expandQuery(a.req.Query, cfg.Expand))
	if err != nil {
		return err
	}
	if v != nil {
		// The 2xx body is read inside the retry loop, so that a read whose
		// response breaks off is retried like one that got none.
		hr.SetResponseHandler(a.readResponse)
		defer a.release()
	}
	resp, err := a.send(hr)
	if resp != nil {
		// The retry layer returns the response with an error when the
		// context ended after it arrived: close it all the same.
		defer CloseBody(resp.Body)
	}
	if err := a.check(ctx, resp, err, start); err != nil {
		return err
	}
	return a.decodeResult(ctx, resp.StatusCode, v)
}

// expandQuery is query with one expand parameter per field: a copy, when
// there are any (query is not modified).
func expandQuery(query url.Values, fields []string) url.Values {
	if len(fields) == 0 {
		return query
	}
	q := make(url.Values, len(query)+1)
	for k, v := range query {
		q[k] = v
	}
	q["expand"] = append(q["expand"][:len(q["expand"]):len(q["expand"])], fields...)
	return q
}

// init makes a, a new attempt, the state of a call of req, before its
// first attempt.
func (a *Call) init(req *Request) {
	// An idempotent call is retried like a read: sent again with the same
	// key, it gets the first attempt's result, never a second effect.
	a.req, a.read = req, !req.StateChanging || req.Idempotent
	// The opt-in applies only to a call the service can recognize when it
	// comes again: one with a merchantReference. A call without one is
	// sent as without the opt-in (see WithRetryNonIdempotent).
	a.retryAll = a.read || (a.cfg.RetryNonIdempotent && req.Keyed())
}

// build is the HTTP request of a's call with query, its context carrying
// the send guard of a non-idempotent call (a.guard).
func (a *Call) build(ctx context.Context, query url.Values) (*retryablehttp.Request, error) {
	req := a.req
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
	// request's context is the Call itself (ctx, with the Call as
	// attemptKey's value: Value): the guard, and the retry rule and
	// attempt hook (checkRetryOf, logAttemptOf), find it there.
	if req.StateChanging {
		a.g.once = !req.Idempotent
		a.guard = &a.g
	}
	a.Context = ctx
	hr, err := a.newRequest(a, query, body)
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

// newRequest is the retry layer's request of a's call with query and
// body, as retryablehttp.NewRequestWithContext makes it from the URL
// base+path?query, without parsing that URL when it is plain (plainURL).
// The URL is a's own (Call.url), and the request is made once, with ctx,
// not made and then copied by WithContext.
func (a *Call) newRequest(ctx context.Context, query url.Values, body any) (*retryablehttp.Request, error) {
	req, rawQuery := a.req, ""
	if len(query) > 0 {
		rawQuery = encodeQuery(query)
	}
	if !plainURL(&a.url, a.cfg.Base, req.Path, rawQuery) {
		target := a.cfg.BaseURL + req.Path
		if rawQuery != "" {
			target += "?" + rawQuery
		}
		return retryablehttp.NewRequestWithContext(ctx, req.Method, target, body)
	}
	u := &a.url
	hr := http.Request{Method: req.Method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: make(http.Header, 4), Host: u.Host}
	r, err := retryablehttp.FromRequest(hr.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	return r, r.SetBody(body)
}

// plainURL sets *u to the URL url.Parse reads from base's text, path and
// "?"+rawQuery (when not empty), made without parsing when base and path
// are plain: base an absolute URL with a host (and a port, if a colon
// says so), no user, query, fragment or escaped path, and both paths of
// unreserved characters and '/' only (their text is their value). false
// otherwise (u is then not set).
func plainURL(u, base *url.URL, path, rawQuery string) bool {
	if base == nil || base.Opaque != "" || base.User != nil || base.RawPath != "" || base.ForceQuery ||
		base.RawQuery != "" || base.Fragment != "" || base.Host == "" || strings.HasSuffix(base.Host, ":") ||
		!plainPath(base.Path) || !plainPath(path) || strings.Contains(rawQuery, "#") {
		return false
	}
	*u = url.URL{Scheme: base.Scheme, Host: base.Host, Path: base.Path + path, RawQuery: rawQuery}
	return true
}

// plainPath reports whether p is made of unreserved characters (RFC 3986)
// and '/' only.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			return false
		}
	}
	return true
}

// bodyReader is the retry layer's reader of a's body (req.Body, or
// empty), read from the start. Its first two readers, the retry layer's
// length probe (which reads nothing) and the first attempt's, are a's own
// (Call.body0); each later attempt gets a new one, since the transport
// may still be reading the one before when the retry rule sends again.
// It is a *bytes.Reader, which net/http knows to be in memory: it writes
// the headers and the body together, not the headers first (a separate
// small write, which costs a round of delayed acknowledgement).
func (a *Call) bodyReader() (io.Reader, error) {
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
func (a *Call) send(hr *retryablehttp.Request) (*http.Response, error) {
	resp, err := a.retryClient().Do(hr)
	if a.guard != nil {
		a.guard.disarm() // a send a layer above still tries is refused
		a.sent = a.guard.mayHaveSent()
	}
	if a.cfg.ResponseInto != nil {
		*a.cfg.ResponseInto = a.handBack(resp)
	}
	return resp, err
}

// check is the error of what send returned, logged: a BadResponse for a
// 2xx body cut short, a NoResponse for no response, an ErrorResponse for a
// non-2xx response, nil for a 2xx one.
func (a *Call) check(ctx context.Context, resp *http.Response, err error, start time.Time) error {
	if err != nil && resp != nil && a.bodyErr != nil && errors.Is(err, a.bodyErr) {
		return a.cfg.Reporter.Error(a.req, Failure{Kind: BadResponse, Status: resp.StatusCode, Err: a.bodyErr})
	}
	if err != nil {
		return a.fail(ctx, start, Failure{Kind: NoResponse, Sent: a.sent, Attempts: a.count, Err: unwrapURLError(err)})
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return a.fail(ctx, start, Failure{Kind: ErrorResponse, Response: resp, Attempts: a.count})
	}
	a.log(ctx, slog.LevelDebug, "bankpay: response", resp.StatusCode, start, nil)
	return nil
}

// fail is the error of f, logged as a warning.
func (a *Call) fail(ctx context.Context, start time.Time, f Failure) error {
	err := a.cfg.Reporter.Error(a.req, f)
	msg, status := "bankpay: no response", 0
	if f.Kind == ErrorResponse {
		msg, status = "bankpay: error response", f.Response.StatusCode
	}
	a.log(ctx, slog.LevelWarn, msg, status, start, err)
	return err
}

// decodeResult decodes the 2xx body a read (a.body) into v, as Do says;
// status is the response's.
func (a *Call) decodeResult(ctx context.Context, status int, v any) error {
	if v == nil {
		return nil
	}
	req := a.req
	if status == http.StatusNoContent {
		if d, ok := v.(Decoder); ok {
			// A call that expects a result gets none: its decoder's
			// error (the same as for an empty JSON document).
			return d.DecodeBody(ctx, a.cfg.Logger, req, nil)
		}
		return nil
	}
	data, err := a.body, a.bodyErr
	if err == nil && len(bytes.TrimSpace(data)) == 0 {
		err = errors.New("empty body")
	}
	if err != nil {
		return a.badResponse(status, err)
	}
	// The buffer goes back to the pool after this: json.Unmarshal copies
	// what it keeps, and so does a Decoder. A *json.RawMessage gets a copy
	// of the body.
	if d, ok := v.(Decoder); ok {
		return d.DecodeBody(ctx, a.cfg.Logger, req, data)
	}
	if raw, ok := v.(*json.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return a.badResponse(status, err)
	}
	return nil
}

// badResponse is the error of a 2xx response with status whose body could
// not be read or decoded (err).
func (a *Call) badResponse(status int, err error) error {
	return a.cfg.Reporter.Error(a.req, Failure{Kind: BadResponse, Status: status, Err: err})
}

// retryClient is the one place go-retryablehttp is configured: the call's
// limits, the retry rule (attempt.go: checkRetry) and its backoff. Its ErrorHandler hands
// back the last response or transport error as they are, so that the caller
// gets the typed error of the last attempt, not a generic "giving up".
//
// The client is a's own (a field of the attempt: no allocation of its own);
// the retry rule and the attempt hook find a in the request's context
// (checkRetryOf, logAttemptOf); Backoff, a method value, is set by the
// retry rule when it first retries.
func (a *Call) retryClient() *retryablehttp.Client {
	a.rc = retryablehttp.Client{
		HTTPClient:     a.cfg.HTTPClient,
		RetryWaitMin:   a.cfg.RetryWaitMin,
		RetryWaitMax:   a.cfg.RetryWaitMax,
		RetryMax:       a.cfg.MaxRetries,
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

// encodeQuery is query.Encode(), in one allocation when query is one name
// with one value that need no escaping (verifyAccount=true).
func encodeQuery(query url.Values) string {
	if len(query) == 1 {
		for k, vs := range query {
			if len(vs) == 1 && unreserved(k) && unreserved(vs[0]) {
				return k + "=" + vs[0]
			}
		}
	}
	return query.Encode()
}

// unreserved reports whether s is made of unreserved characters only (RFC
// 3986), which url.QueryEscape leaves as they are.
func unreserved(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// readResponse reads the body of a 2xx response into a, capped. A read cut
// short is returned, for the retry layer to retry a read; a response over
// the cap is not (it would be as large next time), nor is any failure of a
// state-changing call (it took effect: the caller reads it back).
func (a *Call) readResponse(resp *http.Response) error {
	a.body, a.bodyErr = nil, nil
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if a.buf == nil {
		a.buf = GetBuffer()
	}
	a.body, a.bodyErr = ReadCapped((*a.buf)[:0], resp.Body, a.cfg.MaxResponseBytes)
	*a.buf = a.body[:0]
	if a.bodyErr != nil && a.read && !errors.Is(a.bodyErr, ErrTooLarge) {
		return a.bodyErr
	}
	return nil
}

// release gives the response's buffer back to the pool. json.Unmarshal copies
// what it keeps, and json.Unmarshaler implementations must too.
func (a *Call) release() {
	if a.buf != nil {
		PutBuffer(a.buf)
		a.buf, a.body = nil, nil
	}
}

// handBack is the response WithResponseInto gives the caller: a copy whose
// request (and those of the redirects before it) carries no credentials
// (no Authorization or Proxy-Authorization header, no body) and whose
// headers are scrubbed of any echo of the key.
func (a *Call) handBack(resp *http.Response) *http.Response {
	if resp == nil {
		return nil
	}
	cp := *resp
	cp.Header = a.cfg.Reporter.ScrubHeader(resp.Header)
	cp.Trailer = a.cfg.Reporter.ScrubHeader(resp.Trailer)
	if r := resp.Request; r != nil {
		// A context of its own: the call's context holds its state (the
		// request body, with a tokenize's account number), which the
		// merchant's copy must not keep reachable.
		clean := r.Clone(context.Background())
		clean.Header.Del("Authorization")
		clean.Header.Del("Proxy-Authorization")
		clean.Header = a.cfg.Reporter.ScrubHeader(clean.Header)
		clean.Body, clean.GetBody = nil, nil
		clean.Response = a.handBack(r.Response)
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

// log logs one line of a's call at level: msg, the request, the
// response's status (0: none), the attempts, the time since start and
// err's message, cleaned of the call's secrets.
func (a *Call) log(ctx context.Context, level slog.Level, msg string, status int, start time.Time, err error) {
	logger, req := a.cfg.Logger, a.req
	if logger == nil || !logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.Path),
		slog.Int("attempts", a.count),
		slog.Duration("duration", time.Since(start)),
	}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", a.cfg.Reporter.Clean(req, err.Error())))
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}

// CloseBody drains up to maxDrain bytes of what is left, so that the
// connection can be reused, and closes b: the one way a response body is
// drained.
func CloseBody(b io.ReadCloser) error {
	if d, ok := b.(*DrainOnClose); ok {
		return d.Close() // it drains itself: once is enough
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(b, maxDrain))
	return b.Close()
}

const maxDrain = 64 << 10

// DrainOnClose is a response body that CloseBody closes; one read to its
// end (eof) has nothing left to drain.
type DrainOnClose struct {
	io.ReadCloser
	eof bool
}

// Read reads the body, noting its end.
func (b *DrainOnClose) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close drains (CloseBody) and closes the body; one read to its end is
// only closed.
func (b *DrainOnClose) Close() error {
	if b.eof {
		return b.ReadCloser.Close()
	}
	return CloseBody(b.ReadCloser)
}

// LogUnset logs the fields a response left unset, one line each, at debug
// level on logger (a call's), with its JSON path and the kinds involved,
// never its value.
func LogUnset(ctx context.Context, logger *slog.Logger, method, path string, unset []decode.Unset) {
	if logger == nil || !logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	for _, u := range unset {
		logger.LogAttrs(ctx, slog.LevelDebug, "bankpay: response field left unset",
			slog.String("method", method), slog.String("path", path),
			slog.String("field", u.Path), slog.String("reason", u.String()))
	}
}
