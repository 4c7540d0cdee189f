package bankpay

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/models"
	"github.com/jarcoal/httpmock"
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

// rawServer listens on loopback until the test ends and, on each
// connection, reads one request and hands it to answer, which writes
// whatever bytes it likes (not necessarily HTTP) before the connection is
// closed. It returns the listener's address.
func rawServer(t *testing.T, answer func(conn net.Conn, req *http.Request)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				answer(conn, req)
			}()
		}
	}()
	return ln.Addr().String()
}

// A hostile server (or proxy) that responds with a malformed status line
// quoting what the client sent: net/http puts the server's bytes in its
// error ("malformed HTTP response \"…\""), and a NetworkError must not
// carry the access key or the Authorization header out in its text.
func TestNetworkError_EchoRedacted(t *testing.T) {
	addr := rawServer(t, func(conn net.Conn, req *http.Request) {
		auth := req.Header.Get("Authorization")
		pair, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
		_, key, _ := strings.Cut(string(pair), ":")
		if strings.HasSuffix(req.URL.Path, "/status") {
			fmt.Fprintf(conn, "HTTP/1.1 %s\r\n\r\n", key)
			return
		}
		fmt.Fprintf(conn, "%s %s\r\n\r\n", auth, key)
	})
	c, err := NewClient(testCreds, WithBaseURL("http://"+addr+"/api/v1"), WithMaxRetries(0))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	for _, path := range []string{"/echo/line", "/echo/status"} {
		req, err := pipeline.NewRequest(http.MethodGet, path, nil, nil)
		require.NoError(t, err)
		err = c.do(context.Background(), req, nil, nil)
		var ne *NetworkError
		require.True(t, errors.As(err, &ne), "err = %v", err)
		key := testCreds.AccessKey.Reveal()
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%v", ne.Err)} {
			assert.NotContains(t, text, key[:minEcho], path)
			assert.NotContains(t, text, c.secrets.authHeader()[6:6+minEcho], path)
		}
		assert.True(t, errors.Is(err, ne.Err), "the cause stays matchable")
	}
}

// A proxy or server that echoes the access key in forms the redaction did
// not know: hex (a request dump), or cut at its start rather than at its
// end ("…" + the key's tail, as a log line clipped from the left shows it).
func TestMask_EchoedKeyHexAndTail(t *testing.T) {
	creds := Credentials{AccessID: "echo-id", AccessKey: NewSecret("Zq-secret-key-for-echo-tests-ABCDEFGH"), MerchantID: "1002463580"}
	key := creds.AccessKey.Reveal()
	mock := httpmock.NewMockTransport()
	c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}), WithMaxRetries(0))
	require.NoError(t, err)
	for name, echo := range map[string]string{
		"hex":       hex.EncodeToString([]byte(key)),
		"HEX":       strings.ToUpper(hex.EncodeToString([]byte(key))),
		"tail":      "…" + key[len(key)-20:],
		"hexOfTail": hex.EncodeToString([]byte(key[len(key)-12:])),
	} {
		t.Run(name, func(t *testing.T) {
			sequence(t, mock, jsonResponse(502, `<html>upstream said: `+echo+` for amount 100.00</html>`))
			_, err := c.Transactions.Get(context.Background(), "1")
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Contains(t, ae.Body, "for amount 100.00", "the rest stays readable")
			bare := strings.TrimPrefix(echo, "…")
			for i := 0; i+minEcho <= len(bare); i++ {
				require.NotContains(t, ae.Body, bare[i:i+minEcho])
				require.NotContains(t, err.Error(), bare[i:i+minEcho])
			}
		})
	}
}

// accountSecrets are the account data a server could echo into an error
// response: IBANs (digits only, alphanumeric, grouped by four), an account
// number and a tax id.
var accountSecrets = []string{
	"DE89370400440532013000", "MT84MALT011000012345MTLCAST001S", "GB82 WEST 1234 5698 7654 32", "1000001700", "999-00-1234",
}

