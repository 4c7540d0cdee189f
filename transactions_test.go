package bankpay

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const authorizationJSON = `{"transaction":{
  "transactionId":"1002581234567","transactionType":1,
  "payment":{"paymentId":"1002581234568","paymentType":2,"merchantId":"1002463580",
    "returnUrl":"https://merchant.test/return","cancelUrl":"https://merchant.test/cancel","amount":"0.00",
    "account":{"name":"Checking","type":1,"accountNumber":"1234","verified":true},
    "paymentProvider":{"paymentProviderId":"051000017","name":"Demo Bank","instantPayoutAvailable":true,"type":1}},
  "currency":"USD","amount":"0.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-1","status":10,"statusMessage":"Established",
    "paymentProcessor":{"paymentProcessorId":"proc-1"}},
  "status":2,"statusMessage":"Authorized","createdAt":1700000000000,"updatedAt":"1700000001000",
  "merchantReference":"order-42","recordVersion":3}}`

func TestTransactions_Get(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567"}, 200, authorizationJSON)

	txn, err := c.Transactions.Get(context.Background(), "1002581234567")
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "1002581234567", txn.TransactionID, "decoded %+v", txn)
	assert.Equal(t, models.TypeAuthorize, txn.TransactionType, "decoded %+v", txn)
	assert.Equal(t, models.StatusAuthorized, txn.Status, "decoded %+v", txn)
	assert.Equal(t, models.PaymentTypeDeferred, txn.Payment.PaymentType, "payment %+v", txn.Payment)
	assert.Equal(t, "1234", txn.Payment.Account.AccountNumber, "payment %+v", txn.Payment)
	assert.True(t, txn.Payment.PaymentProvider.InstantPayoutAvailable, "payment %+v", txn.Payment)
	assert.Equal(t, "Demo Bank", txn.Payment.PaymentProvider.Name, "payment %+v", txn.Payment)
	assert.Equal(t, models.ProviderStatus("10"), txn.PaymentProviderTransaction.Status, "provider transaction %+v", txn.PaymentProviderTransaction)
	assert.Equal(t, "proc-1", txn.PaymentProviderTransaction.PaymentProcessor.PaymentProcessorID, "provider transaction %+v", txn.PaymentProviderTransaction)
	assert.True(t, txn.CreatedAt.Time().Equal(time.UnixMilli(1700000000000)), "times %v %v", txn.CreatedAt, txn.UpdatedAt)
	assert.Equal(t, models.EpochMillis(1700000001000), txn.UpdatedAt, "times %v %v", txn.CreatedAt, txn.UpdatedAt)
	assert.Equal(t, models.Amount("0.00"), txn.Amount, "fields %+v", txn)
	assert.Equal(t, models.USD, txn.Currency, "fields %+v", txn)
	assert.Equal(t, 3, txn.RecordVersion, "fields %+v", txn)
	assert.Equal(t, "order-42", txn.MerchantReference, "fields %+v", txn)
}

func TestTransactions_GetEscapesID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/a%2F..%2Fcustomers%3Fx=1"}, 200, aboutID(authorizationJSON, "a/../customers?x=1"))
	_, err := c.Transactions.Get(context.Background(), "a/../customers?x=1")
	require.NoError(t, err)
}

func TestTransactions_GetRejectsBadID(t *testing.T) {
	for _, id := range []string{"", ".", "..", "a\nb"} {
		c, mock, _ := newTestClient(t)
		calls := expectNoRequest(t, mock)
		_, err := c.Transactions.Get(context.Background(), id)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, "Get(%q) error = %v, want ValidationError on transactionId", id, err) {
			assert.Equal(t, "transactionId", ve.Field, "Get(%q) error = %v, want ValidationError on transactionId", id, err)
		}
		assert.Equal(t, int32(0), calls.Load(), "Get(%q) sent a request", id)
	}
}

