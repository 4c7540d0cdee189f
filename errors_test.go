package bankpay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		code   int
		is     []error
		isNot  []error
	}{
		{"400/200", 400, `{"errors":[{"domain":"com.bank.api","code":200,"message":"Invalid parameter amount"}]}`, 200,
			[]error{ErrBadRequest}, []error{ErrUnauthorized, ErrServer, ErrDuplicate, ErrIdentityNotReady}},
		{"401/300", 401, `{"errors":[{"domain":"security","code":300,"message":"Security error"}]}`, 300,
			[]error{ErrUnauthorized}, []error{ErrBadRequest, ErrServer}},
		{"401/325", 401, `{"errors":[{"code":325,"message":"Security error"}]}`, 325, []error{ErrUnauthorized}, nil},
		{"401/375", 401, `{"errors":[{"code":375,"message":"Access control error"}]}`, 375, []error{ErrUnauthorized}, nil},
		{"500/100", 500, `{"errors":[{"code":100,"message":"Internal error"}]}`, 100, []error{ErrServer}, []error{ErrBadRequest}},
		{"210", 400, `{"errors":[{"code":210,"message":"Duplicate request"}]}`, 210, []error{ErrDuplicate, ErrBadRequest}, []error{ErrServer}},
		{"bare message", 400, `{"message":"amount is required"}`, 0, []error{ErrBadRequest}, nil},
		{"non-JSON 502", 502, `<html><body>Bad Gateway</body></html>`, 0, []error{ErrServer}, []error{ErrBadRequest}},
		{"empty 500", 500, ``, 0, []error{ErrServer}, nil},
		{"404", 404, `{"errors":[{"code":200,"message":"not found"}]}`, 200, []error{ErrNotFound, ErrBadRequest}, nil},
		{"429", 429, `{}`, 0, []error{ErrRateLimited}, []error{ErrServer}},
		{"null JSON", 400, `null`, 0, []error{ErrBadRequest}, nil},
		{"array JSON", 400, `[1,2]`, 0, []error{ErrBadRequest}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t, WithMaxRetries(0))
			expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, tc.status, tc.body)
			_, err := c.Transactions.Get(context.Background(), "1")
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %T %v, want *APIError", err, err)
			}
			if apiErr.StatusCode != tc.status || apiErr.Code != tc.code || apiErr.Method != "GET" || apiErr.Path != "/transactions/1" {
				t.Errorf("APIError = %+v", apiErr)
			}
			for _, want := range tc.is {
				if !errors.Is(err, want) {
					t.Errorf("errors.Is(%v, %v) = false", err, want)
				}
			}
			for _, not := range tc.isNot {
				if errors.Is(err, not) {
					t.Errorf("errors.Is(%v, %v) = true", err, not)
				}
			}
			assertNoSecret(t, err.Error())
		})
	}
}

