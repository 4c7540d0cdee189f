package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

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

// isThe refuses an answer about another resource than the one asked (a
// cache or proxy mixing answers up), so that its figures are never taken
// for the asked one's: a result whose id is another's is a *ResponseError
// (ErrInvalidResponse), and so is one without it when the id is required.
// Ids compare as the reconciliation lookup compares them: trimmed, case
// folded.
func isThe[T any](op *operation, asked string, id idField[T]) func(*T, error) (*T, error) {
	return func(v *T, err error) (*T, error) {
		if err != nil {
			return nil, err
		}
		switch got := strings.TrimSpace(id.of(v)); {
		case got == "" && id.required:
			return nil, resultError(op, fmt.Errorf("response has no %q", id.name), asked)
		case got != "" && !strings.EqualFold(got, strings.TrimSpace(asked)):
			return nil, resultError(op, fmt.Errorf("the response is about another %s than the one asked", strings.TrimSuffix(id.name, "Id")), asked)
		}
		return v, nil
	}
}

// idField is the id of a resource in its answer (isThe): its wire name,
// how to read it, and whether the OpenAPI requires it. An id that may be
// absent proves nothing when it is: the answer is taken as the one asked.
type idField[T any] struct {
	name     string
	of       func(*T) string
	required bool
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