func TestTransactions_GetEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 200, `{}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v, want ErrInvalidResponse", err)
}

// errorResponse is an error response of the service and what the SDK must make of it.
type errorResponse struct {
	name   string
	status int
	body   string
	is     error // the sentinel the error must match
	isNot  error // a sentinel it must not match
	code   int
}

var errorResponses = []errorResponse{
	{"400 invalid parameter", 400, `{"errors":[{"domain":"com.bankpay.api","code":200,"message":"Invalid parameter: amount"}]}`, ErrBadRequest, ErrUnauthorized, 200},
	{"401 access control", 401, `{"errors":[{"domain":"com.bankpay.security","code":375,"message":"Access control error"}]}`, ErrUnauthorized, ErrBadRequest, 375},
	{"401 security", 401, `{"errors":[{"domain":"com.bankpay.security","code":300,"message":"Security error"}]}`, ErrUnauthorized, ErrServer, 300},
	{"400 duplicate", 400, `{"errors":[{"domain":"com.bankpay.api","code":210,"message":"duplicate request"}]}`, ErrDuplicate, ErrServer, 210},
	{"500 internal", 500, `{"errors":[{"domain":"com.bankpay.api","code":100,"message":"Internal error"}]}`, ErrServer, ErrDuplicate, 100},
	{"503 not JSON", 503, `<html>Service Unavailable</html>`, ErrServer, ErrBadRequest, 0},
}

// checkErrorResponses calls a state-changing method against each error response
// and checks the typed error, and that the request was sent exactly once:
// no retry, no wait, even on 5xx.
func checkErrorResponses(t *testing.T, want wantRequest, call func(*Client) error) {
	t.Helper()
	for _, a := range errorResponses {
		t.Run(a.name, func(t *testing.T) {
			c, mock, w := newTestClient(t)
			calls := expect(t, mock, want, a.status, a.body)
			err := call(c)
			require.ErrorIs(t, err, a.is, "err = %v, want %v", err, a.is)
			assert.NotErrorIs(t, err, a.isNot, "err = %v also matches %v", err, a.isNot)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr, "err = %T, want *APIError", err)
			wantPath := want.Path[len("/api/v1"):]
			assert.Equal(t, a.status, apiErr.StatusCode, "APIError = %+v", apiErr)
			assert.Equal(t, a.code, apiErr.Code, "APIError = %+v", apiErr)
			assert.Equal(t, want.Method, apiErr.Method, "APIError = %+v", apiErr)
			assert.Equal(t, wantPath, apiErr.Path, "APIError = %+v", apiErr)
			assert.Equal(t, 1, apiErr.Attempts, "APIError = %+v", apiErr)
			n := calls.Load()
			assert.Equal(t, int32(1), n, "sent %d times, waited %v; a state-changing call must be sent once", n, w.list)
			assert.Len(t, w.list, 0, "sent %d times, waited %v; a state-changing call must be sent once", n, w.list)
			assertNoSecret(t, err.Error())
		})
	}
}

// checkRejected asserts that call fails with a *ValidationError naming
// field and sends nothing.
func checkRejected(t *testing.T, field string, call func(*Client) error) {
	t.Helper()
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	err := call(c)
	var ve *ValidationError
	if assert.ErrorAs(t, err, &ve, "err = %v, want *ValidationError on %q", err, field) {
		assert.Equal(t, field, ve.Field, "err = %v, want *ValidationError on %q", err, field)
	}
	assert.True(t, isValidation(err), "err = %v is not a *ValidationError", err)
	assert.Equal(t, int32(0), calls.Load(), "%d requests sent", calls.Load())
}

// refHMACSHA1 is the reference signature: Base64 HMAC-SHA1 of message keyed
// with the test access key, computed without the SDK's code.
func refHMACSHA1(message string) string {
	m := hmac.New(sha1.New, []byte(testCreds.AccessKey.Reveal()))
	m.Write([]byte(message))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

const establishResponseJSON = `{"transaction":{
  "transactionId":"100258123456789","transactionType":1,
  "payment":{"paymentId":"100258123456790","paymentType":4,"merchantId":"1002463580","amount":"0.00","currency":"USD",
    "account":{"name":"Checking","type":1,"accountNumber":"0001","verified":true},
    "paymentProvider":{"paymentProviderId":"124003116","name":"Demo Bank","type":1}},
  "currency":"USD","amount":"0.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-9","status":10,"statusMessage":"Established"},
  "status":2,"statusMessage":"Authorized","createdAt":1700000000000,"merchantReference":"payout-2024-001","recordVersion":1}}`

// disbursementParams are the establish params of a Disbursement by account
// and routing number; every call returns an equal, separate value.
func disbursementParams() *models.EstablishData {
	return &models.EstablishData{
		Description:       "Weekly payout",
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: "payout-2024-001",
		PaymentType:       models.PaymentTypeDisbursement,
		NotificationURL:   "https://merchant.test/notify?src=bankpay",
		Metadata:          &models.Metadata{FlowType: "payouts"},
		Customer: &models.Customer{ExternalID: "cust-77", Name: "Jane Doe", Email: "jane@example.com", VIP: tierPtr(2),
			Address: &models.Address{Address1: "1 Main St", City: "Austin", State: "TX", Zip: "73301", Country: "US"}},
		Account: &models.Account{NameOnAccount: "Jane Doe", Type: 1, AccountNumber: "1000000001", RoutingNumber: "124003116"},
	}
}

func TestTransactions_EstablishDisbursement(t *testing.T) {
	body := disbursementBody()
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/establish", RawQuery: "createTransaction=true",
		ContentType: "application/json", Body: body}, 200, establishResponseJSON)

	p := disbursementParams()
	txn, err := c.Transactions.Establish(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "100258123456789", txn.TransactionID, "decoded %+v", txn)
	assert.Equal(t, models.TypeAuthorize, txn.TransactionType, "decoded %+v", txn)
	assert.Equal(t, models.StatusAuthorized, txn.Status, "decoded %+v", txn)
	assert.Equal(t, "Authorized", txn.StatusMessage, "decoded %+v", txn)
	if assert.NotNil(t, txn.Payment, "payment %+v", txn.Payment) {
		assert.Equal(t, models.PaymentTypeDisbursement, txn.Payment.PaymentType, "payment %+v", txn.Payment)
		assert.Equal(t, "0001", txn.Payment.Account.AccountNumber, "payment %+v", txn.Payment)
		assert.Equal(t, "124003116", txn.Payment.PaymentProvider.PaymentProviderID, "payment %+v", txn.Payment)
	}
	assert.Equal(t, models.Amount("0.00"), txn.Amount, "fields %+v", txn)
	assert.Equal(t, models.USD, txn.Currency, "fields %+v", txn)
	assert.Equal(t, "payout-2024-001", txn.MerchantReference, "fields %+v", txn)
	assert.True(t, txn.CreatedAt.Time().Equal(time.UnixMilli(1700000000000)), "fields %+v", txn)
	assert.Equal(t, models.ProviderStatus("10"), txn.PaymentProviderTransaction.Status, "fields %+v", txn)
	// The caller's params are untouched: signed and defaulted on a copy.
	assert.Equal(t, disbursementParams(), p, "Establish modified the caller's params: %+v", *p)
	assert.Empty(t, p.AccessID, "caller's params gained fields: %+v", *p)
	assert.Empty(t, p.MerchantID, "caller's params gained fields: %+v", *p)
	assert.Empty(t, p.RequestSignature, "caller's params gained fields: %+v", *p)
	assert.Empty(t, p.DeviceType, "caller's params gained fields: %+v", *p)
}

func TestTransactions_EstablishDeferredReplacesCallerCredentials(t *testing.T) {
	p := &models.EstablishData{
		AccessID: "forged-id", MerchantID: "999", RequestSignature: "forged-signature",
		Currency: models.USD, Amount: "25.00", MerchantReference: "order-42",
		PaymentType: models.PaymentTypeDeferred, TimeZone: "America/Chicago",
		ReturnURL: "https://merchant.test/return", CancelURL: "https://merchant.test/cancel",
		KYCType: models.KYCTypeIdentity,
	}
	const canonical = "accessId=test-access-id&merchantId=1002463580&currency=USD&amount=25.00" +
		"&merchantReference=order-42&paymentType=Deferred&timeZone=America/Chicago"
	body := `{"accessId":"test-access-id","merchantId":"1002463580","requestSignature":"` + refHMACSHA1(canonical) + `",` +
		`"currency":"USD","amount":"25.00","merchantReference":"order-42","timeZone":"America/Chicago",` +
		`"returnUrl":"https://merchant.test/return","cancelUrl":"https://merchant.test/cancel","kycType":1,"paymentType":"Deferred"}`
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/establish", RawQuery: "createTransaction=true",
		ContentType: "application/json", Body: body}, 200, authorizationJSON)
	txn, err := c.Transactions.Establish(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, "1002581234567", txn.TransactionID, "decoded %+v", txn)
	assert.Equal(t, models.PaymentTypeDeferred, txn.Payment.PaymentType, "decoded %+v", txn)
	assert.Equal(t, "forged-id", p.AccessID, "caller's params modified: %+v", *p)
	assert.Equal(t, "forged-signature", p.RequestSignature, "caller's params modified: %+v", *p)
	assert.Equal(t, "999", p.MerchantID, "caller's params modified: %+v", *p)
}

func TestTransactions_EstablishKeepsCallerDeviceType(t *testing.T) {
	c, mock, _ := newTestClient(t)
	var sent map[string]any
	sequence(t, mock, func(req *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(req.Body)
		err := json.Unmarshal(b, &sent)
		assert.NoError(t, err, "body is not JSON: %v", err)
		return jsonResponse(200, establishResponseJSON)(req)
	})
	p := disbursementParams()
	p.DeviceType = "ios"
	_, err := c.Transactions.Establish(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, "ios", sent["deviceType"], "deviceType = %v, want ios", sent["deviceType"])
}

func TestTransactions_EstablishRejectsInvalidData(t *testing.T) {
	for _, tc := range establishInvalidCases() {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Establish(context.Background(), ptrTo(tc.data()))
				return err
			})
		})
	}
	t.Run("nil params", func(t *testing.T) {
		checkRejected(t, "establishData", func(c *Client) error {
			_, err := c.Transactions.Establish(context.Background(), nil)
			return err
		})
	})
}

func TestTransactions_EstablishErrors(t *testing.T) {
	p := ptrTo(validDisbursement())
	const canonical = "accessId=test-access-id&merchantId=1002463580&currency=USD&amount=0.00" +
		"&merchantReference=payout-1&paymentType=Disbursement" +
		"&account.type=1&account.accountNumber=1000000001&account.routingNumber=124003116"
	body := `{"accessId":"test-access-id","merchantId":"1002463580","requestSignature":"` + refHMACSHA1(canonical) + `",` +
		`"currency":"USD","amount":"0.00","merchantReference":"payout-1",` +
		`"account":{"type":1,"accountNumber":"1000000001","routingNumber":"124003116"},"deviceType":"web","paymentType":"Disbursement"}`
	checkErrorResponses(t, wantRequest{Method: "POST", Path: "/api/v1/establish", RawQuery: "createTransaction=true",
		ContentType: "application/json", Body: body}, func(c *Client) error {
		_, err := c.Transactions.Establish(context.Background(), p)
		return err
	})
}

// TestTransactions_EstablishEmptyEnvelope: an establish answer that names no
// authorization (a null wrapper; the OpenAPI's EstablishData without a
// transactionId, empty or blank) is ErrInvalidResponse, never a success
// with an empty id: the call may have made one (OutcomeUnknown).
func TestTransactions_EstablishEmptyEnvelope(t *testing.T) {
	for _, body := range []string{`{"transaction":null}`, `{"url":"https://bank.example/flow"}`,
		`{"url":"https://bank.example/flow","transactionId":""}`, `{"url":"https://bank.example/flow","transactionId":"  "}`} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, body))
		got, err := c.Transactions.Establish(context.Background(), ptrTo(validDisbursement()))
		require.ErrorIs(t, err, ErrInvalidResponse, "%s: err = %v, want ErrInvalidResponse", body, err)
		assert.Nil(t, got, body)
		assert.True(t, OutcomeUnknown(err), body)
	}
}

const (
	refundPath  = "/api/v1/transactions/1002600000009/refund"
	reclaimPath = "/api/v1/transactions/1002600000011/reclaim"
	cancelPath  = "/api/v1/transactions/1002581234567/cancel"
)

// refundResponseJSON is a refund transaction (type 4) of capture
// 1002600000009, wrapped as the spec shapes single transactions.
const refundResponseJSON = `{"transaction":{"transactionId":"1002600000010","transactionType":6,"status":2,"amount":"1.00","transactionType":4,
  "originalTransactionId":"1002600000009","currency":"USD","amount":"40.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-90","status":"AC100","statusMessage":"payment pending"},
  "status":2,"statusMessage":"Authorized","createdAt":1700000900000,"merchantReference":"rf-1","recordVersion":1}}`

// refundResponseBare is the same, bare, with the OpenAPI's numeric strings.
const refundResponseBare = `{"transactionId":"1002600000010","transactionType":6,"status":2,"amount":"1.00","transactionType":"4","originalTransactionId":"1002600000009",
  "currency":"USD","amount":"40.00","status":"2","statusMessage":"Authorized","merchantReference":"rf-1",
  "paid":"0.00","refunded":"0.00","balance":"0.00","recordVersion":1.0}`

// twoXXFailures are 2xx responses a transaction call cannot decode.
var twoXXFailures = []struct{ name, body string }{
	{"not JSON", `<html>OK</html>`},
	{"truncated", `{"transaction":{"transactionId":"1002600000010","transactionType":6,"status":2,"amount":"1.00","transactionType":4`},
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

func TestTransactions_Refund(t *testing.T) {
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

func TestTransactions_RefundWholeBalance(t *testing.T) {
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

func TestTransactions_RefundRejects(t *testing.T) {
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

func TestTransactions_RefundErrors(t *testing.T) {
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
	ok := `{"transaction":{"transactionId":"9","transactionType":6,"status":2,"amount":"1.00","transactionType":4,"status":2},"refresh":{"processId":"p-1"}}`
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			ok := ok
			if name == "Cancel" { // answered with the transaction canceled
				ok = aboutID(ok, "1")
			}
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

func TestTransactions_Reclaim(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: reclaimPath, ContentType: "application/json",
		Body: `{"merchantReference":"rc-1","amount":"12.50"}`}, 200,
		`{"transaction":{"transactionId":"1002600000012","transactionType":6,"status":2,"amount":"1.00","transactionType":7,"originalTransactionId":"1002600000011","amount":"12.50","status":2}}`)
	r, err := c.Transactions.Reclaim(context.Background(), "1002600000011", &ReclaimParams{MerchantReference: "rc-1", Amount: "12.50"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.TypeReclaim, r.TransactionType)
	assert.Equal(t, "1002600000011", r.OriginalTransactionID)
	assert.Equal(t, models.Amount("12.50"), r.Amount)

	// The reference may be left out; the amount may not.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: reclaimPath, ContentType: "application/json", Body: `{"amount":"1.00"}`}, 200,
		`{"transactionId":"1002600000012","transactionType":6,"status":2,"amount":"1.00","transactionType":"7","status":"2"}`)
	_, err = c.Transactions.Reclaim(context.Background(), "1002600000011", &ReclaimParams{Amount: "1.00"})
	require.NoError(t, err)
}

func TestTransactions_ReclaimRejects(t *testing.T) {
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

func TestTransactions_ReclaimErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: reclaimPath, ContentType: "application/json", Body: `{"amount":"5.00"}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Reclaim(context.Background(), "1002600000011", &ReclaimParams{Amount: "5.00"})
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)
}