func TestAPIErrorKeepsAllItems(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400,
		`{"errors":[{"domain":"d1","code":200,"message":"first","location":"amount","occurredAt":"2026-01-01"},{"domain":"d2","code":210,"message":"second"}]}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	if len(e.Errors) != 2 || e.Errors[0].Location != "amount" || e.Errors[1].Code != 210 || e.Domain != "d1" || e.Message != "first" {
		t.Errorf("items = %+v", e.Errors)
	}
	if !e.HasCode(210) || e.HasCode(300) || !errors.Is(err, ErrDuplicate) {
		t.Error("HasCode/Is do not see the second item")
	}
	if got := e.Error(); got != "bankpay: GET /transactions/1: 400 Bad Request (code 200): first" {
		t.Errorf("Error() = %q", got)
	}
}

func TestAPIErrorMasksDigitsAndCapsExcerpt(t *testing.T) {
	c, mock, _ := newTestClient(t, WithMaxRetries(0))
	huge := "account 1002000000 tax 123-45-6789 " + strings.Repeat("x", 100000)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 502, huge)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	if strings.Contains(e.Body, "1002000000") || strings.Contains(e.Body, "6789") || len(e.Body) > maxExcerpt+8 {
		t.Errorf("body excerpt not masked/capped: %d bytes %q", len(e.Body), e.Body[:60])
	}
	if strings.Contains(err.Error(), "1002000000") {
		t.Error("account number in error string")
	}

	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400,
		`{"errors":[{"code":330,"message":"invalid account 1002000000 for ssn 123-45-6789"}]}`)
	_, err = c.Transactions.Get(context.Background(), "1")
	if s := err.Error(); strings.Contains(s, "1002000000") || strings.Contains(s, "6789") || !strings.Contains(s, "code 330") {
		t.Errorf("message not masked: %s", s)
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"code 200":              "code 200",
		"acct 1234567890 x":     "acct [redacted] x",
		"ssn 123-45-6789.":      "ssn [redacted].",
		"12-34":                 "12-34",
		"a1234b12345":           "a1234b[redacted]",
		"routing 124003116":     "routing [redacted]",
		"date 2026-11-22 later": "date [redacted] later",
	} {
		if got := mask(in); got != want {
			t.Errorf("mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResponseDecodingErrors(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":  `<html>ok</html>`,
		"truncated": `{"transaction":{"transactionId":"1`,
		"empty":     ``,
		"wrong":     `{"transaction":"nope"}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 200, body)
			_, err := c.Transactions.Get(context.Background(), "1")
			var re *ResponseError
			if !errors.As(err, &re) || !errors.Is(err, ErrInvalidResponse) || re.StatusCode != 200 {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestResponseTooLarge(t *testing.T) {
	c, mock, _ := newTestClient(t, withMaxResponseBytes(1024))
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 200,
		`{"transaction":{"statusMessage":"`+strings.Repeat("a", 4096)+`"}}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	if !errors.Is(err, errResponseTooLarge) || !errors.Is(err, ErrInvalidResponse) {
		t.Fatalf("err = %v", err)
	}
}

func TestValidationErrorText(t *testing.T) {
	err := error(&ValidationError{Field: "amount", Reason: "is required", Err: ErrBadRequest})
	if err.Error() != "bankpay: invalid amount: is required" || !isValidation(err) || !errors.Is(err, ErrBadRequest) {
		t.Errorf("ValidationError = %v", err)
	}
}

func TestAPIErrorCodeAsString(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400,
		`{"errors":[{"code":"210","message":"Duplicate"},{"code":{"odd":1},"message":"second"}]}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	if !errors.As(err, &e) || e.Code != 210 || !errors.Is(err, ErrDuplicate) || len(e.Errors) != 2 || e.Errors[1].Message != "second" {
		t.Fatalf("err = %v (%+v)", err, e)
	}
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400, `{"message":"bad","code":"200"}`)
	_, err = c.Transactions.Get(context.Background(), "1")
	if !errors.As(err, &e) || e.Code != 200 || e.Message != "bad" {
		t.Fatalf("bare body: %+v", e)
	}
}

func TestMaskDottedNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"dob 02.01.1990":  "dob [redacted]",
		"ssn 123.45.6789": "ssn [redacted]",
		"v1.2.3":          "v1.2.3",
	} {
		if got := mask(in); got != want {
			t.Errorf("mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// An error item with odd field types (the OpenAPI's numeric occurredAt, a
// number or an object where text is expected) keeps its code: a duplicate
// read as a plain 400 would invite paying again.
func TestErrorBodyLenientFields(t *testing.T) {
	for name, body := range map[string]string{
		"numeric occurredAt": `{"errors":[{"domain":"d","code":210,"message":"duplicate","occurredAt":1700000000000.0}]}`,
		"odd types":          `{"errors":[{"domain":{"x":1},"code":"210","message":42,"location":[1],"occurredAt":null}]}`,
		"string occurredAt":  `{"errors":[{"code":210,"message":"duplicate","occurredAt":"2026-11-23T06:00:00Z"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400, body)
			_, err := c.Transactions.Get(context.Background(), "1")
			var e *APIError
			require.ErrorAs(t, err, &e)
			assert.ErrorIs(t, err, ErrDuplicate)
			assert.Equal(t, 210, e.Code)
			require.Len(t, e.Errors, 1)
			assert.Empty(t, e.Body)
		})
	}
}
