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
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/bankpay/bankpay-go/internal/form"
)

// Request is one prepared API call: build it with NewRequest, send it with Do.
type Request struct {
	Method string
	// Path is relative to the base URL, already escaped (see PathJoin).
	Path        string
	Query       url.Values
	Body        []byte
	ContentType string
	// StateChanging marks a call that moves money or changes state: it is
	// not retried unless it provably never left, or the caller opted in.
	// NewRequest sets it for every method but GET and HEAD.
	StateChanging bool

	notReady error // the sentinel a 400 answer also matches (identity reads)
}

// NewRequest prepares a call of the API. body may be nil, url.Values (sent
// form-encoded), a params struct with `url` tags passed as FormBody{v}
// (form-encoded with dotted nested names), or any other value (sent as JSON).
func (c *Client) NewRequest(method, path string, query url.Values, body any) (*Request, error) {
	r := &Request{
		Method:        method,
		Path:          path,
		Query:         query,
		StateChanging: method != http.MethodGet && method != http.MethodHead,
	}
	switch b := body.(type) {
	case nil:
	case url.Values:
		r.Body, r.ContentType = form.AppendEncode(nil, b), "application/x-www-form-urlencoded"
	case FormBody:
		buf, err := form.Body(b.V)
		if err != nil {
			return nil, fmt.Errorf("bankpay: encoding form body: %w", err)
		}
		r.Body, r.ContentType = buf, "application/x-www-form-urlencoded"
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("bankpay: encoding JSON body: %w", err)
		}
		r.Body, r.ContentType = buf, "application/json"
	}
	return r, nil
}

// FormBody marks a params struct to be sent form-encoded with dotted nested
// names (beneficiary.address.city) instead of as JSON.
type FormBody struct{ V any }

