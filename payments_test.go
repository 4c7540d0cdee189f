package bankpay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

// paymentJSON is a payment as the OpenAPI shows it (numbers as doubles,
// codes as strings).
const paymentJSON = `{"paymentId":"1002581234568","paymentType":"2","merchantId":"1002463580",
  "merchant":{"merchantId":"1002463580","name":"Shop"},"merchantReference":"order-42","fingerprint":"fp",
  "verification":{"status":"1"},"description":"Order 42","currency":"USD","amount":"100.00",
  "account":{"name":"Checking","type":1.0,"accountNumber":"6789","verified":true},
  "paymentProvider":{"paymentProviderId":"051000017","name":"Demo Bank","type":1},
  "authorizationStatus":2.0,"authorizationStatusMessage":"Authorized",
  "pending":"10.00","paid":"40.00","refunded":"5.00","reversed":"0.00","balance":"35.00",
  "createdAt":1700000000000,"updatedAt":1700000500000,"recordVersion":4.0,"paymentFlow":1.0,
  "customer":{"customerId":"c-1","externalId":"cust-7","name":"Jane Doe","email":"jane@example.com","vip":"2"}}`

func checkPayment(t *testing.T, p *models.Payment) {
	t.Helper()
	assert.Equal(t, "1002581234568", p.PaymentID)
	assert.Equal(t, models.PaymentTypeDeferred, p.PaymentType)
	assert.Equal(t, "order-42", p.MerchantReference)
	assert.Equal(t, "Order 42", p.Description)
	assert.Equal(t, ptrTo(models.StatusAuthorized), p.AuthorizationStatus)
	assert.Equal(t, "Authorized", p.AuthorizationStatusMessage)
	assert.Equal(t, models.Amount("10.00"), p.Pending)
	assert.Equal(t, models.Amount("40.00"), p.Paid)
	assert.Equal(t, models.Amount("5.00"), p.Refunded)
	assert.Equal(t, models.Amount("0.00"), p.Reversed)
	assert.Equal(t, models.Amount("35.00"), p.Balance)
	assert.Equal(t, models.EpochMillis(1700000500000), p.UpdatedAt)
	assert.Equal(t, 4, p.RecordVersion)
	require.NotNil(t, p.Customer)
	assert.Equal(t, "cust-7", p.Customer.ExternalID)
	require.NotNil(t, p.Customer.VIP)
	assert.Equal(t, 2, *p.Customer.VIP)
	assert.Equal(t, "6789", p.Account.AccountNumber)
}

func TestPayments_Get(t *testing.T) {
	for name, body := range map[string]string{"bare": paymentJSON, "wrapped": `{"payment":` + paymentJSON + `}`} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments/1002581234568"}, 200, body)
			p, err := c.Payments.Get(context.Background(), "1002581234568")
			require.NoError(t, err)
			assert.Equal(t, int32(1), calls.Load())
			checkPayment(t, p)
		})
	}
}

// TestPayments_GetAnsweredAboutAnother: Payments.Get(P1) answered
// with another payment (a cache or proxy mixing answers up, as
// TestAttack_GetAnsweredWithAnother for transactions) read as P1's: its
// totals (paid, refunded: ship or not) taken for P1's. ErrInvalidResponse;
// the same payment, its id in another case or with blanks around it, is
// P1, and a paymentId of blanks is none.
func TestPayments_GetAnsweredAboutAnother(t *testing.T) {
	other := strings.Replace(paymentJSON, `"paymentId":"1002581234568"`, `"paymentId":"1002581234569"`, 1)
	for _, body := range []string{other, `{"payment":` + other + `}`,
		strings.Replace(paymentJSON, `"paymentId":"1002581234568"`, `"paymentId":"  "`, 1)} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments/1002581234568"}, 200, body)
		p, err := c.Payments.Get(context.Background(), "1002581234568")
		require.Error(t, err, "Get(1002581234568) answered about another payment: read as %+v", p)
		assert.ErrorIs(t, err, ErrInvalidResponse)
	}
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments/p-1"}, 200,
		strings.Replace(paymentJSON, `"paymentId":"1002581234568"`, `"paymentId":" P-1 "`, 1))
	_, err := c.Payments.Get(context.Background(), "p-1")
	require.NoError(t, err)
}