// The error responses of the verify, tokenize, feedback and lookup calls,
// echoing account data in every field and shape (errors, errorsList, a bare
// message, a proxy's HTML page), never show it in an error, its fields or
// a log line; the amount next to it stays.
func TestMask_AccountDataEchoed(t *testing.T) {
	echo := "amount 125.00 refused: account " + strings.Join(accountSecrets, ", ") + " is closed"
	quoted, _ := json.Marshal(echo)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/accounts/verify":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"errors":[{"domain":%s,"code":330,"message":%s,"location":%s,"occurredAt":%s}]}`, quoted, quoted, quoted, quoted)
		case "/api/v1/customers/lookup":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"isInTrustlyNetwork":false,"errorsList":[{"domain":%s,"code":200,"message":%s,"location":%s}]}`, quoted, quoted, quoted)
		case "/api/v1/feedback":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"message":%s}`, quoted)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html>%s</html>", echo)
		}
	}))
	defer srv.Close()
	var logs syncBuffer
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	ctx := context.Background()

	var texts []string
	for name, call := range map[string]func() error{
		"Verify": func() error {
			_, err := c.Accounts.Verify(ctx, &AccountVerifyParams{IBAN: "DE89370400440532013000"})
			return err
		},
		"Tokenize": func() error {
			_, err := c.Accounts.Tokenize(ctx, &TokenizeParams{IBAN: "DE89370400440532013000"})
			return err
		},
		"Feedback": func() error { return c.Accounts.Feedback(ctx, feedbackParams()) },
		"Lookup":   func() error { _, err := c.Customers.Lookup(ctx, "jane@example.com", "+15125550100"); return err },
	} {
		err := call()
		var ae *APIError
		require.ErrorAs(t, err, &ae, name)
		assert.True(t, strings.Contains(ae.Message, "amount 125.00") || strings.Contains(ae.Body, "amount 125.00"), "%s: the rest of the text stays: %+v", name, ae)
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), ae.Message, ae.Domain, ae.Body)
		for _, it := range ae.Errors {
			texts = append(texts, it.Domain, it.Message, it.Location, it.OccurredAt)
		}
	}
	require.Contains(t, logs.String(), `"level":"WARN"`)
	all := strings.Join(append(texts, logs.String()), "\n")
	for _, s := range accountSecrets {
		assert.NotContains(t, all, s)
	}
	for _, part := range []string{"MTLCAST001S", "5698 7654", "WEST 1234", "0532013000", "+15125550100"} {
		assert.NotContains(t, all, part)
	}
}

func TestMaskIBANs(t *testing.T) {
	for in, want := range map[string]string{
		"iban DE89370400440532013000 invalid":       "iban [redacted] invalid",
		"iban MT84MALT011000012345MTLCAST001S.":     "iban [redacted].",
		"iban GB82 WEST 1234 5698 7654 32 closed":   "iban [redacted] closed",
		"(NL91ABNA0417164300) amount 10.00 USD":     "([redacted]) amount 10.00 USD",
		"code AB12 is short; US 100.00; XY99ZZ":     "code AB12 is short; US 100.00; XY99ZZ",
		"ERROR CODE 330: INVALID ACCOUNT":           "ERROR CODE 330: INVALID ACCOUNT",
		"account DE89370400440532013000, 50.00 due": "account [redacted], 50.00 due",
	} {
		assert.Equal(t, want, mask(in), in)
	}
}

