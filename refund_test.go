package bankpay

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

const (
	refundPath  = "/api/v1/transactions/1002600000009/refund"
	reclaimPath = "/api/v1/transactions/1002600000011/reclaim"
	cancelPath  = "/api/v1/transactions/1002581234567/cancel"
)

// refundResponseJSON is a refund transaction (type 4) of capture
// 1002600000009, wrapped as the spec shapes single transactions.
const refundResponseJSON = `{"transaction":{"transactionId":"1002600000010","transactionType":4,
  "originalTransactionId":"1002600000009","currency":"USD","amount":"40.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-90","status":"AC100","statusMessage":"payment pending"},
  "status":2,"statusMessage":"Authorized","createdAt":1700000900000,"merchantReference":"rf-1","recordVersion":1}}`

// refundResponseBare is the same, bare, with the OpenAPI's numeric strings.
const refundResponseBare = `{"transactionId":"1002600000010","transactionType":"4","originalTransactionId":"1002600000009",
  "currency":"USD","amount":"40.00","status":"2","statusMessage":"Authorized","merchantReference":"rf-1",
  "paid":"0.00","refunded":"0.00","balance":"0.00","recordVersion":1.0}`

// twoXXFailures are 2xx responses a transaction call cannot decode.
var twoXXFailures = []struct{ name, body string }{
	{"not JSON", `<html>OK</html>`},
	{"truncated", `{"transaction":{"transactionId":"1002600000010","transactionType":4`},
	{"empty object", `{}`},
	{"wrapper null", `{"transaction":null}`},
}

// checkUndecodable asserts that every 2xx failure is a *ResponseError
// matching ErrInvalidResponse, sent once.
func checkUndecodable(t *testing.T, want wantRequest, call func(*Client) error) {
	t.Helper()
	for _, f := range twoXXFailures {
		t.Run(f.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, want, http.StatusOK, f.body)
			err := call(c)
			var re *ResponseError
			require.ErrorAs(t, err, &re)
			assert.ErrorIs(t, err, ErrInvalidResponse)
			assert.Equal(t, want.Path[len("/api/v1"):], re.Path)
			assert.EqualValues(t, 1, calls.Load())
		})
	}
}

func TestTransactionsRefund(t *testing.T) {
	for name, resp := range map[string]string{"wrapped": refundResponseJSON, "bare": refundResponseBare} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "POST", Path: refundPath, ContentType: "application/json",
				Body: `{"merchantReference":"rf-1","amount":"40.00"}`}, 200, resp)
			r, err := c.Transactions.Refund(context.Background(), "1002600000009", &RefundParams{MerchantReference: "rf-1", Amount: "40.00"})
			require.NoError(t, err)
			assert.EqualValues(t, 1, calls.Load())
			assert.Equal(t, "1002600000010", r.TransactionID)
			assert.Equal(t, models.TypeRefund, r.TransactionType)
			assert.Equal(t, "1002600000009", r.OriginalTransactionID)
			assert.Equal(t, models.StatusAuthorized, r.Status)
			assert.Equal(t, models.Amount("40.00"), r.Amount)
		})
	}
}

func TestTransactionsRefundWholeBalance(t *testing.T) {
	// nil params and empty params both send an empty object: the service
	// refunds what is left.
	for name, p := range map[string]*RefundParams{"nil": nil, "empty": {}} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			expect(t, mock, wantRequest{Method: "POST", Path: refundPath, ContentType: "application/json", Body: `{}`}, 200, refundResponseJSON)
			_, err := c.Transactions.Refund(context.Background(), "1002600000009", p)
			require.NoError(t, err)
		})
	}
}

func TestTransactionsRefundRejects(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		p        *RefundParams
		field    string
	}{
		{"empty id", "", nil, "transactionId"},
		{"dot-dot id", "..", nil, "transactionId"},
		{"amount without places", "1", &RefundParams{Amount: "40"}, "amount"},
		{"amount zero", "1", &RefundParams{Amount: "0.00"}, "amount"},
		{"amount below the minimum", "1", &RefundParams{Amount: "0.98"}, "amount"},
		{"amount negative", "1", &RefundParams{Amount: "-1.00"}, "amount"},
		{"amount over 10 characters", "1", &RefundParams{Amount: "12345678.00"}, "amount"},
		{"amount as a float", "1", &RefundParams{Amount: "1e2"}, "amount"},
		{"reference with &", "1", &RefundParams{MerchantReference: "a&errorCode=330"}, "merchantReference"},
		{"reference with a newline", "1", &RefundParams{MerchantReference: "a\nb"}, "merchantReference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Refund(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
	// The boundaries are accepted.
	for _, a := range []models.Amount{"0.99", "9999999.99"} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "POST", Path: refundPath, ContentType: "application/json",
			Body: `{"amount":"` + string(a) + `"}`}, 200, refundResponseJSON)
		_, err := c.Transactions.Refund(context.Background(), "1002600000009", &RefundParams{Amount: a})
		assert.NoError(t, err, a)
	}
}

func TestTransactionsRefundErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: refundPath, ContentType: "application/json", Body: `{"amount":"40.00"}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Refund(context.Background(), "1002600000009", &RefundParams{Amount: "40.00"})
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)

	// More than the balance: the service's code reaches the caller.
	c, mock, _ := newTestClient(t)
	expect(t, mock, want, 400, `{"errors":[{"domain":"Validation","code":331,"message":"amount exceeds the balance 10.00 of the transaction"}]}`)
	err := call(c)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 331, apiErr.Code)
	assert.ErrorIs(t, err, ErrBadRequest)
}

// TestStateChangingNotRetried: a 503 after the request may have reached the
// server is not retried; a dial error (never sent) is; WithRetryNonIdempotent
// retries the 503. For every call of this file and its siblings.
func TestStateChangingNotRetried(t *testing.T) {
	ctx := context.Background()
	calls := map[string]func(*Client, ...Option) error{
		"Refund": func(c *Client, o ...Option) error {
			_, err := c.Transactions.Refund(ctx, "1", &RefundParams{MerchantReference: "rf", Amount: "1.00"}, o...)
			return err
		},
		"Reclaim": func(c *Client, o ...Option) error {
			_, err := c.Transactions.Reclaim(ctx, "1", &ReclaimParams{MerchantReference: "rc", Amount: "1.00"}, o...)
			return err
		},
		"Cancel": func(c *Client, o ...Option) error {
			_, err := c.Transactions.Cancel(ctx, "1", &CancelParams{MerchantReference: "cn"}, o...)
			return err
		},
		"Preauthorize": func(c *Client, o ...Option) error {
			_, err := c.Transactions.Preauthorize(ctx, "1", &PreauthorizeParams{MerchantReference: "p", Amount: "1.00", Period: 1}, o...)
			return err
		},
		"Refresh": func(c *Client, o ...Option) error {
			_, err := c.Transactions.Refresh(ctx, "1", "tok", o...)
			return err
		},
		"Capture (Pay)": func(c *Client, o ...Option) error {
			_, err := c.Transactions.Capture(ctx, "1", &CaptureParams{MerchantReference: "c", Amount: "1.00", SplitToken: "tok"}, o...)
			return err
		},
	}
	ok := `{"transaction":{"transactionId":"9","transactionType":4,"status":2},"refresh":{"processId":"p-1"}}`
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			c, mock, w := newTestClient(t)
			n := sequence(t, mock, jsonResponse(503, `{}`), jsonResponse(200, ok))
			err := call(c)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, 503, apiErr.StatusCode)
			assert.EqualValues(t, 1, n.Load(), "a 503 must not be retried")
			assert.Empty(t, w.list)

			c, mock, _ = newTestClient(t)
			n = sequence(t, mock, dialRefused, jsonResponse(200, ok))
			require.NoError(t, call(c), "a request that never left is retried")
			assert.EqualValues(t, 2, n.Load())

			c, mock, _ = newTestClient(t)
			n = sequence(t, mock, jsonResponse(503, `{}`), jsonResponse(200, ok))
			if name == "Refresh" {
				// No merchantReference: the opt-in does not apply.
				require.ErrorAs(t, call(c, WithRetryNonIdempotent()), &apiErr, "opted in, keyless")
				assert.EqualValues(t, 1, n.Load())
			} else {
				require.NoError(t, call(c, WithRetryNonIdempotent()), "opted in")
				assert.EqualValues(t, 2, n.Load())
			}

			c, mock, _ = newTestClient(t)
			n = sequence(t, mock, resetAfterSend, jsonResponse(200, ok))
			err = call(c)
			var ne *NetworkError
			require.ErrorAs(t, err, &ne)
			assert.True(t, ne.Sent)
			assert.EqualValues(t, 1, n.Load(), "a reset after sending must not be retried")
		})
	}
}

func TestTransactionsReclaim(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: reclaimPath, ContentType: "application/json",
		Body: `{"merchantReference":"rc-1","amount":"12.50"}`}, 200,
		`{"transaction":{"transactionId":"1002600000012","transactionType":7,"originalTransactionId":"1002600000011","amount":"12.50","status":2}}`)
	r, err := c.Transactions.Reclaim(context.Background(), "1002600000011", &ReclaimParams{MerchantReference: "rc-1", Amount: "12.50"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.TypeReclaim, r.TransactionType)
	assert.Equal(t, "1002600000011", r.OriginalTransactionID)
	assert.Equal(t, models.Amount("12.50"), r.Amount)

	// The reference may be left out; the amount may not.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: reclaimPath, ContentType: "application/json", Body: `{"amount":"1.00"}`}, 200,
		`{"transactionId":"1002600000012","transactionType":"7","status":"2"}`)
	_, err = c.Transactions.Reclaim(context.Background(), "1002600000011", &ReclaimParams{Amount: "1.00"})
	require.NoError(t, err)
}

func TestTransactionsReclaimRejects(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		p        *ReclaimParams
		field    string
	}{
		{"nil params", "1", nil, "reclaimParams"},
		{"empty id", "", &ReclaimParams{Amount: "1.00"}, "transactionId"},
		{"no amount", "1", &ReclaimParams{MerchantReference: "r"}, "amount"},
		{"amount below the minimum", "1", &ReclaimParams{Amount: "0.50"}, "amount"},
		{"amount one place", "1", &ReclaimParams{Amount: "1.5"}, "amount"},
		{"amount over 10 characters", "1", &ReclaimParams{Amount: "10000000.00"}, "amount"},
		{"reference with %", "1", &ReclaimParams{Amount: "1.00", MerchantReference: "a%26"}, "merchantReference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Reclaim(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
}

func TestTransactionsReclaimErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: reclaimPath, ContentType: "application/json", Body: `{"amount":"5.00"}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Reclaim(context.Background(), "1002600000011", &ReclaimParams{Amount: "5.00"})
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)
}

