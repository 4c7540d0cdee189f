package bankpaytest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// newCustomer is a complete customer for POST /customers.
func newCustomer(ext, email, phone string) models.Customer {
	return models.Customer{ExternalID: ext, Name: "Ann Lee", Email: email, Phone: phone,
		Address: &models.Address{Address1: "1 Main St", City: "Austin", State: "TX", Zip: "73301", Country: "US"}}
}

func TestCustomerCreate(t *testing.T) {
	srv, _, c := vipServer(t)
	mid := c.creds.MerchantID

	var env wire.CustomerEnvelope
	c.postJSON("/customers", customerUpdate{newCustomer("", "ann@example.com", "+15125550101"), mid}).wantOK(t, &env)
	require.NotNil(t, env.Customer)
	created := *env.Customer // env is decoded into again below
	env = wire.CustomerEnvelope{}
	assert.NotEmpty(t, created.CustomerID)
	assert.Equal(t, mid, created.MerchantID)
	assert.Equal(t, friday, created.CreatedAt.Time())
	assert.Equal(t, created.CreatedAt, created.UpdatedAt)
	assert.Empty(t, created.ExternalID)

	// Named by customerId: updated, not created.
	srv.Advance(60_000_000_000) // a minute
	c.postJSON("/customers", customerUpdate{models.Customer{CustomerID: created.CustomerID, ExternalID: "ext-20", VIP: vip(2)}, mid}).wantOK(t, &env)
	assert.Equal(t, created.CustomerID, env.Customer.CustomerID)
	assert.Equal(t, "Ann Lee", env.Customer.Name, "fields not sent are kept")
	assert.Equal(t, "ext-20", env.Customer.ExternalID)
	require.NotNil(t, env.Customer.VIP)
	assert.Equal(t, 2, *env.Customer.VIP)
	assert.Equal(t, created.CreatedAt, env.Customer.CreatedAt)
	assert.Greater(t, env.Customer.UpdatedAt, created.UpdatedAt)

	// Named by a known externalId: the same record.
	c.postJSON("/customers", customerUpdate{models.Customer{ExternalID: "ext-20", Email: "ann.lee@example.com"}, mid}).wantOK(t, &env)
	assert.Equal(t, created.CustomerID, env.Customer.CustomerID)
	assert.Equal(t, "ann.lee@example.com", env.Customer.Email)
	got, ok := srv.Customer("ext-20")
	require.True(t, ok)
	assert.Equal(t, *env.Customer, got)

	// A new externalId is a new record, with every required field.
	env = wire.CustomerEnvelope{}
	c.postJSON("/customers", customerUpdate{newCustomer("ext-21", "bo@example.com", "+15125550102"), mid}).wantOK(t, &env)
	assert.NotEqual(t, created.CustomerID, env.Customer.CustomerID)
}

func TestCustomerCreateRefusals(t *testing.T) {
	_, plain, c := vipServer(t)
	mid := c.creds.MerchantID
	full := func() models.Customer { return newCustomer("", "ann@example.com", "+15125550101") }
	for name, tc := range map[string]struct {
		body         customerUpdate
		status, code int
	}{
		"no name":          {customerUpdate{func() models.Customer { x := full(); x.Name = ""; return x }(), mid}, 400, 200},
		"no email":         {customerUpdate{func() models.Customer { x := full(); x.Email = ""; return x }(), mid}, 400, 200},
		"no phone":         {customerUpdate{func() models.Customer { x := full(); x.Phone = ""; return x }(), mid}, 400, 200},
		"no country":       {customerUpdate{func() models.Customer { x := full(); x.Address.Country = ""; return x }(), mid}, 400, 200},
		"new ext, no name": {customerUpdate{models.Customer{ExternalID: "ext-new", Email: "x@example.com"}, mid}, 400, 200},
		"unknown id":       {customerUpdate{models.Customer{CustomerID: "3999999999", Name: "X"}, mid}, 404, 200},
		"no merchantId":    {customerUpdate{full(), ""}, 400, 200},
		"other merchantId": {customerUpdate{full(), "1999999999"}, 401, 300},
		"negative vip":     {customerUpdate{func() models.Customer { x := full(); x.VIP = vip(-1); return x }(), mid}, 400, 200},
	} {
		t.Run(name, func(t *testing.T) { c.postJSON("/customers", tc.body).wantError(t, tc.status, tc.code) })
	}
	// A merchant not configured for VIP tiers cannot set one.
	b := full()
	b.VIP = vip(1)
	plain.postJSON("/customers", customerUpdate{b, plain.creds.MerchantID}).wantError(t, 400, 200)
}

