package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/pipeline"
)

// operation is one operation of the API, a row of internal/ops's table:
// what the pipeline (invoke) needs to call it. A service method checks its
// input, then makes one call with its row; adding an operation is that
// method and one row there (CONTRIBUTING.md shows the diff). The sandbox
// routes the same rows, and the contract suite checks them against the
// operator's OpenAPI.
type operation = ops.Op

// args are one call's values: the ids that fill its operation's path, in
// order, its query, its body (params to encode as the operation says) and
// the Idempotency-Key of an ops.RetryKeyed operation.
type args struct {
	ids            []string
	query          url.Values
	body           any
	idempotencyKey string
}

// prepare prepares a call of op with a in r.
func prepare(op *operation, r *pipeline.Request, a args) error {
	path, err := op.Fill(a.ids...)
	if err != nil {
		return err
	}
	body := a.body
	switch op.Body {
	case ops.BodyNone:
		if body != nil {
			return fmt.Errorf("bankpay: %s takes no body", op.Name)
		}
	case ops.BodyForm:
		body = pipeline.FormBody{V: body}
	}
	if err := r.Init(op.Method, path, a.query, body); err != nil {
		return err
	}
	r.StateChanging = op.Retry != ops.RetryRead
	r.Expand = op.Expand
	if op.NotReady {
		r.NotReady = ErrIdentityNotReady
	}
	if op.Retry == ops.RetryKeyed {
		if a.idempotencyKey == "" {
			return invalid("idempotencyKey", "must not be empty")
		}
		r.Header = http.Header{"Idempotency-Key": {a.idempotencyKey}}
		r.Idempotent = true
	}
	return nil
}

// invoke is the one entry point of the pipeline: it prepares the call of
// op with a and sends it (send, then pipeline.Call.Do: send with retries,
// check, decode into v).
func (c *caller) invoke(ctx context.Context, op *operation, a args, v any, opts []Option) error {
	// The request and the state of its call in one allocation.
	call := new(pipeline.Call)
	if err := prepare(op, &call.Request, a); err != nil {
		return err
	}
	return c.send(ctx, call, v, opts)
}

// noContent is the result of a call whose 2xx body is not read.
type noContent struct{}

// resultError is the *ResponseError of a 2xx response to a call of op
// made with ids whose result lacks what the call needs (err says what).
func resultError(op *operation, err error, ids ...string) *ResponseError {
	path, _ := op.Fill(ids...) // the call was made with these ids: no error
	return &ResponseError{StatusCode: http.StatusOK, Method: op.Method, Path: path, Err: err}
}

// call is the typed face of invoke for every service method that reads
// one result: it calls op with a and decodes the response as a T, wrapped
// as op.key or bare (decodeLogged, decode.go), while its body is still in
// the pooled buffer.
//
// Three Ts are read otherwise: a noContent result reads no body (any 2xx
// response is success), a json.RawMessage is a copy of the body (for a
// caller that reads it itself: a list page), and a T whose pointer is a
// pipeline.Decoder reads the body itself (Tokenize's two shapes).
func call[T any](ctx context.Context, c *caller, op *operation, a args, opts []Option) (*T, error) {
	var v any
	var d *decodeInto[T]
	out := (*T)(nil)
	switch any(out).(type) {
	case *noContent: // v nil: the body is not read
		out = new(T)
	case *json.RawMessage, pipeline.Decoder:
		out = new(T)
		v = out
	default:
		d = &decodeInto[T]{key: op.Key}
		v = d
	}
	if err := c.invoke(ctx, op, a, v, opts); err != nil {
		return nil, err
	}
	if d != nil {
		return d.out, nil
	}
	return out, nil
}
