package bankpay

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

const countriesPath = "/api/v1/countries"

// countriesJSON is the OpenAPI's response shape, numericCode written as a
// double as the OpenAPI's numbers often are.
const countriesJSON = `{"countries":[
  {"numericCode":840,"alpha2Code":"US","alpha3Code":"USA","name":"United States","currencies":["USD"],
   "paymentTypes":["instant","deferred","disbursement"],"paymentProviderSubtypes":["1000","2000"],"enabled":true},
  {"numericCode":826.0,"alpha2Code":"UK","alpha3Code":"GBR","name":"United Kingdom","currencies":["GBP"],
   "paymentTypes":["instant"],"paymentProviderSubtypes":["1000"],"enabled":"false"}]}`

func TestCountries_List(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: countriesPath,
		RawQuery: "country=US&enabled=false&paymentProvider.subType=1000&paymentType=Deferred"}, 200, countriesJSON)

	got, err := c.Countries.List(context.Background(), &CountryListParams{
		Country: "US", PaymentType: "Deferred", PaymentProviderSubType: "1000", Enabled: ptrTo(false)})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, []models.Country{
		{NumericCode: 840, Alpha2Code: "US", Alpha3Code: "USA", Name: "United States", Currencies: []string{"USD"},
			PaymentTypes: []string{"instant", "deferred", "disbursement"}, PaymentProviderSubtypes: []string{"1000", "2000"}, Enabled: true},
		{NumericCode: 826, Alpha2Code: "UK", Alpha3Code: "GBR", Name: "United Kingdom", Currencies: []string{"GBP"},
			PaymentTypes: []string{"instant"}, PaymentProviderSubtypes: []string{"1000"}, Enabled: false},
	}, got)
}

func TestCountries_ListQueries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *CountryListParams
		query string
	}{
		{"nil params", nil, ""},
		{"empty params", &CountryListParams{}, ""},
		{"enabled true", &CountryListParams{Enabled: ptrTo(true)}, "enabled=true"},
		{"payment type lower case", &CountryListParams{PaymentType: "instant"}, "paymentType=instant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			expect(t, mock, wantRequest{Method: "GET", Path: countriesPath, RawQuery: tc.query}, 200, countriesJSON)
			got, err := c.Countries.List(context.Background(), tc.p)
			require.NoError(t, err)
			assert.Len(t, got, 2)
		})
	}
}

// A bare array, and an empty list, read too.
func TestCountries_ListShapes(t *testing.T) {
	for body, n := range map[string]int{
		`[{"alpha2Code":"CA","enabled":true}]`: 1,
		`{"countries":[]}`:                     0,
	} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: countriesPath}, 200, body)
		got, err := c.Countries.List(context.Background(), nil)
		require.NoError(t, err, body)
		assert.Len(t, got, n, body)
	}
}

func TestCountries_ListRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *CountryListParams
		field string
	}{
		{"country lower case", &CountryListParams{Country: "us"}, "country"},
		{"country alpha-3", &CountryListParams{Country: "USA"}, "country"},
		{"unknown payment type", &CountryListParams{PaymentType: "Weekly"}, "paymentType"},
		{"subtype not digits", &CountryListParams{PaymentProviderSubType: "10a0"}, "paymentProvider.subType"},
		{"subtype too long", &CountryListParams{PaymentProviderSubType: "10000"}, "paymentProvider.subType"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Countries.List(context.Background(), tc.p)
				return err
			})
		})
	}
}

func TestCountries_ListErrors(t *testing.T) {
	checkListErrors(t, wantRequest{Method: "GET", Path: countriesPath}, func(c *Client) error {
		_, err := c.Countries.List(context.Background(), nil)
		return err
	})
}

// checkListErrors checks the error responses of a read: a 4xx is an
// *APIError with its code, sent once; a 5xx is retried and then an
// *APIError; a 2xx that is not the list is a *ResponseError.
func checkListErrors(t *testing.T, want wantRequest, call func(*Client) error) {
	t.Helper()
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		code     int
		message  string
		is       error
		attempts int
	}{
		{"400 invalid parameter", 400, `{"errors":[{"domain":"Validation","code":200,"message":"invalid parameter"}]}`, 200, "invalid parameter", ErrBadRequest, 1},
		{"400 bare message", 400, `{"message":"invalid country"}`, 0, "invalid country", ErrBadRequest, 1},
		{"401 access control", 401, `{"errors":[{"domain":"Security","code":375,"message":"access denied"}]}`, 375, "access denied", ErrUnauthorized, 1},
		{"500 internal", 500, `{"errors":[{"domain":"Internal","code":100,"message":"internal error"}]}`, 100, "internal error", ErrServer, 1 + defaultMaxRetries},
		{"503 not JSON", 503, `<html>unavailable</html>`, 0, "", ErrServer, 1 + defaultMaxRetries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, w := newTestClient(t)
			calls := expect(t, mock, want, tc.status, tc.body)
			err := call(c)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.ErrorIs(t, err, tc.is)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
			assert.Equal(t, tc.message, apiErr.Message)
			assert.Equal(t, want.Method, apiErr.Method)
			assert.Equal(t, want.Path[len("/api/v1"):], apiErr.Path)
			assert.EqualValues(t, tc.attempts, calls.Load())
			assert.Equal(t, tc.attempts, apiErr.Attempts)
			assert.Len(t, w.list, tc.attempts-1)
			assertNoSecret(t, err.Error())
		})
	}
	for _, body := range []string{``, `<html>ok</html>`, `{"countries":[{"alpha2Code":"US"`, `{"paymentProviders":[{"name":"Bank"`, `{"other":[]}`, `{"countries":{},"paymentProviders":{}}`} {
		t.Run("200 "+body, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, want, 200, body)
			err := call(c)
			var re *ResponseError
			require.ErrorAs(t, err, &re)
			assert.ErrorIs(t, err, ErrInvalidResponse)
			assert.Equal(t, http.StatusOK, re.StatusCode)
			assert.EqualValues(t, 1, calls.Load())
		})
	}
}
