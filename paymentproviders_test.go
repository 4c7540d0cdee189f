package bankpay

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

const providersPath = "/api/v1/paymentProviders"

// providersPage is a page of the OpenAPI's shape (startIndex and
// itemsPerPage as doubles) with the providers named ids.
func providersPage(start, perPage int, ids ...string) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(`{"paymentProviderId":%q,"type":1.0,"name":"Bank %s","country":"US","subType":"1000"}`, id, id)
	}
	return fmt.Sprintf(`{"paymentProviders":[%s],"startIndex":%d.0,"itemsPerPage":%d.0}`, strings.Join(items, ","), start, perPage)
}

func TestPaymentProviders_ListPage(t *testing.T) {
	c, mock, _ := newTestClient(t)
	body := `{"paymentProviders":[{"paymentProviderId":"200005501","type":1.0,"name":"Demo Bank","instantPayoutAvailable":true,
	  "subType":"1000","swift":"DEMOUS33","country":"US","instantPayment":true,
	  "address":{"address1":"1 Bank St","city":"Austin","state":"TX","zip":"73301","country":"US"}}],
	  "startIndex":4.0,"itemsPerPage":2.0}`
	calls := expect(t, mock, wantRequest{Method: "GET", Path: providersPath,
		RawQuery: "count=2&countries=US&countries=CA&paymentType=Deferred&startIndex=4"}, 200, body)

	page, err := c.PaymentProviders.ListPage(context.Background(), &PaymentProviderListParams{
		Countries: []string{"US", "CA"}, PaymentType: "Deferred", StartIndex: 4, Count: 2})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, 4, page.StartIndex)
	assert.Equal(t, 2, page.ItemsPerPage)
	assert.Equal(t, []models.PaymentProvider{{
		PaymentProviderID: "200005501", Type: 1, Name: "Demo Bank", InstantPayoutAvailable: true, SubType: "1000",
		Swift: "DEMOUS33", Country: "US", InstantPayment: true,
		Address: &models.Address{Address1: "1 Bank St", City: "Austin", State: "TX", Zip: "73301", Country: "US"},
	}}, page.Items)
}

func TestPaymentProviders_ListPageNoParams(t *testing.T) {
	for _, p := range []*PaymentProviderListParams{nil, {}} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: providersPath}, 200, providersPage(0, 25, "a", "b"))
		page, err := c.PaymentProviders.ListPage(context.Background(), p)
		require.NoError(t, err)
		assert.Len(t, page.Items, 2)
	}
}

// List reads page after page, as the loop asks, each from where the last
// one ended, until an empty page (a short page is not the end).
func TestPaymentProviders_List(t *testing.T) {
	c, mock, _ := newTestClient(t)
	var queries []string
	pages := map[string]string{
		"count=2&countries=DE&startIndex=1": providersPage(1, 2, "p1", "p2"),
		"count=2&countries=DE&startIndex=3": providersPage(3, 2, "p3", "p4"),
		"count=2&countries=DE&startIndex=5": providersPage(5, 2, "p5"),
		"count=2&countries=DE&startIndex=6": providersPage(6, 2),
	}
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		queries = append(queries, req.URL.RawQuery)
		checkRequest(t, req, wantRequest{Method: "GET", Path: providersPath, RawQuery: req.URL.RawQuery})
		body, ok := pages[req.URL.RawQuery]
		require.True(t, ok, "unexpected query %s", req.URL.RawQuery)
		return httpmock.NewStringResponse(200, body), nil
	})

	var ids []string
	for pp, err := range c.PaymentProviders.List(context.Background(), &PaymentProviderListParams{Countries: []string{"DE"}, StartIndex: 1, Count: 2}) {
		require.NoError(t, err)
		ids = append(ids, pp.PaymentProviderID)
	}
	assert.Equal(t, []string{"p1", "p2", "p3", "p4", "p5"}, ids)
	assert.Equal(t, []string{"count=2&countries=DE&startIndex=1", "count=2&countries=DE&startIndex=3", "count=2&countries=DE&startIndex=5",
		"count=2&countries=DE&startIndex=6"}, queries)
}

// Without a count, List asks pages of 100 from 0; a loop that stops
// early reads no further page.
func TestPaymentProviders_ListDefaultsAndBreak(t *testing.T) {
	c, mock, _ := newTestClient(t)
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	calls := expect(t, mock, wantRequest{Method: "GET", Path: providersPath, RawQuery: "count=100&startIndex=0"}, 200, providersPage(0, 100, ids...))
	n := 0
	for pp, err := range c.PaymentProviders.List(context.Background(), nil) {
		require.NoError(t, err)
		require.NotNil(t, pp)
		if n++; n == 3 {
			break
		}
	}
	assert.Equal(t, 3, n)
	assert.EqualValues(t, 1, calls.Load())
}

