package bankpay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
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
			require.ErrorAs(t, err, &apiErr, "err = %T %v, want *APIError", err, err)
			assert.Equal(t, tc.status, apiErr.StatusCode, "APIError = %+v", apiErr)
			assert.Equal(t, tc.code, apiErr.Code, "APIError = %+v", apiErr)
			assert.Equal(t, "GET", apiErr.Method, "APIError = %+v", apiErr)
			assert.Equal(t, "/transactions/1", apiErr.Path, "APIError = %+v", apiErr)
			for _, want := range tc.is {
				assert.ErrorIs(t, err, want, "errors.Is(%v, %v) = false", err, want)
			}
			for _, not := range tc.isNot {
				assert.NotErrorIs(t, err, not, "errors.Is(%v, %v) = true", err, not)
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
	require.ErrorAs(t, err, &e, "%v", err)
	if assert.Len(t, e.Errors, 2, "items = %+v", e.Errors) {
		assert.Equal(t, "amount", e.Errors[0].Location, "items = %+v", e.Errors)
		assert.Equal(t, 210, e.Errors[1].Code, "items = %+v", e.Errors)
	}
	assert.Equal(t, "d1", e.Domain, "items = %+v", e.Errors)
	assert.Equal(t, "first", e.Message, "items = %+v", e.Errors)
	assert.True(t, e.HasCode(210), "HasCode/Is do not see the second item")
	assert.False(t, e.HasCode(300), "HasCode/Is do not see the second item")
	assert.ErrorIs(t, err, ErrDuplicate, "HasCode/Is do not see the second item")
	got := e.Error()
	assert.Equal(t, "bankpay: GET /transactions/1: 400 Bad Request (code 200): first", got, "Error() = %q", got)
}

func TestAPIErrorMasksDigitsAndCapsExcerpt(t *testing.T) {
	c, mock, _ := newTestClient(t, WithMaxRetries(0))
	huge := "account 1002000000 tax 123-45-6789 " + strings.Repeat("x", 100000)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 502, huge)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	require.ErrorAs(t, err, &e, "%v", err)
	head := e.Body
	if len(head) > 60 {
		head = head[:60]
	}
	assert.NotContains(t, e.Body, "1002000000", "body excerpt not masked/capped: %d bytes %q", len(e.Body), head)
	assert.NotContains(t, e.Body, "6789", "body excerpt not masked/capped: %d bytes %q", len(e.Body), head)
	assert.LessOrEqual(t, len(e.Body), maxExcerpt+8, "body excerpt not masked/capped: %d bytes %q", len(e.Body), head)
	assert.NotContains(t, err.Error(), "1002000000", "account number in error string")

	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400,
		`{"errors":[{"code":330,"message":"invalid account 1002000000 for ssn 123-45-6789"}]}`)
	_, err = c.Transactions.Get(context.Background(), "1")
	s := err.Error()
	assert.NotContains(t, s, "1002000000", "message not masked: %s", s)
	assert.NotContains(t, s, "6789", "message not masked: %s", s)
	assert.Contains(t, s, "code 330", "message not masked: %s", s)
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
		got := mask(in)
		assert.Equal(t, want, got, "mask(%q) = %q, want %q", in, got, want)
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
			require.ErrorAs(t, err, &re, "err = %v", err)
			require.ErrorIs(t, err, ErrInvalidResponse, "err = %v", err)
			require.Equal(t, 200, re.StatusCode, "err = %v", err)
		})
	}
}

func TestResponseTooLarge(t *testing.T) {
	c, mock, _ := newTestClient(t, withMaxResponseBytes(1024))
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 200,
		`{"transaction":{"statusMessage":"`+strings.Repeat("a", 4096)+`"}}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	require.ErrorIs(t, err, errResponseTooLarge, "err = %v", err)
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v", err)
}

func TestValidationErrorText(t *testing.T) {
	err := error(&ValidationError{Field: "amount", Reason: "is required", Err: ErrBadRequest})
	assert.Equal(t, "bankpay: invalid amount: is required", err.Error(), "ValidationError = %v", err)
	assert.True(t, isValidation(err), "ValidationError = %v", err)
	assert.ErrorIs(t, err, ErrBadRequest, "ValidationError = %v", err)
}

func TestAPIErrorCodeAsString(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400,
		`{"errors":[{"code":"210","message":"Duplicate"},{"code":{"odd":1},"message":"second"}]}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	var e *APIError
	require.ErrorAs(t, err, &e, "err = %v (%+v)", err, e)
	require.Equal(t, 210, e.Code, "err = %v (%+v)", err, e)
	require.ErrorIs(t, err, ErrDuplicate, "err = %v (%+v)", err, e)
	require.Len(t, e.Errors, 2, "err = %v (%+v)", err, e)
	require.Equal(t, "second", e.Errors[1].Message, "err = %v (%+v)", err, e)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 400, `{"message":"bad","code":"200"}`)
	_, err = c.Transactions.Get(context.Background(), "1")
	require.ErrorAs(t, err, &e, "bare body: %+v", e)
	require.Equal(t, 200, e.Code, "bare body: %+v", e)
	require.Equal(t, "bad", e.Message, "bare body: %+v", e)
}

func TestMaskDottedNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"dob 02.01.1990":  "dob [redacted]",
		"ssn 123.45.6789": "ssn [redacted]",
		"v1.2.3":          "v1.2.3",
	} {
		got := mask(in)
		assert.Equal(t, want, got, "mask(%q) = %q, want %q", in, got, want)
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

// maskKeeping keeps the ids a call sent, standing alone, and masks
// everything mask masks, an id inside a longer number included.
func TestMaskKeepingIDs(t *testing.T) {
	ids := []string{"100260000000001", "1002600000000077", "T-55512345"}
	for in, want := range map[string]string{
		"deposit 100260000000001 is not one":                  "deposit 100260000000001 is not one",
		"transaction 1002600000000077: account 1000000006":    "transaction 1002600000000077: account [redacted]",
		"capture 1002600000000099 of 100260000000001":         "capture [redacted] of 100260000000001",
		"tax id 123-45-6789, card 4111 1111 1111 1111":        "tax id [redacted], card [redacted]",
		"account 99100260000000001":                           "account [redacted]",
		"account 100260000000001-12 is closed":                "account [redacted] is closed",
		"ref 7-100260000000001":                               "ref [redacted]",
		"x100260000000001 and 100260000000001x":               "x[redacted] and [redacted]x",
		"payment T-55512345 failed; T-55512345678 is unknown": "payment T-55512345 failed; T-[redacted] is unknown",
		"amount 100.00 on 100260000000001.":                   "amount 100.00 on 100260000000001.",
	} {
		assert.Equal(t, want, maskKeeping(in, ids), in)
	}
	assert.Equal(t, "deposit [redacted] is not one", mask("deposit 100260000000001 is not one"), "no ids: masked")
}

// The ids a call sent stay readable in its errors and log lines, even in
// the service's free text; account numbers, tax ids and card-like numbers
// in the same text stay masked.
func TestCallErrorsKeepTheirIDs(t *testing.T) {
	var logs strings.Builder
	c, mock, _ := newTestClient(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	respondCounting(mock, http.StatusBadRequest,
		`{"errors":[{"code":200,"message":"deposit 100260000000001 is not one: a deposit is reclaimed (account 1000000006, tax id 123-45-6789, card 4111111111111111)"}]}`)
	_, err := c.Transactions.Refund(context.Background(), "100260000000001", &RefundParams{MerchantReference: "rf-20250306", Amount: "5.00"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	for _, text := range []string{ae.Message, err.Error(), logs.String()} {
		assert.Contains(t, text, "deposit 100260000000001 is not one")
		for _, secret := range []string{"1000000006", "123-45-6789", "4111111111111111"} {
			assert.NotContains(t, text, secret)
		}
	}

	// An id sent in the body (a dispute's transactionId) and one sent in
	// the query (a lookup by originalTransactionId) are the call's too.
	respondCounting(mock, http.StatusBadRequest, `{"errors":[{"code":200,"message":"transaction 1002600000000077 cannot be disputed, account 1000000006"}]}`)
	_, err = c.Disputes.Create(context.Background(), &DisputeParams{TransactionID: "1002600000000077", Amount: "12.50"})
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "transaction 1002600000000077 cannot be disputed, account [redacted]", ae.Message)
}

// TestNetworkErrorMasksEchoedNumbers: a server that answers a Tokenize with
// bytes that are not HTTP, echoing the account number and a tax id, gets
// them quoted by net/http ("malformed HTTP response \"…\""): the
// *NetworkError's text masks them, as the log line does.
func TestNetworkErrorMasksEchoedNumbers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				_, _ = io.WriteString(conn, "acct:1000001700,tax:123-45-6789\r\n\r\n")
			}()
		}
	}()
	var logs strings.Builder
	c, err := NewClient(testCreds, WithBaseURL("http://"+ln.Addr().String()+"/api/v1"), WithMaxRetries(0),
		WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: "1000001700", RoutingNumber: "124003116", NameOnAccount: "John Smith"})
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	assert.Contains(t, err.Error(), "malformed HTTP response")
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprint(errors.Unwrap(err)), logs.String()} {
		assert.NotContains(t, text, "1000001700")
		assert.NotContains(t, text, "123-45-6789")
	}
}
