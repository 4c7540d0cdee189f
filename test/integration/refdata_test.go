package integration

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// --- Reference data ---------------------------------------------------------

// TestReferenceData: a merchant lists the countries where it can
// pay out and the banks a user of one of them can pick, page by page.
func TestReferenceData(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()

		all, err := s.client.Countries.List(ctx, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"US", "CA", "UK", "DE", "AU"}, countryCodes(all))
		for _, c := range all {
			assert.True(t, c.Enabled)
			assert.NotEmpty(t, c.Currencies)
		}
		assert.Equal(t, models.Country{NumericCode: 124, Alpha2Code: "CA", Alpha3Code: "CAN", Name: "Canada", Currencies: []string{"CAD"},
			PaymentTypes:            []string{"instant", "deferred", "recurring", "disbursement", "verification"},
			PaymentProviderSubtypes: []string{"1000", "2000"}, Enabled: true}, all[1])

		payout, err := s.client.Countries.List(ctx, &bankpay.CountryListParams{PaymentType: "Disbursement"})
		require.NoError(t, err)
		assert.Equal(t, []string{"US", "CA", "AU"}, countryCodes(payout))
		every, err := s.client.Countries.List(ctx, &bankpay.CountryListParams{Enabled: new(bool)})
		require.NoError(t, err)
		assert.Equal(t, []string{"US", "CA", "UK", "DE", "AU", "MX"}, countryCodes(every))
		assert.False(t, every[5].Enabled)
		manual, err := s.client.Countries.List(ctx, &bankpay.CountryListParams{Country: "CA", PaymentProviderSubType: "2000"})
		require.NoError(t, err)
		assert.Equal(t, []string{"CA"}, countryCodes(manual))
		none, err := s.client.Countries.List(ctx, &bankpay.CountryListParams{Country: "FR"})
		require.NoError(t, err)
		assert.Empty(t, none)

		// Every provider, three per page: four pages, the last one short, and
		// the empty one that ends the list (a short page is not the end).
		var requests atomic.Int32
		c, err := bankpay.NewClient(s.Credentials(), bankpay.WithBaseURL(s.URL), bankpay.WithTransport(func(base http.RoundTripper) http.RoundTripper {
			return refdataRoundTrip(func(req *http.Request) (*http.Response, error) {
				requests.Add(1)
				return base.RoundTrip(req)
			})
		}))
		require.NoError(t, err)
		var ids []string
		for pp, err := range c.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{Count: 3}) {
			require.NoError(t, err)
			ids = append(ids, pp.PaymentProviderID)
		}
		assert.Len(t, ids, 10)
		assert.EqualValues(t, 5, requests.Load())
		assert.Equal(t, bankpaytest.SandboxProviderID, ids[0], "the sandbox bank first")
		for i := 0; i < 10; i += 3 {
			page, err := s.client.PaymentProviders.ListPage(ctx, &bankpay.PaymentProviderListParams{StartIndex: i, Count: 3})
			require.NoError(t, err)
			assert.Equal(t, i, page.StartIndex)
			assert.Equal(t, 3, page.ItemsPerPage)
			assert.Equal(t, ids[i:min(i+3, 10)], providerIDs(page.Items))
		}

		// The banks of Canada and the UK a Deferred payment can use.
		var names []string
		for pp, err := range s.client.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{Countries: []string{"CA", "UK"}, PaymentType: "Deferred"}) {
			require.NoError(t, err)
			names = append(names, pp.Name+" ("+pp.Country+", "+pp.SubType+")")
		}
		assert.Equal(t, []string{"Maple Demo Bank (CA, 1000)", "Northern Credit Union (CA, 2000)", "Thames Demo Bank (UK, 1000)"}, names)

		// Checked before sending.
		_, err = s.client.Countries.List(ctx, &bankpay.CountryListParams{Country: "ca"})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "country", ve.Field)
	})
}

func countryCodes(cs []models.Country) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Alpha2Code)
	}
	return out
}

func providerIDs(ps []models.PaymentProvider) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.PaymentProviderID)
	}
	return out
}

type refdataRoundTrip func(*http.Request) (*http.Response, error)

func (f refdataRoundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