// echoServer plays a server (or proxy) that echoes what the client sent:
// the Authorization header, the access key it carries (raw, URL-encoded,
// and base64 of id:key) and an account number, in every field of an error
// response, next to an amount. The path picks the shape of the response.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		pair, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
		_, key, _ := strings.Cut(string(pair), ":")
		echo := fmt.Sprintf("amount exceeds 100.00 for account 1002000000; got Authorization: %s, key %s, id:key %s, encoded %s %s %s",
			auth, key, base64.StdEncoding.EncodeToString(pair), url.QueryEscape(key), url.PathEscape(key), base64.URLEncoding.EncodeToString([]byte(key)))
		quoted, _ := json.Marshal(echo)
		switch {
		case strings.HasSuffix(r.URL.Path, "/items"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"errors":[{"domain":%s,"code":200,"message":%s,"location":%s,"occurredAt":%s},{"domain":%s,"code":330,"message":%s}]}`,
				quoted, quoted, quoted, quoted, quoted, quoted)
		case strings.HasSuffix(r.URL.Path, "/bare"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"message":%s,"code":300}`, quoted)
		default: // a proxy's HTML page, the key near the excerpt's cut
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			head := "<html>amount exceeds 100.00 for account 1002000000 "
			fmt.Fprintf(w, "%s%s%s %s</html>", head, strings.Repeat("x", maxExcerpt-6-len(head)), key, echo)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestMask_EchoedSecretsRedacted(t *testing.T) {
	for _, creds := range []Credentials{
		testCreds,
		{AccessID: "echo-id", AccessKey: NewSecret("k3y/with+special&chars=?é"), MerchantID: "1002463580"},
	} {
		t.Run(creds.AccessID, func(t *testing.T) {
			srv := echoServer(t)
			var logs syncBuffer
			handlers := slog.New(fanout{
				slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
				slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
			})
			c, err := NewClient(creds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0), WithLogger(handlers))
			require.NoError(t, err)
			defer func() { _ = c.Close() }()

			var texts []string
			for _, path := range []string{"/echo/items", "/echo/bare", "/echo/html"} {
				req, err := pipeline.NewRequest(http.MethodGet, path, nil, nil)
				require.NoError(t, err)
				err = c.do(context.Background(), req, &struct{}{}, nil)
				var ae *APIError
				require.ErrorAs(t, err, &ae, path)
				texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), ae.Message, ae.Domain, ae.Body)
				for _, it := range ae.Errors {
					texts = append(texts, it.Domain, it.Message, it.Location, it.OccurredAt)
				}
				if path != "/echo/html" {
					assert.Contains(t, ae.Message, "amount exceeds 100.00 for account [redacted]", path)
				} else {
					assert.Contains(t, ae.Body, "amount exceeds 100.00", path)
				}
			}
			texts = append(texts, logs.String())
			all := strings.Join(texts, "\n")
			require.Contains(t, logs.String(), `"level":"WARN"`)
			require.Contains(t, logs.String(), `level=WARN`)
			pair := creds.AccessID + ":" + creds.AccessKey.Reveal()
			for _, secret := range []string{
				creds.AccessKey.Reveal(), url.QueryEscape(creds.AccessKey.Reveal()), url.PathEscape(creds.AccessKey.Reveal()),
				base64.StdEncoding.EncodeToString([]byte(pair)), base64.URLEncoding.EncodeToString([]byte(creds.AccessKey.Reveal())),
				"1002000000",
			} {
				assert.NotContains(t, all, secret)
			}
			// Nor a large part of the key, cut by the excerpt.
			assert.NotContains(t, all, creds.AccessKey.Reveal()[:len(creds.AccessKey.Reveal())/2])
		})
	}
}

// fanout sends every record to several handlers.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool { return f[0].Enabled(ctx, l) }

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		if err := h.Handle(ctx, r.Clone()); err != nil {
			return err
		}
	}
	return nil
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}

func TestMaskKeepsAmounts(t *testing.T) {
	for in, want := range map[string]string{
		"amount exceeds 100.00":             "amount exceeds 100.00",
		"balance 12345.67 too low":          "balance 12345.67 too low",
		"limit 1,000,000.00":                "limit 1,000,000.00",
		"account 1002000000.":               "account [redacted].",
		"account 1002000000 amount 250.00":  "account [redacted] amount 250.00",
		"dob 1990.01.02":                    "dob [redacted]",
		"ref 1234567890.12":                 "ref [redacted]",
		"ip 10.0.0.123":                     "ip [redacted]",
		"ssn 123-45-6789 owes 10000.50 USD": "ssn [redacted] owes 10000.50 USD",
		"12345.678":                         "[redacted]",
	} {
		assert.Equal(t, want, mask(in), in)
	}
}

// An echo cut short (a server's clip of a quoted value, a proxy's
// truncated header) is redacted too, and the error of a 2xx response that
// cannot be decoded names the field but quotes neither a key nor an account
// number it holds.
func TestMask_EchoedSecretsCutShortAndInDecodeErrors(t *testing.T) {
	creds := Credentials{AccessID: "echo-id", AccessKey: NewSecret("Zq-secret-key-for-echo-tests-ABCDEFGH"), MerchantID: "1002463580"}
	key := creds.AccessKey.Reveal()
	auth := base64.StdEncoding.EncodeToString([]byte(creds.AccessID + ":" + key))
	mock := httpmock.NewMockTransport()
	c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}))
	require.NoError(t, err)
	for _, status := range []string{key, "acct 1002000000"} {
		sequence(t, mock, jsonResponse(200, `{"transaction":{"transactionId":"1","transactionType":6,"status":2,"amount":"1.00","status":"`+status+`"}}`))
		_, err := c.Transactions.Get(context.Background(), "1")
		var re *ResponseError
		require.ErrorAs(t, err, &re)
		require.Error(t, re.Err, "the cause stays")
		// A decode error names the field, never the value it could not read.
		assert.Contains(t, err.Error(), "transaction.status")
		assert.NotContains(t, err.Error(), key[:minEcho])
		assert.NotContains(t, err.Error(), "1002000000")
	}
	sequence(t, mock, jsonResponse(401, `{"errors":[{"code":300,"message":"bad key `+key[:14]+`… in Basic `+auth[:20]+`…"}]}`))
	_, err = c.Transactions.Get(context.Background(), "1")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "bad key [redacted]… in Basic [redacted]…", ae.Message)
}