func TestTransactionsCancel(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json",
		Body: `{"merchantReference":"ord-9","message":"customer revoked access","reason":3}`}, 200,
		`{"transaction":{"transactionId":"1002581234567","transactionType":1,"status":7,"statusMessage":"Canceled",
		  "paymentProviderTransaction":{"status":"SW013"}}}`)
	r, err := c.Transactions.Cancel(context.Background(), "1002581234567",
		&CancelParams{MerchantReference: "ord-9", Message: "customer revoked access", Reason: 3})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.StatusCanceled, r.Status)
	assert.Equal(t, models.ProviderStatus("SW013"), r.PaymentProviderTransaction.Status)

	// Every field may be left out.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json", Body: `{}`}, 200,
		`{"transactionId":"1002581234567","transactionType":"1","status":"7"}`)
	r, err = c.Transactions.Cancel(context.Background(), "1002581234567", nil)
	require.NoError(t, err)
	assert.Equal(t, models.StatusCanceled, r.Status)

	// 40 characters is the limit, counted in characters, not bytes.
	c, mock, _ = newTestClient(t)
	msg := "éééééééééééééééééééééééééééééééééééééééé"
	expect(t, mock, wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json", Body: `{"message":"` + msg + `"}`}, 200,
		`{"transactionId":"1002581234567","status":7}`)
	_, err = c.Transactions.Cancel(context.Background(), "1002581234567", &CancelParams{Message: msg})
	require.NoError(t, err)
}

func TestTransactionsCancelRejects(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		p        *CancelParams
		field    string
	}{
		{"empty id", "", nil, "transactionId"},
		{"id with a newline", "1\n", nil, "transactionId"},
		{"message of 41 characters", "1", &CancelParams{Message: "12345678901234567890123456789012345678901"}, "message"},
		{"message not UTF-8", "1", &CancelParams{Message: "\xff"}, "message"},
		{"negative reason", "1", &CancelParams{Reason: -1}, "reason"},
		{"reference with =", "1", &CancelParams{MerchantReference: "a=b"}, "merchantReference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Cancel(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
}

func TestTransactionsCancelErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json", Body: `{}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Cancel(context.Background(), "1002581234567", nil)
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)
}
