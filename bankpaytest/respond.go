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

// Error is an error response of the sandbox: HTTP status, service error code
// and message, written as {"errors":[{"domain":…,"code":…,"message":…}]}.
// Code 0 is a response without a code, written as a bare {"message":…}: the
// shape of the service's 400 for a body it cannot read as JSON. Authorize
// returns an Error too.
type Error struct {
	Status  int
	Code    int
	Message string

	list bool // written as {"errorsList":[…]}, the customer lookup's shape
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("bankpaytest: %d (code %d): %s", e.Status, e.Code, e.Message)
}

// Error codes the sandbox responds with (the service's; APIError.HasCode
// matches them).
const (
	codeInternal         = 100
	codeInvalidParameter = 200
	codeDuplicate        = 210
	codeSecurity         = 300
	codeSecurityTrigger  = 325 // a security error (401) the spec gives only as a trigger's code, unnamed
	codeInvalidAccount   = 330
	codeNotEnoughBalance = 331
	codeAccessControl    = 375
	codeInvalidSplit     = 380
)

// single is the response body of one object: wrapped, the spec's shape
// (the default), or bare, the OpenAPI's (WithBareResponses).
func (s *Server) single(wrapped, bare any) any {
	if s.bare {
		return bare
	}
	return wrapped
}

func badRequest(format string, a ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: codeInvalidParameter, Message: fmt.Sprintf(format, a...)}
}

func notFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: codeInvalidParameter, Message: what + " not found"}
}

func accessDenied(msg string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: codeAccessControl, Message: msg}
}

func duplicate() *Error {
	return &Error{Status: http.StatusBadRequest, Code: codeDuplicate, Message: "duplicate request"}
}

func domain(code int) string {
	switch code {
	case codeInternal:
		return "Internal"
	case codeSecurity, codeSecurityTrigger, codeAccessControl:
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
		b = []byte(`{"errors":[{"domain":"Internal","code":100,"message":"encoding the response failed"}]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// bareError is the body of an Error without a code.
type bareError struct {
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, e *Error) {
	if e.Code == 0 {
		writeJSON(w, e.Status, bareError{Message: e.Message})
		return
	}
	items := []errorItem{{Domain: domain(e.Code), Code: e.Code, Message: e.Message}}
	if e.list {
		writeJSON(w, e.Status, struct {
			ErrorsList []errorItem `json:"errorsList"`
		}{items})
		return
	}
	writeJSON(w, e.Status, errorBody{Errors: items})
}

// readBody reads the request body, capped at max bytes.
func readBody(r *http.Request, max int64) ([]byte, *Error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, badRequest("reading the request body failed")
	}
	if int64(len(b)) > max {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidParameter, Message: "request body too large"}
	}
	return b, nil
}

// bodyKind is the encoding an API route reads its body in.
type bodyKind int

const (
	bodyNone bodyKind = iota // GET: no body
	bodyJSON                 // application/json
	bodyForm                 // application/x-www-form-urlencoded, dotted names
	bodyAny                  // read as sent, unchecked (control endpoints)
)

// checkContentType refuses a request whose Content-Type is not the
// encoding its route reads, before the route runs, as the service's body
// binding does. A JSON route responds with 415 (code 200) to any other media type
// or none: a JSON body binding has nothing to read it with. A form route
// responds with 400/200: its parameters are read from a form body only, so
// another body leaves them missing.
func checkContentType(r *http.Request, kind bodyKind) *Error {
	if kind == bodyNone || kind == bodyAny {
		return nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case kind == bodyJSON && (err != nil || mt != "application/json"):
		return &Error{Status: http.StatusUnsupportedMediaType, Code: codeInvalidParameter, Message: "Content-Type must be application/json"}
	case kind == bodyForm && (err != nil || mt != "application/x-www-form-urlencoded"):
		return badRequest("expected an application/x-www-form-urlencoded body")
	}
	return nil
}

// unreadable is the bare 400 of a body that is not readable as JSON of the
// expected shape.
func unreadable(format string, a ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, a...)}
}

// decodeJSON decodes a required JSON body into v. A body that is missing,
// not JSON, or whose values do not fit v's types (a string where a number
// belongs, an unknown paymentType name) responds with the bare 400
// {"message":…}.
func decodeJSON(b []byte, v any) *Error {
	if len(bytes.TrimSpace(b)) == 0 {
		return unreadable("Required request body is missing")
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return unreadable("JSON parse error: invalid value for %s", te.Field)
		}
		return unreadable("JSON parse error: malformed JSON body")
	}
	return nil
}

// parseForm parses a form-encoded body (checkContentType checked its
// Content-Type).
func parseForm(b []byte) (url.Values, *Error) {
	v, err := url.ParseQuery(string(b))
	if err != nil {
		return nil, badRequest("malformed form body")
	}
	return v, nil
}
