package bankpaytest_test

import (
	"testing"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

func vip(n int) *int { return &n }

type customerUpdate struct {
	models.Customer
	MerchantID string `json:"merchantId,omitempty"`
}

func vipServer(t *testing.T) (*bankpaytest.Server, *api, *api) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NoVIP: true}), bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	return srv, newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
}

func TestVIPFromEstablish(t *testing.T) {
	srv, plain, vipM := vipServer(t)
	d := uiData("vip-1", models.PaymentTypeDeferred, "1.00")
	d.Customer = &models.Customer{ExternalID: "ext-1", Name: "Jane Doe", VIP: vip(2), Email: "jane@example.com"}
	_, txn := vipM.authorize(d, bankpaytest.OutcomeAuthorize)
	c, ok := srv.Customer("ext-1")
	require.True(t, ok, "customer %+v %v", c, ok)
	require.NotNil(t, c.VIP, "customer %+v %v", c, ok)
	require.Equal(t, 2, *c.VIP, "customer %+v %v", c, ok)
	require.Equal(t, "Jane Doe", c.Name, "customer %+v %v", c, ok)
	require.NotEmpty(t, c.CustomerID, "customer %+v %v", c, ok)
	require.Equal(t, "jane@example.com", c.Email, "customer %+v %v", c, ok)
	of, ok := srv.CustomerOf(txn.TransactionID)
	require.True(t, ok, "CustomerOf %+v", of)
	require.Equal(t, c.CustomerID, of.CustomerID, "CustomerOf %+v", of)
	byID, ok := srv.CustomerByID(c.CustomerID)
	require.True(t, ok, "CustomerByID %+v", byID)
	require.Equal(t, "ext-1", byID.ExternalID, "CustomerByID %+v", byID)
	// A tier without a name is refused for a VIP merchant.
	noName := uiData("vip-2", models.PaymentTypeDeferred, "1.00")
	noName.Customer = &models.Customer{ExternalID: "ext-2", VIP: vip(1)}
	_, _, err := srv.Authorize(vipM.sign(noName), bankpaytest.OutcomeAuthorize)
	require.Error(t, err, "vip without name accepted")
	// A merchant not configured for VIP: the tier is ignored.
	d2 := uiData("vip-3", models.PaymentTypeDeferred, "1.00")
	d2.Customer = &models.Customer{ExternalID: "ext-plain", Name: "John Roe", VIP: vip(3)}
	plain.authorize(d2, bankpaytest.OutcomeAuthorize)
	pc, ok := srv.Customer("ext-plain")
	require.True(t, ok, "non-VIP merchant customer %+v", pc)
	require.Nil(t, pc.VIP, "non-VIP merchant customer %+v", pc)
	require.Equal(t, "John Roe", pc.Name, "non-VIP merchant customer %+v", pc)
}

func TestCustomerUpdates(t *testing.T) {
	srv, _, c := vipServer(t)
	mid := c.creds.MerchantID

	// By externalId: creates the customer.
	var env wire.CustomerEnvelope
	c.postJSON("/customers?externalId=ext-9", customerUpdate{models.Customer{Name: "Ann Lee", VIP: vip(1)}, mid}).wantOK(t, &env)
	created := env.Customer
	require.NotEmpty(t, created.CustomerID, "created %+v", created)
	require.Equal(t, "ext-9", created.ExternalID, "created %+v", created)
	require.NotNil(t, created.VIP, "created %+v", created)
	require.Equal(t, 1, *created.VIP, "created %+v", created)
	// By customerId: changes the tier.
	c.postJSON("/customers/"+created.CustomerID, customerUpdate{models.Customer{CustomerID: created.CustomerID, VIP: vip(3)}, mid}).wantOK(t, &env)
	require.NotNil(t, env.Customer.VIP, "updated %+v", env.Customer)
	require.Equal(t, 3, *env.Customer.VIP, "updated %+v", env.Customer)
	require.Equal(t, "Ann Lee", env.Customer.Name, "updated %+v", env.Customer)
	// vip 0 removes VIP (and is written as 0).
	a := c.postJSON("/customers?externalId=ext-9", customerUpdate{models.Customer{Name: "Ann Lee", VIP: vip(0)}, mid})
	a.wantOK(t, &env)
	require.NotNil(t, env.Customer.VIP, "removed %+v (%s)", env.Customer, a.body)
	require.Equal(t, 0, *env.Customer.VIP, "removed %+v (%s)", env.Customer, a.body)
	got, _ := srv.Customer("ext-9")
	require.NotNil(t, got.VIP, "srv.Customer %+v", got)
	require.Equal(t, 0, *got.VIP, "srv.Customer %+v", got)
	require.Equal(t, created.CustomerID, got.CustomerID, "srv.Customer %+v", got)
	// Details without a tier.
	c.postJSON("/customers/"+created.CustomerID, customerUpdate{models.Customer{Phone: "+15555550123"}, mid}).wantOK(t, &env)
	require.Equal(t, "+15555550123", env.Customer.Phone, "details %+v", env.Customer)
	require.Equal(t, 0, *env.Customer.VIP, "details %+v", env.Customer)
}

func TestCustomerUpdateRefusals(t *testing.T) {
	srv, plain, c := vipServer(t)
	mid := c.creds.MerchantID
	var env wire.CustomerEnvelope
	c.postJSON("/customers?externalId=known", customerUpdate{models.Customer{Name: "K"}, mid}).wantOK(t, &env)
	known := env.Customer.CustomerID

	cases := map[string]struct {
		c            *api
		path         string
		body         customerUpdate
		status, code int
	}{
		"merchant not configured for VIP": {plain, "/customers?externalId=p", customerUpdate{models.Customer{Name: "P", VIP: vip(1)}, plain.creds.MerchantID}, 400, 200},
		"not VIP removal either":          {plain, "/customers?externalId=p", customerUpdate{models.Customer{Name: "P", VIP: vip(0)}, plain.creds.MerchantID}, 400, 200},
		"negative tier":                   {c, "/customers?externalId=n", customerUpdate{models.Customer{Name: "N", VIP: vip(-1)}, mid}, 400, 200},
		"tier without a name":             {c, "/customers?externalId=nn", customerUpdate{models.Customer{VIP: vip(1)}, mid}, 400, 200},
		"no merchantId":                   {c, "/customers?externalId=m", customerUpdate{models.Customer{Name: "M"}, ""}, 400, 200},
		"other merchantId":                {c, "/customers?externalId=m", customerUpdate{models.Customer{Name: "M"}, "42"}, 401, 300},
		"no externalId":                   {c, "/customers", customerUpdate{models.Customer{Name: "M"}, mid}, 400, 200},
		"externalId differs":              {c, "/customers?externalId=a", customerUpdate{models.Customer{ExternalID: "b"}, mid}, 400, 200},
		"unknown customerId":              {c, "/customers/3999999999", customerUpdate{models.Customer{Name: "U"}, mid}, 404, 200},
		"customerId differs from path":    {c, "/customers/" + known, customerUpdate{models.Customer{CustomerID: "1"}, mid}, 400, 200},
		"another merchant's customer":     {plain, "/customers/" + known, customerUpdate{models.Customer{Name: "X"}, plain.creds.MerchantID}, 404, 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { tc.c.postJSON(tc.path, tc.body).wantError(t, tc.status, tc.code) })
	}
	_, ok := srv.Customer("p")
	require.False(t, ok, "refused update created a customer")
}
