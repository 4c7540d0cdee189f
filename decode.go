package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"

	"github.com/bankpay/bankpay-go/models"
)

// decodeAnswer reads the body of a 2xx answer as a T, wrapped ({"key":{…}},
// the spec's shape) or bare ({…}, the OpenAPI's shape), tolerantly (see
// models.Decode). The answer is wrapped when its top-level object has key;
// an empty key reads it bare only. A wrapper holding null, or a bare answer
// without one known field of T set, is a *ResponseError, as is a field of the wrong
// JSON type (its message names the field's JSON path).
func decodeAnswer[T any](raw []byte, key, method, path string) (*T, error) {
	fail := func(err error) (*T, error) {
		return nil, &ResponseError{StatusCode: http.StatusOK, Method: method, Path: path, Err: err}
	}
	body, at := raw, ""
	if key != "" {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(raw, &top); err != nil {
			return fail(err)
		}
		if inner, ok := top[key]; ok {
			if len(bytes.TrimSpace(inner)) == 0 || string(bytes.TrimSpace(inner)) == "null" {
				return fail(fmt.Errorf("answer has no %q object", key))
			}
			body, at = inner, key
		}
	}
	v := new(T)
	if err := models.DecodeAt(body, v, at); err != nil {
		return fail(err)
	}
	if at == "" && reflect.ValueOf(v).Elem().IsZero() {
		name := key
		if name == "" {
			name = reflect.TypeFor[T]().Name()
		}
		return fail(fmt.Errorf("answer has no %q object", name))
	}
	return v, nil
}

// callAnswer is one call of the pipeline whose answer is a T, wrapped as
// key or bare (see decodeAnswer).
func callAnswer[T any](ctx context.Context, c *Client, method, path string, query url.Values, body any, key string, opts []CallOption) (*T, error) {
	var raw json.RawMessage
	if err := c.call(ctx, method, path, query, body, &raw, opts); err != nil {
		return nil, err
	}
	return decodeAnswer[T](raw, key, method, path)
}
