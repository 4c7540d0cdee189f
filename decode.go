package bankpay

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/decode"
)

// logUnset logs the fields a response left unset, one line each, at debug
// level on the call's logger, with its JSON path and the kinds involved,
// never its value.
func logUnset(ctx context.Context, cfg *config, method, path string, unset []decode.Unset) {
	if cfg.logger == nil || !cfg.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	for _, u := range unset {
		cfg.logger.LogAttrs(ctx, slog.LevelDebug, "bankpay: response field left unset",
			slog.String("method", method), slog.String("path", path),
			slog.String("field", u.Path), slog.String("reason", u.String()))
	}
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
// them too, and call logs them (logUnset).
func decodeUnset[T any](raw []byte, key, method, path string) (*T, []decode.Unset, error) {
	v, unset, err := decode.Value[T](raw, key)
	if err != nil {
		return nil, nil, &ResponseError{StatusCode: http.StatusOK, Method: method, Path: path, Err: err}
	}
	return v, unset, nil
}