func TestTransactions_Cancel(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json",
		Body: `{"merchantReference":"ord-9","message":"customer revoked access","reason":3}`}, 200,
		`{"transaction":{"transactionId":"1002581234567","transactionType":6,"status":2,"amount":"1.00","transactionType":1,"status":7,"statusMessage":"Canceled",
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
		`{"transactionId":"1002581234567","transactionType":6,"status":2,"amount":"1.00","transactionType":"1","status":"7"}`)
	r, err = c.Transactions.Cancel(context.Background(), "1002581234567", nil)
	require.NoError(t, err)
	assert.Equal(t, models.StatusCanceled, r.Status)

	// 40 characters is the limit, counted in characters, not bytes.
	c, mock, _ = newTestClient(t)
	msg := "éééééééééééééééééééééééééééééééééééééééé"
	expect(t, mock, wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json", Body: `{"message":"` + msg + `"}`}, 200,
		`{"transactionId":"1002581234567","transactionType":6,"status":2,"amount":"1.00","status":7}`)
	_, err = c.Transactions.Cancel(context.Background(), "1002581234567", &CancelParams{Message: msg})
	require.NoError(t, err)
}

func TestTransactions_CancelRejects(t *testing.T) {
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

func TestTransactions_CancelErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: cancelPath, ContentType: "application/json", Body: `{}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Cancel(context.Background(), "1002581234567", nil)
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)
}

