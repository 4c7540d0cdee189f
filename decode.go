package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
)

// logUnset logs the fields a response left unset, one line each, at debug
// level on the call's logger, with its JSON path and the kinds involved,
// never its value.
func logUnset(ctx context.Context, cfg *config, method, path string, unset []tolerant.Unset) {
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
// the spec's shape) or bare ({…}, the OpenAPI's shape), tolerantly (see
// tolerant.DecodeUnset). The response is wrapped when its top-level object has key;
// an empty key reads it bare only. A wrapper holding null, or a bare response
// without one known field of T set, is a *ResponseError, as is a value the
// result cannot do without (its identity, tagged wire:"required") of the
// wrong JSON type (its message names the field's JSON path). Any other field
// whose value T cannot hold is left unset, never an error: the call
// succeeded (a refund's or a cancel's state changed) and the result says
// so. It returns them too, and call logs them (logUnset).
func decodeUnset[T any](raw []byte, key, method, path string) (*T, []tolerant.Unset, error) {
	fail := func(err error) (*T, []tolerant.Unset, error) {
		return nil, nil, &ResponseError{StatusCode: http.StatusOK, Method: method, Path: path, Err: err}
	}
	body, at := raw, ""
	if key != "" {
		inner, ok, scanned := topMember(raw, key)
		if !scanned {
			var top map[string]json.RawMessage
			if err := json.Unmarshal(raw, &top); err != nil {
				return fail(err)
			}
			inner, ok = top[key]
		}
		if ok {
			if len(bytes.TrimSpace(inner)) == 0 || string(bytes.TrimSpace(inner)) == "null" {
				return fail(fmt.Errorf("response has no %q object", key))
			}
			body, at = inner, key
		}
	}
	v := new(T)
	unset, err := tolerant.DecodeUnset(body, v, at)
	if err != nil {
		return fail(err)
	}
	if at == "" && reflect.ValueOf(v).Elem().IsZero() {
		name := key
		if name == "" {
			name = reflect.TypeFor[T]().Name()
		}
		return fail(fmt.Errorf("response has no %q object", name))
	}
	return v, unset, nil
}

// topMember finds the value of key in the top-level JSON object raw without
// decoding it: found reports whether the object has key, scanned whether
// raw could be scanned (an escaped key or anything unusual makes the caller
// fall back to encoding/json, which also reports the syntax error). Values
// are checked when they are decoded.
func topMember(raw []byte, key string) (value []byte, found, scanned bool) {
	escaped := false
	scanned = eachMember(raw, func(name, v []byte) bool {
		if bytes.IndexByte(name, '\\') >= 0 {
			escaped = true
			return false
		}
		if string(name) == key {
			value, found = v, true
		}
		return true
	})
	if !scanned || escaped {
		return nil, false, false
	}
	return value, found, true
}

// eachMember calls fn with the name (as written between its quotes, escapes
// undecoded) and the value of each member of the top-level JSON object raw,
// in order, until fn returns false. A value that does not end (raw is cut
// short) is given as the rest of raw, and is the last. ok reports whether
// raw is an object scanned to its closing '}', or until fn stopped; the
// values themselves are not checked. It is the one scanner of top-level
// members (topMember, countListItems).
func eachMember(raw []byte, fn func(name, value []byte) bool) (ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return true
	}
	for i < len(raw) && raw[i] == '"' {
		end, ok := skipValue(raw, i)
		if !ok {
			return false
		}
		name := raw[i+1 : end-1]
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		start := skipSpace(raw, i+1)
		stop, ok := skipValue(raw, start)
		if !ok {
			fn(name, raw[start:])
			return false
		}
		if !fn(name, raw[start:stop]) {
			return true
		}
		i = skipSpace(raw, stop)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		return i < len(raw) && raw[i] == '}'
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i]: a string,
// or anything up to the next ',', '}' or ']' at depth 0 outside strings.
func skipValue(b []byte, i int) (int, bool) {
	depth, inString := 0, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case inString:
			if c == '\\' {
				j++
			} else if c == '"' {
				inString = false
				if depth == 0 {
					return j + 1, true
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return j, j > i
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case c == ',' && depth == 0:
			return j, j > i
		}
	}
	return 0, false
}