func TestPayments_GetEscapesID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments/a%2F..%2Ftransactions"}, 200, withField(paymentJSON, "paymentId", "a/../transactions"))
	_, err := c.Payments.Get(context.Background(), "a/../transactions")
	require.NoError(t, err)
}

func TestPayments_GetRejectsBadID(t *testing.T) {
	for _, id := range []string{"", ".", "..", "p\n1"} {
		checkRejected(t, "paymentId", func(c *Client) error {
			_, err := c.Payments.Get(context.Background(), id)
			return err
		})
	}
}

func TestPayments_GetErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		is     error
		tries  int32
	}{
		{"404", 404, `{"errors":[{"code":200,"message":"payment not found"}]}`, ErrNotFound, 1},
		{"400", 400, `{"errors":[{"code":200,"message":"Invalid parameter"}]}`, ErrBadRequest, 1},
		{"500, retried", 500, `{"errors":[{"code":100,"message":"Internal error"}]}`, ErrServer, 1 + defaultMaxRetries},
		{"not JSON", 200, `OK`, ErrInvalidResponse, 1},
		{"truncated", 200, `{"paymentId":"1`, ErrInvalidResponse, 1},
		{"empty object", 200, `{}`, ErrInvalidResponse, 1},
		{"null wrapper", 200, `{"payment":null}`, ErrInvalidResponse, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments/p-1"}, tc.status, tc.body)
			_, err := c.Payments.Get(context.Background(), "p-1")
			require.ErrorIs(t, err, tc.is)
			if tc.status == 200 {
				var re *ResponseError
				require.ErrorAs(t, err, &re)
			} else {
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tc.status, apiErr.StatusCode)
				assert.Equal(t, "/payments/p-1", apiErr.Path)
			}
			assert.Equal(t, tc.tries, calls.Load())
			assertNoSecret(t, err.Error())
		})
	}
}

func TestPayments_ListPageQuery(t *testing.T) {
	c, mock, _ := newTestClient(t)
	const query = "amount.max=200.00&amount.min=1.00&authorization.status=2&authorization.status=7&count=20" +
		"&createdAt.end=1700000100000&createdAt.start=1700000000000&customer.customerId=c-1" +
		"&merchantReference=order-42&orderBy=updatedAt&paymentType=2&sortOrder=asc&startIndex=40" +
		"&updatedAt.start=1700000200000"
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments", RawQuery: query}, 200,
		`{"payments":[`+paymentJSON+`],"startIndex":40.0,"itemsPerPage":20.0}`)
	page, err := c.Payments.ListPage(context.Background(), &PaymentListParams{
		PaymentTypes:          []models.PaymentType{models.PaymentTypeDeferred},
		AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized, models.StatusCanceled},
		MerchantReference:     "order-42",
		CustomerID:            "c-1",
		ListRange: ListRange{
			AmountMin:      "1.00",
			AmountMax:      "200.00",
			CreatedAtStart: time.UnixMilli(1700000000000),
			CreatedAtEnd:   time.UnixMilli(1700000100000),
			UpdatedAtStart: time.UnixMilli(1700000200000),
			OrderBy:        "updatedAt",
			SortOrder:      "asc",
			StartIndex:     40,
			Count:          20,
		},
	})
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, 40, page.StartIndex)
	assert.Equal(t, 20, page.ItemsPerPage)
	require.Len(t, page.Items, 1)
	checkPayment(t, &page.Items[0])
}

func TestPayments_List(t *testing.T) {
	c, mock, _ := newTestClient(t)
	two := `{"payments":[` + paymentJSON + `,` + paymentJSON + `],"startIndex":0,"itemsPerPage":2}`
	n := pages(t, mock, "/api/v1/payments",
		pageStep{"count=2&paymentType=4&startIndex=0", two},
		pageStep{"count=2&paymentType=4&startIndex=2", `{"payments":[],"startIndex":2,"itemsPerPage":2}`},
	)
	count := 0
	for p, err := range c.Payments.List(context.Background(), &PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDisbursement}, ListRange: ListRange{Count: 2}}) {
		require.NoError(t, err)
		assert.Equal(t, "order-42", p.MerchantReference)
		count++
	}
	assert.Equal(t, 2, count)
	assert.Equal(t, 2, n())
}

