package bankpay

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
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

func TestTransactionsGet(t *testing.T) {
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

func TestTransactionsGetEscapesID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/a%2F..%2Fcustomers%3Fx=1"}, 200, authorizationJSON)
	_, err := c.Transactions.Get(context.Background(), "a/../customers?x=1")
	require.NoError(t, err)
}

func TestTransactionsGetRejectsBadID(t *testing.T) {
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

func TestTransactionsGetEmptyEnvelope(t *testing.T) {
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

func TestTransactionsEstablishDisbursement(t *testing.T) {
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

func TestTransactionsEstablishDeferredReplacesCallerCredentials(t *testing.T) {
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

func TestTransactionsEstablishKeepsCallerDeviceType(t *testing.T) {
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

func TestTransactionsEstablishRejectsInvalidData(t *testing.T) {
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

func TestTransactionsEstablishErrors(t *testing.T) {
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

func TestTransactionsEstablishEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(200, `{"transaction":null}`))
	_, err := c.Transactions.Establish(context.Background(), ptrTo(validDisbursement()))
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v, want ErrInvalidResponse", err)
}
