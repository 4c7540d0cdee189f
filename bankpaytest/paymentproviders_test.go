package bankpaytest_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

type providersPage struct {
	PaymentProviders []models.PaymentProvider `json:"paymentProviders"`
	StartIndex       int                      `json:"startIndex"`
	ItemsPerPage     int                      `json:"itemsPerPage"`
}

func providerIDs(page providersPage) []string {
	ids := []string{}
	for _, p := range page.PaymentProviders {
		ids = append(ids, p.PaymentProviderID)
	}
	return ids
}

func TestPaymentProviders(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}), bankpaytest.WithMerchant(bankpaytest.Merchant{NoInstantPayout: true}))
	ms := srv.Merchants()
	c := newAPI(t, srv, ms[0].Credentials)

	var all providersPage
	c.get("/paymentProviders").wantOK(t, &all)
	assert.Len(t, all.PaymentProviders, 10)
	assert.Equal(t, 0, all.StartIndex)
	assert.Equal(t, 25, all.ItemsPerPage, "the default page size")
	demo := all.PaymentProviders[0]
	assert.Equal(t, models.PaymentProvider{PaymentProviderID: bankpaytest.SandboxProviderID, Type: 1, Name: bankpaytest.SandboxBankName,
		Country: "US", SubType: "1000", Swift: "DEMOUS33", InstantPayoutAvailable: true, InstantPayment: true}, demo)

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"countries=CA", []string{"200010001", "200010002"}},
		{"countries=CA&countries=UK", []string{"200010001", "200010002", "200020001"}},
		{"countries=FR", []string{}},
		{"countries=DE&paymentType=Deferred", []string{"200030001"}},
		{"countries=US&paymentType=verification", []string{"200005501", "200005502", "200005503", "200005504"}},
		{"paymentType=RETRIEVAL", []string{"200005501", "200005502"}},
		{"count=3", []string{"200005501", "200005502", "200005503"}},
		{"startIndex=3&count=3", []string{"200005504", "200010001", "200010002"}},
		{"startIndex=9&count=3", []string{"200040001"}},
		{"startIndex=10", []string{}},
		{"startIndex=100", []string{}},
		{"countries=US&startIndex=2&count=1", []string{"200005503"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			var page providersPage
			c.get("/paymentProviders?"+tc.query).wantOK(t, &page)
			assert.Equal(t, tc.want, providerIDs(page))
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			if s := q.Get("startIndex"); s != "" {
				assert.Equal(t, s, strconv.Itoa(page.StartIndex))
			}
			if n := q.Get("count"); n != "" {
				assert.Equal(t, n, strconv.Itoa(page.ItemsPerPage))
			}
		})
	}

	// The sandbox bank offers no instant payout to a merchant configured so.
	var other providersPage
	newAPI(t, srv, ms[1].Credentials).get("/paymentProviders?count=1").wantOK(t, &other)
	require.Len(t, other.PaymentProviders, 1)
	assert.False(t, other.PaymentProviders[0].InstantPayoutAvailable)

	for _, q := range []string{"countries=usa", "countries=US&countries=", "paymentType=Weekly", "startIndex=-1", "startIndex=x", "count=0", "count=-2", "count=1.5"} {
		t.Run("bad "+q, func(t *testing.T) {
			c.get("/paymentProviders?"+q).wantError(t, http.StatusBadRequest, 200)
		})
	}
}