const preauthPath = "/api/v1/transactions/1002581234567/capture/preAuth"

const preauthResponseJSON = `{"transaction":{"transactionId":"1002600000020","transactionType":6,"status":2,"amount":"1.00","transactionType":10,
  "originalTransactionId":"1002581234567","currency":"USD","amount":"80.00","status":2,"statusMessage":"Authorized",
  "paymentProviderTransaction":{"status":"AC107","statusMessage":"waiting for capture"},
  "expiredAt":1700010800000,"preAuthorized":true,"merchantReference":"pa-1","recordVersion":1}}`

func TestTransactions_Preauthorize(t *testing.T) {
	c, mock, _ := newTestClient(t)
	// JSON (the OpenAPI's encoding), the split token as issued, the
	// withdrawal method under its dotted name.
	calls := expect(t, mock, wantRequest{Method: "POST", Path: preauthPath, ContentType: "application/json",
		Body: `{"merchantReference":"pa-1","amount":"80.00","period":3,"splitToken":"c3Bs+dG9r/ZW4=","externalTier":"vip",` +
			`"metadata.remittance.withdrawalMethod":"Cash","interactionId":"consumerNotPresent"}`}, 200, preauthResponseJSON)
	pa, err := c.Transactions.Preauthorize(context.Background(), "1002581234567", &PreauthorizeParams{
		MerchantReference: "pa-1", Amount: "80.00", Period: 3, SplitToken: "c3Bs+dG9r/ZW4=",
		ExternalTier: "vip", WithdrawalMethod: models.WithdrawalCash, InteractionID: "consumerNotPresent",
	})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.TypePreauthorization, pa.TransactionType)
	assert.Equal(t, "1002581234567", pa.OriginalTransactionID)
	assert.Equal(t, models.EpochMillis(1700010800000), pa.ExpiredAt)
	assert.True(t, pa.PreAuthorized)

	// The minimum: reference, amount, period.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: preauthPath, ContentType: "application/json",
		Body: `{"merchantReference":"pa-2","amount":"1.00","period":6}`}, 200,
		`{"transactionId":"1002600000021","transactionType":"10","status":"2","amount":"1.00","preAuthorized":true}`)
	pa, err = c.Transactions.Preauthorize(context.Background(), "1002581234567", &PreauthorizeParams{MerchantReference: "pa-2", Amount: "1.00", Period: 6})
	require.NoError(t, err)
	assert.Equal(t, models.TypePreauthorization, pa.TransactionType)
}

