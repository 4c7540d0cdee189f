package bankpay

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/internal/pipeline"
)

// Sentinel errors, matched with errors.Is against an *APIError (or any error
// wrapping one).
var (
	// ErrBadRequest: HTTP 400 or error code 200 (invalid parameter). A
	// duplicate (code 210) responds 400 too, so test ErrDuplicate first.
	ErrBadRequest = errors.New("bankpay: bad request")
	// ErrUnauthorized: HTTP 401 or error code 300, 325 or 375 (credentials,
	// merchant id or requestSignature invalid).
	ErrUnauthorized = errors.New("bankpay: unauthorized")
	// ErrServer: HTTP 5xx or error code 100 (internal error).
	ErrServer = errors.New("bankpay: server error")
	// ErrDuplicate: error code 210, a repeated merchantReference on an account
	// configured for merchantReference idempotency. The first request was
	// accepted: do not pay again under a new reference. For a deposit,
	// capture or establish whose response was lost, the new transaction's id
	// arrives in the event notifications (parentObjectId and
	// merchantReference) and the daily reports; reconcile from those.
	ErrDuplicate = errors.New("bankpay: duplicate request")
	// ErrIdentityNotReady: an identity read (user or verification detail)
	// responded 400 because the identity data is not there yet. Wait for the
	// IdentityVerificationDataRetrieved or CustomerIdentityVerified event.
	ErrIdentityNotReady = errors.New("bankpay: identity data not ready")
	// ErrNotFound: HTTP 404.
	ErrNotFound = errors.New("bankpay: not found")
	// ErrRateLimited: HTTP 429.
	ErrRateLimited = errors.New("bankpay: rate limited")
	// ErrInvalidResponse: a 2xx response whose body could not be decoded
	// (not JSON, truncated, not the expected shape, or over the size cap).
	// The service accepted the call: after a call that moves money,
	// OutcomeUnknown holds; do not pay again (see ResponseError).
	ErrInvalidResponse = errors.New("bankpay: invalid response")
	// ErrAmbiguous: Transactions.FindByMerchantReference (or
	// FindAuthorization) found more than one transaction with the
	// merchantReference: the call was made, more than once; read them with
	// Transactions.List (OriginalTransactionID) and decide. Do not pay again.
	ErrAmbiguous = errors.New("bankpay: more than one match")
)

// OutcomeUnknown reports whether err leaves unknown whether a call that
// moves money or changes state (any call but a read: Deposit, Capture,
// Refund, Reclaim, Cancel, Preauthorize, Establish, …) took effect: a
// *NetworkError with Sent (the request may have reached the service), a 5xx
// or code 100 *APIError (ErrServer: a gateway's 502 or 504 does not say the
// service did not act),
// or a 2xx response the SDK could not read (ErrInvalidResponse: it was
// accepted); or a lookup of such a call that could not tell
// (ErrIncomplete). When it is true, do not pay again: find what the call
// made with Transactions.FindByMerchantReference (FindAuthorization after
// an Establish) and make the call again only on ErrNotFound, with the same
// merchantReference (Disputes.Create: call again with the same
// IdempotencyKey).
func OutcomeUnknown(err error) bool {
	var ne *NetworkError
	var ae *APIError
	var re *ResponseError
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrIncomplete):
		return true
	case errors.As(err, &ne):
		return ne.Sent && changesState(ne.Method)
	case errors.As(err, &ae):
		return ae.Is(ErrServer) && !ae.Is(ErrDuplicate) && changesState(ae.Method)
	case errors.As(err, &re):
		return changesState(re.Method)
	}
	return false
}

