package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// requestCase is one SDK call with every field given a value of its own,
// and the request it must send, written by hand from the OpenAPI's (or the
// spec's) property names: never derived from the SDK's tags. A property
// renamed, swapped, dropped or added fails.
type requestCase struct {
	name string
	call func(ctx context.Context, c *bankpay.Client) error
	// want is every body field (nested objects dotted, numbers as written)
	// or, for a GET, every query parameter.
	want map[string]string
	// query, for a call with a body, is its exact query (nil: none).
	query map[string]string
}

func requestCases() []requestCase {
	return []requestCase{
		{"establish", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Establish(ctx, &models.EstablishData{Currency: models.USD, Amount: "25.00", MerchantReference: "mref-1",
				Description: "desc-1", PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://r.example/ok", CancelURL: "https://r.example/no",
				NotificationURL: "https://r.example/hook", KYCType: 1, DisplayAmount: "24.00",
				Customer: &models.Customer{ExternalID: "ext-1", Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+12025550143",
					Address: &models.Address{Address1: "1 Main St", Address2: "Apt 2", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}},
			})
			return err
		}, map[string]string{"accessId": "contract-access", "merchantId": "1002463580", "currency": "USD", "amount": "25.00",
			"merchantReference": "mref-1", "description": "desc-1", "paymentType": "Deferred", "returnUrl": "https://r.example/ok",
			"cancelUrl": "https://r.example/no", "notificationUrl": "https://r.example/hook", "kycType": "1", "displayAmount": "24.00",
			"customer.externalId": "ext-1", "customer.name": "Ada Lovelace", "customer.email": "ada@example.com", "customer.phone": "+12025550143",
			"customer.address.address1": "1 Main St", "customer.address.address2": "Apt 2", "customer.address.city": "Springfield",
			"customer.address.state": "IL", "customer.address.zip": "62701", "customer.address.country": "US", "requestSignature": "*"},
			map[string]string{"createTransaction": "true"}},
		{"deposit", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Deposit(ctx, AuthID, &bankpay.DepositParams{MerchantReference: "dep-9", Amount: "10.00",
				InstantPayoutRequest: true, ExternalTier: "gold"})
			return err
		}, map[string]string{"merchantReference": "dep-9", "amount": "10.00", "instantPayoutRequest": "true", "externalTier": "gold"}, nil},
		{"capture", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Capture(ctx, AuthID, &bankpay.CaptureParams{MerchantReference: "cap-9", Amount: "5.00",
				SplitToken: "Ab+cD/eF=", InteractionID: "int-9",
				Beneficiary: &models.Beneficiary{Name: "Bea Neff", Address: &models.Address{City: "Lyon", Country: "FR"}}})
			return err
		}, map[string]string{"merchantReference": "cap-9", "amount": "5.00", "splitToken": "Ab+cD/eF=", "interactionId": "int-9",
			"beneficiary.name": "Bea Neff", "beneficiary.address.city": "Lyon", "beneficiary.address.country": "FR"}, nil},
		{"preauthorize", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Preauthorize(ctx, AuthID, &bankpay.PreauthorizeParams{MerchantReference: "pa-9", Amount: "99.00", Period: 4,
				SplitToken: "Ab+cD/eF=", ExternalTier: "gold", WithdrawalMethod: "Cash", InteractionID: "int-8"})
			return err
		}, map[string]string{"merchantReference": "pa-9", "amount": "99.00", "period": "4", "splitToken": "Ab+cD/eF=", "externalTier": "gold",
			"metadata.remittance.withdrawalMethod": "Cash", "interactionId": "int-8"}, nil},
		{"refund", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Refund(ctx, TxnID, &bankpay.RefundParams{MerchantReference: "rf-9", Amount: "40.00"})
			return err
		}, map[string]string{"merchantReference": "rf-9", "amount": "40.00"}, nil},
		{"customer create", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Customers.Create(ctx, &bankpay.CustomerParams{Name: "Ada Lovelace", ExternalID: "ext-2", Email: "ada@example.com",
				Phone: "+12025550143", Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}})
			return err
		}, map[string]string{"name": "Ada Lovelace", "externalId": "ext-2", "email": "ada@example.com", "phone": "+12025550143",
			"address.address1": "1 Main St", "address.city": "Springfield", "address.state": "IL", "address.zip": "62701", "address.country": "US",
			"merchantId": "1002463580"}, nil},
		{"transactions list", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{MerchantReference: "ord-1", PaymentID: PaymentID,
				CustomerExternalID: ExternalID, OriginalTransactionID: AuthID, ListRange: bankpay.ListRange{StartIndex: 10, Count: 5}})
			return err
		}, map[string]string{"payment.merchantReference": "ord-1", "payment.paymentId": PaymentID, "payment.customer.externalId": ExternalID,
			"originalTransactionId": AuthID, "startIndex": "10", "count": "5"}, nil},
		{"payments list", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Payments.ListPage(ctx, &bankpay.PaymentListParams{MerchantReference: "ord-2", CustomerID: CustomerID,
				AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized}, ListRange: bankpay.ListRange{Count: 7}})
			return err
		}, map[string]string{"merchantReference": "ord-2", "customer.customerId": CustomerID, "authorization.status": "2", "count": "7", "startIndex": "0"}, nil},
		// The codes the spec gives and the schema does not pin: Registered is
		// status 4, subStatus 559; Void status 13, subStatus 558; in the
		// spec's {"feedback":{…}} and flat beside it (the OpenAPI's).
		{"identity register", func(ctx context.Context, c *bankpay.Client) error {
			return c.Identity.Register(ctx, TxnID, "member 42")
		}, map[string]string{"status": "4", "subStatus": "559", "description": "member 42",
			"feedback.status": "4", "feedback.subStatus": "559", "feedback.description": "member 42"}, nil},
		{"identity void", func(ctx context.Context, c *bankpay.Client) error {
			return c.Identity.Void(ctx, TxnID, "user left")
		}, map[string]string{"status": "13", "subStatus": "558", "description": "user left",
			"feedback.status": "13", "feedback.subStatus": "558", "feedback.description": "user left"}, nil},
		// verifyAccount only when asked.
		{"tokenize", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000009", RoutingNumber: "124003116"})
			return err
		}, map[string]string{"merchantId": "1002463580", "account.accountNumber": "1000000009", "account.routingNumber": "124003116"}, nil},
		{"tokenize verified", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000009", RoutingNumber: "124003116", VerifyAccount: true})
			return err
		}, map[string]string{"merchantId": "1002463580", "account.accountNumber": "1000000009", "account.routingNumber": "124003116"},
			map[string]string{"verifyAccount": "true"}},
		{"customers list", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Customers.List(ctx, &bankpay.CustomerListParams{ExternalID: ExternalID})
			return err
		}, map[string]string{"externalId": ExternalID}, nil},
	}
}