func TestTransactions_PreauthorizeRejects(t *testing.T) {
	ok := func() *PreauthorizeParams {
		return &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 1}
	}
	with := func(f func(*PreauthorizeParams)) *PreauthorizeParams { p := ok(); f(p); return p }
	for _, tc := range []struct {
		name, id string
		p        *PreauthorizeParams
		field    string
	}{
		{"empty id", "", ok(), "transactionId"},
		{"nil params", "1", nil, "preauthorizeParams"},
		{"no reference", "1", with(func(p *PreauthorizeParams) { p.MerchantReference = "" }), "merchantReference"},
		{"reference with +", "1", with(func(p *PreauthorizeParams) { p.MerchantReference = "a+b" }), "merchantReference"},
		{"no amount", "1", with(func(p *PreauthorizeParams) { p.Amount = "" }), "amount"},
		{"amount zero", "1", with(func(p *PreauthorizeParams) { p.Amount = "0.00" }), "amount"},
		{"amount over 10 characters", "1", with(func(p *PreauthorizeParams) { p.Amount = "10000000.00" }), "amount"},
		{"amount leading zero", "1", with(func(p *PreauthorizeParams) { p.Amount = "01.00" }), "amount"},
		{"no period", "1", with(func(p *PreauthorizeParams) { p.Period = 0 }), "period"},
		{"period 7", "1", with(func(p *PreauthorizeParams) { p.Period = 7 }), "period"},
		{"period negative", "1", with(func(p *PreauthorizeParams) { p.Period = -1 }), "period"},
		{"withdrawalMethod unknown", "1", with(func(p *PreauthorizeParams) { p.WithdrawalMethod = "Wire" }), "metadata.remittance.withdrawalMethod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Preauthorize(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
}

func TestTransactions_PreauthorizeErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: preauthPath, ContentType: "application/json",
		Body: `{"merchantReference":"pa","amount":"10.00","period":2}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Preauthorize(context.Background(), "1002581234567", &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 2})
		return err
	}
	checkErrorResponses(t, want, call)
	checkUndecodable(t, want, call)
}

const refreshPath = "/api/v1/transactions/1002581234567/refresh"

func TestTransactions_Refresh(t *testing.T) {
	// The OpenAPI's shape, {"refresh":{…}}, and a bare one.
	for name, resp := range map[string]string{
		"wrapped": `{"refresh":{"processId":"7f3c9a01"}}`,
		"bare":    `{"processId":"7f3c9a01"}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "POST", Path: refreshPath, ContentType: "application/json",
				Body: `{"splitToken":"c3Bs+dG9r/ZW4="}`}, 200, resp)
			id, err := c.Transactions.Refresh(context.Background(), "1002581234567", "c3Bs+dG9r/ZW4=")
			require.NoError(t, err)
			assert.Equal(t, "7f3c9a01", id)
			assert.EqualValues(t, 1, calls.Load())
		})
	}
}