// changesState reports whether a call of method may move money or change
// state: anything but a read.
func changesState(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// Error codes of the service that APIError.Is or the tests name; every code
// reaches the caller as APIError.Code and APIError.Errors.
const (
	codeInternal         = 100 // internal error
	codeInvalidParameter = 200 // invalid parameter
	codeDuplicate        = 210 // duplicate request (ignored)
	codeSecurity         = 300 // security error
	codeTokenizeSecurity = 325 // security error of the tokenize endpoint (HTTP 401)
	codeNotEnoughBalance = 331 // not enough balance
	codeAccessControl    = 375 // accessId, accessKey or requestSignature invalid
)

// ErrorItem is one entry of the service's {"errors":[…]} body. Its texts
// have the credentials removed and digit runs masked (see APIError);
// OccurredAt is a string, or a number (the OpenAPI's shape) as its digits.
type ErrorItem struct {
	Domain     string `json:"domain,omitempty"`
	Code       int    `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
	Location   string `json:"location,omitempty"`
	OccurredAt string `json:"occurredAt,omitempty"`
}

// APIError is the error for every non-2xx response of the service. It carries
// the HTTP status, the first error item's code, message and domain, all the
// items, and the method and path of the call; never credentials. Digit runs
// that could be account numbers or tax ids are masked in messages and in the
// body excerpt.
type APIError struct {
	StatusCode int
	Code       int
	Message    string
	Domain     string
	Errors     []ErrorItem
	Method     string
	Path       string
	// Body is a capped, masked excerpt of a body that was not the service's
	// JSON error shape; empty otherwise.
	Body string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
	// Attempts is how many times the request was sent.
	Attempts int
	// RequestID is the response's X-Request-Id (or Request-Id) header, for
	// the operator's support; empty when there was none.
	RequestID string

	extraSentinel error // a sentinel the call adds to this response's (Is)
}

// Error returns a one-line description.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("bankpay: ")
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	if e.Code != 0 {
		fmt.Fprintf(&b, " (code %d)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.Body != "" {
		b.WriteString(": ")
		b.WriteString(e.Body)
	}
	return b.String()
}

// HasCode reports whether any error item carries code.
func (e *APIError) HasCode(code int) bool {
	if e.Code == code {
		return true
	}
	for _, it := range e.Errors {
		if it.Code == code {
			return true
		}
	}
	return false
}

// Is maps the response to the sentinel errors.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest || e.HasCode(codeInvalidParameter)
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.HasCode(codeSecurity) ||
			e.HasCode(codeTokenizeSecurity) || e.HasCode(codeAccessControl)
	case ErrServer:
		return e.StatusCode >= 500 || e.HasCode(codeInternal)
	case ErrDuplicate:
		return e.HasCode(codeDuplicate)
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	}
	return e.extraSentinel != nil && target == e.extraSentinel
}

// ValidationError is input the SDK rejected before sending anything.
type ValidationError struct {
	// Field is the wire name of the field, dotted for nested fields
	// ("beneficiary.address.country"), or the parameter name.
	Field string
	// Reason says what is wrong, without repeating the value.
	Reason string
	// Err is an underlying cause, if any.
	Err error
}

// Error returns "bankpay: invalid FIELD: REASON".
func (e *ValidationError) Error() string {
	return "bankpay: invalid " + e.Field + ": " + e.Reason
}

// Unwrap returns the cause.
func (e *ValidationError) Unwrap() error { return e.Err }

func invalid(field, reason string) *ValidationError {
	return &ValidationError{Field: field, Reason: reason}
}

// ResponseError is a 2xx response the SDK could not decode. It matches
// ErrInvalidResponse (and errResponseTooLarge when that is the cause).
//
// The service ACCEPTED the call: for a state-changing call (deposit,
// capture, establish, customer update) the money moved or the state
// changed, even though the response could not be read (OutcomeUnknown). Do
// not repeat the call: find the transaction with
// Transactions.FindByMerchantReference (what the call was made against and
// its merchantReference), or reconcile from the event notifications.
type ResponseError struct {
	StatusCode int
	Method     string
	Path       string
	Err        error

	cause string // Err's text, cleaned of credentials and account numbers
}

// Error describes the failure without the body (a value the cause quotes
// has the credentials removed and digit runs masked).
func (e *ResponseError) Error() string {
	cause := e.cause
	if cause == "" {
		cause = mask(fmt.Sprint(e.Err))
	}
	return fmt.Sprintf("bankpay: %s %s: %d response could not be decoded: %s", e.Method, e.Path, e.StatusCode, cause)
}

// Unwrap returns the cause.
func (e *ResponseError) Unwrap() error { return e.Err }

// Is makes every ResponseError match ErrInvalidResponse.
func (e *ResponseError) Is(target error) bool { return target == ErrInvalidResponse }

// NetworkError is a call that got no HTTP response: connection refused or
// reset, timeout, or the context ended. Sent reports whether any attempt may
// have reached the server. When it is true and the call moves money or
// changes state, its outcome is unknown (OutcomeUnknown): do not pay again;
// find what it made with Transactions.FindByMerchantReference, and make the
// call again only on ErrNotFound, with the same merchantReference. When
// Sent is false nothing reached the service: Sent is false only when no
// byte of the request could have left (no connection was made, or net/http
// refused to write the request). A call whose context had ended before it
// started sends nothing (Attempts 0). A middleware's second send of one
// attempt, refused by the SDK's guard, says "second send of one attempt
// refused"; Sent then says whether the first one may have left.
type NetworkError struct {
	Method   string
	Path     string
	Sent     bool
	Attempts int
	Err      error
}

// Error describes the failure.
func (e *NetworkError) Error() string {
	s := "bankpay: " + e.Method + " " + e.Path + ": "
	if !e.Sent {
		s += "not sent: "
	}
	return s + e.Err.Error()
}

// Unwrap returns the cause (context.Canceled and context.DeadlineExceeded match).
func (e *NetworkError) Unwrap() error { return e.Err }

const maxExcerpt = 256

// parseErrorBody fills e from an error body: the {"errors":[…]} shape, the
// bare {"message":…} shape, or anything else kept as an excerpt. Every text
// goes through clean (which removes secrets and masks digit runs) before it
// is cut to an excerpt.
func (e *APIError) parseErrorBody(body []byte, clean func(string) string) {
	// Lenient fields, so that an odd one never hides the code (a 210 read
	// as a plain 400 would invite paying again): the OpenAPI's occurredAt
	// is a number, the spec's a string.
	type wireItem struct {
		Domain     wireText  `json:"domain"`
		Code       errorCode `json:"code"`
		Message    wireText  `json:"message"`
		Location   wireText  `json:"location"`
		OccurredAt wireText  `json:"occurredAt"`
	}
	var doc struct {
		Errors  []wireItem `json:"errors"`
		Message wireText   `json:"message"`
		Code    errorCode  `json:"code"`
		// The customer lookup's error responses list their errors as
		// errorsList (OpenAPI).
		ErrorsList []wireItem `json:"errorsList"`
	}
	err := json.Unmarshal(body, &doc)
	if len(doc.Errors) == 0 {
		doc.Errors = doc.ErrorsList
	}
	if err == nil && (len(doc.Errors) > 0 || doc.Message != "") {
		e.Errors = make([]ErrorItem, len(doc.Errors))
		for i, w := range doc.Errors {
			e.Errors[i] = ErrorItem{Code: int(w.Code), Domain: clean(string(w.Domain)), Message: clean(string(w.Message)),
				Location: clean(string(w.Location)), OccurredAt: clean(string(w.OccurredAt))}
		}
		if len(e.Errors) > 0 {
			first := e.Errors[0]
			e.Code, e.Message, e.Domain = first.Code, first.Message, first.Domain
		} else {
			e.Errors = nil
			e.Message = clean(string(doc.Message))
			e.Code = int(doc.Code)
		}
		e.Message = excerpt(e.Message)
		return
	}
	e.Body = excerpt(clean(string(body)))
}

// excerpt caps s at maxExcerpt bytes on a rune boundary and drops control characters.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxExcerpt {
		cut := maxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
}

// mask replaces every run of 5 or more digits, alone or joined by single
// dashes, slashes, dots or spaces (account and routing numbers, tax ids such
// as 123-45-6789 or 123 45 6789, dates of birth such as 1990-01-02 or
// 01/02/1990), with "[redacted]", keeping short numbers such as error codes
// and amounts (see isAmount). IBANs, written whole or in groups of four,
// are replaced first, letters included.
func mask(s string) string { return maskKeeping(s, nil) }

// maskKeeping is mask, keeping the digit runs that are one of ids whole (a
// transaction id the call sent stays readable in the service's message),
// and only where the id stands alone: an id that is part of a longer
// number is masked with it.
func maskKeeping(s string, ids []string) string {
	s = ibanPattern.ReplaceAllLiteralString(s, "[redacted]")
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j, digits := i, 0
		for j < len(s) {
			if isDigit(s[j]) {
				digits++
				j++
			} else if n := joinerLen(s, j); n > 0 {
				j += n
			} else {
				break
			}
		}
		if digits >= 5 && !isAmount(s[i:j]) && !isOneOf(s, i, j, ids) {
			b.WriteString(s[last:i])
			b.WriteString("[redacted]")
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// isOneOf reports whether the digit run s[i:j] is covered by one of ids
// standing alone in s (no letter or digit on either side of it): the run
// itself, or the digits of an id with letters (T-1002600000000001).
func isOneOf(s string, i, j int, ids []string) bool {
	for _, id := range ids {
		if len(id) < j-i {
			continue
		}
		// Every placement of id that covers s[i:j].
		for start := max(0, j-len(id)); start <= i && start+len(id) <= len(s); start++ {
			end := start + len(id)
			if s[start:end] == id && (start == 0 || !isAlnum(s[start-1])) && (end == len(s) || !isAlnum(s[end])) &&
				!joinsDigits(s, start, end) {
				return true
			}
		}
	}
	return false
}

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// joinsDigits reports whether s[start:end] is joined to more digits by a
// joiner on either side (the id is then part of a longer number).
func joinsDigits(s string, start, end int) bool {
	if end < len(s) && joinerLen(s, end) > 0 {
		return true
	}
	for k := start - 1; k >= 0 && k >= start-3; k-- { // a joiner is 1 to 3 bytes
		if isDigit(s[k]) {
			return joinerLen(s, k+1) == start-k-1 && start-k-1 > 0
		}
	}
	return false
}

// ibanPattern matches an IBAN: a country code, two check digits and 11 to
// 30 letters and digits, which may be grouped by single spaces.
var ibanPattern = regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}\b`)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isAmount reports whether a digit run is an amount: up to 9 digits, a dot
// and 2 decimals (100.00, 12345.67), with no other joiner.
func isAmount(run string) bool {
	dot := len(run) - 3
	if dot < 1 || dot > 9 || run[dot] != '.' {
		return false
	}
	for i := 0; i < len(run); i++ {
		if i != dot && !isDigit(run[i]) {
			return false
		}
	}
	return true
}

// isDigitJoiner reports whether c joins digit groups into one number.
func isDigitJoiner(c byte) bool { return c == '-' || c == '/' || c == ' ' || c == '.' || c == '_' }

// unicodeDashes separate digit groups as a hyphen does (‐ ‑ ‒ – — −).
var unicodeDashes = []string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2212"}

// joinerLen is the length of the separator of two digit groups at s[j:]
// (followed by a digit), or 0: one joiner byte, the same one twice ("  "),
// or a Unicode dash.
func joinerLen(s string, j int) int {
	digitAt := func(k int) bool { return k < len(s) && isDigit(s[k]) }
	if isDigitJoiner(s[j]) {
		if digitAt(j + 1) {
			return 1
		}
		if j+1 < len(s) && s[j+1] == s[j] && digitAt(j+2) {
			return 2
		}
		return 0
	}
	for _, d := range unicodeDashes {
		if strings.HasPrefix(s[j:], d) && digitAt(j+len(d)) {
			return len(d)
		}
	}
	return 0
}

// errorCode is an error item's code: a JSON number, or a numeric string
// ("210"), which some responses carry. Anything else reads as 0.
type errorCode int

// UnmarshalJSON accepts 210, "210", null and anything else as 0, so that an
// odd code never hides the rest of the error body.
func (c *errorCode) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(string(b)), `"`))
	if n, err := strconv.Atoi(s); err == nil {
		*c = errorCode(n)
		return nil
	}
	// The OpenAPI types most error codes as doubles: 210.0 is code 210 (a
	// duplicate must never read as 0).
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1e9 {
		*c = errorCode(int(f))
		return nil
	}
	*c = 0
	return nil
}

// wireText is a text field of an error body: a string, or a number kept as
// its digits (occurredAt). Anything else reads as "".
type wireText string

// UnmarshalJSON accepts a string, a number, and anything else as "".
func (t *wireText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = wireText(s)
		return nil
	}
	var n json.Number
	if json.Unmarshal(b, &n) == nil {
		*t = wireText(n)
		return nil
	}
	*t = ""
	return nil
}

// errResponseTooLarge: a response larger than the client's cap (see
// 8 MiB); it comes wrapped in a *ResponseError.
var errResponseTooLarge = pipeline.ErrTooLarge

// ErrIncomplete: Transactions.FindByMerchantReference (or FindAuthorization)
// could not prove that it saw the whole list (a failed page, the context's
// end, a misbehaving server, its page budget, an order that moved while it
// was read, a reference that could not be read). It is not "not found":
// the transaction may exist, so do not pay again; look it up again. The
// error wraps its cause.
var ErrIncomplete = errors.New("bankpay: lookup incomplete")
