package bankpay

import (
	"context"
	"errors"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/pipeline"
)

// pipelineConfig is the pipeline's config of one call: the client's
// settings with opts applied. WithExpand is refused unless expand (the
// operation takes it); a nil ctx is refused.
func (c *caller) pipelineConfig(ctx context.Context, expand bool, opts []Option) (pipeline.Config, error) {
	if ctx == nil {
		return pipeline.Config{}, invalid("ctx", "must not be nil")
	}
	cfg, err := c.callConfig(opts)
	if err != nil {
		return pipeline.Config{}, err
	}
	if len(cfg.expand) > 0 && !expand {
		return pipeline.Config{}, invalid("expand", "is taken only by Accounts.User, Identity.User, Identity.Detail and Accounts.Verify")
	}
	return pipeline.Config{
		HTTPClient:         c.hc,
		BaseURL:            cfg.baseURL,
		Base:               cfg.base,
		UserAgent:          cfg.userAgent,
		Header:             cfg.header,
		Logger:             cfg.logger,
		MaxRetries:         cfg.maxRetries,
		RetryWaitMin:       cfg.retryWaitMin,
		RetryWaitMax:       cfg.retryWaitMax,
		MaxRetryAfter:      cfg.maxRetryAfter,
		MaxResponseBytes:   cfg.maxResponseBytes,
		RetryNonIdempotent: cfg.retryNonIdempotent,
		Timeout:            cfg.timeout,
		ResponseInto:       cfg.responseInto,
		Expand:             cfg.expand,
		WaitScale:          cfg.waitScale,
		BodyEncoded:        cfg.bodyEncoded,
		Reporter:           (*reporter)(c.secrets),
	}, nil
}

// reporter is the pipeline's pipeline.Reporter: the client's secrets, which
// the one conversion of the pipeline's failures into the public errors
// (Error) keeps out of their text.
type reporter secrets

// Error is the public error of f, a failure of the call of req: a
// *NetworkError, an *APIError or a *ResponseError.
func (r *reporter) Error(req *pipeline.Request, f pipeline.Failure) error {
	switch f.Kind {
	case pipeline.Ended:
		return &NetworkError{Method: req.Method, Path: req.Path, Err: f.Err}
	case pipeline.NoResponse:
		return &NetworkError{Method: req.Method, Path: req.Path, Sent: f.Sent, Attempts: f.Attempts, Err: r.secrets().textOf(req).redactErr(f.Err)}
	case pipeline.ErrorResponse:
		return r.apiError(req, f.Response, f.Attempts)
	}
	return r.responseError(f.Status, req, f.Err)
}

// Clean implements pipeline.Reporter.
func (r *reporter) Clean(req *pipeline.Request, text string) string {
	return r.secrets().textOf(req).clean(text)
}

// ScrubHeader implements pipeline.Reporter.
func (r *reporter) ScrubHeader(h http.Header) http.Header { return r.secrets().scrubHeader(h) }

func (r *reporter) secrets() *secrets { return (*secrets)(r) }

// responseError is a *ResponseError whose text quotes nothing secret.
func (r *reporter) responseError(status int, req *pipeline.Request, err error) *ResponseError {
	return &ResponseError{StatusCode: status, Method: req.Method, Path: req.Path, Err: err, cause: r.secrets().textOf(req).clean(err.Error())}
}

// maxErrorBody caps what is read of an error response.
const maxErrorBody = 64 << 10

// apiError is the *APIError of resp, a non-2xx response to req after
// attempts attempts; it reads resp's body (capped).
func (r *reporter) apiError(req *pipeline.Request, resp *http.Response, attempts int) *APIError {
	e := &APIError{StatusCode: resp.StatusCode, Method: req.Method, Path: req.Path, Attempts: attempts}
	id := resp.Header.Get("X-Request-Id")
	if id == "" {
		id = resp.Header.Get("Request-Id")
	}
	if len(id) > 128 {
		id = id[:128]
	}
	text := r.secrets().textOf(req)
	e.RequestID = text.scrub(id) // never the key, even if echoed there
	if d, ok := pipeline.RetryAfter(resp); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode == http.StatusBadRequest && req.NotReady {
		e.extraSentinel = ErrIdentityNotReady
	}
	body, err := pipeline.ReadCapped(nil, resp.Body, maxErrorBody)
	if err != nil && !errors.Is(err, errResponseTooLarge) {
		e.Body = "(body unreadable: " + excerpt(text.clean(err.Error())) + ")"
		return e
	}
	e.parseErrorBody(body, text.clean)
	return e
}