func TestTransactions_RefreshRejects(t *testing.T) {
	for _, tc := range []struct{ name, id, token, field string }{
		{"empty id", "", "tok", "transactionId"},
		{"dot id", ".", "tok", "transactionId"},
		{"no split token", "1", "", "splitToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Refresh(context.Background(), tc.id, tc.token)
				return err
			})
		})
	}
}

func TestTransactions_RefreshErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: refreshPath, ContentType: "application/json", Body: `{"splitToken":"tok"}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Refresh(context.Background(), "1002581234567", "tok")
		return err
	}
	checkErrorResponses(t, want, call)
	for _, body := range []string{`<html>`, `{"refresh":{"processId":"7f`, `{}`, `{"refresh":null}`, `{"refresh":{}}`, `{"refresh":{"processId":""}}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, want, http.StatusOK, body)
		err := call(c)
		var re *ResponseError
		require.ErrorAs(t, err, &re, body)
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
		assert.Equal(t, "/transactions/1002581234567/refresh", re.Path)
	}
}

// TestAttack_MoneyCallAnsweredWithTheOriginal: a Deposit, Refund or
// Reclaim answered with the transaction it was made against (a cached or
// misrouted read: the authorization itself, its id the path's) is no
// deposit, refund or reclaim: a success would have the merchant record
// the authorization's id as the payout's. ErrInvalidResponse (outcome
// unknown: reconcile), never a success.
func TestAttack_MoneyCallAnsweredWithTheOriginal(t *testing.T) {
	const orig = `{"transaction":{"transactionId":"A1","transactionType":1,"status":2,"amount":"10.00"}}`
	for name, call := range madeFromA1() {
		for _, body := range []string{orig, `{"transactionId":"a1","transactionType":1,"status":2,"amount":"10.00"}`} {
			c, mock, _ := newTestClient(t)
			sequence(t, mock, jsonResponse(200, body))
			err := call(c)
			require.Error(t, err, "%s answered with the original %s: a success", name, body)
			var re *ResponseError
			assert.True(t, errors.As(err, &re), "%s: %v", name, err)
			assert.True(t, OutcomeUnknown(err), "%s: %v", name, err)
		}
	}
}

