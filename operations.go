package bankpay

import (
	"context"
	"encoding/json"
	"net/http"

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

// args are one call's values (the ids of its path, its query, its body,
// its Idempotency-Key): pipeline.Args.
type args = pipeline.Args

// invoke is the one entry point of a call: the client's config with the
// call's options applied (callConfig), then pipeline.Invoke, which prepares
// the request from op and a, sends it with retries, checks the response and
// decodes it into v. Its failures are the public errors (reporter).
func (c *caller) invoke(ctx context.Context, op *operation, a args, v any, opts []Option) error {
	cfg, err := c.pipelineConfig(ctx, op.Expand, opts)
	if err != nil {
		return err
	}
	return pipeline.Invoke(ctx, cfg, op, a, v)
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
