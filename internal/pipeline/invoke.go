package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/ops"
)

// Args are one call's values: the ids that fill its operation's path, in
// order, its query, its body (params to encode as the operation says) and
// the Idempotency-Key of an ops.RetryKeyed operation.
type Args struct {
	IDs            []string
	Query          url.Values
	Body           any
	IdempotencyKey string
}

// ErrNoIdempotencyKey is Prepare's error for an ops.RetryKeyed operation
// called without its key.
var ErrNoIdempotencyKey = errors.New("bankpay: the call needs an Idempotency-Key")

// Invoke is the pipeline's one entry point: it prepares the call of op
// with a (Prepare) and does it with cfg (Call.Do), decoding the response
// into v.
func Invoke(ctx context.Context, cfg Config, op *ops.Op, a Args, v any) error {
	c := new(Call) // the request and the state of its call in one allocation
	if err := c.Request.Prepare(op, a); err != nil {
		return err
	}
	if cfg.BodyEncoded != nil && op.Body == ops.BodyJSON {
		cfg.BodyEncoded(op, a.Body, c.Request.Body)
	}
	return c.Do(ctx, cfg, v)
}

// Prepare prepares r, a zero Request held by the caller, for a call of op
// with a: its path filled with a.IDs, its body encoded as op says, its
// retry marks from op's retry class.
func (r *Request) Prepare(op *ops.Op, a Args) error {
	path, err := op.Fill(a.IDs...)
	if err != nil {
		return err
	}
	body := a.Body
	switch op.Body {
	case ops.BodyNone:
		if body != nil {
			return fmt.Errorf("bankpay: %s takes no body", op.Name)
		}
	case ops.BodyForm:
		body = FormBody{V: body}
	}
	if err := r.Init(op.Method, path, a.Query, body); err != nil {
		return err
	}
	r.StateChanging = op.Retry != ops.RetryRead
	r.Expand, r.NotReady = op.Expand, op.NotReady
	if op.Retry == ops.RetryKeyed {
		if a.IdempotencyKey == "" {
			return fmt.Errorf("%w: %s", ErrNoIdempotencyKey, op.Name)
		}
		r.Header = http.Header{"Idempotency-Key": {a.IdempotencyKey}}
		r.Idempotent = true
	}
	return nil
}
