package bankpaytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
)

// Error is an error answer of the sandbox: HTTP status, service error code
// and message, written as {"errors":[{"domain":…,"code":…,"message":…}]}.
// Authorize returns it too.
type Error struct {
	Status  int
	Code    int
	Message string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("bankpaytest: %d (code %d): %s", e.Status, e.Code, e.Message)
}

// Error codes the sandbox answers with.
const (
	CodeInternal         = 100
	CodeInvalidParameter = 200
	CodeDuplicate        = 210
	CodeSecurity         = 300
	CodeSecurity325      = 325
	CodeInvalidAccount   = 330
	CodeAccessControl    = 375
)

func badRequest(format string, a ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidParameter, Message: fmt.Sprintf(format, a...)}
}

func notFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeInvalidParameter, Message: what + " not found"}
}

func accessDenied(msg string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeAccessControl, Message: msg}
}

func duplicate() *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeDuplicate, Message: "duplicate request"}
}

func domain(code int) string {
	switch code {
	case CodeInternal:
		return "Internal"
	case CodeSecurity, CodeSecurity325, CodeAccessControl:
		return "Security"
	default:
		return "Validation"
	}
}

type errorItem struct {
	Domain  string `json:"domain"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type errorBody struct {
	Errors []errorItem `json:"errors"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"errors":[{"domain":"Internal","code":100,"message":"encoding the answer failed"}]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, errorBody{Errors: []errorItem{{Domain: domain(e.Code), Code: e.Code, Message: e.Message}}})
}

// readBody reads the request body, capped at max bytes.
func readBody(r *http.Request, max int64) ([]byte, *Error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, badRequest("reading the request body failed")
	}
	if int64(len(b)) > max {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeInvalidParameter, Message: "request body too large"}
	}
	return b, nil
}

// decodeJSON decodes a required JSON body into v.
func decodeJSON(b []byte, v any) *Error {
	if len(bytes.TrimSpace(b)) == 0 {
		return badRequest("a JSON request body is required")
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return badRequest("invalid parameter %s", te.Field)
		}
		return badRequest("malformed JSON body")
	}
	return nil
}

// parseForm parses a form-encoded body.
func parseForm(r *http.Request, b []byte) (url.Values, *Error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, badRequest("expected an application/x-www-form-urlencoded body")
	}
	v, err := url.ParseQuery(string(b))
	if err != nil {
		return nil, badRequest("malformed form body")
	}
	return v, nil
}