// TestTransactions_MoneyCallAnsweredAboutAnotherOriginal: a Deposit, Refund,
// Capture, Preauthorize or Reclaim of A1 answered with a new transaction
// made from another one (originalTransactionId A2: the answer to another
// call, a cache or proxy mixing answers up) is not the one this call made:
// a success would have the merchant record another payout's id, status and
// amount as this one's. ErrInvalidResponse (outcome unknown: reconcile).
// An answer whose originalTransactionId is A1 (in any case) or absent is
// the call's.
func TestTransactions_MoneyCallAnsweredAboutAnotherOriginal(t *testing.T) {
	const made = `{"transaction":{"transactionId":"D9","transactionType":6,"status":2,"amount":"10.00"%s}}`
	for name, call := range madeFromA1() {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, fmt.Sprintf(made, `,"originalTransactionId":"A2"`)))
		err := call(c)
		require.Error(t, err, "%s(A1) answered with a transaction made from A2: a success", name)
		assert.ErrorIs(t, err, ErrInvalidResponse, name)
		assert.True(t, OutcomeUnknown(err), "%s: %v", name, err)
		for _, own := range []string{`,"originalTransactionId":"A1"`, `,"originalTransactionId":" a1 "`, ``, `,"originalTransactionId":null`} {
			c, mock, _ := newTestClient(t)
			sequence(t, mock, jsonResponse(200, fmt.Sprintf(made, own)))
			assert.NoError(t, call(c), "%s answered with %s", name, own)
		}
	}
}