// No error in the chain of an undecodable 2xx response quotes the value:
// error reporters walk Unwrap and would send it out.
func TestDecodeErrorChainQuotesNoValue(t *testing.T) {
	creds := Credentials{AccessID: "echo-id", AccessKey: NewSecret("Zq-secret-key-for-chain-tests"), MerchantID: "1002463580"}
	mock := httpmock.NewMockTransport()
	c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}))
	require.NoError(t, err)
	for _, field := range []string{`"transactionType":"%s"`, `"status":"%s"`} {
		value := creds.AccessKey.Reveal() + " 1002000000"
		sequence(t, mock, jsonResponse(200, `{"transaction":{"transactionId":"1","transactionType":6,"status":2,"amount":"1.00",`+strings.Replace(field, "%s", value, 1)+`}}`))
		_, err := c.Transactions.Get(context.Background(), "1")
		require.ErrorIs(t, err, ErrInvalidResponse)
		for e := err; e != nil; e = errors.Unwrap(e) {
			assert.NotContains(t, e.Error(), "Zq-secret", field)
			assert.NotContains(t, e.Error(), "1002000000", field)
		}
	}
}

// The query of a request (Customers.Lookup's email and phone) reaches no
// error and no log line, whatever the server echoes: a gateway quoting the
// request URI (escaped, decoded, lower-case escapes, in JSON), nor a
// retrying middleware whose error quotes the URL.
func TestQueryEchoedNowhere(t *testing.T) {
	const email, phone = "jane.doe+shop@example.com", "+15125550100"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uri := r.URL.RequestURI()
		decoded, _ := url.QueryUnescape(uri)
		quoted, _ := json.Marshal("upstream failed for " + decoded + " phone " + phone)
		if r.Header.Get("X-Shape") == "json" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"errors":[{"code":200,"message":%s,"location":%q}]}`, quoted, uri)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "<html>502 Bad Gateway: GET %s (%s) %s %s</html>", uri, decoded, strings.ToLower(uri), html.EscapeString(decoded))
	}))
	defer srv.Close()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for name, opts := range map[string][]Option{
		"plain":      nil,
		"middleware": {WithTransport(retryableMiddleware)},
	} {
		c, err := NewClient(testCreds, append([]Option{WithBaseURL(srv.URL + "/api/v1"), WithHTTPClient(srv.Client()),
			WithLogger(logger), WithMaxRetries(1)}, opts...)...)
		require.NoError(t, err)
		c.cfg.waitScale = (&waits{}).record
		for _, shape := range []string{"html", "json"} {
			_, err := c.Customers.Lookup(context.Background(), email, phone, WithHeader("X-Shape", shape))
			require.Error(t, err, "%s %s", name, shape)
			texts := []string{err.Error(), fmt.Sprintf("%+v", err)}
			var ae *APIError
			if errors.As(err, &ae) {
				texts = append(texts, ae.Message, ae.Body, fmt.Sprint(ae.Errors))
			}
			for _, text := range append(texts, logs.String()) {
				for _, v := range []string{email, url.QueryEscape(email), phone, url.QueryEscape(phone), "jane.doe", "5125550100"} {
					assert.NotContains(t, text, v, "%s %s: %s", name, shape, text)
				}
			}
			assert.Contains(t, err.Error(), "/customers/lookup", "the path stays")
		}
	}
}

// An error body that writes an account number or tax id in groups joined by
// something other than one '-', '/', ' ' or '.' reaches APIError.Message
// (and every log line and CLI error) whole.
func TestMask_ErrorMessageMasksGroupedNumbers(t *testing.T) {
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"errorsList":[{"code":200,"message":"account 1234_5678_9012, 1234  5678  9012 or taxId 123–45–6789 invalid, limit 1,000.00"}]}`))
	})
	_, err := c.Transactions.Get(context.Background(), "T1")
	require.Error(t, err, "want the 400")
	for _, s := range []string{"1234_5678_9012", "5678", "9012", "123–45–6789", "6789"} {
		assert.NotContains(t, err.Error(), s, "error text keeps %q: %v", s, err)
	}
	assert.Contains(t, err.Error(), "limit 1,000.00", "the amount is masked: %v", err)
}

