package bankpay

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/pipeline"
)

// decodeInto decodes a body as a T wrapped as key or bare.
type decodeInto[T any] struct {
	key string
	out *T
}

// DecodeBody implements pipeline.Decoder.
func (d *decodeInto[T]) DecodeBody(ctx context.Context, logger *slog.Logger, req *pipeline.Request, body []byte) (err error) {
	d.out, err = decodeLogged[T](ctx, logger, req, body, d.key)
	return err
}

// decodeLogged decodes body as a T, wrapped as key or bare (decodeUnset),
// for a call of req: each field left unset is logged on logger
// (pipeline.LogUnset).
func decodeLogged[T any](ctx context.Context, logger *slog.Logger, req *pipeline.Request, body []byte, key string) (*T, error) {
	v, unset, err := decodeUnset[T](body, key, req.Method, req.Path)
	if err == nil && len(unset) > 0 {
		pipeline.LogUnset(ctx, logger, req.Method, req.Path, unset)
	}
	return v, err
}

// decodeUnset reads the body of a 2xx response as a T, wrapped ({"key":{…}},
// the spec's shape) or bare ({…}, the OpenAPI's shape), in one pass with
// T's generated decoder (internal/decode). The response is wrapped when its
// top-level object has key; an empty key reads it bare only. A wrapper
// holding null, or a bare response without one known field of T set, is a
// *ResponseError, as is a response without the identity of T (a field
// tagged wire:"required": missing, null, empty or of the wrong kind; its
// message names the field's JSON path). Any other field whose value T
// cannot hold is left unset, never an error: the call succeeded (a
// refund's or a cancel's state changed) and the result says so. It returns
// them too, and call logs them (decodeLogged).
func decodeUnset[T any](raw []byte, key, method, path string) (*T, []decode.Unset, error) {
	v, unset, err := decode.Value[T](raw, key)
	if err != nil {
		return nil, nil, &ResponseError{StatusCode: http.StatusOK, Method: method, Path: path, Err: err}
	}
	return v, unset, nil
}