// PathJoin builds an API path from segments, escaping each one so that a
// "/", "?" or "#" in an id cannot change the path. The caller rejects "."
// and ".." (see checkID).
func PathJoin(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// Do sends req, checks the answer and decodes its JSON body into v (which
// may be nil). Every non-2xx answer is an *APIError; a 2xx answer that
// cannot be decoded is a *ResponseError; a call with no answer is a
// *NetworkError.
func (c *Client) Do(ctx context.Context, req *Request, v any, opts ...CallOption) error {
	if ctx == nil {
		return invalid("ctx", "must not be nil")
	}
	var cc callConfig
	for _, o := range opts {
		if o != nil {
			o(&cc)
		}
	}
	a := &attempt{retryAll: !req.StateChanging || c.retryNonIdempotent || cc.retryNonIdempotent, read: !req.StateChanging}
	start := time.Now()
	if err := ctx.Err(); err != nil {
		nerr := &NetworkError{Method: req.Method, Path: req.Path, Err: err}
		c.log(ctx, slog.LevelWarn, "bankpay: no answer", req, 0, 0, start, nerr)
		return nerr
	}
	ctx = context.WithValue(ctx, attemptKey{}, a)

	target := c.baseURL + req.Path
	if len(req.Query) > 0 {
		target += "?" + req.Query.Encode()
	}
	var body any
	if req.Body != nil {
		body = req.Body
	}
	hr, err := retryablehttp.NewRequestWithContext(ctx, req.Method, target, body)
	if err != nil {
		return fmt.Errorf("bankpay: building %s %s: %w", req.Method, req.Path, err)
	}
	// Only the retry rule (checkRetry) may send a request again. With GetBody,
	// net/http would replay a request by itself, below that rule and
	// without backoff (HTTP/2 does so on every stream the server resets
	// with PROTOCOL_ERROR, and on REFUSED_STREAM and GOAWAY); the retry
	// layer rewinds the body itself.
	hr.GetBody = nil
	setHeaders(hr.Header, c.secrets.authHeader, c.userAgent, req.ContentType)
	if v != nil {
		// The 2xx body is read inside the retry loop, so that a read whose
		// answer breaks off (reset, truncated) is retried like one that got
		// no answer at all.
		hr.SetResponseHandler(func(resp *http.Response) error { return c.readAnswer(a, resp) })
		defer a.release()
	}

	resp, err := c.http.Do(hr)
	if resp != nil {
		// The retry layer hands back the answer with an error when the
		// context ended after it arrived: close it all the same.
		defer closeBody(resp.Body)
	}
	if err != nil && resp != nil && a.bodyErr != nil && errors.Is(err, a.bodyErr) {
		return c.responseError(resp.StatusCode, req, a.bodyErr)
	}
	if err != nil {
		nerr := &NetworkError{Method: req.Method, Path: req.Path, Sent: a.sent, Attempts: a.count, Err: unwrapURLError(err)}
		c.log(ctx, slog.LevelWarn, "bankpay: no answer", req, 0, a.count, start, nerr)
		return nerr
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := c.apiError(req, resp, a.count)
		c.log(ctx, slog.LevelWarn, "bankpay: error answer", req, resp.StatusCode, a.count, start, apiErr)
		return apiErr
	}
	c.log(ctx, slog.LevelDebug, "bankpay: answer", req, resp.StatusCode, a.count, start, nil)
	if v == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	data, err := a.body, a.bodyErr
	if err != nil {
		return c.responseError(resp.StatusCode, req, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return c.responseError(resp.StatusCode, req, errors.New("empty body"))
	}
	// The buffer goes back to the pool after this: json.Unmarshal copies
	// what it keeps, and json.Unmarshaler implementations must too. A
	// *json.RawMessage gets a copy of the body, for decodeAnswer to read
	// (and check) once.
	if raw, ok := v.(*json.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return c.responseError(resp.StatusCode, req, err)
	}
	return nil
}

// Header values shared by every request. net/http and http.RoundTripper
// implementations must not modify a request's headers, so the slices can be
// shared; their capacity is their length, so that an append copies.
var (
	acceptJSON      = []string{"application/json"}
	contentTypeJSON = []string{"application/json"}
	contentTypeForm = []string{"application/x-www-form-urlencoded"}
)

// setHeaders sets the headers of every call with two allocations (the
// map's storage and one array of the per-client values) instead of one
// per header. h must be empty (a new request's).
func setHeaders(h http.Header, auth, userAgent, contentType string) {
	vals := make([]string, 3)
	vals[0], vals[1] = auth, userAgent
	h["Authorization"] = vals[0:1:1]
	h["Accept"] = acceptJSON
	h["User-Agent"] = vals[1:2:2]
	switch contentType {
	case "":
	case contentTypeJSON[0]:
		h["Content-Type"] = contentTypeJSON
	case contentTypeForm[0]:
		h["Content-Type"] = contentTypeForm
	default:
		vals[2] = contentType
		h["Content-Type"] = vals[2:3:3]
	}
}

// bufPool holds the buffers answers are read into; maxPooledBuffer bounds
// what goes back, so that one huge answer does not stay in memory.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxPooledBuffer = 256 << 10

func getBuffer() *[]byte { return bufPool.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		*b = (*b)[:0]
		bufPool.Put(b)
	}
}

// readAnswer reads the body of a 2xx answer into a, capped. A read cut
// short is returned, for the retry layer to retry a read; an answer over the
// cap is not (it would be as large next time), nor is any failure of a
// state-changing call (it took effect: the caller reads it back).
func (c *Client) readAnswer(a *attempt, resp *http.Response) error {
	a.body, a.bodyErr = nil, nil
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if a.buf == nil {
		a.buf = getBuffer()
	}
	a.body, a.bodyErr = readCapped((*a.buf)[:0], resp.Body, c.maxResponseBytes)
	*a.buf = a.body[:0]
	if a.bodyErr != nil && a.read && !errors.Is(a.bodyErr, errResponseTooLarge) {
		return a.bodyErr
	}
	return nil
}

// release gives the answer's buffer back to the pool. json.Unmarshal copies
// what it keeps, and json.Unmarshaler implementations must too.
func (a *attempt) release() {
	if a.buf != nil {
		putBuffer(a.buf)
		a.buf, a.body = nil, nil
	}
}

// responseError is a *ResponseError whose text quotes nothing secret.
func (c *Client) responseError(status int, req *Request, err error) *ResponseError {
	return &ResponseError{StatusCode: status, Method: req.Method, Path: req.Path, Err: err, cause: c.secrets.clean(err.Error())}
}

// maxErrorBody caps what is read of an error answer.
const maxErrorBody = 64 << 10

func (c *Client) apiError(req *Request, resp *http.Response, attempts int) *APIError {
	e := &APIError{StatusCode: resp.StatusCode, Method: req.Method, Path: req.Path, Attempts: attempts}
	if d, ok := retryAfter(resp); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode == http.StatusBadRequest {
		e.also = req.notReady
	}
	body, err := readCapped(nil, resp.Body, maxErrorBody)
	if err != nil && !errors.Is(err, errResponseTooLarge) {
		e.Body = "(body unreadable: " + excerpt(c.secrets.clean(err.Error())) + ")"
		return e
	}
	e.parseErrorBody(body, c.secrets.clean)
	return e
}

// readCapped appends r to dst up to max bytes; more than that is
// errResponseTooLarge. It reads no more than max+1 bytes.
func readCapped(dst []byte, r io.Reader, max int64) ([]byte, error) {
	start := len(dst)
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)] // grow
		}
		room := dst[len(dst):cap(dst)]
		// Read at most max+1 bytes in all; written so that max+1 cannot
		// overflow when max is math.MaxInt64.
		if left := max - int64(len(dst)-start); left < int64(len(room)) {
			room = room[:left+1]
		}
		n, err := r.Read(room)
		dst = dst[:len(dst)+n]
		if int64(len(dst)-start) > max {
			return dst[:start+int(max)], fmt.Errorf("%w (over %d bytes)", errResponseTooLarge, max)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// closeBody drains a little of what is left, so that the connection can be
// reused, and closes the body.
func closeBody(b io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(b, 64<<10))
	_ = b.Close()
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

func (c *Client) log(ctx context.Context, level slog.Level, msg string, req *Request, status, attempts int, start time.Time, err error) {
	if c.logger == nil || !c.logger.Enabled(ctx, level) {
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
		attrs = append(attrs, slog.String("error", c.secrets.clean(err.Error())))
	}
	c.logger.LogAttrs(ctx, level, msg, attrs...)
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

// call is the pipeline every service method uses: prepare, send, decode.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, out any, opts []CallOption) error {
	req, err := c.NewRequest(method, path, query, body)
	if err != nil {
		return err
	}
	return c.Do(ctx, req, out, opts...)
}