// sentFields reads a request's body (JSON, nested objects dotted; or a
// form) or, without one, its query.
func sentFields(t *testing.T, req *http.Request, body []byte) url.Values {
	t.Helper()
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		require.NoError(t, d.Decode(&obj))
		return Flatten(obj)
	case "application/x-www-form-urlencoded":
		v, err := url.ParseQuery(string(body))
		require.NoError(t, err)
		return v
	}
	return req.URL.Query()
}

// TestRequestValues checks each request field by field against the
// hand-written expectation.
func TestRequestValues(t *testing.T) {
	for _, rc := range requestCases() {
		t.Run(rc.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				got    url.Values
				query  url.Values
				method string
				seen   int
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				got = sentFields(t, r, body)
				query, method = r.URL.Query(), r.Method
				seen++
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
			}))
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			_ = rc.call(context.Background(), c) // the answer {} may not decode: the request is what is checked
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, 1, seen, "one request")
			for k, want := range rc.want {
				if want == "*" {
					assert.NotEmpty(t, got.Get(k), "%s: sent", k)
					continue
				}
				assert.Equal(t, want, got.Get(k), "field %s", k)
			}
			for k := range got {
				_, expected := rc.want[k]
				assert.True(t, expected, "field %s=%q sent, not expected", k, got.Get(k))
			}
			if rc.query != nil || len(query) > 0 && len(rc.want) > 0 && method != http.MethodGet {
				want := url.Values{}
				for k, v := range rc.query {
					want.Set(k, v)
				}
				assert.Equal(t, want, query, "the query")
			}
		})
	}
}