func TestCustomerGetAndList(t *testing.T) {
	_, other, c := vipServer(t)
	mid := c.creds.MerchantID
	var a, b wire.CustomerEnvelope
	c.postJSON("/customers", customerUpdate{newCustomer("ext-1", "a@example.com", "+15125550101"), mid}).wantOK(t, &a)
	c.postJSON("/customers", customerUpdate{newCustomer("ext-2", "b@example.com", "+15125550102"), mid}).wantOK(t, &b)
	other.postJSON("/customers", customerUpdate{newCustomer("ext-1", "o@example.com", "+15125550103"), other.creds.MerchantID}).wantOK(t, nil)

	var got wire.CustomerEnvelope
	c.get("/customers/"+a.Customer.CustomerID).wantOK(t, &got)
	assert.Equal(t, a.Customer, got.Customer)
	c.get("/customers/3999999999").wantError(t, 404, 200)
	other.get("/customers/"+a.Customer.CustomerID).wantError(t, 404, 200)

	list := func(q url.Values) []string {
		var l struct {
			Customers []models.Customer `json:"customers"`
		}
		c.get("/customers?"+q.Encode()).wantOK(t, &l)
		require.NotNil(t, l.Customers, "an empty list is [], not null")
		ids := []string{}
		for _, cu := range l.Customers {
			ids = append(ids, cu.ExternalID)
		}
		return ids
	}
	assert.Equal(t, []string{"ext-1", "ext-2"}, list(nil), "this merchant's customers, in creation order")
	assert.Equal(t, []string{"ext-2"}, list(url.Values{"externalId": {"ext-2"}}))
	assert.Equal(t, []string{"ext-1"}, list(url.Values{"customerId": {a.Customer.CustomerID}}))
	assert.Equal(t, []string{}, list(url.Values{"customerId": {a.Customer.CustomerID}, "externalId": {"ext-2"}}))
	assert.Equal(t, []string{}, list(url.Values{"externalId": {"nobody"}}))

	// Bare mode: the record without its wrapper.
	srv := newServer(t, bankpaytest.WithBareResponses())
	bare := newAPI(t, srv, srv.Credentials())
	bare.postJSON("/customers", customerUpdate{newCustomer("ext-1", "a@example.com", "+15125550101"), bare.creds.MerchantID}).wantOK(t, &a)
	var rec models.Customer
	bare.get("/customers/"+a.Customer.CustomerID).wantOK(t, &rec)
	assert.Equal(t, *a.Customer, rec)
}

func TestCustomerLookup(t *testing.T) {
	srv, other, c := vipServer(t)
	lookup := func(email, phone string) bool {
		t.Helper()
		q := url.Values{"email": {email}}
		if phone != "" {
			q.Set("phone", phone)
		}
		var r struct {
			Known *bool `json:"isInTrustlyNetwork"`
		}
		other.get("/customers/lookup?"+q.Encode()).wantOK(t, &r)
		require.NotNil(t, r.Known)
		return *r.Known
	}
	assert.False(t, lookup("ann@example.com", ""))

	// A customer record alone is not a user of the service.
	c.postJSON("/customers", customerUpdate{newCustomer("ext-1", "ann@example.com", "+15125550101"), c.creds.MerchantID}).wantOK(t, nil)
	assert.False(t, lookup("ann@example.com", "+15125550101"))

	// A cancelled authorization does not count either.
	d := uiData("look-1", models.PaymentTypeDeferred, "1.00")
	d.Customer = &models.Customer{ExternalID: "ext-1"}
	c.authorize(d, bankpaytest.OutcomeCancel)
	assert.False(t, lookup("ann@example.com", ""))

	// Authorized, at another merchant: known by email (any case) or phone.
	d.MerchantReference = "look-2"
	c.authorize(d, bankpaytest.OutcomeAuthorize)
	assert.True(t, lookup("ANN@example.com", ""))
	assert.True(t, lookup("nobody@example.com", "+15125550101"))
	assert.False(t, lookup("nobody@example.com", "+15125550199"))

	// The holder of the bank account used is known too.
	var u struct {
		User models.BankUser `json:"user"`
	}
	r := uiData("look-3", models.PaymentTypeRetrieval, "0.00")
	_, rt := c.authorize(r, bankpaytest.OutcomeAuthorize)
	c.get("/transactions/"+rt.TransactionID+"/payment/paymentProvider/user").wantOK(t, &u)
	require.NotEmpty(t, u.User.Email)
	assert.True(t, lookup(u.User.Email[0], ""))

	// Errors are written as errorsList; the call needs credentials.
	for q, msg := range map[string]string{"": "email is required", "email=ann.example.com": "not a valid email"} {
		a := c.get("/customers/lookup?" + q)
		require.Equal(t, http.StatusBadRequest, a.status, q)
		var eb struct {
			ErrorsList []struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"errorsList"`
		}
		a.decode(t, &eb)
		require.Len(t, eb.ErrorsList, 1, string(a.body))
		assert.Equal(t, 200, eb.ErrorsList[0].Code)
		assert.Contains(t, eb.ErrorsList[0].Message, msg)
	}
	assert.Equal(t, http.StatusUnauthorized, send(t, nil, http.MethodGet, srv.URL+"/customers/lookup?email=a%40b.example", "", nil).status)
}