// A server whose itemsPerPage says the count asked while its pages hold
// fewer does not end the list early: only an empty page does. A page with
// more than asked is an ErrInvalidResponse.
func TestPayments_ListShortAndOversizedPages(t *testing.T) {
	c, mock, _ := newTestClient(t)
	two := func(start int) string {
		p := strings.Replace(paymentJSON, `"order-42"`, fmt.Sprintf(`"order-%d"`, start), 1)
		return fmt.Sprintf(`{"payments":[%s,%s],"startIndex":%d,"itemsPerPage":5}`, p, p, start)
	}
	n := pages(t, mock, "/api/v1/payments",
		pageStep{"count=5&startIndex=0", two(0)},
		pageStep{"count=5&startIndex=2", two(2)},
		pageStep{"count=5&startIndex=4", `{"payments":[],"startIndex":4,"itemsPerPage":5}`},
	)
	count := 0
	for _, err := range c.Payments.List(context.Background(), &PaymentListParams{ListRange: ListRange{Count: 5}}) {
		require.NoError(t, err)
		count++
	}
	assert.Equal(t, 4, count)
	assert.Equal(t, 3, n())

	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments", RawQuery: "count=1&startIndex=0"}, 200, two(0))
	_, err := c.Payments.ListPage(context.Background(), &PaymentListParams{ListRange: ListRange{Count: 1}})
	require.ErrorIs(t, err, ErrInvalidResponse)
	assert.Contains(t, err.Error(), "more than the 1 items asked")
}

func TestPayments_ListErrors(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments", RawQuery: "count=100&startIndex=0"}, 200, `{"transactions":[]}`)
	for p, err := range c.Payments.List(context.Background(), nil) {
		assert.Nil(t, p)
		assert.ErrorIs(t, err, ErrInvalidResponse, "no payments array")
	}
	assert.Equal(t, int32(1), calls.Load())

	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/payments", RawQuery: "count=100&startIndex=0"}, 400,
		`{"errors":[{"code":200,"message":"Invalid parameter: orderBy"}]}`)
	_, err := c.Payments.ListPage(context.Background(), nil)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 200, apiErr.Code)
}

func TestPayments_ListRejectsInvalidParams(t *testing.T) {
	for _, tc := range []struct {
		field string
		p     PaymentListParams
	}{
		{"paymentType", PaymentListParams{PaymentTypes: []models.PaymentType{0}}},
		{"authorization.status", PaymentListParams{AuthorizationStatuses: []models.TransactionStatus{9}}},
		{"merchantReference", PaymentListParams{MerchantReference: "a\tb"}},
		{"customer.customerId", PaymentListParams{CustomerID: "c\n"}},
		{"amount.min", PaymentListParams{ListRange: ListRange{AmountMin: "1.5"}}},
		{"amount.max", PaymentListParams{ListRange: ListRange{AmountMin: "2.00", AmountMax: "1.00"}}},
		{"createdAt.end", PaymentListParams{ListRange: ListRange{CreatedAtStart: time.UnixMilli(10), CreatedAtEnd: time.UnixMilli(9)}}},
		{"updatedAt.start", PaymentListParams{ListRange: ListRange{UpdatedAtStart: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{"orderBy", PaymentListParams{ListRange: ListRange{OrderBy: "processedAt"}}},
		{"sortOrder", PaymentListParams{ListRange: ListRange{SortOrder: "DESC "}}},
		{"startIndex", PaymentListParams{ListRange: ListRange{StartIndex: -5}}},
		{"count", PaymentListParams{ListRange: ListRange{Count: 5000}}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Payments.ListPage(context.Background(), &tc.p)
				return err
			})
			checkRejected(t, tc.field, func(c *Client) error {
				for _, err := range c.Payments.List(context.Background(), &tc.p) {
					return err
				}
				return nil
			})
		})
	}
}