// TestNetworkError_MasksEchoedNumbers: a server that answers a Tokenize with
// bytes that are not HTTP, echoing the account number and a tax id, gets
// them quoted by net/http ("malformed HTTP response \"…\""): the
// *NetworkError's text masks them, as the log line does.
func TestNetworkError_MasksEchoedNumbers(t *testing.T) {
	addr := rawServer(t, func(conn net.Conn, _ *http.Request) {
		_, _ = io.WriteString(conn, "acct:1000001700,tax:123-45-6789\r\n\r\n")
	})
	var logs strings.Builder
	c, err := NewClient(testCreds, WithBaseURL("http://"+addr+"/api/v1"), WithMaxRetries(0),
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

// OutcomeUnknown is the one test of "the call may have acted": for calls
// that move money or change state, a 5xx, a network error after sending and
// an unreadable 2xx; a lookup that could not tell. Never for a read, a
// refusal, a call that was not sent, or an answer of the lookup.
func TestOutcomeUnknown(t *testing.T) {
	deposit := func(c *Client) error {
		_, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "dep-7", Amount: "10.00"})
		return err
	}
	get := func(c *Client) error {
		_, err := c.Transactions.Get(context.Background(), "A1")
		return err
	}
	sendFails := func(req *http.Request) (*http.Response, error) {
		if req.Body != nil {
			_, _ = io.ReadAll(req.Body) // the request left
		}
		return nil, errors.New("connection reset by peer")
	}
	for _, tc := range []struct {
		name    string
		call    func(*Client) error
		respond httpmock.Responder
		want    bool
	}{
		{"deposit 502", deposit, jsonResponse(502, `{"errors":[{"code":100,"message":"upstream"}]}`), true},
		{"deposit 500 code 100", deposit, jsonResponse(500, `{"errors":[{"code":100}]}`), true},
		{"deposit 400 code 100", deposit, jsonResponse(400, `{"errors":[{"code":100}]}`), true},
		{"deposit unreadable 200", deposit, jsonResponse(200, `{"transaction":{"transactionId":`), true},
		{"deposit reset after sending", deposit, sendFails, true},
		{"deposit 400", deposit, jsonResponse(400, `{"errors":[{"code":200}]}`), false},
		{"deposit 210", deposit, jsonResponse(400, `{"errors":[{"code":210}]}`), false},
		{"deposit 404", deposit, jsonResponse(404, `{"errors":[{"code":200}]}`), false},
		{"get 502", get, jsonResponse(502, `{}`), false},
		{"get unreadable 200", get, jsonResponse(200, `{"transaction":{"transactionId":`), false},
		{"get reset", get, sendFails, false},
	} {
		c, mock, _ := newTestClient(t, WithMaxRetries(0))
		mock.RegisterNoResponder(tc.respond)
		err := tc.call(c)
		require.Error(t, err, tc.name)
		assert.Equal(t, tc.want, OutcomeUnknown(err), "%s: %v", tc.name, err)
		assert.Equal(t, tc.want, OutcomeUnknown(fmt.Errorf("wrapped: %w", err)), tc.name)
	}
	assert.False(t, OutcomeUnknown(nil))
	assert.False(t, OutcomeUnknown(&NetworkError{Method: http.MethodPost, Sent: false, Err: errors.New("refused")}), "not sent")
	assert.True(t, OutcomeUnknown(&NetworkError{Method: http.MethodPost, Sent: true, Err: context.DeadlineExceeded}))
	assert.True(t, OutcomeUnknown(&incompleteError{errOrderMoved}), "a lookup that could not tell")
	assert.False(t, OutcomeUnknown(errNoSuchReference), "not made")
	assert.False(t, OutcomeUnknown(errAmbiguousReference), "made, more than once")
	assert.False(t, OutcomeUnknown(invalid("amount", "bad")), "nothing sent")
}