// An error ends the iteration: yielded once, with a nil provider.
func TestPaymentProviders_ListStopsOnError(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := sequence(t, mock,
		jsonResponse(200, providersPage(0, 2, "p1", "p2")),
		jsonResponse(400, `{"errors":[{"domain":"Validation","code":200,"message":"invalid startIndex"}]}`))
	var ids []string
	var errs []error
	for pp, err := range c.PaymentProviders.List(context.Background(), &PaymentProviderListParams{Count: 2}) {
		if err != nil {
			assert.Nil(t, pp)
			errs = append(errs, err)
			continue
		}
		ids = append(ids, pp.PaymentProviderID)
	}
	assert.Equal(t, []string{"p1", "p2"}, ids)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrBadRequest)
	assert.EqualValues(t, 2, calls.Load())
}

func TestPaymentProviders_ListRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *PaymentProviderListParams
		field string
	}{
		{"country lower case", &PaymentProviderListParams{Countries: []string{"US", "ca"}}, "countries"},
		{"country empty", &PaymentProviderListParams{Countries: []string{""}}, "countries"},
		{"unknown payment type", &PaymentProviderListParams{PaymentType: "Cheque"}, "paymentType"},
		{"negative start", &PaymentProviderListParams{StartIndex: -1}, "startIndex"},
		{"negative count", &PaymentProviderListParams{Count: -5}, "count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.PaymentProviders.ListPage(context.Background(), tc.p)
				return err
			})
			checkRejected(t, tc.field, func(c *Client) error {
				n := 0
				var last error
				for pp, err := range c.PaymentProviders.List(context.Background(), tc.p) {
					assert.Nil(t, pp)
					n, last = n+1, err
				}
				assert.Equal(t, 1, n, "the error is yielded once")
				return last
			})
		})
	}
}

func TestPaymentProviders_ListErrors(t *testing.T) {
	checkListErrors(t, wantRequest{Method: "GET", Path: providersPath}, func(c *Client) error {
		_, err := c.PaymentProviders.ListPage(context.Background(), nil)
		return err
	})
	checkListErrors(t, wantRequest{Method: "GET", Path: providersPath, RawQuery: "count=100&startIndex=0"}, func(c *Client) error {
		for _, err := range c.PaymentProviders.List(context.Background(), nil) {
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// A nil context is a *ValidationError of every new call, nothing sent.
func TestRefdataNilContext(t *testing.T) {
	var nilCtx context.Context
	for name, call := range map[string]func(*Client) error{
		"Countries.List": func(c *Client) error { _, err := c.Countries.List(nilCtx, nil); return err },
		"PaymentProviders.ListPage": func(c *Client) error {
			_, err := c.PaymentProviders.ListPage(nilCtx, nil)
			return err
		},
		"PaymentProviders.List": func(c *Client) error {
			for _, err := range c.PaymentProviders.List(nilCtx, nil) {
				return err
			}
			return nil
		},
		"Disputes.Create": func(c *Client) error { _, err := c.Disputes.Create(nilCtx, disputeParams()); return err },
	} {
		t.Run(name, func(t *testing.T) { checkRejected(t, "ctx", call) })
	}
}

// The fields only the list of providers carries are never sent in a
// capture's form body.
func TestPaymentProviderListFieldsNotInForms(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/1/capture", ContentType: "application/x-www-form-urlencoded",
		Body: "amount=5.00&beneficiary.address.country=MX&beneficiary.name=Ana+Ruiz" +
			"&beneficiaryAccount.paymentProvider.name=Banco&beneficiaryAccount.paymentProvider.swift=BANCMXMM&merchantReference=cap-1"},
		200, withField(captureResponseJSON, "originalTransactionId", "1"))
	_, err := c.Transactions.Capture(context.Background(), "1", &CaptureParams{MerchantReference: "cap-1", Amount: "5.00",
		Beneficiary: minimalBeneficiary(), BeneficiaryAccount: &models.BeneficiaryAccount{PaymentProvider: &models.PaymentProvider{
			Name: "Banco", Swift: "BANCMXMM", SubType: "1000", InstantPayment: true, Address: &models.Address{City: "CDMX"}}}})
	require.NoError(t, err)
}