// madeFromA1 are the calls that make a new transaction from A1 (madeFrom).
func madeFromA1() map[string]func(c *Client) error {
	return map[string]func(c *Client) error{
		"Deposit": func(c *Client) error {
			_, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
			return err
		},
		"Refund": func(c *Client) error {
			_, err := c.Transactions.Refund(context.Background(), "A1", &RefundParams{MerchantReference: "r-1"})
			return err
		},
		"Capture": func(c *Client) error {
			_, err := c.Transactions.Capture(context.Background(), "A1", fullCaptureParams())
			return err
		},
		"Preauthorize": func(c *Client) error {
			_, err := c.Transactions.Preauthorize(context.Background(), "A1", &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 2})
			return err
		},
		"Reclaim": func(c *Client) error {
			_, err := c.Transactions.Reclaim(context.Background(), "A1", &ReclaimParams{MerchantReference: "rc-1", Amount: "1.00"})
			return err
		},
	}
}

// TestAttack_DepositDuplicateMembers: a Deposit answered with its identity
// emptied by a repeated member (the last wins, as in encoding/json) is
// ErrInvalidResponse and OutcomeUnknown, never a deposit with no id or no
// amount.
func TestAttack_DepositDuplicateMembers(t *testing.T) {
	for _, body := range []string{
		`{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","transactionId":""}}`,
		`{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","TransactionID":""}}`,
		`{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","transaction\u0049d":""}}`,
		`{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","amount":""}`,
	} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, body))
		txn, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
		require.Error(t, err, "%s: read as %+v", body, txn)
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
		assert.True(t, OutcomeUnknown(err), body)
	}
}

// TestAttack_GetAnsweredWithAnother: Transactions.Get(T1) or Cancel(T1)
// answered with another transaction (a cache or proxy mixing answers up)
// read as T1's: its status (Completed: ship) taken for T1's.
func TestAttack_GetAnsweredWithAnother(t *testing.T) {
	const other = `{"transaction":{"transactionId":"T2","transactionType":6,"status":4,"amount":"10.00"}}`
	for name, call := range map[string]func(c *Client) error{
		"Get": func(c *Client) error {
			_, err := c.Transactions.Get(context.Background(), "T1")
			return err
		},
		"Cancel": func(c *Client) error {
			_, err := c.Transactions.Cancel(context.Background(), "T1", nil)
			return err
		},
	} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, other))
		err := call(c)
		require.Error(t, err, "%s(T1) answered with T2: a success", name)
		assert.ErrorIs(t, err, ErrInvalidResponse, name)
	}
	// The same transaction, its id in another case, is T1.
	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(200, `{"transaction":{"transactionId":"t1","transactionType":6,"status":4,"amount":"10.00"}}`))
	_, err := c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
}

// aboutID is a fixture transaction answer with its transactionId replaced
// by id: an answer to Get(id) or Cancel(id), which must be about the
// transaction asked (TestAttack_GetAnsweredWithAnother).
func aboutID(body, id string) string {
	q, err := json.Marshal(id)
	if err != nil {
		panic(err)
	}
	all := regexp.MustCompile(`"transactionId"\s*:\s*"[^"]*"`).FindAllStringIndex(body, -1)
	if len(all) != 1 {
		panic("aboutID: not one transactionId in " + body)
	}
	loc := all[0]
	return body[:loc[0]] + `"transactionId":` + string(q) + body[loc[1]:]
}