// A customer's personal values sent in a request body (JSON or form) and
// echoed by the service reach no error text and no log line: whole, in
// another case, or a word of them; the ids the call sent stay readable.
func TestBodyPersonalValuesEchoedNowhere(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		text, ref := string(body), ""
		if form, err := url.ParseQuery(text); err == nil && !strings.HasPrefix(text, "{") {
			ref = form.Get("merchantReference")
			var parts []string
			for k, vs := range form {
				parts = append(parts, k+"="+strings.Join(vs, ","))
			}
			slices.Sort(parts)
			text = strings.Join(parts, " ")
		}
		echo := "request " + ref + ": " + text + " from " + strings.ToUpper(text) + " for Jane, MARIE, Curie, Doe"
		if r.Header.Get("X-Shape") == "html" {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html>502: %s</html>", echo)
			return
		}
		quoted, _ := json.Marshal(echo)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"errors":[{"code":200,"message":%s,"location":%s}]}`, quoted, quoted)
	}))
	defer srv.Close()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithHTTPClient(srv.Client()), WithLogger(logger), WithMaxRetries(0))
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		call     func(opts ...Option) error
		personal []string
		kept     []string
	}{
		{"Customers.Create (JSON)", func(opts ...Option) error {
			_, err := c.Customers.Create(context.Background(), &CustomerParams{Name: "Jane Doe", ExternalID: "cust-42",
				Email: "jane.doe@example.com", Phone: "+15125550100", DateOfBirth: "1990-01-02", TaxID: "123-45-6789",
				Address: &models.Address{Address1: "500 Congress Ave", City: "Austin", State: "TX", Zip: "78701", Country: "US"}}, opts...)
			return err
		}, []string{"Jane", "Doe", "jane.doe@example.com", "JANE.DOE@EXAMPLE.COM", "jane.doe", "5125550100", "1990-01-02",
			"123-45-6789", "Congress", "Austin", "AUSTIN", "78701"}, []string{"/customers"}},
		{"Transactions.Capture (form)", func(opts ...Option) error {
			_, err := c.Transactions.Capture(context.Background(), "1002581234567", fullCaptureParams(), opts...)
			return err
		}, []string{"Marie", "MARIE", "Curie", "1985-04-12", "1234567890", "Rivoli", "RIVOLI", "Apt 4", "Paris", "75001",
			"30004000031234567890189", "FR7630004000031234567890143"}, []string{"1002581234567", "mt-2024-0001", "250.00"}},
	} {
		for _, shape := range []string{"json", "html"} {
			logs.Reset()
			err := tc.call(WithHeader("X-Shape", shape))
			var ae *APIError
			require.ErrorAs(t, err, &ae, "%s %s", tc.name, shape)
			texts := []string{err.Error(), ae.Message, ae.Body, fmt.Sprint(ae.Errors), logs.String()}
			require.NotEmpty(t, logs.String(), "the warn line")
			for _, text := range texts {
				for _, v := range tc.personal {
					assert.NotContains(t, text, v, "%s %s: %s", tc.name, shape, text)
				}
			}
			for _, id := range tc.kept {
				assert.Contains(t, err.Error(), id, "%s %s: the call's ids stay readable", tc.name, shape)
			}
		}
	}
}

// TestAttack_OutcomeUnknownOnTheWire: a Deposit whose answer is lost or
// broken in each way a wire can break it is OutcomeUnknown (reconcile,
// never pay again).
func TestAttack_OutcomeUnknownOnTheWire(t *testing.T) {
	const okBody = `{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00"}}`
	for name, h := range map[string]http.HandlerFunc{
		"hang up after reading": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
		},
		"truncated 200": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			conn, buf, _ := w.(http.Hijacker).Hijack()
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n" + okBody[:40])
			_ = buf.Flush()
			_ = conn.Close()
		},
		"202 empty": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusAccepted)
		},
		"204": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusNoContent)
		},
		"200 html": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = io.WriteString(w, "<html>ok</html>")
		},
		"200 errors body": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = io.WriteString(w, `{"errors":[{"code":100,"message":"internal"}]}`)
		},
		"502 gateway": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusBadGateway)
		},
		"400 code 100": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"errors":[{"code":100,"message":"internal"}]}`)
		},
		"200 then garbage": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = io.WriteString(w, okBody+`{"transaction":{}}`)
		},
	} {
		srv := httptest.NewServer(h)
		c, err := NewClient(testCreds, WithBaseURL(srv.URL), WithMaxRetries(0), WithRetryBackoff(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		txn, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
		srv.Close()
		assert.Nil(t, txn, name)
		assert.True(t, OutcomeUnknown(err), "%s: %v", name, err)
	}
}
